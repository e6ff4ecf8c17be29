//! The row of a call and the result it keeps, within the limits of
//! docs/reference.md#idempotency counted over the cluster.

use std::sync::Arc;

use portos_core::contract::{OutputJson, SCHEMA_VERSION, ToolError, ToolResult, ToolState};
use portos_core::registry::RegistryLimits;

use super::{PRUNE_EVERY, conflict, expired};
use crate::store::StoreError;
use crate::store::sql::{self, Connection, OptionalExtension, Row, params};

/// A row of `tool_calls`, and how many results newer than it are kept.
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
    /// Kept results newer than this row's, counted up to the limit.
    pub(super) newer_kept: i64,
}

/// The row of a requestId (`?1`) and the kept results newer than it,
/// counted up to `?2` (the newest `max_results` are kept: an older result
/// is gone, whether or not a prune has cleared it yet). The columns are
/// those [`CallRow::read`] reads.
pub(super) const READ_ROW: &str = "SELECT seq, fingerprint, state, lease_until_ms, expires_at_ms,
            name, failed, output, error,
            (SELECT count(*) FROM (
                 SELECT 1 FROM tool_calls AS n WHERE n.state = 'kept' AND n.seq > c.seq LIMIT ?2
             ) AS newer)
     FROM tool_calls AS c WHERE request_id = ?1";

/// What the row of a requestId says of a call with `fingerprint`.
pub(super) enum Verdict {
    /// Its kept result, to replay.
    Replay(ToolResult),
    /// `TOOL_IDEMPOTENCY_CONFLICT` or `..._EXPIRED`.
    Refused(ToolError),
    /// Nothing of it is live any more (past its expiry, or a claim whose
    /// server stopped renewing it): the row (this `seq`) goes, and the call
    /// is new again.
    Stale(i64),
    /// A read claimed by a server of an earlier build, still running.
    Running,
}

impl CallRow {
    /// Whether the row's result is kept: it is, and fewer than the newest
    /// `max_results` are newer.
    pub(super) fn is_live(&self, limits: RegistryLimits) -> bool {
        self.state == "kept" && self.newer_kept < max_results(limits)
    }

    pub(super) fn verdict(
        self,
        request_id: &str,
        fingerprint: &str,
        limits: RegistryLimits,
        now_ms: i64,
    ) -> Verdict {
        if self.fingerprint != fingerprint {
            return Verdict::Refused(conflict());
        }
        if self.state == "running" {
            return if self.lease_until_ms < now_ms {
                Verdict::Stale(self.seq)
            } else {
                Verdict::Running
            };
        }
        if self.is_live(limits) {
            Verdict::Replay(self.into_result(request_id))
        } else if self.expires_at_ms <= now_ms {
            Verdict::Stale(self.seq)
        } else {
            Verdict::Refused(expired())
        }
    }

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

    /// The row whose columns (`seq, fingerprint, state, lease_until_ms,
    /// expires_at_ms, name, failed, output, error`) start at `first`, and
    /// after them the count of newer kept results, if `counted`.
    pub(super) fn read(row: &Row<'_>, first: usize, counted: bool) -> Result<CallRow, sql::Error> {
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
            newer_kept: if counted { row.get(first + 9)? } else { 0 },
        })
    }

    /// The row [`READ_ROW`] read, through the ledger's own connection.
    pub(super) fn from_pg(row: &tokio_postgres::Row) -> Result<CallRow, tokio_postgres::Error> {
        Ok(CallRow {
            seq: row.try_get(0)?,
            fingerprint: row.try_get(1)?,
            state: row.try_get(2)?,
            lease_until_ms: row.try_get(3)?,
            expires_at_ms: row.try_get(4)?,
            name: row.try_get(5)?,
            failed: row.try_get::<_, Option<i64>>(6)?.unwrap_or(0) != 0,
            output: row.try_get(7)?,
            error: row.try_get(8)?,
            newer_kept: row.try_get(9)?,
        })
    }
}

pub(super) fn read_row(
    c: &Connection,
    request_id: &str,
    limits: RegistryLimits,
) -> Result<Option<CallRow>, StoreError> {
    Ok(
        c.query_row(READ_ROW, params![request_id, max_results(limits)], |row| {
            CallRow::read(row, 0, true)
        })
        .optional()?,
    )
}

/// Writes a write's result into its claim's row (in the claim's
/// transaction). What falls out of the newest results is left to
/// [`PRUNE`]: [`READ_ROW`] already tells it gone.
pub(super) fn keep_write(c: &Connection, seq: i64, result: &KeptResult) -> Result<(), StoreError> {
    c.execute(
        "UPDATE tool_calls SET state = 'kept', name = ?2, failed = ?3, output = ?4, error = ?5
         WHERE seq = ?1",
        params![seq, result.name, result.failed, result.output, result.error],
    )?;
    Ok(())
}

/// Every [`PRUNE_EVERY`] calls, one call's server clears what the limits
/// of docs/reference.md#idempotency let go, in two statements: results
/// beyond the newest `max_results` (`$1`) leave only their fingerprint;
/// fingerprints past their expiry (`$2`, now) or beyond the newest
/// `max_fingerprints` (`$3`) go. Rows another call holds (locked) are left
/// to the next prune: waiting on them deadlocked when two plans locked rows
/// in different orders.
pub(super) const PRUNE: [&str; 2] = [
    "UPDATE tool_calls SET state = 'evicted', output = NULL, error = NULL, name = NULL
     WHERE seq IN (
         SELECT seq FROM tool_calls
         WHERE state = 'kept' AND seq <= (
             SELECT seq FROM tool_calls WHERE state = 'kept' ORDER BY seq DESC LIMIT 1 OFFSET $1
         )
         FOR UPDATE SKIP LOCKED
     )",
    "DELETE FROM tool_calls WHERE seq IN (
         SELECT seq FROM tool_calls
         WHERE state = 'evicted' AND (expires_at_ms <= $1 OR seq <= (
             SELECT seq FROM tool_calls ORDER BY seq DESC LIMIT 1 OFFSET $2
         ))
         FOR UPDATE SKIP LOCKED
     )",
];

/// Whether the call `seq` is the one to prune after.
pub(super) fn prunes_after(seq: i64) -> bool {
    seq % PRUNE_EVERY == 0
}

pub(super) fn max_results(limits: RegistryLimits) -> i64 {
    i64::try_from(limits.max_results).unwrap_or(i64::MAX)
}

pub(super) fn max_fingerprints(limits: RegistryLimits) -> i64 {
    i64::try_from(limits.max_tombstones).unwrap_or(i64::MAX)
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
