//! The homelab's REST route. `#[portos_route]` mounts it and documents it
//! (route inventory, internal OpenAPI) from the same declaration.

use axum::Json;
use axum::extract::State;
use axum::http::Uri;
use portos_core::portos_route;
use portos_server::App;
use portos_server::http::ApiError;
use portos_server::http::query::strict_query;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::LabConfig;
use crate::hosts::{self, Host, Role};

/// Which hosts to list.
#[derive(Debug, Deserialize, JsonSchema)]
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

/// The hosts of the home lab, by name (the same list `lab.hosts.list` reads).
#[portos_route(
    method = "GET",
    path = "/api/lab/hosts",
    summary = "Lab hosts",
    query = HostsQuery,
    response = HostsPage,
    errors = [(400, "VALIDATION_ERROR")],
)]
async fn list(State(app): State<App>, uri: Uri) -> Result<Json<HostsPage>, ApiError> {
    let HostsQuery { role } = strict_query(&uri)?;
    let site = app.state::<LabConfig>()?.site_name.clone();
    let hosts = app
        .store
        .run(move |connection| Ok(hosts::list(connection, role)?))
        .await
        .map_err(|error| ApiError::internal(error.to_string()))?;
    Ok(Json(HostsPage {
        site,
        total: hosts.len(),
        hosts,
    }))
}
