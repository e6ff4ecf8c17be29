//! Calendar sources (ICS files or URLs) and events in SQLite: the tables
//! and every statement on them. A source's events are replaced on each
//! refresh; events added through the API have no source.

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use portos_server::store::Schema;
use portos_server::store::sql::{Connection, OptionalExtension, Row, params};

use super::ics;
use super::model::{
    AlreadyAdded, EventTime, NewEvent, Occurrence, RefreshOutcome, Source, StoredEvent,
    expand_into, in_start_order,
};
use crate::store::StoreError;

portos_server::store_schema!(
    /// Calendar sources and events (API events have no source). Event starts are civil date-times with their zone (NULL: the user's zone), so a recurrence keeps its wall-clock time across DST.
    CALENDAR = Schema {
        component: "calendar",
        migrations: &["
            CREATE TABLE IF NOT EXISTS calendar_sources (
                id           TEXT PRIMARY KEY,
                title        TEXT NOT NULL,
                source       TEXT NOT NULL UNIQUE,
                created_at   TEXT NOT NULL,
                refreshed_at TEXT,
                seq          INTEGER NOT NULL
            );

            CREATE TABLE IF NOT EXISTS calendar_events (
                id         TEXT PRIMARY KEY,
                source_id  TEXT REFERENCES calendar_sources (id) ON DELETE CASCADE,
                uid        TEXT,
                title      TEXT NOT NULL,
                location   TEXT,
                all_day    INTEGER NOT NULL,
                start_at   TEXT NOT NULL,
                end_at     TEXT,
                tzid       TEXT,
                rrule      TEXT,
                exdates    TEXT,
                created_at TEXT NOT NULL
            );
            CREATE INDEX IF NOT EXISTS calendar_events_source ON calendar_events (source_id);
        "],
    }
);

const SOURCE_COLUMNS: &str = "s.id, s.title, s.source, s.created_at, s.refreshed_at,
    (SELECT COUNT(*) FROM calendar_events e WHERE e.source_id = s.id)";

fn source_from(row: &Row<'_>) -> portos_server::store::sql::Result<Source> {
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
    let (start, zone) = columns(&event.start);
    let end = event.end.as_ref().map(|end| columns(end).0);
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
            from_columns(all_day, &start, zone.clone()),
            end.and_then(|end| from_columns(all_day, &end, zone)),
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
    in_start_order(&mut found);
    Ok(found)
}

/// The stored form of an event time: `YYYY-MM-DD` or
/// `YYYY-MM-DDTHH:MM:SS`, and the zone.
fn columns(time: &EventTime) -> (String, Option<String>) {
    match time {
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

#[cfg(test)]
mod tests {
    use jiff::civil::date;
    use jiff::tz::TimeZone;

    use super::{insert_event, occurrences};
    use crate::domains::calendar::model::{EventTime, NewEvent};

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
