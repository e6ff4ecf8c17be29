//! One try at a write's claim: the insert of the call's row, first
//! statement of a transaction that stays open, or the row found.

use portos_core::registry::RegistryLimits;

use super::kept::CallRow;
use super::shared::{CLAIM_LOCK_TIMEOUT, WORK_LOCK_TIMEOUT};
use super::verdict::read_row;
use crate::store::StoreError;
use crate::store::sql::{Connection, OptionalExtension, params};

pub(super) enum RawAttempt {
    /// The row is inserted (its `seq`); the transaction is open.
    Claimed(i64),
    /// The row that was there (`None`: it went away meanwhile).
    Found(Option<CallRow>),
    /// Another server's claim has not committed yet.
    Busy,
}

pub(super) struct ClaimArgs {
    pub(super) request_id: String,
    pub(super) fingerprint: String,
    pub(super) now_ms: i64,
    pub(super) retention_ms: i64,
    pub(super) limits: RegistryLimits,
}

impl ClaimArgs {
    /// Inserts the claim's row as the first statement of a transaction
    /// that stays open, or finds the row there (and ends the transaction).
    pub(super) fn attempt(&self, c: &mut Connection) -> Result<RawAttempt, StoreError> {
        c.begin_with(CLAIM_LOCK_TIMEOUT)?;
        let inserted = c
            .query_row(
                "INSERT INTO tool_calls (request_id, fingerprint, state, lease_until_ms, expires_at_ms)
                 VALUES (?1, ?2, 'running', 0, ?3)
                 ON CONFLICT (request_id) DO NOTHING
                 RETURNING seq",
                params![
                    self.request_id,
                    self.fingerprint,
                    self.now_ms + self.retention_ms
                ],
                |row| row.get::<_, i64>(0),
            )
            .optional();
        match inserted {
            Ok(Some(seq)) => {
                // The adapter's own statements wait for locks as long as a
                // call may reasonably take, not the claim's 200 ms.
                c.execute_before_next(WORK_LOCK_TIMEOUT)?;
                Ok(RawAttempt::Claimed(seq))
            }
            Ok(None) => {
                c.end(false)?;
                Ok(RawAttempt::Found(read_row(
                    c,
                    &self.request_id,
                    self.limits,
                )?))
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
