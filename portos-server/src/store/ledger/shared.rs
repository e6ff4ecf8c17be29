//! The cluster's idempotency on PostgreSQL (feature `postgres`) ([`portos_core::CallLedger`]):
//! docs/reference.md#fingerprint, docs/reference.md#idempotency kept in the
//! `tool_calls` table, so every server on the database answers a requestId the
//! same way.
//!
//! - A **write** is claimed by inserting its row in a transaction that stays
//!   open on a connection the call holds while its adapter runs; the
//!   adapter's store work joins it (`store::held`), and the kept result commits
//!   with it. Another server's insert of the same requestId waits on that
//!   row (PostgreSQL's unique index), so the run is exclusive; if the server
//!   dies, the database rolls everything back and the next claim runs it.
//! - A **read** changes nothing, so it is not claimed before it runs: its
//!   result is inserted once it has one, in one statement on the ledger's
//!   own asynchronous connections (`super::connections`). If the requestId is
//!   taken by then (a duplicate that ran at once elsewhere, or an earlier
//!   call), the row decides: its kept result is the answer (a replay), or
//!   the refusal it calls for.
//! - A row is `running` (a write's claim, inside its transaction) or
//!   `kept`. The newest `max_results` kept results are live;
//!   [`READ_ROW`](super::verdict::READ_ROW) counts the newer ones, so a result past the limit
//!   is gone at once, and every [`PRUNE_EVERY`](super::PRUNE_EVERY) calls one server clears
//!   the outputs past it in the background ([`PRUNE_RESULTS`](super::verdict::PRUNE_RESULTS), and
//!   rarer, deletes the fingerprints past theirs): a call pays no walk over
//!   the table.
//! - A duplicate never waits without end: past [`WAIT`] it is answered
//!   503 `SERVICE_UNAVAILABLE`, and nothing ran for it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::BoxFuture;
use portos_core::contract::{ErrorCode, ToolError, ToolResult};
use portos_core::registry::{CallLedger, Claim, Claimed, RegistryLimits};

use super::attempt::{self, ClaimArgs, RawAttempt};
use super::claimed::{ReadClaim, WriteClaim};
use super::connections::Connections;
use super::kept::{max_fingerprints, max_results};
use super::verdict::{CLEAR_WINDOW, Verdict, prunes_after};
use super::{millis, now_ms};
use crate::store::{Backend, Store, StoreError};

/// How long a duplicate waits for another server's run before it is told
/// to ask again later.
pub(super) const WAIT: Duration = Duration::from_secs(30);
/// How long a claim waits for another server's uncommitted claim of the
/// same requestId before it looks again (without holding anything).
pub(super) const CLAIM_LOCK_TIMEOUT: &str = "SET LOCAL lock_timeout = '200ms'";
/// How long a write's own statements may wait for a lock another
/// transaction holds (then the statement fails, and the call with it).
pub(super) const WORK_LOCK_TIMEOUT: &str = "SET LOCAL lock_timeout = '30s'";
/// The ledger of a PostgreSQL store.
#[derive(Debug)]
pub struct SharedCalls {
    ledger: Arc<Ledger>,
}

/// What the calls a ledger answers hold on to.
#[derive(Debug)]
pub(super) struct Ledger {
    pub(super) store: Store,
    pub(super) connections: Connections,
}

impl SharedCalls {
    /// The ledger of `store`, if several servers may share it (PostgreSQL);
    /// a SQLite store belongs to one server, whose memory is exact. Its
    /// connections are made when first used.
    pub fn of(store: &Store) -> Option<Arc<SharedCalls>> {
        let Backend::Postgres { pool, .. } = &store.backend else {
            return None;
        };
        Some(Arc::new(SharedCalls {
            ledger: Arc::new(Ledger {
                connections: Connections::new(pool.url()),
                store: store.clone(),
            }),
        }))
    }
}

impl Ledger {
    async fn claim_here(self: Arc<Self>, claim: Claim) -> Result<Claimed, ToolError> {
        let fingerprint = claim.fingerprint.to_hex();
        if !claim.write {
            return Ok(Claimed::Fresh(Box::new(ReadClaim {
                ledger: self,
                request_id: claim.request_id,
                fingerprint,
                limits: claim.limits,
            })));
        }
        let started = Instant::now();
        let mut pause = Duration::from_millis(2);
        loop {
            let Backend::Postgres { holdings, .. } = &self.store.backend else {
                return Err(unavailable(StoreError::Worker(
                    "the ledger needs PostgreSQL".to_owned(),
                )));
            };
            let held = holdings.hold().await.map_err(unavailable)?;
            let now = now_ms();
            let args = ClaimArgs {
                request_id: claim.request_id.to_string(),
                fingerprint: fingerprint.clone(),
                now_ms: now,
                retention_ms: millis(claim.limits.retention),
                limits: claim.limits,
            };
            match held
                .run_raw(move |c| args.attempt(c))
                .await
                .map_err(unavailable)?
            {
                RawAttempt::Claimed(seq) => {
                    return Ok(Claimed::Fresh(Box::new(WriteClaim {
                        ledger: Arc::clone(&self),
                        held,
                        seq,
                        limits: claim.limits,
                    })));
                }
                RawAttempt::Found(Some(row)) => {
                    drop(held);
                    match row.verdict(&claim.request_id, &fingerprint, claim.limits, now) {
                        Verdict::Replay(result) => return Ok(Claimed::Kept(result)),
                        Verdict::Refused(error) => return Err(error),
                        Verdict::Stale(seq) => {
                            self.forget(seq).await.map_err(unavailable)?;
                            continue;
                        }
                        Verdict::Running => {}
                    }
                }
                RawAttempt::Found(None) | RawAttempt::Busy => {}
            }
            if started.elapsed() >= WAIT {
                return Err(still_running());
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_millis(100));
        }
    }

