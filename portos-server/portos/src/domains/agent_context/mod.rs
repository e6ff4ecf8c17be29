//! The five read-only context tools of Agent Tools
//! (docs/reference.md#context-tools, docs/reference.md#context-items):
//! `search_context`, `get_context`, `list_context`, `resolve_navigation`,
//! `context_profile`, over four sources — navigation (this server's pages and
//! documents), workspaces (managed apps), brain (the inbox records) and
//! identity (the sections of a local identity export). [`PortosContext`] plugs
//! them into the runtime's Agent Tools MCP; they read brain captures and the
//! CoS tasks' managed apps, never write.

mod brain;
mod identity;
mod input;
pub mod item;
mod navigation;
pub mod redact;
mod resources;

pub mod roster;
mod schemas;
mod store;
pub mod workspaces;

use portos_server::mcp::{AgentContextConfig, ContextScope};
use serde_json::{Value, json};

use self::input::{ContextInput, parse_input};
use self::item::{ContextItem, Snapshot, select_within_budget};
use crate::store::Store;
pub use workspaces::{Workspace, WorkspaceFuture, WorkspaceList, WorkspaceSource};

pub const DEFAULT_RESULTS: usize = 10;
pub const MAX_RESULTS: usize = 25;
pub const MAX_SUMMARY_CHARS: usize = 320;
pub const MAX_RESPONSE_CHARS: usize = 20_000;
pub const MAX_APPROX_TOKENS: usize = 5_000;
pub const MAX_SOURCE_ITEMS: usize = 1_000;
pub const MAX_QUERY_CHARS: usize = 200;
pub const MAX_REF_CHARS: usize = 180;

/// What the context tools never return, stated in the manifest and profile.
pub const EXCLUSIONS: [&str; 5] = [
    "Privacy Vault and encrypted privacy records",
    "credentials, secrets, tokens, and authentication material",
    "federation peers, network topology, and machine identity",
    "repository paths, branches, shell sessions, and command history",
    "messages, browser history, health records, and raw personal exports",
];

/// The tool names, in registry order.
pub const TOOL_NAMES: [&str; 5] = [
    "search_context",
    "get_context",
    "list_context",
    "resolve_navigation",
    "context_profile",
];

/// The handler's failure text (details are not shown to the agent).
pub const SOURCE_UNAVAILABLE: &str = "Context source unavailable for this request.";

pub fn limits() -> Value {
    json!({
        "defaultResults": DEFAULT_RESULTS,
        "maxResults": MAX_RESULTS,
        "maxSummaryChars": MAX_SUMMARY_CHARS,
        "maxResponseChars": MAX_RESPONSE_CHARS,
        "maxApproxTokens": MAX_APPROX_TOKENS,
        "maxSourceItems": MAX_SOURCE_ITEMS,
    })
}

/// The context tools this configuration advertises (`resolve_navigation`
/// only with the navigation scope).
pub fn definitions(config: &AgentContextConfig) -> Vec<Value> {
    TOOL_NAMES
        .iter()
        .filter(|name| **name != "resolve_navigation" || config.has_scope(portos_words::NAVIGATION))
        .map(|name| schemas::definition(name))
        .collect()
}

pub fn is_context_tool(name: &str) -> bool {
    TOOL_NAMES.contains(&name)
}

/// Where the sources read from.
#[derive(Clone, Debug)]
pub struct Sources {
    pub store: Store,
    pub workspaces: std::sync::Arc<dyn WorkspaceSource>,
}

pub use portos_server::mcp::Outcome;

const INSTRUCTIONS: &str = "PortOS Agent Tools: a local-only MCP server (loopback connections only). \
The context tools (search_context, get_context, list_context, resolve_navigation, context_profile) \
are read-only and return bounded, redacted context items. Semantic PortOS actions are listed and \
callable only when the owner separately granted them in Settings → Agent Tools. Call \
context_profile first to see the active profile, scopes, grants, limits and exclusions.";

/// PortOS's five context tools, plugged into the runtime's Agent Tools MCP.
#[derive(Debug, Default)]
pub struct PortosContext {
    /// Where workspaces come from; `None`: the server's managed-app roster.
    workspaces: Option<std::sync::Arc<dyn WorkspaceSource>>,
}

impl PortosContext {
    /// Where the sources read from: this server's store, and the
    /// workspaces' source.
    fn sources(&self, store: &portos_server::store::Store) -> Sources {
        let workspaces = match &self.workspaces {
            Some(source) => source.clone(),
            None => std::sync::Arc::new(roster::RosterWorkspaces::new(store.clone())),
        };
        Sources {
            store: store.clone(),
            workspaces,
        }
    }

    /// Workspaces from another source than the roster.
    pub fn with_workspaces(workspaces: std::sync::Arc<dyn WorkspaceSource>) -> PortosContext {
        PortosContext {
            workspaces: Some(workspaces),
        }
    }
}

impl portos_server::mcp::ContextTools for PortosContext {
    fn definitions(&self, config: &AgentContextConfig) -> Vec<Value> {
        definitions(config)
    }

    fn is_context_tool(&self, name: &str) -> bool {
        is_context_tool(name)
    }

    fn call<'a>(
        &'a self,
        store: &'a portos_server::store::Store,
        name: &'a str,
        arguments: Option<&'a Value>,
        config: &'a AgentContextConfig,
    ) -> portos_server::mcp::OutcomeFuture<'a> {
        Box::pin(async move { call(name, arguments, config, &self.sources(store)).await })
    }

    fn limits(&self) -> Value {
        limits()
    }

    fn exclusions(&self) -> &[&'static str] {
        &EXCLUSIONS
    }

    fn instructions(&self) -> &str {
        INSTRUCTIONS
    }

    fn offers_resources(&self) -> bool {
        true
    }

    fn resources(&self, config: &AgentContextConfig) -> Vec<Value> {
        resources::resources(config)
    }

    fn resource_templates(&self, _config: &AgentContextConfig) -> Vec<Value> {
        resources::templates()
    }

    fn read_resource<'a>(
        &'a self,
        store: &'a portos_server::store::Store,
        uri: &'a str,
        config: &'a AgentContextConfig,
    ) -> Option<portos_server::mcp::ResourceFuture<'a>> {
        resources::read(uri, config, self.sources(store))
    }
}

