//! The Mind's local context window (the newest change is the current
//! value) and the owner's memory estimate (a setting).

use portos_server::settings;
use portos_server::store::StoreError;
use portos_server::store::sql::{Connection, OptionalExtension, params};
use schemars::JsonSchema;
use serde::Serialize;

use crate::domains::mind::local_context::{MemoryEstimate, SETTINGS_KEY};

/// One change of the window.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContextChange {
    /// `null`: the provider's default until then.
    pub previous_num_ctx: Option<i64>,
    pub num_ctx: i64,
    /// The safe ceiling when it was made.
    pub ceiling: i64,
    pub reason: String,
    pub at: String,
}

pub fn estimate(connection: &Connection) -> Result<MemoryEstimate, StoreError> {
    Ok(MemoryEstimate::from_stored(
        settings::get_json(connection, SETTINGS_KEY)?.as_ref(),
    ))
}

pub fn save_estimate(connection: &Connection, estimate: &MemoryEstimate) -> Result<(), StoreError> {
    let value = serde_json::to_value(estimate)
        .map_err(|error| StoreError::Worker(format!("cannot encode the estimate: {error}")))?;
    settings::set_json(connection, SETTINGS_KEY, &value)
}

/// The current window; `None` until one is set (the provider's default).
pub fn current(connection: &Connection) -> Result<Option<i64>, StoreError> {
    Ok(connection
        .query_row(
            "SELECT num_ctx FROM mind_local_context_changes ORDER BY seq DESC LIMIT 1",
            [],
            |row| row.get(0),
        )
        .optional()?)
}

pub fn record(connection: &Connection, change: &ContextChange) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO mind_local_context_changes (previous, num_ctx, ceiling, reason, at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            change.previous_num_ctx,
            change.num_ctx,
            change.ceiling,
            change.reason,
            change.at
        ],
    )?;
    Ok(())
}

/// The newest `limit` changes, newest first.
pub fn recent(connection: &Connection, limit: usize) -> Result<Vec<ContextChange>, StoreError> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let mut statement = connection.prepare_cached(
        "SELECT previous, num_ctx, ceiling, reason, at FROM mind_local_context_changes
         ORDER BY seq DESC LIMIT ?1",
    )?;
    let rows = statement.query_map([limit], |row| {
        Ok(ContextChange {
            previous_num_ctx: row.get(0)?,
            num_ctx: row.get(1)?,
            ceiling: row.get(2)?,
            reason: row.get(3)?,
            at: row.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}
