//! The row of a call and the result it keeps, within the limits of
//! docs/reference.md#idempotency counted over the cluster.

use std::sync::Arc;

use portos_core::contract::{OutputJson, SCHEMA_VERSION, ToolResult, ToolState};
use portos_core::registry::RegistryLimits;

use super::{PRUNE_EVERY, now_ms};
use crate::store::StoreError;
use crate::store::sql::{self, Connection, OptionalExtension, Row, params};

/// A row of `tool_calls`.
pub(super) struct CallRow {
    pub(super) seq: i64,
    pub(super) fingerprint: String,
    pub(super) state: String,
    pub(super) lease_until_ms: i64,
    pub(super) expires_at_ms: i64,
    pub(super) name: Option<String>,
    pub(super) failed: bool,
    pub(super) output: Option<String>,
    pub(super) error: Option<String>,
}

impl CallRow {
    /// The kept envelope (its `duplicate` false, as kept).
    pub(super) fn into_result(self, request_id: &str) -> ToolResult {
        let output = self
            .output
            .and_then(|text| OutputJson::from_text(text).ok());
        ToolResult {
            kind: "portos_tool_result",
            request_id: request_id.to_owned(),
            name: self.name.unwrap_or_default(),
            version: SCHEMA_VERSION,
            state: if self.failed {
                ToolState::Failed
            } else {
                ToolState::Completed
            },
            duplicate: false,
            result: output.map(Arc::new),
            error: self.error,
        }
    }
}

impl CallRow {
    /// The row whose columns (`seq, fingerprint, state, lease_until_ms,
    /// expires_at_ms, name, failed, output, error`) start at `first`.
    pub(super) fn read(row: &Row<'_>, first: usize) -> Result<CallRow, sql::Error> {
        Ok(CallRow {
            seq: row.get(first)?,
            fingerprint: row.get(first + 1)?,
            state: row.get(first + 2)?,
            lease_until_ms: row.get(first + 3)?,
            expires_at_ms: row.get(first + 4)?,
            name: row.get(first + 5)?,
            failed: row.get::<_, Option<i64>>(first + 6)?.unwrap_or(0) != 0,
            output: row.get(first + 7)?,
            error: row.get(first + 8)?,
        })
    }
}

pub(super) fn read_row(c: &Connection, request_id: &str) -> Result<Option<CallRow>, StoreError> {
    Ok(c.query_row(
        "SELECT seq, fingerprint, state, lease_until_ms, expires_at_ms, name, failed, output, error
         FROM tool_calls WHERE request_id = ?1",
        [request_id],
        |row| CallRow::read(row, 0),
    )
    .optional()?)
}

/// Writes the result into the claim's row, then applies the limits: the
/// newest `max_results` results are kept, older ones leave only their
/// fingerprint; every [`PRUNE_EVERY`] claims, fingerprints past their
/// expiry or beyond the newest `max_fingerprints` go.
pub(super) fn keep_result(
    c: &Connection,
    seq: i64,
    result: &KeptResult,
    limits: RegistryLimits,
) -> Result<(), StoreError> {
    let max_results = i64::try_from(limits.max_results).unwrap_or(i64::MAX);
    let max_fingerprints = i64::try_from(limits.max_tombstones).unwrap_or(i64::MAX);
    // One statement: the result kept, and what falls out of the newest
    // `max_results` evicted (both read one snapshot, in which this row is
    // not kept yet: so it counts one fewer of the others). Rows another
    // call is evicting (locked) are left to it: keeps that ran into each
    // other's evictions waited, and deadlocked when their plans locked the
    // rows in different orders.
    c.execute(
        "WITH kept AS (
             UPDATE tool_calls SET state = 'kept', name = ?2, failed = ?3, output = ?4, error = ?5
             WHERE seq = ?1
             RETURNING seq
         ),
         fallen AS (
             SELECT seq FROM tool_calls
             WHERE state = 'kept' AND seq <= (
                 SELECT seq FROM tool_calls WHERE state = 'kept' AND seq <> ?1
                 ORDER BY seq DESC LIMIT 1 OFFSET ?6
             )
             FOR UPDATE SKIP LOCKED
         )
         UPDATE tool_calls SET state = 'evicted', output = NULL, error = NULL, name = NULL
         WHERE seq IN (SELECT seq FROM fallen)",
        params![
            seq,
            result.name,
            result.failed,
            result.output,
            result.error,
            (max_results - 1).max(0)
        ],
    )?;
    if seq % PRUNE_EVERY == 0 {
        c.execute(
            "DELETE FROM tool_calls WHERE seq IN (
                 SELECT seq FROM tool_calls
                 WHERE state = 'evicted' AND (expires_at_ms <= ?1 OR seq <= (
                     SELECT seq FROM tool_calls ORDER BY seq DESC LIMIT 1 OFFSET ?2
                 ))
                 FOR UPDATE SKIP LOCKED
             )",
            params![now_ms(), max_fingerprints],
        )?;
    }
    Ok(())
}

/// What of a result the row keeps.
pub(super) struct KeptResult {
    pub(super) name: String,
    pub(super) failed: bool,
    pub(super) output: Option<String>,
    pub(super) error: Option<String>,
}

impl KeptResult {
    pub(super) fn of(result: &ToolResult) -> KeptResult {
        KeptResult {
            name: result.name.clone(),
            failed: !result.is_completed(),
            output: result
                .result
                .as_ref()
                .map(|output| output.text().to_owned()),
            error: result.error.clone(),
        }
    }
}