/// Runs a context tool (the caller checked the name and that the
/// configuration is active).
pub async fn call(
    name: &str,
    arguments: Option<&Value>,
    config: &AgentContextConfig,
    sources: &Sources,
) -> Outcome {
    if name == "resolve_navigation" && !config.has_scope(portos_words::NAVIGATION) {
        return Outcome::Refused("Tool requires the navigation scope.".to_owned());
    }
    let input = match parse_input(name, arguments) {
        Ok(input) => input,
        Err(paths) => {
            return Outcome::Refused(format!("Invalid tool input at: {}", paths.join(", ")));
        }
    };
    match run(input, config, sources).await {
        Ok(output) => Outcome::Output(output),
        Err(reason) => {
            tracing::debug!(%reason, tool = name, "context tool failed");
            Outcome::Refused(SOURCE_UNAVAILABLE.to_owned())
        }
    }
}

async fn run(
    input: ContextInput,
    config: &AgentContextConfig,
    sources: &Sources,
) -> Result<Value, String> {
    match input {
        ContextInput::Profile => Ok(json!({
            "profile": config.profile,
            "scopes": config.scopes,
            "actions": config.actions,
            "limits": limits(),
            "exclusions": EXCLUSIONS,
        })),
        ContextInput::Search {
            query,
            scopes,
            limit,
        } => {
            let scopes = scopes.unwrap_or_else(|| config.scopes.clone());
            if let Some(missing) = scopes.iter().find(|s| !config.has_scope(**s)) {
                return Err(format!("scope {} is not enabled", missing.as_str()));
            }
            let lowered = query.to_lowercase();
            let mut snapshots = Vec::new();
            for scope in scopes {
                snapshots.push(snapshot(scope, config, sources).await?);
            }
            let matches: Vec<&ContextItem> = snapshots
                .iter()
                .flat_map(|s| s.entries.iter())
                .filter(|entry| entry.matches(&lowered))
                .map(|entry| &entry.item)
                .collect();
            let items = select_within_budget(&matches, limit.unwrap_or(DEFAULT_RESULTS));
            let source_truncated = snapshots.iter().any(|s| s.truncated);
            Ok(json!({
                "items": items,
                "total": matches.len(),
                "truncated": items.len() < matches.len() || source_truncated,
                "sourceTruncated": source_truncated,
                "sourceStatus": status(&snapshots),
            }))
        }
        ContextInput::Get { reference } => {
            let scope = reference
                .split_once(':')
                .and_then(|(scope, _)| ContextScope::from_name(scope))
                .filter(|scope| config.has_scope(*scope));
            let Some(scope) = scope else {
                return Ok(
                    json!({ "item": null, "sourceTruncated": false, "sourceStatus": "fresh" }),
                );
            };
            let snapshot = snapshot(scope, config, sources).await?;
            let item = snapshot
                .entries
                .iter()
                .find(|entry| entry.item.reference == reference)
                .map(|entry| &entry.item);
            Ok(json!({
                "item": item,
                "sourceTruncated": snapshot.truncated,
                "sourceStatus": status(std::slice::from_ref(&snapshot)),
            }))
        }
        ContextInput::List {
            scope,
            cursor,
            limit,
        } => {
            if !config.has_scope(scope) {
                return Err(format!("scope {} is not enabled", scope.as_str()));
            }
            let snapshot = snapshot(scope, config, sources).await?;
            let total = snapshot.entries.len();
            let page: Vec<&ContextItem> = snapshot
                .entries
                .iter()
                .skip(cursor)
                .map(|entry| &entry.item)
                .collect();
            let items = select_within_budget(&page, limit.unwrap_or(DEFAULT_RESULTS));
            let next = cursor.saturating_add(items.len());
            let next_cursor = (next < total).then_some(next);
            Ok(json!({
                "items": items,
                "total": total,
                "nextCursor": next_cursor,
                "truncated": next_cursor.is_some() || snapshot.truncated,
                "sourceTruncated": snapshot.truncated,
                "sourceStatus": status(std::slice::from_ref(&snapshot)),
            }))
        }
        ContextInput::Resolve { query } => Ok(json!({
            "match": navigation::resolve(&query).map(|entry| entry.item),
            "sourceStatus": "fresh",
        })),
    }
}

async fn snapshot(
    scope: ContextScope,
    config: &AgentContextConfig,
    sources: &Sources,
) -> Result<Snapshot, String> {
    match scope {
        portos_words::NAVIGATION => Ok(navigation::snapshot()),
        portos_words::WORKSPACES => {
            let list = sources.workspaces.list().await?;
            Ok(workspaces::snapshot(&list, config.profile))
        }
        portos_words::BRAIN => brain::snapshot(&sources.store, config.profile)
            .await
            .map_err(|error| error.to_string()),
        portos_words::IDENTITY => identity::snapshot(&sources.store)
            .await
            .map_err(|error| error.to_string()),
        // PortOS declares exactly these four.
        other => Err(format!("no context source for scope {other}")),
    }
}

fn status(snapshots: &[Snapshot]) -> &'static str {
    if snapshots.iter().any(|s| s.stale) {
        "stale"
    } else {
        "fresh"
    }
}
