//! `/api/cos/mind/capabilities` and `/api/cos/mind/tools`: the Persistent
//! Mind's grants, read and replaced by the owner, and its authority view.

use axum::Json;
use portos_core::Shared;
use portos_server::events::Events;
use portos_server::http::{Body, Invalid, RouteErrors};
use portos_server::store::{Store, StoreError};
use portos_server::{LiveCatalogs, LiveGrants, portos_route};

use super::grants::{self, MindToolsView};
use super::settings::{MindSettings, MindSettingsInput};
use crate::shared::rest::{CatalogsUnavailable, served_catalogs};

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
async fn read(store: Shared<Store>) -> Result<Json<MindSettings>, StoreError> {
    Ok(Json(grants::load(&store).await?))
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
    runtime_grants: Shared<LiveGrants>,
    store: Shared<Store>,
    events: Shared<Events>,
    Body(input): Body<MindSettingsInput>,
) -> Result<Json<MindSettings>, CapabilitiesRefusal> {
    let next = input.into_settings().map_err(Invalid)?;
    let refresh = move |connection: &_| runtime_grants.refresh(connection);
    Ok(Json(grants::replace(&store, &events, refresh, next).await?))
}

/// The Persistent Mind's authority: its semantic tools with `granted`, its
/// capabilities, boundaries, task catalog and typed actions.
#[portos_route(
    method = "GET",
    path = "/api/cos/mind/tools",
    summary = "Persistent Mind tools"
)]
async fn tools(
    catalogs: Shared<LiveCatalogs>,
    store: Shared<Store>,
) -> Result<Json<MindToolsView>, ToolsRefusal> {
    let catalogs = served_catalogs(&catalogs)?;
    Ok(Json(grants::tools_view(&store, &catalogs).await?))
}

/// Why the authority view was not read.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum ToolsRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
    /// A server put together without binding its catalogs.
    #[error(transparent)]
    #[route_error(internal)]
    Unavailable(#[from] CatalogsUnavailable),
}
