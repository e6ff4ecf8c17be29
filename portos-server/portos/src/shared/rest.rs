//! REST pieces the domains' routes share: the answer to a deletion, and
//! the registry and catalogs the server serves.

use std::sync::Arc;

use portos_core::{Catalogs, Registry};
use portos_server::http::ApiError;
use portos_server::{LiveCatalogs, LiveRegistry};
use schemars::JsonSchema;
use serde::Serialize;

/// What a deletion removed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Deleted {
    pub ok: bool,
    pub id: String,
}

/// The registry the server serves, for the routes that run its tools or
/// check against its catalog. The runtime binds the handle before it
/// serves, so a route only finds it empty in a server put together without
/// that step: the server's fault (500), documented nowhere.
pub fn served_registry(live: &LiveRegistry) -> Result<Arc<Registry>, RegistryUnavailable> {
    live.get().ok_or(RegistryUnavailable)
}

/// The registry handle was never bound (see [`served_registry`]).
#[derive(Debug, thiserror::Error)]
#[error("the tool registry is not available")]
pub struct RegistryUnavailable;

impl From<RegistryUnavailable> for ApiError {
    fn from(error: RegistryUnavailable) -> ApiError {
        ApiError::internal(error.to_string())
    }
}

/// The catalogs the server serves, bound like the registry (see
/// [`served_registry`]).
pub fn served_catalogs(live: &LiveCatalogs) -> Result<Arc<Catalogs>, CatalogsUnavailable> {
    live.get().ok_or(CatalogsUnavailable)
}

/// The catalogs handle was never bound (see [`served_catalogs`]).
#[derive(Debug, thiserror::Error)]
#[error("the tool catalogs are not available")]
pub struct CatalogsUnavailable;
