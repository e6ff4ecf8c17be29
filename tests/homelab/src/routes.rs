//! The homelab's REST route. `#[portos_route]` mounts it and documents it
//! (route inventory, internal OpenAPI) from the same declaration.

use axum::Json;
use axum::extract::State;
use portos_core::portos_route;
use portos_server::App;
use portos_server::app::NoSuchState;
use portos_server::http::{Query, RouteErrors};
use portos_server::store::StoreError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::LabConfig;
use crate::hosts::{self, Host, Role};

/// Which hosts to list.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostsQuery {
    /// Only hosts of this role.
    pub role: Option<Role>,
}

/// The lab's hosts, by name.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HostsPage {
    /// The lab's site name.
    pub site: String,
    pub hosts: Vec<Host>,
    pub total: usize,
}

/// The list's only failures are the server's own (500, logged): the lab's
/// configuration missing from the server's state, or the store.
#[derive(Debug, RouteErrors)]
pub enum HostsFault {
    #[route_error(transparent)]
    NoConfig(NoSuchState),
    #[route_error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for HostsFault {
    fn from(error: StoreError) -> HostsFault {
        HostsFault::Store(error)
    }
}

/// The hosts of the home lab, by name (the same list `lab.hosts.list` reads).
#[portos_route(method = "GET", path = "/api/lab/hosts", summary = "Lab hosts")]
async fn list(
    State(app): State<App>,
    Query(HostsQuery { role }): Query<HostsQuery>,
) -> Result<Json<HostsPage>, HostsFault> {
    let site = app
        .state::<LabConfig>()
        .map_err(HostsFault::NoConfig)?
        .site_name
        .clone();
    let hosts = app
        .store
        .run(move |connection| Ok(hosts::list(connection, role)?))
        .await?;
    Ok(Json(HostsPage {
        site,
        total: hosts.len(),
        hosts,
    }))
}
