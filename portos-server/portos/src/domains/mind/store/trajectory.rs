//! The Mind's trajectory: one summary per finished turn, and the context
//! derived from them (named entries a turn reads instead of the whole
//! history).

use portos_server::store::StoreError;
use portos_server::store::sql::{Connection, params};
use schemars::JsonSchema;
use serde::Serialize;

/// One finished turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TurnSummary {
    pub turn_id: String,
    pub summary: String,
    pub at: String,
}

/// One entry of derived context.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContextEntry {
    pub key: String,
    pub text: String,
    pub derived_at: String,
}

pub fn append_turn(connection: &Connection, turn: &TurnSummary) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO mind_history (turn_id, summary, at) VALUES (?1, ?2, ?3)",
        params![turn.turn_id, turn.summary, turn.at],
    )?;
    Ok(())
}

/// The newest `limit` turns, oldest first.
pub fn recent_turns(connection: &Connection, limit: usize) -> Result<Vec<TurnSummary>, StoreError> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let mut statement = connection.prepare_cached(
        "SELECT turn_id, summary, at FROM
             (SELECT seq, turn_id, summary, at FROM mind_history ORDER BY seq DESC LIMIT ?1) AS recent
         ORDER BY seq",
    )?;
    let rows = statement.query_map([limit], |row| {
        Ok(TurnSummary {
            turn_id: row.get(0)?,
            summary: row.get(1)?,
            at: row.get(2)?,
        })
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// Deletes the whole history; how many turns it held.
pub fn clear_history(connection: &Connection) -> Result<usize, StoreError> {
    Ok(connection.execute("DELETE FROM mind_history", [])?)
}

/// Sets (or replaces) the derived context entry `key`.
pub fn put_context(connection: &Connection, entry: &ContextEntry) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO mind_context (key, text, derived_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (key) DO UPDATE SET text = excluded.text, derived_at = excluded.derived_at",
        params![entry.key, entry.text, entry.derived_at],
    )?;
    Ok(())
}

/// Every derived context entry, by key.
pub fn context(connection: &Connection) -> Result<Vec<ContextEntry>, StoreError> {
    let mut statement =
        connection.prepare_cached("SELECT key, text, derived_at FROM mind_context ORDER BY key")?;
    let rows = statement.query_map([], |row| {
        Ok(ContextEntry {
            key: row.get(0)?,
            text: row.get(1)?,
            derived_at: row.get(2)?,
        })
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// Deletes every derived context entry; how many there were.
pub fn clear_context(connection: &Connection) -> Result<usize, StoreError> {
    Ok(connection.execute("DELETE FROM mind_context", [])?)
}
