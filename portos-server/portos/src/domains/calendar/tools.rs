//! calendar.today and calendar.next (docs/reference.md#semantic-adapters rows
//! 18–19): the user's events, from ICS sources and the API, in the user's time
//! zone.

use portos_core::{AdapterError, Shared, portos_tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{LOOK_AHEAD_DAYS, Window, spoken_time, spoken_when};
use super::ops;
use crate::clock::UserClock;
use crate::shared::limits::clamp_limit;
use crate::store::Store;

const TODAY_DEFAULT: usize = 10;
const TODAY_MAX: usize = 20;

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodayArgs {
    /// How many events to list (default 10, at most 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TodayEvent {
    pub title: String,
    /// RFC 3339 in the user's zone, or `YYYY-MM-DD` for all-day events.
    pub start_time: String,
    /// `9:30 AM`, or `All day`.
    pub time: String,
    pub location: Option<String>,
    pub all_day: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Today {
    pub ok: bool,
    /// The user's local date, `YYYY-MM-DD`.
    pub date: String,
    pub count: usize,
    pub events: Vec<TodayEvent>,
    pub summary: String,
}

/// List today's calendar events (the user's local day).
#[portos_tool(
    name = "calendar.today",
    aliases = ["calendar_today"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
    intent_group = "calendar",
)]
pub async fn today(
    args: TodayArgs,
    store: Shared<Store>,
    clock: Shared<UserClock>,
) -> Result<Today, AdapterError> {
    let limit = clamp_limit(args.limit, TODAY_DEFAULT, TODAY_MAX);
    let now = clock.now();
    let found = ops::occurrences(&store, clock.zone(), Window::today(&now)?).await?;
    let total = found.len();
    let events: Vec<TodayEvent> = found
        .into_iter()
        .take(limit)
        .map(|occurrence| TodayEvent {
            time: spoken_time(&occurrence),
            title: occurrence.title,
            start_time: occurrence.start,
            location: occurrence.location,
            all_day: occurrence.all_day,
        })
        .collect();
    let summary = match events.len() {
        0 => "Nothing on your calendar today.".to_owned(),
        n => {
            let listed = events
                .iter()
                .map(|event| format!("{} {}", event.time, event.title))
                .collect::<Vec<_>>()
                .join("; ");
            let noun = if total == 1 { "event" } else { "events" };
            let more = if total > n {
                format!(" (showing {n})")
            } else {
                String::new()
            };
            format!("{total} {noun} today{more}: {listed}.")
        }
    };
    Ok(Today {
        ok: true,
        date: now.date().to_string(),
        count: events.len(),
        events,
        summary,
    })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Next {
    pub ok: bool,
    pub found: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_day: Option<bool>,
    pub summary: String,
}

/// Tell the next calendar event within 30 days.
#[portos_tool(
    name = "calendar.next",
    aliases = ["calendar_next"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
    intent_group = "calendar",
)]
pub async fn next(store: Shared<Store>, clock: Shared<UserClock>) -> Result<Next, AdapterError> {
    let now = clock.now();
    let window = Window::look_ahead(&now)?;
    let found = ops::occurrences(&store, clock.zone(), window).await?;
    // Upcoming means starting from now on: one already under way is not next.
    let Some(event) = found
        .into_iter()
        .find(|occurrence| occurrence.starts_at.timestamp() >= window.from)
    else {
        return Ok(Next {
            ok: true,
            found: false,
            title: None,
            start_time: None,
            location: None,
            all_day: None,
            summary: format!("No events in the next {LOOK_AHEAD_DAYS} days."),
        });
    };
    let when = spoken_when(&event, &now);
    let at = event
        .location
        .as_deref()
        .map(|location| format!(" at {location}"))
        .unwrap_or_default();
    Ok(Next {
        ok: true,
        found: true,
        summary: format!("Next: {} {when}{at}.", event.title),
        title: Some(event.title),
        start_time: Some(event.start),
        location: event.location,
        all_day: Some(event.all_day),
    })
}
