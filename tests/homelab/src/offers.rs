//! What the homelab offers MCP clients besides tools, declared with the
//! same attributes and words as its tools: the inventory as a resource,
//! each host as a resource of a template (names completed from the
//! store), a triage prompt that embeds a host, and an audit that reports
//! its progress as it goes.

use portos_core::primitives::CompletionRequest;
use portos_core::{
    AdapterError, Content, PromptMessage, ResourceContents, Shared, ToolContent, ToolContext,
    portos_prompt, portos_resource, portos_tool,
};
use portos_server::store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::LabConfig;
use crate::hosts::{self, Host};

/// The inventory's URI, as `inventory` declares it.
pub const INVENTORY_URI: &str = "lab://hosts";

/// One host's URI (`lab://hosts/{name}`, as `host` declares it).
pub fn host_uri(name: &str) -> String {
    format!("{INVENTORY_URI}/{name}")
}

/// The lab's hosts as a Markdown table.
#[portos_resource(
    uri = "lab://hosts",
    name = "inventory",
    title = "Host inventory",
    mime_type = "text/markdown",
    scopes = ["assistant"],
    capabilities = ["readLab"],
)]
pub async fn inventory(
    store: Shared<Store>,
    lab: Shared<LabConfig>,
) -> Result<String, AdapterError> {
    let hosts = store
        .run(|connection| Ok(hosts::list(connection, None)?))
        .await?;
    let mut table = format!(
        "# {}\n\n| name | address | role |\n|---|---|---|\n",
        lab.site_name
    );
    for host in &hosts {
        table.push_str(&format!(
            "| {} | {} | {} |\n",
            host.name,
            host.address,
            host.role.as_str()
        ));
    }
    Ok(table)
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostVars {
    /// The host's name in the lab.
    #[schemars(length(min = 1, max = 63), regex(pattern = hosts::NAME_PATTERN))]
    pub name: String,
}

/// One host of the lab, as JSON.
#[portos_resource(
    uri_template = "lab://hosts/{name}",
    name = "host",
    mime_type = "application/json",
    scopes = ["assistant"],
    capabilities = ["readLab"],
    complete(name = host_names),
)]
pub async fn host(vars: HostVars, store: Shared<Store>) -> Result<String, AdapterError> {
    Ok(serde_json::to_string(&find(&store, &vars.name).await?)?)
}

async fn find(store: &Store, name: &str) -> Result<Host, AdapterError> {
    let key = name.to_ascii_lowercase();
    store
        .run(move |connection| Ok(hosts::find(connection, &key)?))
        .await?
        .ok_or_else(|| AdapterError::new(format!("no host named {name}")))
}

/// The names of the lab's hosts that start with what was typed.
async fn host_names(ctx: &ToolContext, request: CompletionRequest) -> Vec<String> {
    let Ok(store) = ctx.shared::<Store>() else {
        return Vec::new();
    };
    let prefix = request.value.to_ascii_lowercase();
    store
        .run(|connection| Ok(hosts::list(connection, None)?))
        .await
        .unwrap_or_default()
        .into_iter()
        .map(|host| host.name)
        .filter(|name| name.starts_with(&prefix))
        .collect()
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TriageArgs {
    /// The host that misbehaves.
    #[schemars(length(min = 1, max = 63), regex(pattern = hosts::NAME_PATTERN))]
    pub host: String,
    /// What was seen, in a few words.
    #[serde(default)]
    #[schemars(length(max = 500))]
    pub symptom: Option<String>,
}

/// Triage a misbehaving host, with its record embedded.
#[portos_prompt(
    name = "lab.triage",
    title = "Triage a host",
    scopes = ["assistant"],
    capabilities = ["readLab"],
    complete(host = host_names),
)]
pub async fn triage(
    args: TriageArgs,
    store: Shared<Store>,
) -> Result<Vec<PromptMessage>, AdapterError> {
    let host = find(&store, &args.host).await?;
    let symptom = args.symptom.unwrap_or_else(|| "it misbehaves".to_owned());
    Ok(vec![
        PromptMessage::user(Content::resource(
            ResourceContents::text(host_uri(&host.name), serde_json::to_string(&host)?)
                .with_mime_type("application/json"),
        )),
        PromptMessage::user(Content::text(format!(
            "{} ({}, a {}) is in trouble: {symptom}. What should I check first?",
            host.name,
            host.address,
            host.role.as_str()
        ))),
    ])
}

/// Check every stored host's address again (it may have been written by
/// an older build with other rules), reporting progress host by host.
#[portos_tool(
    name = "lab.hosts.audit",
    scopes = ["assistant", "operator", "panel"],
    capabilities = ["readLab"],
    side_effect = "read",
)]
pub async fn audit(ctx: &ToolContext, store: Shared<Store>) -> Result<ToolContent, AdapterError> {
    let hosts = store
        .run(|connection| Ok(hosts::list(connection, None)?))
        .await?;
    let total = hosts.len() as f64;
    let mut problems = Vec::new();
    for (done, host) in hosts.iter().enumerate() {
        ctx.report_progress(
            done as f64,
            Some(total),
            Some(&format!("Checking {}", host.name)),
        );
        if let Err(problem) = hosts::check_address(&host.address) {
            problems.push(format!("{}: {problem}", host.name));
        }
    }
    ctx.report_progress(total, Some(total), Some("Checked"));
    let summary = match problems.len() {
        0 => format!("All {} hosts have valid addresses.", hosts.len()),
        n => format!(
            "{n} of {} hosts need fixing: {}",
            hosts.len(),
            problems.join("; ")
        ),
    };
    Ok(ToolContent::new(vec![Content::text(summary)]))
}
