//! `/api/settings/*`: Settings → API Access, which decides the API groups
//! under `/api/public/` that answer and what the public OpenAPI lists.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use portos_core::portos_route;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::ApiError;
use super::body::JsonBody;
use crate::api_access::Exposure;
use crate::app::App;

/// One exposable API group and its switches.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiGroup {
    pub id: String,
    pub label: String,
    pub description: String,
    /// Every operation of the group is under this path.
    pub prefix: String,
    pub exposed: bool,
    pub require_auth: bool,
}

/// Every exposable API group.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ApiAccessView {
    pub apis: Vec<ApiGroup>,
}

/// The API groups other devices may reach, and whether each is exposed.
#[portos_route(
    method = "GET",
    path = "/api/settings/api-access",
    summary = "API Access",
    response = ApiAccessView,
)]
async fn read(State(app): State<App>) -> Json<Value> {
    Json(serde_json::json!({ "apis": app.api_access.current().describe() }))
}

/// Changes the switches of the groups named in the body (the others keep
/// theirs). Unknown groups, unknown keys and non-boolean values are refused
/// and nothing is stored.
#[portos_route(
    method = "PUT",
    path = "/api/settings/api-access",
    summary = "Change API Access",
    request = BTreeMap<String, Exposure>,
    response = ApiAccessView,
    errors = [(400, "VALIDATION_ERROR"), (415, "UNSUPPORTED_MEDIA_TYPE")],
)]
async fn change(State(app): State<App>, body: JsonBody) -> Result<Json<Value>, ApiError> {
    let changes: BTreeMap<String, Exposure> = body.into_typed()?;
    let cache = app.api_access.clone();
    // Read-modify-write on the store's connection, so two changes made at
    // once both land.
    let outcome = app
        .store
        .run(move |connection| {
            let next = match cache.current().with_changes(&changes) {
                Ok(next) => next,
                Err(message) => return Ok(Err(message)),
            };
            let described = next.describe();
            cache.store(connection, next)?;
            Ok(Ok(described))
        })
        .await
        .map_err(|error| ApiError::internal(error.to_string()))?;
    let described = outcome
        .map_err(|message| ApiError::new(StatusCode::BAD_REQUEST, "VALIDATION_ERROR", message))?;
    Ok(Json(serde_json::json!({ "apis": described })))
}
