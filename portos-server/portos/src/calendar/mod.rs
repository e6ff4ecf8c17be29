//! Calendar sources (ICS files or URLs) and events in the store, and the
//! occurrences of those events in a window of time. A source's events are
//! replaced on each refresh; events added through the API have no source.
//!
//! Events keep civil start times with their zone (`None`: the user's zone),
//! so a repeating event keeps its wall-clock time across DST changes.

pub mod ics;
pub mod recurrence;

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp, ZonedDateTime};
use rusqlite::{Connection, OptionalExtension, Row, params};
use schemars::JsonSchema;
use serde::Serialize;

use crate::store::StoreError;
use recurrence::Rule;

/// When an event starts or ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventTime {
    /// A whole day (an end date is exclusive, as in iCalendar).
    AllDay(Date),
    /// A wall-clock time in `zone` (IANA name), or the user's zone if `None`.
    Timed {
        civil: DateTime,
        zone: Option<String>,
    },
}

impl EventTime {
    pub fn is_all_day(&self) -> bool {
        matches!(self, EventTime::AllDay(_))
    }

    /// Whether `self` comes strictly after `start` (same kind required).
    pub fn is_after(&self, start: &EventTime) -> bool {
        match (self, start) {
            (EventTime::AllDay(end), EventTime::AllDay(start)) => end > start,
            (EventTime::Timed { .. }, EventTime::Timed { .. }) => {
                let user = TimeZone::UTC;
                match (self.first_instant(&user), start.first_instant(&user)) {
                    (Some(end), Some(start)) => end > start,
                    _ => false,
                }
            }
            _ => false,
        }
    }

    fn zone(&self, user: &TimeZone) -> TimeZone {
        match self {
            EventTime::Timed {
                zone: Some(name), ..
            } => TimeZone::get(name).unwrap_or_else(|_| user.clone()),
            _ => user.clone(),
        }
    }

    fn civil(&self) -> DateTime {
        match self {
            EventTime::AllDay(date) => date.to_datetime(jiff::civil::Time::midnight()),
            EventTime::Timed { civil, .. } => *civil,
        }
    }

    fn first_instant(&self, user: &TimeZone) -> Option<Timestamp> {
        self.civil()
            .to_zoned_datetime(self.zone(user))
            .ok()
            .map(|z| z.timestamp())
    }

    /// The stored form: `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SS`, and the zone.
    fn columns(&self) -> (String, Option<String>) {
        match self {
            EventTime::AllDay(date) => (date.to_string(), None),
            EventTime::Timed { civil, zone } => (civil.to_string(), zone.clone()),
        }
    }

    fn from_columns(all_day: bool, value: &str, zone: Option<String>) -> Option<EventTime> {
        if all_day {
            value.parse().ok().map(EventTime::AllDay)
        } else {
            value
                .parse()
                .ok()
                .map(|civil| EventTime::Timed { civil, zone })
        }
    }
}

/// An event to store (from an ICS document or the API).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewEvent {
    pub uid: Option<String>,
    pub title: String,
    pub location: Option<String>,
    pub start: EventTime,
    /// Same kind as `start`, after it; `None`: a point in time, or one day.
    pub end: Option<EventTime>,
    /// An RRULE value `recurrence::Rule` accepts.
    pub rrule: Option<String>,
    /// Starts the series skips (EXDATE), as wall-clock times in the start's
    /// zone (midnight for all-day events).
    pub excluded: Vec<DateTime>,
}

/// A calendar source, with how many events it gave.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    pub id: String,
    pub title: String,
    /// The URL or file path of the ICS document.
    pub source: String,
    pub created_at: String,
    pub refreshed_at: Option<String>,
    pub events: i64,
}

/// One occurrence of an event, in the user's time zone.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Occurrence {
    /// The event's id (shared by every occurrence of a repeating event).
    pub event_id: String,
    /// `null` for events added through the API.
    pub source_id: Option<String>,
    pub title: String,
    pub location: Option<String>,
    pub all_day: bool,
    /// `YYYY-MM-DD` for all-day events, else RFC 3339 with the user's offset.
    pub start: String,
    /// Like `start`; an all-day end is the day after the last day.
    pub end: Option<String>,
    pub recurring: bool,
    #[serde(skip)]
    #[schemars(skip)]
    pub starts_at: ZonedDateTime,
}

