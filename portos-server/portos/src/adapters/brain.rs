//! The brain inbox: capture, search, recent (BEHAVIOUR §3 rows 1–3). A
//! capture is recorded in the user-actions ledger (`brain.capture`).

use portos_core::{AdapterError, ToolContext, portos_tool};
use rusqlite::params;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::clock::UserClock;
use crate::ledger::{self, ActionType, Actor, NewAction};
use crate::shared::limits::clamp_limit;
use crate::store::Store;

const SEARCH_DEFAULT: usize = 5;
const SEARCH_MAX: usize = 10;
const RECENT_DEFAULT: usize = 5;
const RECENT_MAX: usize = 10;
const SUMMARY_PREVIEW_CHARS: usize = 60;

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaptureArgs {
    /// What to capture, as the user said it.
    pub text: String,
}

#[derive(Debug, Serialize, JsonSchema)]
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
pub async fn capture(ctx: &ToolContext, args: CaptureArgs) -> Result<Captured, AdapterError> {
    let text = args.text.trim().to_owned();
    if text.is_empty() {
        return Err(AdapterError::new("text must not be empty"));
    }
    let store = ctx.state::<Store>()?.clone();
    let clock = ctx.state::<UserClock>()?;
    let now = jiff::Timestamp::now();
    let local_date = clock.local_date(now);
    let id = uuid::Uuid::new_v4().to_string();

    let summary = format!("Captured \"{}\"", preview(&text));
    let scope = ctx.authority().scope;
    // The capture and its ledger row commit together, or neither does.
    let action = NewAction::new(
        ActionType::BrainCapture,
        Actor::of_scope(scope),
        summary.clone(),
    )
    .target(id.clone(), Some(preview(&text)))
    .payload(serde_json::json!({ "scope": scope.as_str(), "chars": text.chars().count() }));
    let row_id = id.clone();
    store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            transaction.execute(
                "INSERT INTO brain_captures (id, text, captured_at, local_date, seq)
                 VALUES (?1, ?2, ?3, ?4, (SELECT COALESCE(MAX(seq), 0) + 1 FROM brain_captures))",
                params![row_id, text, now.to_string(), local_date],
            )?;
            ledger::record(&transaction, &action)?;
            transaction.commit()?;
            Ok(())
        })
        .await?;

    Ok(Captured {
        ok: true,
        summary,
        id,
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
pub async fn search(ctx: &ToolContext, args: SearchArgs) -> Result<SearchResult, AdapterError> {
    let query = args.query.trim().to_owned();
    if query.is_empty() {
        return Err(AdapterError::new("query must not be empty"));
    }
    let limit = clamp_limit(args.limit, SEARCH_DEFAULT, SEARCH_MAX);
    let store = ctx.state::<Store>()?.clone();
    let needle = query.to_lowercase();
    let hits = store
        .run(move |connection| {
            let mut statement = connection.prepare_cached(
                "SELECT id, local_date, text FROM brain_captures
                 WHERE instr(portos_fold(text), ?1) > 0
                 ORDER BY seq DESC LIMIT ?2",
            )?;
            let rows = statement.query_map(params![needle, limit as i64], |row| {
                Ok(SearchHit {
                    id: row.get(0)?,
                    date: row.get(1)?,
                    text: row.get(2)?,
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await?;
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

#[derive(Debug, Serialize, JsonSchema)]
pub struct RecentItem {
    pub date: String,
    pub text: String,
}

#[derive(Debug, Serialize, JsonSchema)]
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
pub async fn recent(ctx: &ToolContext, args: RecentArgs) -> Result<RecentResult, AdapterError> {
    let limit = clamp_limit(args.limit, RECENT_DEFAULT, RECENT_MAX);
    let store = ctx.state::<Store>()?.clone();
    let items = store
        .run(move |connection| {
            let mut statement = connection.prepare_cached(
                "SELECT local_date, text FROM brain_captures ORDER BY seq DESC LIMIT ?1",
            )?;
            let rows = statement.query_map([limit as i64], |row| {
                Ok(RecentItem {
                    date: row.get(0)?,
                    text: row.get(1)?,
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
        .await?;
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

/// The first 60 characters, with an ellipsis when cut.
fn preview(text: &str) -> String {
    match text.char_indices().nth(SUMMARY_PREVIEW_CHARS) {
        Some((index, _)) => format!("{}…", &text[..index]),
        None => text.to_owned(),
    }
}
