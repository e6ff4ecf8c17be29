//! Strict query strings: unknown keys and values of the wrong type are a
//! 400 VALIDATION_ERROR saying what does not fit, before anything runs.

use axum::extract::Query;
use axum::http::{StatusCode, Uri};
use serde::de::DeserializeOwned;

use super::ApiError;

/// The query of `uri` as `T` (which should `deny_unknown_fields`).
pub fn strict_query<T: DeserializeOwned>(uri: &Uri) -> Result<T, ApiError> {
    Query::<T>::try_from_uri(uri)
        .map(|Query(query)| query)
        .map_err(|rejection| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "VALIDATION_ERROR",
                rejection.body_text(),
            )
        })
}

/// A 400 VALIDATION_ERROR with `message`.
pub fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "VALIDATION_ERROR", message)
}
