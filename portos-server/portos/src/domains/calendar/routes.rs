//! `/api/calendar/*`: calendar sources (ICS files or URLs) and events, the
//! data behind `calendar.today` and `calendar.next`. Times are shown in the
//! user's configured time zone.

use axum::Json;
use axum::extract::Path;
use portos_core::Shared;
use portos_server::clock::UserClock;
use portos_server::http::{Body, Created, InputError, Invalid, NoContent, Query, RouteErrors};
use portos_server::outbound::OutboundPolicy;
use portos_server::portos_route;
use portos_server::store::{Store, StoreError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{
    AlreadyAdded, EventInput, Occurrence, RefreshOutcome, Source, Window, WindowError,
    local_rfc3339,
};
use super::ops::{self, RefreshError};
use super::store;
use crate::shared::doc_rules::NOT_BLANK;
use crate::shared::subscriptions::{LoadFailure, SourceBody};

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
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    #[schemars(extend("anyOf" = [{ "format": "date" }, { "format": "date-time" }]))]
    pub from: Option<String>,
    /// Exclusive; a date means the start of that day.
    #[schemars(extend("anyOf" = [{ "format": "date" }, { "format": "date-time" }]))]
    pub to: Option<String>,
}

/// An event to add. `start` is a date (`YYYY-MM-DD`, an all-day event), an
/// RFC 3339 instant, a zoned time (`2026-12-03T09:00[Europe/Paris]`) or a
/// local time without offset (the user's zone).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EventBody {
    #[schemars(regex(pattern = NOT_BLANK))]
    pub title: String,
    #[schemars(regex(pattern = NOT_BLANK))]
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

/// Why a source was not added: it breaks a rule, or it is already one.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum AddSourceRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error("{} is already a calendar source ({})", .0.0.source, .0.0.id)]
    #[route_error(status = 409, code = "ALREADY_ADDED")]
    AlreadyAdded(AlreadyAdded),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// A calendar source that is not there.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum SourceMissing {
    #[error("No calendar source with that id")]
    #[route_error(status = 404, code = "CALENDAR_SOURCE_NOT_FOUND")]
    NotFound,
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// Why a refresh changed nothing.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum RefreshRefusal {
    #[error("No calendar source with that id")]
    #[route_error(status = 404, code = "CALENDAR_SOURCE_NOT_FOUND")]
    NotFound,
    /// The source cannot be read (422) or its server failed (502).
    #[error(transparent)]
    #[route_error(transparent)]
    Load(LoadFailure),
    /// The document is not iCalendar; the message names the source.
    #[error("{0}")]
    #[route_error(status = 422, code = "CALENDAR_PARSE_ERROR")]
    Parse(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

impl From<RefreshError> for RefreshRefusal {
    fn from(error: RefreshError) -> RefreshRefusal {
        match error {
            RefreshError::NotFound => RefreshRefusal::NotFound,
            RefreshError::Load(failure) => RefreshRefusal::Load(failure),
            RefreshError::Parse(message) => RefreshRefusal::Parse(message),
            RefreshError::Store(error) => RefreshRefusal::Store(error),
        }
    }
}

/// Why a window of events was not listed.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum EventsRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    /// The clock's time could not be worked with: the server's fault.
    #[error(transparent)]
    #[route_error(internal)]
    Time(jiff::Error),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

impl From<WindowError> for EventsRefusal {
    fn from(error: WindowError) -> EventsRefusal {
        match error {
            WindowError::Invalid(message) => EventsRefusal::Invalid(Invalid(message)),
            WindowError::Time(error) => EventsRefusal::Time(error),
        }
    }
}

/// Why an event was not deleted.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum DeleteEventRefusal {
    #[error("No calendar event with that id")]
    #[route_error(status = 404, code = "CALENDAR_EVENT_NOT_FOUND")]
    NotFound,
    #[error("This event comes from a calendar source; change or remove the source instead")]
    #[route_error(status = 409, code = "EVENT_FROM_SOURCE")]
    FromSource,
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

#[portos_route(
    method = "GET",
    path = "/api/calendar/sources",
    summary = "Calendar sources"
)]
async fn list_sources(store: Shared<Store>) -> Result<Json<SourceList>, StoreError> {
    let sources = store
        .run(|connection| store::list_sources(connection))
        .await?;
    Ok(Json(SourceList { sources }))
}

