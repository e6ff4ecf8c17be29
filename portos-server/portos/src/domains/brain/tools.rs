//! The brain inbox's tools: capture, search, recent
//! (docs/reference.md#semantic-adapters rows 1–3). A capture is recorded in the
//! user-actions ledger (`brain.capture`).

use portos_core::{AdapterError, Shared, ToolContext, portos_tool};
use portos_server::clock::UserClock;
use portos_server::events::Events;
use portos_server::store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{self, preview};
use super::ops;
use crate::shared::limits::clamp_limit;

const SEARCH_DEFAULT: usize = 5;
const SEARCH_MAX: usize = 10;
const RECENT_DEFAULT: usize = 5;
const RECENT_MAX: usize = 10;

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaptureArgs {
    /// What to capture, as the user said it.
    pub text: String,
}

// `Deserialize`: the routes read the registry's answer back as this type.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct Captured {
    pub ok: bool,
    pub id: String,
    pub summary: String,
}

/// Capture a thought into the user's brain inbox.
#[portos_tool(
    name = "brain.capture",
    aliases = ["brain_capture"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["writePortos"],
    side_effect = "write",
    intent_group = "brain",
    suppress_on_form_fill,
)]
pub async fn capture(
    ctx: &ToolContext,
    args: CaptureArgs,
    store: Shared<Store>,
    clock: Shared<UserClock>,
    events: Shared<Events>,
) -> Result<Captured, AdapterError> {
    let text = model::capture_text(&args.text).map_err(AdapterError::new)?;
    let authority = ctx.authority();
    let capture = ops::capture(
        &store,
        &clock,
        authority.scope,
        authority.subject.as_deref(),
        text,
    )
    .await?;
    // MCP clients subscribed to the brain's context resource hear of it.
    events
        .resource_updated(&crate::shared::context_uri::scope_uri(portos_words::BRAIN))
        .await;
    Ok(Captured {
        ok: true,
        summary: model::captured_summary(&capture.text),
        id: capture.id,
    })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Words to look for (case-insensitive).
    pub query: String,
    /// How many hits to return (default 5, at most 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchHit {
    pub id: String,
    /// The user-local capture date, `YYYY-MM-DD`.
    pub date: String,
    pub text: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchResult {
    pub ok: bool,
    pub count: usize,
    pub hits: Vec<SearchHit>,
    pub summary: String,
}

/// Search the user's brain inbox.
#[portos_tool(
    name = "brain.search",
    aliases = ["brain_search"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
    intent_group = "brain",
)]
pub async fn search(args: SearchArgs, store: Shared<Store>) -> Result<SearchResult, AdapterError> {
    let query = args.query.trim().to_owned();
    if query.is_empty() {
        return Err(AdapterError::new("query must not be empty"));
    }
    let limit = clamp_limit(args.limit, SEARCH_DEFAULT, SEARCH_MAX);
    let hits: Vec<SearchHit> = ops::search(&store, &query, limit)
        .await?
        .into_iter()
        .map(|capture| SearchHit {
            id: capture.id,
            date: capture.date,
            text: capture.text,
        })
        .collect();
    let summary = match hits.len() {
        0 => "No matches.".to_owned(),
        1 => format!("Found 1 match for \"{query}\": {}", preview(&hits[0].text)),
        n => format!("Found {n} matches for \"{query}\"."),
    };
    Ok(SearchResult {
        ok: true,
        count: hits.len(),
        hits,
        summary,
    })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecentArgs {
    /// How many captures to return (default 5, at most 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct RecentItem {
    pub date: String,
    pub text: String,
}

// `Deserialize`: the public route reads the registry's answer back as this
// type.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct RecentResult {
    pub ok: bool,
    pub count: usize,
    pub items: Vec<RecentItem>,
    pub summary: String,
}

/// List the most recent captures in the user's brain inbox.
#[portos_tool(
    name = "brain.recent",
    aliases = ["brain_list_recent", "brain_recent"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
    intent_group = "brain",
)]
pub async fn recent(args: RecentArgs, store: Shared<Store>) -> Result<RecentResult, AdapterError> {
    let limit = clamp_limit(args.limit, RECENT_DEFAULT, RECENT_MAX);
    let items: Vec<RecentItem> = ops::recent(&store, limit)
        .await?
        .into_iter()
        .map(|capture| RecentItem {
            date: capture.date,
            text: capture.text,
        })
        .collect();
    let summary = if items.is_empty() {
        "Brain inbox is empty.".to_owned()
    } else {
        let latest = items
            .iter()
            .map(|item| preview(&item.text))
            .collect::<Vec<_>>();
        format!("Latest {}: {}", items.len(), latest.join("; "))
    };
    Ok(RecentResult {
        ok: true,
        count: items.len(),
        items,
        summary,
    })
}
