//! The daily journal: append to and read a day's log (BEHAVIOUR §3 rows
//! 15–16, the voice era's `daily_log_*` tools).

use portos_core::{AdapterError, ToolContext, portos_tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::clock::UserClock;
use crate::shared::local_date;
use crate::store::Store;
use crate::store::journal::{self, Segment};

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
pub async fn append(ctx: &ToolContext, args: AppendArgs) -> Result<Appended, AdapterError> {
    let segment = new_segment(ctx.state::<UserClock>()?, &args.text, args.date.as_deref())
        .map_err(AdapterError::new)?;
    let date = segment.date.clone();
    let segments = ctx
        .state::<Store>()?
        .run(move |connection| journal::append(connection, &segment))
        .await?;
    let noun = if segments == 1 { "entry" } else { "entries" };
    Ok(Appended {
        ok: true,
        summary: format!("Added to your journal for {date} ({segments} {noun} that day)."),
        date,
        segments,
    })
}

/// A checked segment to append: trimmed non-empty text on a real date.
pub fn new_segment(clock: &UserClock, text: &str, date: Option<&str>) -> Result<Segment, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("text must not be empty: say what to add to the journal".to_owned());
    }
    let date = local_date::date_or_today(clock, date)?;
    Ok(Segment {
        id: uuid::Uuid::new_v4().to_string(),
        date: date.to_string(),
        text: text.to_owned(),
        created_at: jiff::Timestamp::now().to_string(),
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
pub async fn read(ctx: &ToolContext, args: ReadArgs) -> Result<DayRead, AdapterError> {
    let date = local_date::date_or_today(ctx.state::<UserClock>()?, args.date.as_deref())
        .map_err(AdapterError::new)?
        .to_string();
    let day = date.clone();
    let segments = ctx
        .state::<Store>()?
        .run(move |connection| journal::day(connection, &day))
        .await?;
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

/// A day's text: its segments in order, separated by blank lines.
pub fn join(segments: &[Segment]) -> String {
    segments
        .iter()
        .map(|segment| segment.text.as_str())
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn preview(text: &str) -> String {
    match text.char_indices().nth(SUMMARY_PREVIEW_CHARS) {
        Some((index, _)) => format!("{}…", &text[..index]),
        None => text.to_owned(),
    }
}
