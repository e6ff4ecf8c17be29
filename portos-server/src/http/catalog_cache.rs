//! Served catalogs, memoized. A catalog is a pure function of the query and
//! the grants (the tool list is fixed once the registry is built), so the body
//! and ETag are rendered once per distinct pair and then shared; a matching
//! `If-None-Match` is answered without rendering or hashing anything.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::Bytes;
use axum::http::HeaderValue;
use portos_core::{Capabilities, CatalogQuery, Registry};

/// Distinct (query, grants) pairs kept. Intent is free text, so the map is
/// bounded; when full it starts over rather than growing without limit.
const CAPACITY: usize = 256;

/// A catalog as served: the exact body bytes and its quoted ETag.
#[derive(Debug)]
pub struct ServedCatalog {
    pub etag: HeaderValue,
    pub body: Bytes,
}

type Entries = HashMap<(CatalogQuery, Capabilities), Arc<ServedCatalog>>;

#[derive(Clone, Debug, Default)]
pub struct CatalogCache {
    entries: Arc<Mutex<Entries>>,
}

impl CatalogCache {
    /// The served catalog for `query` under `grants`, rendered on first use.
    pub fn get(
        &self,
        registry: &Registry,
        query: CatalogQuery,
        grants: Capabilities,
    ) -> Result<Arc<ServedCatalog>, axum::http::header::InvalidHeaderValue> {
        let key = (query, grants);
        if let Some(hit) = self.lock().get(&key) {
            return Ok(hit.clone());
        }
        // Rendered outside the lock: two first readers may both render, and
        // the results are identical.
        let catalog = registry.catalog(&key.0, key.1);
        let served = Arc::new(ServedCatalog {
            etag: HeaderValue::from_str(&catalog.etag)?,
            body: Bytes::from(catalog.into_json()),
        });
        let mut entries = self.lock();
        if entries.len() >= CAPACITY {
            entries.clear();
        }
        entries.insert(key, served.clone());
        Ok(served)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
