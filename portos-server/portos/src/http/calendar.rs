//! `/api/calendar/*`: calendar sources (ICS files or URLs) and events, the
//! data behind `calendar.today` and `calendar.next`. Times are shown in the
//! user's configured time zone.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use jiff::Timestamp;
use jiff::civil::{Date, DateTime};
use portos_core::portos_route;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ApiError;
use super::body::JsonBody;
use super::sources::{SourceBody, load_document, store_failure, validation};
use crate::app::App;
use crate::calendar::{self, EventTime, NewEvent, Occurrence, RefreshOutcome, Source, ics};

/// The default window of the event listing, from today.
const DEFAULT_WINDOW_DAYS: i64 = 30;
/// The widest window one listing may ask for.
const MAX_WINDOW_DAYS: i64 = 366;

#[derive(Debug, Serialize, JsonSchema)]
pub struct SourceList {
    pub sources: Vec<Source>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct EventList {
    /// The window, RFC 3339 in the user's zone.
    pub from: String,
    pub to: String,
    pub events: Vec<Occurrence>,
}

/// The window to list: dates (`YYYY-MM-DD`, the user's local days) or
/// RFC 3339 instants. Defaults: from the start of today, for 30 days.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    pub from: Option<String>,
    /// Exclusive; a date means the start of that day.
    pub to: Option<String>,
}

/// An event to add. `start` is a date (`YYYY-MM-DD`, an all-day event), an
/// RFC 3339 instant, a zoned time (`2026-12-03T09:00[Europe/Paris]`) or a
/// local time without offset (the user's zone).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EventBody {
    pub title: String,
    pub start: String,
    /// Same form as `start`, after it (for all-day events: the last day).
    pub end: Option<String>,
    /// Must agree with `start`'s form when given.
    pub all_day: Option<bool>,
    pub location: Option<String>,
}

/// The added event, as its first occurrence.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedEvent {
    pub id: String,
    pub title: String,
    pub all_day: bool,
    pub start: String,
    pub end: Option<String>,
    pub location: Option<String>,
}

#[portos_route(
    method = "GET",
    path = "/api/calendar/sources",
    summary = "Calendar sources",
    response = SourceList,
)]
async fn list_sources(State(app): State<App>) -> Result<Json<SourceList>, ApiError> {
    let sources = app
        .store
        .run(|connection| calendar::list_sources(connection))
        .await
        .map_err(store_failure)?;
    Ok(Json(SourceList { sources }))
}

/// Adds an ICS calendar by URL or file path. Nothing is fetched yet: refresh
/// it to read its events.
#[portos_route(
    method = "POST",
    path = "/api/calendar/sources",
    summary = "Add a calendar source",
    request = SourceBody,
    response = Source,
    status = 201,
    errors = [
        (400, "VALIDATION_ERROR"),
        (409, "ALREADY_ADDED"),
        (415, "UNSUPPORTED_MEDIA_TYPE"),
    ],
)]
async fn add_source(
    State(app): State<App>,
    body: JsonBody,
) -> Result<(StatusCode, Json<Source>), ApiError> {
    let (location, title) = body.into_typed::<SourceBody>()?.checked()?;
    let source = location.as_source();
    let now = Timestamp::now();
    let outcome = app
        .store
        .run(move |connection| calendar::add_source(connection, &source, title.as_deref(), now))
        .await
        .map_err(store_failure)?;
    match outcome {
        Ok(added) => Ok((StatusCode::CREATED, Json(added))),
        Err(calendar::AlreadyAdded(found)) => Err(ApiError::new(
            StatusCode::CONFLICT,
            "ALREADY_ADDED",
            format!(
                "{} is already a calendar source ({})",
                found.source, found.id
            ),
        )),
    }
}

/// Removes a calendar source and its events.
#[portos_route(
    method = "DELETE",
    path = "/api/calendar/sources/{id}",
    summary = "Remove a calendar source",
    status = 204,
    errors = [(404, "CALENDAR_SOURCE_NOT_FOUND")],
)]
async fn delete_source(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let removed = app
        .store
        .run(move |connection| calendar::delete_source(connection, &id))
        .await
        .map_err(store_failure)?;
    if removed {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(source_not_found())
    }
}

