//! The daily journal's tools: append to and read a day's log
//! (docs/reference.md#semantic-adapters rows 15–16, the voice era's
//! `daily_log_*` tools).

use portos_core::{AdapterError, Shared, portos_tool};
use portos_server::clock::UserClock;
use portos_server::store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::join;
use super::ops;
use crate::shared::local_date;

/// How much of a day the read summary quotes.
const SUMMARY_PREVIEW_CHARS: usize = 200;

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AppendArgs {
    /// What to add to the day's log.
    pub text: String,
    /// The day, `YYYY-MM-DD` (default today).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Appended {
    pub ok: bool,
    pub date: String,
    /// How many segments the day has now.
    pub segments: usize,
    pub summary: String,
}

/// Append text to the user's daily log (today unless a date is given).
#[portos_tool(
    name = "journal.append",
    aliases = ["daily_log_append", "journal_append"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["writePortos"],
    side_effect = "write",
    suppress_on_form_fill,
)]
pub async fn append(
    args: AppendArgs,
    store: Shared<Store>,
    clock: Shared<UserClock>,
) -> Result<Appended, AdapterError> {
    let (segment, segments) = ops::append(&store, &clock, &args.text, args.date.as_deref()).await?;
    let date = segment.date;
    let noun = if segments == 1 { "entry" } else { "entries" };
    Ok(Appended {
        ok: true,
        summary: format!("Added to your journal for {date} ({segments} {noun} that day)."),
        date,
        segments,
    })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// The day, `YYYY-MM-DD` (default today).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DayRead {
    pub ok: bool,
    pub date: String,
    /// The day's segments, joined by blank lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segments: Option<usize>,
    /// Present (true) when nothing was written that day.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub empty: Option<bool>,
    pub summary: String,
}

/// Read the user's daily log for a day (today unless a date is given).
#[portos_tool(
    name = "journal.read",
    aliases = ["daily_log_read", "journal_read"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
    intent_group = "dailylog",
)]
pub async fn read(
    args: ReadArgs,
    store: Shared<Store>,
    clock: Shared<UserClock>,
) -> Result<DayRead, AdapterError> {
    let day = local_date::date_or_today(&clock, args.date.as_deref()).map_err(AdapterError::new)?;
    let segments = ops::day(&store, day).await?;
    let date = day.to_string();
    if segments.is_empty() {
        return Ok(DayRead {
            ok: true,
            summary: format!("Nothing in your journal for {date}."),
            date,
            content: None,
            segments: None,
            empty: Some(true),
        });
    }
    let content = join(&segments);
    let noun = if segments.len() == 1 {
        "entry"
    } else {
        "entries"
    };
    let summary = format!(
        "Journal for {date} ({} {noun}): {}",
        segments.len(),
        preview(&content)
    );
    Ok(DayRead {
        ok: true,
        date,
        content: Some(content),
        segments: Some(segments.len()),
        empty: None,
        summary,
    })
}

fn preview(text: &str) -> String {
    match text.char_indices().nth(SUMMARY_PREVIEW_CHARS) {
        Some((index, _)) => format!("{}…", &text[..index]),
        None => text.to_owned(),
    }
}