    /// Deletes the row `seq` that holds nothing live: past its expiry, or a
    /// claim whose server stopped renewing it (unless it was renewed since).
    pub(super) async fn forget(&self, seq: i64) -> Result<(), StoreError> {
        let open = self.connections.get().await?;
        open.client
            .execute(
                "DELETE FROM tool_calls
                 WHERE seq = $1 AND (state <> 'running' OR lease_until_ms < $2)",
                &[&seq, &now_ms()],
            )
            .await
            .map_err(crate::store::sql::Error::from)?;
        Ok(())
    }

    /// Clears, in the background, what the limits let go if the call
    /// `seq` is one to do it ([`verdict::PRUNE_RESULTS`](super::verdict::PRUNE_RESULTS),
    /// [`verdict::FORGET_FINGERPRINTS`](super::verdict::FORGET_FINGERPRINTS)); a clearing that fails leaves it to
    /// the next.
    pub(super) fn prune_after(self: &Arc<Self>, seq: i64, limits: RegistryLimits) {
        let (results, fingerprints) = prunes_after(seq);
        if !results && !fingerprints {
            return;
        }
        let ledger = Arc::clone(self);
        tokio::spawn(async move {
            let Ok(open) = ledger.connections.get().await else {
                return;
            };
            if results {
                let _ = open
                    .client
                    .execute(&open.prune_results, &[&max_results(limits), &CLEAR_WINDOW])
                    .await;
            }
            if fingerprints {
                let _ = open
                    .client
                    .execute(&open.forget_fingerprints, &[&max_fingerprints(limits)])
                    .await;
            }
        });
    }

    async fn retained_here(
        self: Arc<Self>,
        request_id: Arc<str>,
        limits: RegistryLimits,
    ) -> Result<Option<ToolResult>, ToolError> {
        let started = Instant::now();
        loop {
            let open = self.connections.get().await.map_err(unavailable)?;
            let row = open.read_row(&request_id, limits).await.map_err(lost)?;
            match row {
                Some(row) if row.is_live(limits) => {
                    return Ok(Some(row.into_result(&request_id)));
                }
                Some(row) if row.state == "running" && row.lease_until_ms >= now_ms() => {}
                Some(_) => return Ok(None),
                // A write's claim is not visible until it commits: a write
                // may be running on some server all the same.
                None => {
                    let id = request_id.to_string();
                    let in_flight = self
                        .store
                        .run(move |c| attempt::write_in_flight(c, &id))
                        .await
                        .map_err(unavailable)?;
                    if !in_flight {
                        return Ok(None);
                    }
                }
            }
            if started.elapsed() >= WAIT {
                return Err(still_running());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl CallLedger for SharedCalls {
    fn claim(&self, claim: Claim) -> BoxFuture<'static, Result<Claimed, ToolError>> {
        Arc::clone(&self.ledger).claim_here(claim).boxed()
    }

    fn retained(
        &self,
        request_id: Arc<str>,
        limits: RegistryLimits,
    ) -> BoxFuture<'static, Result<Option<ToolResult>, ToolError>> {
        Arc::clone(&self.ledger)
            .retained_here(request_id, limits)
            .boxed()
    }
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "a `map_err` adapter: it takes the error it maps"
)]
pub(super) fn unavailable(error: StoreError) -> ToolError {
    let message = if error.is_unavailable() {
        StoreError::UNAVAILABLE_MESSAGE.to_owned()
    } else {
        format!("The call could not be recorded in the shared store: {error}")
    };
    ToolError::new(ErrorCode::ServiceUnavailable, message)
}

/// A statement of the ledger's own connection failed.
pub(super) fn lost(error: tokio_postgres::Error) -> ToolError {
    unavailable(crate::store::sql::Error::from(error).into())
}

pub(super) fn still_running() -> ToolError {
    ToolError::new(
        ErrorCode::ServiceUnavailable,
        "Another server is still running the call with this requestId; send it again later with the same requestId",
    )
}
