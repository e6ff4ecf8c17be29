//! REST pieces the domains' routes share: the answer to a deletion, and the
//! mapping of a rejected query to the one error body (a store failure maps
//! through `From<StoreError> for ApiError` in the runtime).

use axum::extract::rejection::QueryRejection;
use portos_server::http::ApiError;
use portos_server::http::query::invalid;
use schemars::JsonSchema;
use serde::Serialize;

/// What a deletion removed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Deleted {
    pub ok: bool,
    pub id: String,
}

/// A query string that does not fit: 400 VALIDATION_ERROR saying why.
// By value so it fits `.map_err(query_error)`.
#[allow(clippy::needless_pass_by_value)]
pub fn query_error(rejection: QueryRejection) -> ApiError {
    invalid(rejection.body_text())
}