/// Adds an ICS calendar by URL or file path. Nothing is fetched yet: refresh
/// it to read its events.
#[portos_route(
    method = "POST",
    path = "/api/calendar/sources",
    summary = "Add a calendar source"
)]
async fn add_source(
    store: Shared<Store>,
    outbound: Shared<OutboundPolicy>,
    Body(body): Body<SourceBody>,
) -> Result<Created<Source>, AddSourceRefusal> {
    let (location, title) = body.checked(&outbound).map_err(Invalid)?;
    let added = ops::add_source(&store, &location, title).await?;
    added.map(Created).map_err(AddSourceRefusal::AlreadyAdded)
}

/// Removes a calendar source and its events.
#[portos_route(
    method = "DELETE",
    path = "/api/calendar/sources/{id}",
    summary = "Remove a calendar source"
)]
async fn delete_source(
    store: Shared<Store>,
    Path(id): Path<String>,
) -> Result<NoContent, SourceMissing> {
    let removed = store
        .run(move |connection| store::delete_source(connection, &id))
        .await?;
    if removed {
        Ok(NoContent)
    } else {
        Err(SourceMissing::NotFound)
    }
}

/// Fetches and parses the ICS document and replaces the source's events. A
/// fetch or parse failure changes nothing.
#[portos_route(
    method = "POST",
    path = "/api/calendar/sources/{id}/refresh",
    summary = "Refresh a calendar source"
)]
async fn refresh_source(
    store: Shared<Store>,
    outbound: Shared<OutboundPolicy>,
    Path(id): Path<String>,
) -> Result<Json<RefreshOutcome>, RefreshRefusal> {
    Ok(Json(ops::refresh(&store, &outbound, id).await?))
}

/// Event occurrences in a window (repeating events expanded), in start order.
#[portos_route(
    method = "GET",
    path = "/api/calendar/events",
    summary = "Calendar events"
)]
async fn list_events(
    store: Shared<Store>,
    clock: Shared<UserClock>,
    Query(EventsQuery { from, to }): Query<EventsQuery>,
) -> Result<Json<EventList>, EventsRefusal> {
    let now = clock.now();
    let window = Window::requested(from.as_deref(), to.as_deref(), &now)?;
    let zone = clock.zone();
    let events = ops::occurrences(&store, zone, window).await?;
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
    summary = "Add a calendar event"
)]
async fn add_event(
    store: Shared<Store>,
    clock: Shared<UserClock>,
    Body(body): Body<EventBody>,
) -> Result<Created<CreatedEvent>, InputError> {
    let event = EventInput {
        title: body.title,
        start: body.start,
        end: body.end,
        all_day: body.all_day,
        location: body.location,
    }
    .checked()
    .map_err(Invalid)?;
    let id = ops::add_event(&store, event.clone()).await?;
    let zone = clock.zone();
    Ok(Created(CreatedEvent {
        id,
        all_day: event.start.is_all_day(),
        start: event.start.shown(zone),
        end: event.end.as_ref().map(|end| end.shown(zone)),
        title: event.title,
        location: event.location,
    }))
}

/// Deletes an event added through the API (a source's events change with
/// the source).
#[portos_route(
    method = "DELETE",
    path = "/api/calendar/events/{id}",
    summary = "Delete a calendar event"
)]
async fn delete_event(
    store: Shared<Store>,
    Path(id): Path<String>,
) -> Result<NoContent, DeleteEventRefusal> {
    let outcome = store
        .run(move |connection| store::delete_event(connection, &id))
        .await?;
    match outcome {
        Some(true) => Ok(NoContent),
        Some(false) => Err(DeleteEventRefusal::FromSource),
        None => Err(DeleteEventRefusal::NotFound),
    }
}
