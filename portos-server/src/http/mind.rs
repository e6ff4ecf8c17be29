//! Persistent Mind capability grants (BEHAVIOUR §4.2–4.3): read and change
//! them. A change is announced on Socket.IO so catalog readers refresh, and
//! recorded in the user-actions ledger (`settings.update`).

use axum::Json;
use axum::extract::State;
use portos_core::{Capabilities, portos_route};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ApiError;
use super::body::JsonBody;
use crate::app::App;
use crate::ledger::{self, ActionType, Actor, NewAction, Source};
use crate::settings;

/// Every grant, each `true` or `false` (all `false` by default).
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MindCapabilities {
    pub read_portos: Option<bool>,
    pub write_portos: Option<bool>,
    pub manage_eidoverse: Option<bool>,
    pub visit_eidoverse_peers: Option<bool>,
    pub create_tasks: Option<bool>,
    pub file_issues: Option<bool>,
    pub manage_tool_recipes: Option<bool>,
    pub manage_mind: Option<bool>,
    pub choose_thinking_preset: Option<bool>,
    pub adjust_local_context: Option<bool>,
    pub call_tool_recipes: Option<bool>,
}

/// The Persistent Mind's stored capability grants.
#[portos_route(
    method = "GET",
    path = "/api/cos/mind/capabilities",
    summary = "Persistent Mind capabilities",
    response = MindCapabilities,
)]
async fn read(State(app): State<App>) -> Result<Json<Capabilities>, ApiError> {
    Ok(Json(app.grants.current().mind))
}

/// Replaces the Persistent Mind's grants: keys left out are off. Unknown keys
/// and non-boolean values are refused and nothing is stored.
#[portos_route(
    method = "PUT",
    path = "/api/cos/mind/capabilities",
    summary = "Set Persistent Mind capabilities",
    request = MindCapabilities,
    response = MindCapabilities,
    errors = [(400, "VALIDATION_ERROR"), (415, "UNSUPPORTED_MEDIA_TYPE")],
)]
async fn replace(State(app): State<App>, body: JsonBody) -> Result<Json<Capabilities>, ApiError> {
    let grants: Capabilities = body.into_typed()?;
    let stored =
        serde_json::to_value(grants).map_err(|error| ApiError::internal(error.to_string()))?;
    let cache = app.grants.clone();
    app.store
        .run(move |connection| {
            // The grants and their ledger row commit together; the cache is
            // refreshed from what committed.
            let transaction = connection.transaction()?;
            let before = settings::get_json(&transaction, settings::MIND_CAPABILITIES)?
                .map(|value| Capabilities::from_json(&value))
                .unwrap_or_default();
            settings::set_json(&transaction, settings::MIND_CAPABILITIES, &stored)?;
            ledger::record(&transaction, &grants_changed(before, grants))?;
            transaction.commit()?;
            cache.refresh(connection)
        })
        .await
        .map_err(|error| ApiError::internal(error.to_string()))?;
    app.events
        .catalog_changed(settings::MIND_CAPABILITIES)
        .await;
    Ok(Json(grants))
}

/// The ledger row of a grants change: which grants were given and taken.
fn grants_changed(before: Capabilities, after: Capabilities) -> NewAction {
    let names = |from: Capabilities, to: Capabilities| -> Vec<&'static str> {
        to.iter()
            .filter(|capability| !from.has(*capability))
            .map(|capability| capability.as_str())
            .collect()
    };
    let granted = names(before, after);
    let revoked = names(after, before);
    let mut parts = Vec::new();
    if !granted.is_empty() {
        parts.push(format!("granted {}", granted.join(", ")));
    }
    if !revoked.is_empty() {
        parts.push(format!("revoked {}", revoked.join(", ")));
    }
    let summary = if parts.is_empty() {
        "Saved the Persistent Mind capabilities (no change)".to_owned()
    } else {
        format!("Persistent Mind capabilities: {}", parts.join("; "))
    };
    NewAction::new(ActionType::SettingsUpdate, Actor::User, summary)
        .target(
            settings::MIND_CAPABILITIES,
            Some("Persistent Mind capabilities".to_owned()),
        )
        .payload(serde_json::json!({ "granted": granted, "revoked": revoked }))
        .source(Source::http("PUT", "/api/cos/mind/capabilities"))
}
