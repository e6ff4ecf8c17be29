//! The homelab's tools. Each is one `#[portos_tool]` function: the attribute
//! is its whole registration, policy and schema; the registry validates the
//! arguments against the schema before the function runs, so what is left
//! here is what a schema cannot say (an address's structure, a duplicate).

use std::path::Path;

use portos_core::{AdapterError, InputKind, Shared, ToolContext, portos_tool};
use portos_server::events::Events;
use portos_server::store::Store;
use portos_server::store::changes::{self, Change};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::LabConfig;
use crate::events::HostAdded;
use crate::hosts::{self, Host, Role};
use crate::uptime;

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Only hosts of this role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct HostList {
    pub ok: bool,
    /// The lab's site name.
    pub site: String,
    pub count: usize,
    pub hosts: Vec<Host>,
    pub summary: String,
}

/// List the hosts of the home lab by name, optionally only those of one role.
#[portos_tool(
    name = "lab.hosts.list",
    scopes = ["assistant", "operator", "panel"],
    capabilities = ["readLab"],
    side_effect = "read",
)]
pub async fn list(
    args: ListArgs,
    store: Shared<Store>,
    lab: Shared<LabConfig>,
) -> Result<HostList, AdapterError> {
    let site = lab.site_name.clone();
    let role = args.role;
    let hosts = store
        .run(move |connection| Ok(hosts::list(connection, role)?))
        .await?;
    let what = role.map_or("host", Role::as_str);
    let summary = match hosts.len() {
        0 => format!("{site} has no {what}s."),
        1 => format!("{site} has 1 {what}: {}.", hosts[0].name),
        n => format!(
            "{site} has {n} {what}s: {}.",
            hosts
                .iter()
                .map(|host| host.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Ok(HostList {
        ok: true,
        site,
        count: hosts.len(),
        hosts,
        summary,
    })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddArgs {
    /// The host's name in the lab: one DNS label, e.g. `nas-01` (kept in
    /// lowercase).
    #[schemars(length(min = 1, max = 63), regex(pattern = hosts::NAME_PATTERN))]
    pub name: String,
    /// Its IPv4 or IPv6 address, or a DNS name.
    #[schemars(length(min = 1, max = 253), regex(pattern = hosts::ADDRESS_PATTERN))]
    pub address: String,
    /// What it does (default `server`).
    #[serde(default)]
    pub role: Role,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct HostAddedResult {
    pub ok: bool,
    /// The host as stored, or the existing host of that name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<Host>,
    pub summary: String,
}

/// Add a host to the home lab; a name already in use changes nothing.
#[portos_tool(
    name = "lab.hosts.add",
    scopes = ["assistant", "operator"],
    capabilities = ["writeLab"],
    side_effect = "write",
)]
pub async fn add(
    args: AddArgs,
    store: Shared<Store>,
    lab: Shared<LabConfig>,
    events: Shared<Events>,
) -> Result<HostAddedResult, AdapterError> {
    let address = hosts::check_address(&args.address).map_err(AdapterError::new)?;
    let site = lab.site_name.clone();
    let host = Host {
        name: args.name.to_ascii_lowercase(),
        address,
        role: args.role,
        added_at: jiff::Timestamp::now().to_string(),
    };
    let stored = host.clone();
    let inserted = store
        .run(move |connection| {
            let inserted = hosts::insert(connection, &stored)?;
            if inserted.is_ok() {
                // Subscribers on the other servers of the database hear of it.
                changes::announce(connection, &Change::resource(crate::offers::INVENTORY_URI))?;
            }
            Ok(inserted)
        })
        .await?;
    if let Err(existing) = inserted {
        return Ok(HostAddedResult {
            ok: false,
            summary: format!(
                "{site} already has a host named {} ({}); remove it first to replace it.",
                existing.name, existing.address
            ),
            host: Some(existing),
        });
    }
    events
        .emit(&HostAdded {
            site: site.clone(),
            host: host.clone(),
        })
        .await;
    // MCP clients subscribed to the inventory hear of it.
    events.resource_updated(crate::offers::INVENTORY_URI).await;
    Ok(HostAddedResult {
        ok: true,
        summary: format!(
            "Added {} ({}, {}) to {site}.",
            host.name,
            host.address,
            host.role.as_str()
        ),
        host: Some(host),
    })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RemoveArgs {
    /// The host's name in the lab (any case).
    #[schemars(length(min = 1, max = 63), regex(pattern = hosts::NAME_PATTERN))]
    pub name: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct HostRemoved {
    pub ok: bool,
    /// The host that was removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<Host>,
    pub summary: String,
}

/// Remove a host from the home lab for good. A caller that can put a
/// question to a person (an MCP client declaring elicitation) is asked to
/// confirm first; nothing is removed unless the person does.
#[portos_tool(
    name = "lab.hosts.remove",
    scopes = ["assistant", "operator"],
    capabilities = ["writeLab"],
    side_effect = "destructive",
)]
pub async fn remove(
    ctx: &ToolContext,
    args: RemoveArgs,
    store: Shared<Store>,
    lab: Shared<LabConfig>,
    events: Shared<Events>,
) -> Result<HostRemoved, AdapterError> {
    let site = lab.site_name.clone();
    let name = args.name.to_ascii_lowercase();
    if ctx.can_ask(InputKind::Elicitation) {
        let form = serde_json::json!({
            "type": "object",
            "properties": {"confirm": {"type": "boolean", "title": "Remove it"}},
            "required": ["confirm"],
        });
        let answer = ctx
            .elicit(
                "confirm",
                &format!("Remove {name} from {site} for good?"),
                form,
            )
            .await?;
        let confirmed = answer.accepted()
            && answer.content.get("confirm") == Some(&serde_json::Value::Bool(true));
        if !confirmed {
            return Ok(HostRemoved {
                ok: false,
                host: None,
                summary: format!("Kept {name}: the removal was not confirmed."),
            });
        }
    }
    let key = name.clone();
    let removed = store
        .run(move |connection| {
            let removed = hosts::remove(connection, &key)?;
            if let Some(host) = &removed {
                for uri in [
                    crate::offers::INVENTORY_URI.to_owned(),
                    crate::offers::host_uri(&host.name),
                ] {
                    changes::announce(connection, &Change::resource(&uri))?;
                }
            }
            Ok(removed)
        })
        .await?;
    if let Some(host) = &removed {
        // Subscribers to the inventory, and to the host itself, hear of it.
        events.resource_updated(crate::offers::INVENTORY_URI).await;
        events
            .resource_updated(&crate::offers::host_uri(&host.name))
            .await;
    }
    Ok(match removed {
        Some(host) => HostRemoved {
            ok: true,
            summary: format!("Removed {} ({}) from {site}.", host.name, host.address),
            host: Some(host),
        },
        None => HostRemoved {
            ok: false,
            host: None,
            summary: format!("{site} has no host named {name}."),
        },
    })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Uptime {
    pub ok: bool,
    /// The lab's site name.
    pub site: String,
    /// Whole seconds since this machine booted.
    pub seconds: u64,
    /// When it booted (RFC 3339, UTC, to the second).
    pub booted_at: String,
    pub summary: String,
}

/// How long the machine this server runs on has been up (Linux).
#[portos_tool(
    name = "lab.uptime",
    scopes = ["assistant", "operator", "panel"],
    capabilities = ["readLab"],
    side_effect = "read",
)]
pub async fn uptime(lab: Shared<LabConfig>) -> Result<Uptime, AdapterError> {
    let site = lab.site_name.clone();
    // procfs answers from memory: no need for the blocking pool.
    let seconds = uptime::read(Path::new(uptime::PROC_UPTIME)).map_err(AdapterError::new)?;
    let now = jiff::Timestamp::now();
    let booted_at = i64::try_from(seconds)
        .ok()
        .and_then(|seconds| {
            now.checked_sub(jiff::SignedDuration::from_secs(seconds))
                .ok()
        })
        .and_then(|booted| jiff::Timestamp::from_second(booted.as_second()).ok())
        .map(|booted| booted.to_string())
        .ok_or_else(|| AdapterError::new(format!("an uptime of {seconds} s is out of range")))?;
    Ok(Uptime {
        ok: true,
        summary: format!("{site} has been up for {}.", uptime::human(seconds)),
        site,
        seconds,
        booted_at,
    })
}
