//! `/api/settings/*`: Settings → API Access, which decides the API groups
//! under `/api/public/` that answer and what the public OpenAPI lists. A
//! change is recorded in the user-actions ledger (`settings.update`).

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
use crate::ledger::{self, ActionType, Actor, NewAction, Source};

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
            let action = access_changed(&changes);
            // The switches and their ledger row commit together. The cache
            // takes the new switches as they are written; if the commit
            // fails it goes back to the previous ones.
            let previous = cache.current();
            let transaction = connection.transaction()?;
            let written = ledger::record(&transaction, &action)
                .and_then(|()| cache.store(&transaction, next))
                .and_then(|()| Ok(transaction.commit()?));
            if let Err(error) = written {
                cache.store(connection, (*previous).clone())?;
                return Err(error);
            }
            Ok(Ok(described))
        })
        .await
        .map_err(|error| ApiError::internal(error.to_string()))?;
    let described = outcome
        .map_err(|message| ApiError::new(StatusCode::BAD_REQUEST, "VALIDATION_ERROR", message))?;
    Ok(Json(serde_json::json!({ "apis": described })))
}

/// The ledger row of an API Access change: each group's new switches.
fn access_changed(changes: &BTreeMap<String, Exposure>) -> NewAction {
    let described: Vec<String> = changes
        .iter()
        .map(|(id, exposure)| {
            format!(
                "{id} {}{}",
                if exposure.exposed {
                    "exposed"
                } else {
                    "not exposed"
                },
                if exposure.require_auth {
                    ", sign-in required"
                } else {
                    ""
                }
            )
        })
        .collect();
    let summary = if described.is_empty() {
        "Saved API Access (no change)".to_owned()
    } else {
        format!("API Access: {}", described.join("; "))
    };
    NewAction::new(ActionType::SettingsUpdate, Actor::User, summary)
        .target("apiAccess", Some("API Access".to_owned()))
        .payload(serde_json::json!({ "changes": changes }))
        .source(Source::http("PUT", "/api/settings/api-access"))
}
