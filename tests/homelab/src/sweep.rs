//! The homelab's long-running tools: each answers with a durable job that
//! a caller follows, cancels or (for an agent's retirement) has a person
//! confirm. Both report progress host by host and stop at the job's
//! cancellation signal between hosts.

use std::time::{Duration, Instant};

use portos_core::{AdapterError, Shared, ToolContext, portos_tool};
use portos_server::store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::LabConfig;
use crate::hosts::{self, Host, Role};

/// How long one probe waits for a host to accept a connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ProbeArgs {
    /// The TCP port to try on every host (default 22, SSH).
    #[serde(default = "default_port")]
    #[schemars(range(min = 1, max = 65535))]
    pub port: u16,
    /// Milliseconds to wait between two hosts, so a weak network is not
    /// flooded (default 0, at most one minute).
    #[serde(default)]
    #[schemars(range(max = 60000))]
    pub pause_ms: u32,
    /// Only hosts of this role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
}

fn default_port() -> u16 {
    22
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeOutcome {
    pub name: String,
    pub address: String,
    /// Whether the host accepted a TCP connection on the port.
    pub reachable: bool,
    /// How long the answer took, in milliseconds.
    pub elapsed_ms: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ProbeReport {
    pub ok: bool,
    pub site: String,
    pub port: u16,
    pub hosts: Vec<ProbeOutcome>,
    pub summary: String,
}

/// Probe every host of the home lab (or of one role) for a TCP port, one
/// after another: a job that reports each host as it goes.
#[portos_tool(
    name = "lab.hosts.probe",
    scopes = ["assistant", "operator"],
    capabilities = ["readLab"],
    side_effect = "read",
    long_running,
)]
pub async fn probe(
    ctx: &ToolContext,
    args: ProbeArgs,
    store: Shared<Store>,
    lab: Shared<LabConfig>,
) -> Result<ProbeReport, AdapterError> {
    let site = lab.site_name.clone();
    let role = args.role;
    let targets = store
        .run(move |connection| Ok(hosts::list(connection, role)?))
        .await?;
    let total = targets.len();
    let mut outcomes = Vec::with_capacity(total);
    for (index, host) in targets.into_iter().enumerate() {
        if index > 0 {
            pause(ctx, args.pause_ms, index, total).await?;
        }
        ctx.report_progress(
            f64_of(index),
            Some(f64_of(total)),
            Some(&format!("Probing {} ({})", host.name, host.address)),
        );
        outcomes.push(probe_one(&host, args.port).await);
    }
    ctx.report_progress(f64_of(total), Some(f64_of(total)), Some("Done"));
    let reachable = outcomes.iter().filter(|outcome| outcome.reachable).count();
    Ok(ProbeReport {
        ok: true,
        summary: format!(
            "{reachable} of {total} hosts of {site} answer on port {}.",
            args.port
        ),
        site,
        port: args.port,
        hosts: outcomes,
    })
}

/// Waits between two hosts; a cancelled job stops here.
async fn pause(
    ctx: &ToolContext,
    pause_ms: u32,
    done: usize,
    total: usize,
) -> Result<(), AdapterError> {
    let stopped = || AdapterError::new(format!("Stopped after {done} of {total} hosts"));
    if ctx.cancellation().is_cancelled() {
        return Err(stopped());
    }
    tokio::select! {
        () = tokio::time::sleep(Duration::from_millis(u64::from(pause_ms))) => Ok(()),
        () = ctx.cancellation().cancelled() => Err(stopped()),
    }
}

async fn probe_one(host: &Host, port: u16) -> ProbeOutcome {
    let started = Instant::now();
    let address = match host.address.parse::<std::net::IpAddr>() {
        Ok(ip) => std::net::SocketAddr::new(ip, port).to_string(),
        Err(_) => format!("{}:{port}", host.address),
    };
    let connected = tokio::time::timeout(CONNECT_TIMEOUT, tokio::net::TcpStream::connect(address))
        .await
        .is_ok_and(|connected| connected.is_ok());
    ProbeOutcome {
        name: host.name.clone(),
        address: host.address.clone(),
        reachable: connected,
        elapsed_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    }
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RetireArgs {
    /// Remove every host of this role.
    pub role: Role,
    /// Milliseconds to wait between two removals (default 0, at most a
    /// minute), e.g. while their services move elsewhere.
    #[serde(default)]
    #[schemars(range(max = 60000))]
    pub pause_ms: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Retired {
    pub ok: bool,
    pub site: String,
    /// The hosts removed.
    pub removed: Vec<Host>,
    pub summary: String,
}

/// Retire every host of one role from the home lab, one after another. An
/// agent's call waits for a person to confirm it.
#[portos_tool(
    name = "lab.hosts.retire",
    scopes = ["assistant", "operator"],
    capabilities = ["writeLab"],
    side_effect = "destructive",
    // Removing a host that is gone already changes nothing: a job the
    // server's restart interrupted runs again safely.
    idempotent = true,
    long_running,
    confirmation = "capability-grant",
)]
pub async fn retire(
    ctx: &ToolContext,
    args: RetireArgs,
    store: Shared<Store>,
    lab: Shared<LabConfig>,
) -> Result<Retired, AdapterError> {
    let site = lab.site_name.clone();
    let role = args.role;
    let targets = store
        .run(move |connection| Ok(hosts::list(connection, Some(role))?))
        .await?;
    let total = targets.len();
    let mut removed = Vec::with_capacity(total);
    for (index, host) in targets.into_iter().enumerate() {
        if index > 0 {
            pause(ctx, args.pause_ms, index, total).await?;
        }
        ctx.report_progress(
            f64_of(index),
            Some(f64_of(total)),
            Some(&format!("Retiring {}", host.name)),
        );
        let name = host.name.clone();
        if let Some(host) = store
            .run(move |connection| Ok(hosts::remove(connection, &name)?))
            .await?
        {
            removed.push(host);
        }
    }
    Ok(Retired {
        ok: true,
        summary: format!(
            "Retired {} {} host(s) from {site}.",
            removed.len(),
            role.as_str()
        ),
        site,
        removed,
    })
}

/// A count as a progress figure (exact up to 2^53).
#[allow(clippy::cast_precision_loss)]
fn f64_of(count: usize) -> f64 {
    count as f64
}
