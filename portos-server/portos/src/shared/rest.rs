//! REST pieces the domains' routes share: the answer to a deletion, and the
//! mapping of a rejected query or a store failure to the one error body.

use axum::extract::rejection::QueryRejection;
use portos_server::http::ApiError;
use portos_server::http::query::invalid;
use portos_server::store::StoreError;
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

/// A store failure: the server's fault, never the request's.
#[allow(clippy::needless_pass_by_value)]
pub fn store_error(error: StoreError) -> ApiError {
    ApiError::internal(error.to_string())
}
