//! `/api/calendar/*`: calendar sources (ICS files or URLs) and events, the
//! data behind `calendar.today` and `calendar.next`. Times are shown in the
//! user's configured time zone.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use portos_core::portos_route;
use portos_server::http::ApiError;
use portos_server::http::body::JsonBody;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{
    AlreadyAdded, EventInput, Occurrence, RefreshOutcome, Source, Window, WindowError,
    local_rfc3339,
};
use super::ops::{self, RefreshError};
use super::store;
use crate::app::App;
use crate::shared::subscriptions::{SourceBody, validation};

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
        .run(|connection| store::list_sources(connection))
        .await?;
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
    let (location, title) = body
        .into_typed::<SourceBody>()?
        .checked()
        .map_err(validation)?;
    let outcome = ops::add_source(&app.store, &location, title).await?;
    match outcome {
        Ok(added) => Ok((StatusCode::CREATED, Json(added))),
        Err(AlreadyAdded(found)) => Err(ApiError::new(
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
        .run(move |connection| store::delete_source(connection, &id))
        .await?;
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
    match ops::refresh(&app.store, id).await {
        Ok(outcome) => Ok(Json(outcome)),
        Err(RefreshError::NotFound) => Err(source_not_found()),
        Err(RefreshError::Load(failure)) => Err(failure.into()),
        Err(RefreshError::Parse(message)) => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "CALENDAR_PARSE_ERROR",
            message,
        )),
        Err(RefreshError::Store(error)) => Err(ApiError::from(error)),
    }
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
    let now = app.clock.now();
    let window =
        Window::requested(from.as_deref(), to.as_deref(), &now).map_err(|error| match error {
            WindowError::Invalid(message) => validation(message),
            WindowError::Time(error) => ApiError::internal(error.to_string()),
        })?;
    let zone = app.clock.zone();
    let events = ops::occurrences(&app.store, zone, window).await?;
    let show = |at: jiff::Timestamp| local_rfc3339(&at.to_zoned_datetime(zone.clone()));
    Ok(Json(EventList {
        from: show(window.from),
        to: show(window.to),
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
    let event = EventInput {
        title: body.title,
        start: body.start,
        end: body.end,
        all_day: body.all_day,
        location: body.location,
    }
    .checked()
    .map_err(validation)?;
    let id = ops::add_event(&app.store, event.clone()).await?;
    let zone = app.clock.zone();
    Ok((
        StatusCode::CREATED,
        Json(CreatedEvent {
            id,
            all_day: event.start.is_all_day(),
            start: event.start.shown(zone),
            end: event.end.as_ref().map(|end| end.shown(zone)),
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
        .run(move |connection| store::delete_event(connection, &id))
        .await?;
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
