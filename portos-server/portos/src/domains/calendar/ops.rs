//! The calendar operations the tools and the REST routes both perform,
//! each written once: the occurrences in a window, adding and refreshing
//! sources, adding events.

use jiff::Timestamp;
use jiff::tz::TimeZone;

use super::model::{AlreadyAdded, NewEvent, Occurrence, RefreshOutcome, Source, Window};
use super::{ics, store};
use crate::shared::source_fetch::Location;
use crate::shared::subscriptions::{LoadFailure, load_document};
use crate::store::{Store, StoreError};
use portos_server::outbound::OutboundPolicy;

/// Every occurrence overlapping `window`, in start order, shown in `zone`.
pub async fn occurrences(
    store: &Store,
    zone: &TimeZone,
    window: Window,
) -> Result<Vec<Occurrence>, StoreError> {
    let zone = zone.clone();
    store
        .run(move |connection| store::occurrences(connection, &zone, window.from, window.to))
        .await
}

/// Adds an ICS source (nothing is fetched yet).
pub async fn add_source(
    store: &Store,
    location: &Location,
    title: Option<String>,
) -> Result<Result<Source, AlreadyAdded>, StoreError> {
    let source = location.as_source();
    let now = Timestamp::now();
    store
        .run(move |connection| store::add_source(connection, &source, title.as_deref(), now))
        .await
}

/// Why a refresh changed nothing.
#[derive(Debug)]
pub enum RefreshError {
    /// No source has that id (or it went while being refreshed).
    NotFound,
    Load(LoadFailure),
    /// The document is not iCalendar; the message names the source.
    Parse(String),
    Store(StoreError),
}

impl From<StoreError> for RefreshError {
    fn from(error: StoreError) -> RefreshError {
        RefreshError::Store(error)
    }
}

/// Fetches and parses source `id`'s ICS document and replaces its events.
/// A fetch or parse failure changes nothing.
pub async fn refresh(
    store: &Store,
    outbound: &OutboundPolicy,
    id: String,
) -> Result<RefreshOutcome, RefreshError> {
    let lookup = id.clone();
    let found = store
        .run(move |connection| store::get_source(connection, &lookup))
        .await?
        .ok_or(RefreshError::NotFound)?;
    let bytes = load_document(&found.source, outbound)
        .await
        .map_err(RefreshError::Load)?;
    let parse_error = |reason: String| RefreshError::Parse(format!("{}: {reason}", found.source));
    let text = String::from_utf8(bytes)
        .map_err(|_| parse_error("not UTF-8 text, so not an iCalendar document".into()))?;
    let parsed = ics::parse(&text).map_err(parse_error)?;
    let now = Timestamp::now();
    store
        .run(move |connection| store::store_refresh(connection, &id, parsed, now))
        .await?
        .ok_or(RefreshError::NotFound)
}

/// Adds a checked event to the user's own calendar; its id.
pub async fn add_event(store: &Store, event: NewEvent) -> Result<String, StoreError> {
    let now = Timestamp::now();
    store
        .run(move |connection| store::insert_event(connection, None, &event, now))
        .await
}
