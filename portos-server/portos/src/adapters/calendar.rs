//! calendar.today and calendar.next (BEHAVIOUR §3 rows 18–19): the user's
//! events, from ICS sources and the API, in the user's time zone.

use jiff::ZonedDateTime;
use portos_core::{AdapterError, ToolContext, portos_tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::calendar::{self, Occurrence};
use crate::clock::UserClock;
use crate::shared::limits::clamp_limit;
use crate::store::Store;

const TODAY_DEFAULT: usize = 10;
const TODAY_MAX: usize = 20;
const LOOK_AHEAD_DAYS: i64 = 30;

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
pub async fn today(ctx: &ToolContext, args: TodayArgs) -> Result<Today, AdapterError> {
    let limit = clamp_limit(args.limit, TODAY_DEFAULT, TODAY_MAX);
    let store = ctx.state::<Store>()?.clone();
    let clock = ctx.state::<UserClock>()?;
    let now = clock.now();
    let day_start = now.start_of_day()?;
    let day_end = day_start.tomorrow()?.start_of_day()?;
    let zone = clock.zone().clone();
    let (from, to) = (day_start.timestamp(), day_end.timestamp());
    let found = store
        .run(move |connection| calendar::occurrences(connection, &zone, from, to))
        .await?;
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
        date: day_start.date().to_string(),
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
pub async fn next(ctx: &ToolContext) -> Result<Next, AdapterError> {
    let store = ctx.state::<Store>()?.clone();
    let clock = ctx.state::<UserClock>()?;
    let now = clock.now();
    let horizon = now.checked_add(jiff::Span::new().days(LOOK_AHEAD_DAYS))?;
    let zone = clock.zone().clone();
    let (from, to) = (now.timestamp(), horizon.timestamp());
    let found = store
        .run(move |connection| calendar::occurrences(connection, &zone, from, to))
        .await?;
    // Upcoming means starting from now on: one already under way is not next.
    let Some(event) = found
        .into_iter()
        .find(|occurrence| occurrence.starts_at.timestamp() >= from)
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

/// `9:30 AM` in the user's zone, or `All day`.
fn spoken_time(occurrence: &Occurrence) -> String {
    if occurrence.all_day {
        "All day".to_owned()
    } else {
        occurrence.starts_at.strftime("%-I:%M %p").to_string()
    }
}

/// `today at 9:30 AM`, `tomorrow (all day)`, `on Friday, December 4 at …`.
fn spoken_when(occurrence: &Occurrence, now: &ZonedDateTime) -> String {
    let date = occurrence.starts_at.date();
    let day = if date == now.date() {
        "today".to_owned()
    } else if now.date().tomorrow().is_ok_and(|tomorrow| tomorrow == date) {
        "tomorrow".to_owned()
    } else {
        format!("on {}", occurrence.starts_at.strftime("%A, %B %-d"))
    };
    if occurrence.all_day {
        format!("{day} (all day)")
    } else {
        format!("{day} at {}", spoken_time(occurrence))
    }
}