/// What a refresh stored.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefreshOutcome {
    pub source: Source,
    /// Events stored (a repeating event counts once).
    pub events: usize,
    /// Parts of the document that could not be used as written.
    pub warnings: Vec<String>,
}

#[derive(Debug)]
pub struct AlreadyAdded(pub Source);

const SOURCE_COLUMNS: &str = "s.id, s.title, s.source, s.created_at, s.refreshed_at,
    (SELECT COUNT(*) FROM calendar_events e WHERE e.source_id = s.id)";

fn source_from(row: &Row<'_>) -> rusqlite::Result<Source> {
    Ok(Source {
        id: row.get(0)?,
        title: row.get(1)?,
        source: row.get(2)?,
        created_at: row.get(3)?,
        refreshed_at: row.get(4)?,
        events: row.get(5)?,
    })
}

pub fn list_sources(connection: &Connection) -> Result<Vec<Source>, StoreError> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {SOURCE_COLUMNS} FROM calendar_sources s ORDER BY s.seq"
    ))?;
    let rows = statement.query_map([], source_from)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn get_source(connection: &Connection, id: &str) -> Result<Option<Source>, StoreError> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {SOURCE_COLUMNS} FROM calendar_sources s WHERE s.id = ?1"
    ))?;
    Ok(statement.query_row([id], source_from).optional()?)
}

pub fn add_source(
    connection: &Connection,
    source: &str,
    title: Option<&str>,
    now: Timestamp,
) -> Result<Result<Source, AlreadyAdded>, StoreError> {
    let existing: Option<String> = connection
        .query_row(
            "SELECT id FROM calendar_sources WHERE source = ?1",
            [source],
            |row| row.get(0),
        )
        .optional()?;
    if let Some(id) = existing
        && let Some(found) = get_source(connection, &id)?
    {
        return Ok(Err(AlreadyAdded(found)));
    }
    let id = uuid::Uuid::new_v4().to_string();
    connection.execute(
        "INSERT INTO calendar_sources (id, title, source, created_at, seq)
         VALUES (?1, ?2, ?3, ?4, (SELECT COALESCE(MAX(seq), 0) + 1 FROM calendar_sources))",
        params![id, title.unwrap_or(source), source, now.to_string()],
    )?;
    get_source(connection, &id)?
        .map(Ok)
        .ok_or_else(|| StoreError::Worker("the new calendar source vanished".into()))
}

/// Removes a source and its events; false when there was none.
pub fn delete_source(connection: &Connection, id: &str) -> Result<bool, StoreError> {
    Ok(connection.execute("DELETE FROM calendar_sources WHERE id = ?1", [id])? > 0)
}

/// Replaces the events of source `id` with `parsed`'s, in one transaction.
/// `None` when the source no longer exists.
pub fn store_refresh(
    connection: &mut Connection,
    id: &str,
    parsed: ics::ParsedCalendar,
    now: Timestamp,
) -> Result<Option<RefreshOutcome>, StoreError> {
    let transaction = connection.transaction()?;
    let exists: Option<i64> = transaction
        .query_row(
            "SELECT 1 FROM calendar_sources WHERE id = ?1",
            [id],
            |row| row.get(0),
        )
        .optional()?;
    if exists.is_none() {
        return Ok(None);
    }
    transaction.execute("DELETE FROM calendar_events WHERE source_id = ?1", [id])?;
    for event in &parsed.events {
        insert_event(&transaction, Some(id), event, now)?;
    }
    transaction.execute(
        "UPDATE calendar_sources SET refreshed_at = ?2 WHERE id = ?1",
        params![id, now.to_string()],
    )?;
    transaction.commit()?;
    let source = get_source(connection, id)?
        .ok_or_else(|| StoreError::Worker("the refreshed calendar source vanished".into()))?;
    Ok(Some(RefreshOutcome {
        source,
        events: parsed.events.len(),
        warnings: parsed.warnings,
    }))
}

