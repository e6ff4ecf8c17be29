//! `/api/cos/mind/capabilities` and `/api/cos/mind/tools`: the Persistent
//! Mind's grants, read and replaced by the owner, and its authority view.

use axum::Json;
use axum::extract::State;
use portos_server::App;
use portos_server::http::{Body, Invalid, RouteErrors};
use portos_server::portos_route;
use portos_server::store::StoreError;

use super::grants::{self, MindToolsView};
use super::settings::{MindSettings, MindSettingsInput};

/// Why the capabilities were not replaced.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum CapabilitiesRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// The Persistent Mind's capabilities: every grant (all off by default),
/// the task model allowlist and the apps it may work on.
#[portos_route(
    method = "GET",
    path = "/api/cos/mind/capabilities",
    summary = "Persistent Mind capabilities"
)]
async fn read(State(app): State<App>) -> Result<Json<MindSettings>, StoreError> {
    Ok(Json(grants::load(&app.store).await?))
}

/// Replaces the Persistent Mind's capabilities: keys left out are off (the
/// lists unrestricted). Unknown keys, non-boolean grants and lists past
/// their limits are refused and nothing is stored. Recorded in the
/// user-actions ledger and announced as a catalog change.
#[portos_route(
    method = "PUT",
    path = "/api/cos/mind/capabilities",
    summary = "Set Persistent Mind capabilities"
)]
async fn replace(
    State(app): State<App>,
    Body(input): Body<MindSettingsInput>,
) -> Result<Json<MindSettings>, CapabilitiesRefusal> {
    let next = input.into_settings().map_err(Invalid)?;
    Ok(Json(grants::replace(&app, next).await?))
}

/// The Persistent Mind's authority: its semantic tools with `granted`, its
/// capabilities, boundaries, task catalog and typed actions.
#[portos_route(
    method = "GET",
    path = "/api/cos/mind/tools",
    summary = "Persistent Mind tools"
)]
async fn tools(State(app): State<App>) -> Result<Json<MindToolsView>, StoreError> {
    Ok(Json(grants::tools_view(&app).await?))
}
