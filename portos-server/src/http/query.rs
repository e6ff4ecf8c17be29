//! Strict query strings: unknown keys and values of the wrong type are a
//! 400 VALIDATION_ERROR saying what does not fit, before anything runs.

use axum::http::{StatusCode, Uri};
use serde::de::DeserializeOwned;

use super::ApiError;

/// The query of `uri` as `T` (which should `deny_unknown_fields`).
pub fn strict_query<T: DeserializeOwned>(uri: &Uri) -> Result<T, ApiError> {
    axum::extract::Query::<T>::try_from_uri(uri)
        .map(|axum::extract::Query(query)| query)
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

/// The query string as `T` (which should `deny_unknown_fields`): unknown
/// keys and values of the wrong type are a 400 `VALIDATION_ERROR` before
/// the handler runs. `T`'s fields are the query parameters in the
/// documents.
///
/// ```
/// use portos_server::prelude::*;
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
///
/// /// Which notes to list.
/// #[derive(Debug, Deserialize, Serialize, JsonSchema)]
/// #[serde(deny_unknown_fields)]
/// struct Filter {
///     /// At most this many.
///     limit: Option<u32>,
/// }
///
/// #[portos_route(method = "GET", path = "/api/notes")]
/// async fn list(Query(filter): Query<Filter>) -> Json<u32> {
///     Json(filter.limit.unwrap_or(10))
/// }
///
/// fn main() {
///     let builder = ServerBuilder::new("notes", "1.0.0", Config::default());
///     let inventory = portos_server::http::inventory(builder.classifier(), builder.mounts())
///         .expect("the routes");
///     let route = inventory.routes().iter().find(|route| route.path == "/api/notes");
///     // `Filter`'s fields are the operation's query parameters.
///     assert!(inventory.io(route.expect("listed")).query.is_some());
/// }
/// ```
#[derive(Debug)]
pub struct Query<T>(pub T);

impl<S, T> axum::extract::FromRequestParts<S> for Query<T>
where
    S: Send + Sync,
    T: DeserializeOwned + serde::Serialize + schemars::JsonSchema + 'static,
{
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Query<T>, ApiError> {
        let query: T = strict_query(&parts.uri)?;
        // The documented parameter rules (ranges, lengths, patterns),
        // enforced on the values as read: a query string has no types of its
        // own, so the typed query is what the schema judges.
        let mut value = serde_json::to_value(&query).map_err(|error| {
            ApiError::internal(format!("a query could not be re-read: {error}"))
        })?;
        // A parameter left out is absent, never `null`: drop the `None`s.
        if let serde_json::Value::Object(fields) = &mut value {
            fields.retain(|_, field| !field.is_null());
        }
        super::schema_gate::check::<T>(&value, "query")?;
        Ok(Query(query))
    }
}

impl<T: schemars::JsonSchema> super::RouteInput for Query<T> {
    fn describe(io: &mut portos_core::inventory::RouteIo) {
        io.query = Some(super::io::schema_of::<T>());
        io.error(400, "VALIDATION_ERROR");
    }
}