/// Stores one event; returns its id.
pub fn insert_event(
    connection: &Connection,
    source_id: Option<&str>,
    event: &NewEvent,
    now: Timestamp,
) -> Result<String, StoreError> {
    let id = uuid::Uuid::new_v4().to_string();
    let (start, zone) = event.start.columns();
    let end = event.end.as_ref().map(|end| end.columns().0);
    // One line per excluded start; NULL when there are none.
    let excluded = (!event.excluded.is_empty()).then(|| {
        event
            .excluded
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    });
    connection.execute(
        "INSERT INTO calendar_events
           (id, source_id, uid, title, location, all_day, start_at, end_at, tzid, rrule, exdates,
            created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![
            id,
            source_id,
            event.uid,
            event.title,
            event.location,
            event.start.is_all_day(),
            start,
            end,
            zone,
            event.rrule,
            excluded,
            now.to_string()
        ],
    )?;
    Ok(id)
}

/// Deletes an event added through the API. `Ok(None)`: no such event;
/// `Ok(Some(false))`: it belongs to a source (change the source instead).
pub fn delete_event(connection: &Connection, id: &str) -> Result<Option<bool>, StoreError> {
    let source: Option<Option<String>> = connection
        .query_row(
            "SELECT source_id FROM calendar_events WHERE id = ?1",
            [id],
            |row| row.get(0),
        )
        .optional()?;
    match source {
        None => Ok(None),
        Some(Some(_)) => Ok(Some(false)),
        Some(None) => {
            connection.execute("DELETE FROM calendar_events WHERE id = ?1", [id])?;
            Ok(Some(true))
        }
    }
}

struct StoredEvent {
    id: String,
    source_id: Option<String>,
    title: String,
    location: Option<String>,
    start: EventTime,
    end: Option<EventTime>,
    rrule: Option<String>,
    excluded: Vec<DateTime>,
}

/// Every occurrence overlapping `[from, to)`, in start order (all-day
/// events first among those starting together), shown in `user`'s zone.
pub fn occurrences(
    connection: &Connection,
    user: &TimeZone,
    from: Timestamp,
    to: Timestamp,
) -> Result<Vec<Occurrence>, StoreError> {
    let mut statement = connection.prepare_cached(
        "SELECT id, source_id, title, location, all_day, start_at, end_at, tzid, rrule, exdates
         FROM calendar_events",
    )?;
    let rows = statement.query_map([], |row| {
        let all_day: bool = row.get(4)?;
        let zone: Option<String> = row.get(7)?;
        let start: String = row.get(5)?;
        let end: Option<String> = row.get(6)?;
        Ok((
            StoredEvent {
                id: row.get(0)?,
                source_id: row.get(1)?,
                title: row.get(2)?,
                location: row.get(3)?,
                start: EventTime::AllDay(Date::constant(1970, 1, 1)),
                end: None,
                rrule: row.get(8)?,
                excluded: row
                    .get::<_, Option<String>>(9)?
                    .map(|lines| lines.lines().filter_map(|line| line.parse().ok()).collect())
                    .unwrap_or_default(),
            },
            EventTime::from_columns(all_day, &start, zone.clone()),
            end.and_then(|end| EventTime::from_columns(all_day, &end, zone)),
        ))
    })?;
    let mut found = Vec::new();
    for row in rows {
        let (mut event, start, end) = row?;
        // A row this build cannot read (never written by it) is skipped.
        let Some(start) = start else { continue };
        event.start = start;
        event.end = end;
        expand_into(&event, user, from, to, &mut found);
    }
    found.sort_by(|a, b| {
        a.starts_at
            .timestamp()
            .cmp(&b.starts_at.timestamp())
            .then(b.all_day.cmp(&a.all_day))
            .then(a.title.cmp(&b.title))
    });
    Ok(found)
}

fn expand_into(
    event: &StoredEvent,
    user: &TimeZone,
    from: Timestamp,
    to: Timestamp,
    out: &mut Vec<Occurrence>,
) {
    let zone = event.start.zone(user);
    let first = event.start.civil();
    // How long each occurrence lasts: whole days for all-day events (so a
    // day stays a calendar day in any zone), else a fixed duration.
    let (days, duration) = match (&event.start, &event.end) {
        (EventTime::AllDay(start), Some(EventTime::AllDay(end))) => (
            start.until(*end).map_or(1, |span| span.get_days().max(1)),
            SignedDuration::ZERO,
        ),
        (EventTime::AllDay(_), _) => (1, SignedDuration::ZERO),
        (start, Some(end)) => {
            let gap = match (start.first_instant(user), end.first_instant(user)) {
                (Some(start), Some(end)) => end.duration_since(start).max(SignedDuration::ZERO),
                _ => SignedDuration::ZERO,
            };
            (0, gap)
        }
        (_, None) => (0, SignedDuration::ZERO),
    };
    let reach = duration
        .checked_add(SignedDuration::from_hours(24 * (i64::from(days) + 1)))
        .unwrap_or(SignedDuration::MAX);
    let keep_from = from.checked_sub(reach).unwrap_or(Timestamp::MIN);
    let place = |civil: DateTime| {
        civil
            .to_zoned_datetime(zone.clone())
            .ok()
            .map(|z| z.timestamp())
    };
    let rule = event
        .rrule
        .as_deref()
        .and_then(|text| Rule::parse(text).ok());
    let starts = match &rule {
        Some(rule) => rule.expand(first, place, keep_from, to),
        None => vec![first],
    };
    for civil in starts {
        if event.excluded.contains(&civil) {
            continue;
        }
        let Ok(start) = civil.to_zoned_datetime(zone.clone()) else {
            continue;
        };
        let end = if event.start.is_all_day() {
            civil
                .date()
                .checked_add(jiff::Span::new().days(days))
                .ok()
                .and_then(|date| {
                    date.to_datetime(jiff::civil::Time::midnight())
                        .to_zoned_datetime(zone.clone())
                        .ok()
                })
        } else if event.end.is_some() {
            start.checked_add(duration).ok()
        } else {
            None
        };
        let start_at = start.timestamp();
        let end_at = end.as_ref().map_or(start_at, ZonedDateTime::timestamp);
        let overlaps = start_at < to && (end_at > from || start_at >= from);
        if !overlaps {
            continue;
        }
        let show = |at: &ZonedDateTime| {
            if event.start.is_all_day() {
                at.date().to_string()
            } else {
                at.with_time_zone(user.clone())
                    .strftime("%Y-%m-%dT%H:%M:%S%:z")
                    .to_string()
            }
        };
        out.push(Occurrence {
            event_id: event.id.clone(),
            source_id: event.source_id.clone(),
            title: event.title.clone(),
            location: event.location.clone(),
            all_day: event.start.is_all_day(),
            start: show(&start),
            end: end.as_ref().map(show),
            recurring: rule.is_some(),
            starts_at: start.with_time_zone(user.clone()),
        });
    }
}

#[cfg(test)]
mod tests {
    use jiff::civil::date;
    use jiff::tz::TimeZone;

    use super::{EventTime, NewEvent, insert_event, occurrences};

    /// A weekly 09:15 in Berlin stays 09:15 there across the spring DST
    /// change (2026-03-29), so its UTC time moves by an hour.
    #[test]
    fn a_series_keeps_its_wall_clock_time_across_dst() {
        let store = crate::store::open_in_memory().expect("store");
        let starts = store
            .run_blocking(|connection| {
                let now = jiff::Timestamp::now();
                insert_event(
                    connection,
                    None,
                    &NewEvent {
                        uid: None,
                        title: "Standup".into(),
                        location: None,
                        start: EventTime::Timed {
                            civil: date(2026, 3, 24).at(9, 15, 0, 0),
                            zone: Some("Europe/Berlin".into()),
                        },
                        end: None,
                        rrule: Some("FREQ=WEEKLY;COUNT=3".into()),
                        excluded: vec![date(2026, 4, 7).at(9, 15, 0, 0)],
                    },
                    now,
                )?;
                let from = "2026-03-01T00:00:00Z".parse().expect("instant");
                let to = "2026-05-01T00:00:00Z".parse().expect("instant");
                occurrences(connection, &TimeZone::UTC, from, to)
            })
            .expect("store");
        let shown: Vec<&str> = starts.iter().map(|o| o.start.as_str()).collect();
        assert_eq!(
            shown,
            ["2026-03-24T08:15:00+00:00", "2026-03-31T07:15:00+00:00"]
        );
    }
}
