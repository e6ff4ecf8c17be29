//! Persistent Mind capability grants (BEHAVIOUR §4.2–4.3): read and change
//! them. A change is announced on Socket.IO so catalog readers refresh.

use axum::Json;
use axum::extract::State;
use portos_core::{Capabilities, portos_route};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ApiError;
use super::body::JsonBody;
use crate::app::App;
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
            settings::set_json(connection, settings::MIND_CAPABILITIES, &stored)?;
            cache.refresh(connection)
        })
        .await
        .map_err(|error| ApiError::internal(error.to_string()))?;
    app.events
        .catalog_changed(settings::MIND_CAPABILITIES)
        .await;
    Ok(Json(grants))
}