/// Fetches and parses the ICS document and replaces the source's events. A
/// fetch or parse failure changes nothing.
#[portos_route(
    method = "POST",
    path = "/api/calendar/sources/{id}/refresh",
    summary = "Refresh a calendar source",
    response = RefreshOutcome,
    errors = [
        (404, "CALENDAR_SOURCE_NOT_FOUND"),
        (422, "SOURCE_UNREADABLE"),
        (422, "CALENDAR_PARSE_ERROR"),
        (502, "SOURCE_UNREACHABLE"),
    ],
)]
async fn refresh_source(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<RefreshOutcome>, ApiError> {
    let lookup = id.clone();
    let found = app
        .store
        .run(move |connection| calendar::get_source(connection, &lookup))
        .await
        .map_err(store_failure)?
        .ok_or_else(source_not_found)?;
    let bytes = load_document(&found.source).await?;
    let parse_error = |reason: String| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "CALENDAR_PARSE_ERROR",
            format!("{}: {reason}", found.source),
        )
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| parse_error("not UTF-8 text, so not an iCalendar document".into()))?;
    let parsed = ics::parse(&text).map_err(parse_error)?;
    let now = Timestamp::now();
    let outcome = app
        .store
        .run(move |connection| calendar::store_refresh(connection, &id, parsed, now))
        .await
        .map_err(store_failure)?
        .ok_or_else(source_not_found)?;
    Ok(Json(outcome))
}

/// Event occurrences in a window (repeating events expanded), in start order.
#[portos_route(
    method = "GET",
    path = "/api/calendar/events",
    summary = "Calendar events",
    query = EventsQuery,
    response = EventList,
    errors = [(400, "VALIDATION_ERROR")],
)]
async fn list_events(
    State(app): State<App>,
    query: Result<Query<EventsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<EventList>, ApiError> {
    let Query(EventsQuery { from, to }) =
        query.map_err(|rejection| validation(rejection.body_text()))?;
    let clock = &app.clock;
    let zone = clock.zone().clone();
    let today = clock
        .now()
        .start_of_day()
        .map_err(|error| ApiError::internal(error.to_string()))?;
    let from = match from {
        Some(text) => window_bound(&text, &zone, "from")?,
        None => today.timestamp(),
    };
    let to = match to {
        Some(text) => window_bound(&text, &zone, "to")?,
        None => from
            .to_zoned_datetime(zone.clone())
            .checked_add(jiff::Span::new().days(DEFAULT_WINDOW_DAYS))
            .map_err(|error| ApiError::internal(error.to_string()))?
            .timestamp(),
    };
    if to <= from {
        return Err(validation("`to` must be after `from`"));
    }
    if to.duration_since(from) > jiff::SignedDuration::from_hours(24 * MAX_WINDOW_DAYS) {
        return Err(validation(format!(
            "the window may span at most {MAX_WINDOW_DAYS} days"
        )));
    }
    let listing_zone = zone.clone();
    let events = app
        .store
        .run(move |connection| calendar::occurrences(connection, &listing_zone, from, to))
        .await
        .map_err(store_failure)?;
    let show = |at: Timestamp| {
        at.to_zoned_datetime(zone.clone())
            .strftime("%Y-%m-%dT%H:%M:%S%:z")
            .to_string()
    };
    Ok(Json(EventList {
        from: show(from),
        to: show(to),
        events,
    }))
}

/// Adds an event to the user's own calendar.
#[portos_route(
    method = "POST",
    path = "/api/calendar/events",
    summary = "Add a calendar event",
    request = EventBody,
    response = CreatedEvent,
    status = 201,
    errors = [(400, "VALIDATION_ERROR"), (415, "UNSUPPORTED_MEDIA_TYPE")],
)]
async fn add_event(
    State(app): State<App>,
    body: JsonBody,
) -> Result<(StatusCode, Json<CreatedEvent>), ApiError> {
    let body: EventBody = body.into_typed()?;
    let event = checked_event(body)?;
    let clock = &app.clock;
    let now = Timestamp::now();
    let stored = event.clone();
    let id = app
        .store
        .run(move |connection| calendar::insert_event(connection, None, &stored, now))
        .await
        .map_err(store_failure)?;
    let show = |time: &EventTime| match time {
        EventTime::AllDay(date) => date.to_string(),
        EventTime::Timed { civil, zone } => {
            let tz = zone
                .as_deref()
                .and_then(|name| jiff::tz::TimeZone::get(name).ok())
                .unwrap_or_else(|| clock.zone().clone());
            civil
                .to_zoned_datetime(tz)
                .map(|at| {
                    at.with_time_zone(clock.zone().clone())
                        .strftime("%Y-%m-%dT%H:%M:%S%:z")
                        .to_string()
                })
                .unwrap_or_else(|_| civil.to_string())
        }
    };
    Ok((
        StatusCode::CREATED,
        Json(CreatedEvent {
            id,
            all_day: event.start.is_all_day(),
            start: show(&event.start),
            end: event.end.as_ref().map(show),
            title: event.title,
            location: event.location,
        }),
    ))
}

