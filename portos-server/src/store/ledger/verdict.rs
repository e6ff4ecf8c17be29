//! What the cluster's ledger (feature `postgres`) makes of a call's row:
//! the verdict on a requestId, within the limits of
//! docs/reference.md#idempotency counted over the cluster, and the
//! statements that read, keep and prune rows.

use portos_core::contract::{ErrorCode, ToolError, ToolResult};
use portos_core::registry::RegistryLimits;

use super::PRUNE_EVERY;
use super::kept::{CallRow, KeptResult, max_results};
use crate::store::StoreError;
use crate::store::sql::{Connection, OptionalExtension, params};

/// The row of a requestId (`?1`) and, if its result is kept, the kept
/// results newer than it, counted up to `?2` (the newest `max_results` are
/// kept: an older result is gone, whether or not a prune has cleared it
/// yet). The columns are those [`CallRow::read`] reads.
pub(super) const READ_ROW: &str = "SELECT seq, fingerprint, state, lease_until_ms, expires_at_ms,
            name, failed, output, error,
            CASE WHEN c.state = 'kept' THEN (SELECT count(*) FROM (
                SELECT 1 FROM tool_calls AS n WHERE n.state = 'kept' AND n.seq > c.seq LIMIT ?2
            ) AS newer) ELSE 0 END
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

    /// As the registry's own stores judge a requestId
    /// (docs/reference.md#idempotency): a kept result replays for the same
    /// call and conflicts with another; a fingerprint past its expiry is
    /// forgotten; one still remembered is expired for the same call and a
    /// conflict for another.
    pub(super) fn verdict(
        self,
        request_id: &str,
        fingerprint: &str,
        limits: RegistryLimits,
        now_ms: i64,
    ) -> Verdict {
        let same = self.fingerprint == fingerprint;
        if self.state == "running" {
            return if !same {
                Verdict::Refused(conflict())
            } else if self.lease_until_ms < now_ms {
                Verdict::Stale(self.seq)
            } else {
                Verdict::Running
            };
        }
        if self.is_live(limits) {
            if same {
                Verdict::Replay(self.into_result(request_id))
            } else {
                Verdict::Refused(conflict())
            }
        } else if self.expires_at_ms <= now_ms {
            Verdict::Stale(self.seq)
        } else if same {
            Verdict::Refused(expired())
        } else {
            Verdict::Refused(conflict())
        }
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
/// [`PRUNE_RESULTS`]: [`READ_ROW`] already tells it gone.
pub(super) fn keep_write(c: &Connection, seq: i64, result: &KeptResult) -> Result<(), StoreError> {
    c.execute(
        "UPDATE tool_calls SET state = 'kept', name = ?2, failed = ?3, output = ?4, error = ?5
         WHERE seq = ?1",
        params![seq, result.name, result.failed, result.output, result.error],
    )?;
    Ok(())
}

/// Every [`PRUNE_EVERY`] calls, one call's server clears the output of the
/// results that fell past the newest `max_results` (`$1`) since the last
/// clearing: the fingerprint stays. The row stays `kept` (what
/// [`READ_ROW`] counts is every result, cleared or not) and only unindexed
/// columns change, so PostgreSQL updates the row in place, without new
/// index entries: moving rows to another state made each clearing cost more
/// than the inserts it followed. The rows looked at are the
/// [`CLEAR_WINDOW`] below the limit; a row outside it (a clearing that
/// failed or was skipped) keeps its output until its fingerprint goes.
/// Two servers clearing at once take the rows in the same order, so one
/// waits for the other and finds them cleared; nothing else locks kept
/// rows.
pub(super) const PRUNE_RESULTS: &str =
    "UPDATE tool_calls SET name = NULL, output = NULL, error = NULL
     FROM (
         SELECT seq AS last FROM tool_calls WHERE state = 'kept'
         ORDER BY state DESC, seq DESC OFFSET $1 LIMIT 1
     ) AS past
     WHERE state = 'kept' AND seq <= past.last AND seq > past.last - $2 AND name IS NOT NULL";

/// How many rows below the limit a clearing looks at: a few clearings'
/// worth of calls.
pub(super) const CLEAR_WINDOW: i64 = 4 * PRUNE_EVERY;

/// Every [`FORGET_EVERY`] calls, the rows beyond the newest
/// `max_fingerprints` (`$1`) are deleted (the walk to the limit is down
/// the table's key). Between two of these a few more fingerprints are
/// remembered (and answered as expired) than the limit says; a
/// fingerprint past its expiry is forgotten when it is looked up
/// ([`CallRow::verdict`]).
pub(super) const FORGET_FINGERPRINTS: &str = "DELETE FROM tool_calls
     WHERE seq <= (SELECT seq FROM tool_calls ORDER BY seq DESC OFFSET $1 LIMIT 1)";

/// Every this many calls, fingerprints beyond the newest
/// `max_fingerprints` go (a walk over all of them, so rarer than
/// [`PRUNE_EVERY`]).
pub(super) const FORGET_EVERY: i64 = 1024;

/// What clearing, if any, falls to the call `seq`: (results, fingerprints).
pub(super) fn prunes_after(seq: i64) -> (bool, bool) {
    (seq % PRUNE_EVERY == 0, seq % FORGET_EVERY == 0)
}

pub(super) fn conflict() -> ToolError {
    ToolError::new(
        ErrorCode::ToolIdempotencyConflict,
        "requestId was already used for a different tool call",
    )
}

pub(super) fn expired() -> ToolError {
    ToolError::new(
        ErrorCode::ToolIdempotencyExpired,
        "requestId result has expired and cannot be replayed safely",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_000_000;

    fn row(state: &str, newer_kept: i64, expires_at_ms: i64) -> CallRow {
        CallRow {
            seq: 7,
            fingerprint: "f".to_owned(),
            state: state.to_owned(),
            lease_until_ms: 0,
            expires_at_ms,
            name: Some("time.now".to_owned()),
            failed: false,
            output: Some("{}".to_owned()),
            error: None,
            newer_kept,
        }
    }

    fn judged(row: CallRow, fingerprint: &str) -> String {
        match row.verdict("r", fingerprint, RegistryLimits::default(), NOW) {
            Verdict::Replay(_) => "replay".to_owned(),
            Verdict::Refused(error) => error.code.as_str().to_owned(),
            Verdict::Stale(seq) => format!("stale {seq}"),
            Verdict::Running => "running".to_owned(),
        }
    }

    #[test]
    fn a_row_is_judged_as_the_registry_judges_its_own_stores() {
        let later = NOW + 1;
        // Among the newest 500 kept: replay, or a conflict; its expiry does
        // not matter while the result is kept.
        assert_eq!(judged(row("kept", 499, later), "f"), "replay");
        assert_eq!(judged(row("kept", 499, NOW), "f"), "replay");
        assert_eq!(
            judged(row("kept", 0, later), "g"),
            "TOOL_IDEMPOTENCY_CONFLICT"
        );
        // 500 newer kept: gone, whether or not a prune cleared it yet.
        for state in ["kept", "evicted"] {
            assert_eq!(
                judged(row(state, 500, later), "f"),
                "TOOL_IDEMPOTENCY_EXPIRED"
            );
            assert_eq!(
                judged(row(state, 500, later), "g"),
                "TOOL_IDEMPOTENCY_CONFLICT"
            );
            // Past its expiry the fingerprint is forgotten, for any call.
            assert_eq!(judged(row(state, 500, NOW), "f"), "stale 7");
            assert_eq!(judged(row(state, 500, NOW), "g"), "stale 7");
        }
        // A read an earlier build claimed: waited for while its lease
        // holds, forgotten after.
        let mut running = row("running", 0, later);
        running.lease_until_ms = later;
        assert_eq!(judged(running, "f"), "running");
        assert_eq!(judged(row("running", 0, later), "f"), "stale 7");
        assert_eq!(
            judged(row("running", 0, later), "g"),
            "TOOL_IDEMPOTENCY_CONFLICT"
        );
    }
}
