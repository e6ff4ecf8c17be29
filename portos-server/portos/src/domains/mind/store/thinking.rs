//! The owner's thinking presets (a setting) and the Mind's requests for
//! them (a table, so the limits survive restarts).

use jiff::Timestamp;
use portos_server::settings;
use portos_server::store::StoreError;
use portos_server::store::sql::{Connection, OptionalExtension, Row, params};

use crate::domains::mind::thinking::{
    PresetList, RequestState, SETTINGS_KEY, ThinkingEffort, ThinkingRequest,
};

const COLUMNS: &str = "request_id, preset_id, label, model, effort, reason, requested_at, state";

fn request_from(row: &Row<'_>) -> portos_server::store::sql::Result<ThinkingRequest> {
    let effort: String = row.get(4)?;
    let state: String = row.get(7)?;
    Ok(ThinkingRequest {
        request_id: row.get(0)?,
        preset_id: row.get(1)?,
        label: row.get(2)?,
        model: row.get(3)?,
        effort: ThinkingEffort::from_stored(&effort).unwrap_or_default(),
        reason: row.get(5)?,
        requested_at: row.get(6)?,
        state: RequestState::from_stored(&state),
    })
}

pub fn presets(connection: &Connection) -> Result<PresetList, StoreError> {
    Ok(PresetList::from_stored(
        settings::get_json(connection, SETTINGS_KEY)?.as_ref(),
    ))
}

pub fn save_presets(connection: &Connection, list: &PresetList) -> Result<(), StoreError> {
    let value = serde_json::to_value(list)
        .map_err(|error| StoreError::Worker(format!("cannot encode the presets: {error}")))?;
    settings::set_json(connection, SETTINGS_KEY, &value)
}

/// Stores a request made at `at`.
pub fn insert(
    connection: &Connection,
    request: &ThinkingRequest,
    at: Timestamp,
) -> Result<(), StoreError> {
    connection.execute(
        &format!(
            "INSERT INTO mind_thinking_requests ({COLUMNS}, requested_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
        ),
        params![
            request.request_id,
            request.preset_id,
            request.label,
            request.model,
            request.effort.as_str(),
            request.reason,
            request.requested_at,
            request.state.as_str(),
            at.as_millisecond()
        ],
    )?;
    Ok(())
}

pub fn get(
    connection: &Connection,
    request_id: &str,
) -> Result<Option<ThinkingRequest>, StoreError> {
    Ok(connection
        .query_row(
            &format!("SELECT {COLUMNS} FROM mind_thinking_requests WHERE request_id = ?1"),
            [request_id],
            request_from,
        )
        .optional()?)
}

/// The request waiting for the next self-directed wake, if any.
pub fn pending(connection: &Connection) -> Result<Option<ThinkingRequest>, StoreError> {
    Ok(connection
        .query_row(
            &format!("SELECT {COLUMNS} FROM mind_thinking_requests WHERE state = 'pending'"),
            [],
            request_from,
        )
        .optional()?)
}

/// When the requests made after `since` were made, oldest first.
pub fn made_since(connection: &Connection, since: Timestamp) -> Result<Vec<Timestamp>, StoreError> {
    let mut statement = connection.prepare_cached(
        "SELECT requested_at_ms FROM mind_thinking_requests
         WHERE requested_at_ms > ?1 ORDER BY requested_at_ms",
    )?;
    let rows = statement.query_map([since.as_millisecond()], |row| row.get::<_, i64>(0))?;
    let mut made = Vec::new();
    for millis in rows {
        // A stored time out of range is held as the latest possible, so it
        // blocks rather than frees a request.
        made.push(Timestamp::from_millisecond(millis?).unwrap_or(Timestamp::MAX));
    }
    Ok(made)
}

/// The newest `limit` requests, newest first.
pub fn recent(connection: &Connection, limit: usize) -> Result<Vec<ThinkingRequest>, StoreError> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM mind_thinking_requests
         ORDER BY requested_at_ms DESC, rowid DESC LIMIT ?1"
    ))?;
    let rows = statement.query_map([limit], request_from)?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// Settles the pending request `request_id`; `false` when it was not pending.
pub fn settle(
    connection: &Connection,
    request_id: &str,
    state: RequestState,
    at: &str,
) -> Result<bool, StoreError> {
    let changed = connection.execute(
        "UPDATE mind_thinking_requests SET state = ?2, settled_at = ?3
         WHERE request_id = ?1 AND state = 'pending'",
        params![request_id, state.as_str(), at],
    )?;
    Ok(changed > 0)
}