/// Deletes an event added through the API (a source's events change with
/// the source).
#[portos_route(
    method = "DELETE",
    path = "/api/calendar/events/{id}",
    summary = "Delete a calendar event",
    status = 204,
    errors = [(404, "CALENDAR_EVENT_NOT_FOUND"), (409, "EVENT_FROM_SOURCE")],
)]
async fn delete_event(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let outcome = app
        .store
        .run(move |connection| calendar::delete_event(connection, &id))
        .await
        .map_err(store_failure)?;
    match outcome {
        Some(true) => Ok(StatusCode::NO_CONTENT),
        Some(false) => Err(ApiError::new(
            StatusCode::CONFLICT,
            "EVENT_FROM_SOURCE",
            "This event comes from a calendar source; change or remove the source instead",
        )),
        None => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "CALENDAR_EVENT_NOT_FOUND",
            "No calendar event with that id",
        )),
    }
}

fn source_not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "CALENDAR_SOURCE_NOT_FOUND",
        "No calendar source with that id",
    )
}

/// A window bound: a local date (its start) or an RFC 3339 instant.
fn window_bound(text: &str, zone: &jiff::tz::TimeZone, name: &str) -> Result<Timestamp, ApiError> {
    let text = text.trim();
    if let Ok(date) = text.parse::<Date>()
        && !text.contains('T')
    {
        return date
            .to_zoned_datetime(zone.clone())
            .map(|at| at.timestamp())
            .map_err(|error| validation(format!("`{name}`: {error}")));
    }
    text.parse::<Timestamp>().map_err(|_| {
        validation(format!(
            "`{name}` must be a date (YYYY-MM-DD) or an RFC 3339 time with an offset, not `{text}`"
        ))
    })
}

/// The body as an event, or 400 saying what to fix.
fn checked_event(body: EventBody) -> Result<NewEvent, ApiError> {
    let title = body.title.trim().to_owned();
    if title.is_empty() {
        return Err(validation("`title` must not be empty"));
    }
    let start = event_time(&body.start, "start")?;
    if let Some(all_day) = body.all_day
        && all_day != start.is_all_day()
    {
        return Err(validation(if all_day {
            "an all-day event's `start` is a date (YYYY-MM-DD)"
        } else {
            "`allDay` is false, so `start` must be a time, not a date"
        }));
    }
    let end = match body.end {
        None => None,
        Some(text) => {
            let end = match event_time(&text, "end")? {
                // The API's end date is the last day; stored exclusive.
                EventTime::AllDay(date) => EventTime::AllDay(
                    date.tomorrow()
                        .map_err(|_| validation("`end` is out of range"))?,
                ),
                timed => timed,
            };
            if end.is_all_day() != start.is_all_day() {
                return Err(validation("`end` must have the same form as `start`"));
            }
            if !end.is_after(&start) {
                return Err(validation("`end` must be after `start`"));
            }
            Some(end)
        }
    };
    let location = body
        .location
        .map(|location| location.trim().to_owned())
        .filter(|location| !location.is_empty());
    Ok(NewEvent {
        uid: None,
        title,
        location,
        start,
        end,
        rrule: None,
        excluded: Vec::new(),
    })
}

fn event_time(text: &str, name: &str) -> Result<EventTime, ApiError> {
    let text = text.trim();
    if !text.contains('T') && !text.contains('t') {
        if let Ok(date) = text.parse::<Date>() {
            return Ok(EventTime::AllDay(date));
        }
    } else if text.ends_with(']') {
        if let Ok(zoned) = text.parse::<jiff::ZonedDateTime>() {
            // A named zone is kept (wall-clock time); a bare offset is an instant.
            return Ok(match zoned.time_zone().iana_name() {
                Some(name) => EventTime::Timed {
                    civil: zoned.datetime(),
                    zone: Some(name.to_owned()),
                },
                None => EventTime::Timed {
                    civil: zoned
                        .timestamp()
                        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
                        .datetime(),
                    zone: Some("UTC".to_owned()),
                },
            });
        }
    } else if let Ok(at) = text.parse::<Timestamp>() {
        return Ok(EventTime::Timed {
            civil: at.to_zoned_datetime(jiff::tz::TimeZone::UTC).datetime(),
            zone: Some("UTC".to_owned()),
        });
    } else if let Ok(civil) = text.parse::<DateTime>() {
        return Ok(EventTime::Timed { civil, zone: None });
    }
    Err(validation(format!(
        "`{name}` must be a date (YYYY-MM-DD), an RFC 3339 time, a zoned time \
         (2026-12-03T09:00[Europe/Paris]) or a local time (2026-12-03T09:00), not `{text}`"
    )))
}
