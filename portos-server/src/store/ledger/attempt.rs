//! One try at a claim: the insert of the call's row, or the row found.

use super::kept::{CallRow, read_row};
use super::{CLAIM_LOCK_TIMEOUT, LEASE, WORK_LOCK_TIMEOUT, millis};
use crate::store::StoreError;
use crate::store::held::HeldConnection;
use crate::store::sql::{Connection, OptionalExtension, params};
use std::sync::Arc;

pub(super) enum Attempt {
    Claimed {
        seq: i64,
        /// A write's connection, its transaction open.
        held: Option<Arc<HeldConnection>>,
    },
    Found(CallRow),
    /// Another server's claim has not committed yet.
    Busy,
}

pub(super) enum RawAttempt {
    Claimed(i64),
    /// The row that was there (`None`: it went away meanwhile).
    Found(Option<CallRow>),
    Busy,
}

impl From<RawAttempt> for Attempt {
    fn from(raw: RawAttempt) -> Attempt {
        match raw {
            RawAttempt::Claimed(seq) => Attempt::Claimed { seq, held: None },
            RawAttempt::Found(Some(row)) => Attempt::Found(row),
            RawAttempt::Found(None) | RawAttempt::Busy => Attempt::Busy,
        }
    }
}

pub(super) struct ClaimArgs {
    pub(super) request_id: String,
    pub(super) fingerprint: String,
    pub(super) now_ms: i64,
    pub(super) retention_ms: i64,
    pub(super) write: bool,
}

impl ClaimArgs {
    /// Inserts the claim's row, or finds the one there. A write's claim
    /// is the first statement of its transaction, which stays open; a
    /// read's is one statement on its own (it waits, unbounded, only for a
    /// write of the same requestId to end: a conflict then).
    pub(super) fn attempt(&self, c: &mut Connection) -> Result<RawAttempt, StoreError> {
        let lease = if self.write {
            0
        } else {
            self.now_ms + millis(LEASE)
        };
        let insert = |c: &Connection| {
            c.query_row(
                "INSERT INTO tool_calls (request_id, fingerprint, state, lease_until_ms, expires_at_ms)
                 VALUES (?1, ?2, 'running', ?3, ?4)
                 ON CONFLICT (request_id) DO NOTHING
                 RETURNING seq",
                params![
                    self.request_id,
                    self.fingerprint,
                    lease,
                    self.now_ms + self.retention_ms
                ],
                |row| row.get::<_, i64>(0),
            )
            .optional()
        };
        if !self.write {
            return Ok(match insert(c)? {
                Some(seq) => RawAttempt::Claimed(seq),
                None => RawAttempt::Found(read_row(c, &self.request_id)?),
            });
        }
        c.begin_with(CLAIM_LOCK_TIMEOUT)?;
        match insert(c) {
            Ok(Some(seq)) => {
                // The adapter's own statements wait for locks as long as a
                // call may reasonably take, not the claim's 200 ms.
                c.execute_batch(WORK_LOCK_TIMEOUT)?;
                Ok(RawAttempt::Claimed(seq))
            }
            Ok(None) => {
                c.end(false)?;
                Ok(RawAttempt::Found(read_row(c, &self.request_id)?))
            }
            Err(error) => {
                c.end(false)?;
                if error.is_lock_timeout() {
                    Ok(RawAttempt::Busy)
                } else {
                    Err(error.into())
                }
            }
        }
    }
}

/// Whether a write of `request_id` may be running on some server: an
/// insert of its row (rolled back at once) waits on another server's
/// uncommitted claim, and finds a row that committed since it was looked
/// for. Only an insert that goes through says that nothing is there.
pub(super) fn write_in_flight(c: &mut Connection, request_id: &str) -> Result<bool, StoreError> {
    c.begin_with(CLAIM_LOCK_TIMEOUT)?;
    let probed = c
        .query_row(
            "INSERT INTO tool_calls (request_id, fingerprint, state, lease_until_ms, expires_at_ms)
             VALUES (?1, '', 'running', 0, 0)
             ON CONFLICT (request_id) DO NOTHING
             RETURNING seq",
            [request_id],
            |_| Ok(()),
        )
        .optional();
    c.end(false)?;
    match probed {
        Ok(inserted) => Ok(inserted.is_none()),
        Err(error) if error.is_lock_timeout() => Ok(true),
        Err(error) => Err(error.into()),
    }
}
