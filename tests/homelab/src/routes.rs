//! The homelab's REST route. `#[portos_route]` mounts it and documents it
//! (route inventory, internal OpenAPI) from the same declaration.

use portos_core::Shared;
use portos_server::http::{Json, Query};
use portos_server::portos_route;
use portos_server::store::{Store, StoreError};
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

/// The hosts of the home lab, by name (the same list `lab.hosts.list` reads).
#[portos_route(method = "GET", path = "/api/lab/hosts", summary = "Lab hosts")]
async fn list(
    lab: Shared<LabConfig>,
    store: Shared<Store>,
    Query(HostsQuery { role }): Query<HostsQuery>,
) -> Result<Json<HostsPage>, StoreError> {
    let hosts = store
        .run(move |connection| Ok(hosts::list(connection, role)?))
        .await?;
    Ok(Json(HostsPage {
        site: lab.site_name.clone(),
        total: hosts.len(),
        hosts,
    }))
}
