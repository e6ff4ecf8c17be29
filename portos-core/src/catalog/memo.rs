//! Served catalogs, memoized. A catalog is a pure function of the query, the
//! grants and the revision of the run-time tools' listing (the linked tools
//! are fixed once the registry is built), so the body and ETag are rendered
//! once per distinct key and then shared; a matching `If-None-Match` is then
//! answered without rendering or hashing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::{Catalog, CatalogQuery};
use crate::contract::Capabilities;

/// Distinct (query, grants) pairs kept. Intent is free text, so the map is
/// bounded; when full it starts over rather than growing without limit.
const CAPACITY: usize = 256;

type Entries = HashMap<(CatalogQuery, Capabilities, Option<u64>), Arc<Catalog>>;

#[derive(Debug, Default)]
pub(super) struct Memo {
    entries: Mutex<Entries>,
}

impl Memo {
    /// The memoized catalog of `query` under `grants` with the run-time
    /// listing at `revision`, rendered by `render` on first use.
    pub(super) fn get_or_render(
        &self,
        query: &CatalogQuery,
        grants: Capabilities,
        revision: Option<u64>,
        render: impl FnOnce() -> Catalog,
    ) -> Arc<Catalog> {
        let key = (query.clone(), grants, revision);
        if let Some(hit) = self.lock().get(&key) {
            return hit.clone();
        }
        // Rendered outside the lock: two first readers may both render, and
        // the results are identical.
        let catalog = Arc::new(render());
        let mut entries = self.lock();
        if entries.len() >= CAPACITY {
            entries.clear();
        }
        entries.insert(key, catalog.clone());
        catalog
    }

    fn lock(&self) -> MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
