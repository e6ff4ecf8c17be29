//! The cluster's idempotency on PostgreSQL ([`portos_core::CallLedger`]):
//! docs/reference.md#fingerprint, docs/reference.md#idempotency kept in the
//! `tool_calls` table, so every server on the database answers a requestId the
//! same way.
//!
//! - A **write** is claimed by inserting its row in a transaction that stays
//!   open on a connection the call holds while its adapter runs; the
//!   adapter's store work joins it (`held`), and the kept result commits
//!   with it. Another server's insert of the same requestId waits on that
//!   row (PostgreSQL's unique index), so the run is exclusive; if the server
//!   dies, the database rolls everything back and the next claim runs it.
//! - A **read** changes nothing, so its claim commits at once (state
//!   `running`) with a lease the server renews while the adapter runs; a
//!   duplicate waits for the result, and takes the claim over if the lease
//!   runs out (its server died).
//! - A duplicate never waits without end: past [`WAIT`] it is answered
//!   503 `SERVICE_UNAVAILABLE`, and nothing ran for it.

mod attempt;
mod claimed;
mod kept;
mod local;

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::BoxFuture;
use portos_core::contract::{ErrorCode, ToolError, ToolResult};
use portos_core::registry::{CallLedger, Claim, Claimed};

use super::sql::params;
use super::{Backend, Store, StoreError};
use attempt::{Attempt, ClaimArgs, RawAttempt};
use claimed::{ReadClaim, WriteClaim};
use kept::read_row;
pub use local::LocalCalls;

/// How long a read's claim stays valid without its server renewing it.
const LEASE: Duration = Duration::from_secs(10);
/// How often a running read's server renews its lease.
const RENEW_EVERY: Duration = Duration::from_secs(3);
/// How long a duplicate waits for another server's run before it is told
/// to ask again later.
const WAIT: Duration = Duration::from_secs(30);
/// How long a claim waits for another server's uncommitted claim of the
/// same requestId before it looks again (without holding anything).
const CLAIM_LOCK_TIMEOUT: &str = "SET LOCAL lock_timeout = '200ms'";
/// How long a write's own statements may wait for a lock another
/// transaction holds (then the statement fails, and the call with it).
const WORK_LOCK_TIMEOUT: &str = "SET LOCAL lock_timeout = '30s'";
/// Every this many claims, fingerprints past their 24 hours or beyond the
/// newest 10,000 are deleted (one index walk shared by many calls).
const PRUNE_EVERY: i64 = 64;

/// The ledger of a PostgreSQL store.
#[derive(Clone, Debug)]
pub struct SharedCalls {
    store: Store,
}

impl SharedCalls {
    /// The ledger of `store`, if several servers may share it (PostgreSQL);
    /// a SQLite store belongs to one server, whose memory is exact.
    pub fn of(store: &Store) -> Option<Arc<SharedCalls>> {
        store.is_shared().then(|| {
            Arc::new(SharedCalls {
                store: store.clone(),
            })
        })
    }

    async fn claim_here(self: Arc<Self>, claim: Claim) -> Result<Claimed, ToolError> {
        let started = Instant::now();
        let mut pause = Duration::from_millis(2);
        let fingerprint = claim.fingerprint.to_hex();
        loop {
            let attempt = self
                .attempt(&claim, &fingerprint)
                .await
                .map_err(unavailable)?;
            match attempt {
                Attempt::Claimed { seq, held } => {
                    return Ok(Claimed::Fresh(match held {
                        Some(held) => Box::new(WriteClaim {
                            held,
                            seq,
                            limits: claim.limits,
                        }),
                        None => Box::new(ReadClaim {
                            store: self.store.clone(),
                            seq,
                            limits: claim.limits,
                        }),
                    }));
                }
                Attempt::Found(row) => {
                    if row.fingerprint != fingerprint {
                        return Err(conflict());
                    }
                    match row.state.as_str() {
                        "kept" => return Ok(Claimed::Kept(row.into_result(&claim.request_id))),
                        // A fingerprint past its 24 hours whose result is
                        // gone is forgotten: the call is new again.
                        "evicted" if row.expires_at_ms <= now_ms() => {
                            self.forget(row.seq).await.map_err(unavailable)?;
                            continue;
                        }
                        "evicted" => return Err(expired()),
                        _ => {}
                    }
                    // A read still running: taken over if its server
                    // stopped renewing the lease (it died).
                    if row.lease_until_ms < now_ms()
                        && self.take_over(row.seq).await.map_err(unavailable)?
                    {
                        return Ok(Claimed::Fresh(Box::new(ReadClaim {
                            store: self.store.clone(),
                            seq: row.seq,
                            limits: claim.limits,
                        })));
                    }
                }
                Attempt::Busy => {}
            }
            if started.elapsed() >= WAIT {
                return Err(still_running());
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_millis(100));
        }
    }

    /// One try at the claim: a write's on a connection it then holds, a
    /// read's on the pool.
    async fn attempt(&self, claim: &Claim, fingerprint: &str) -> Result<Attempt, StoreError> {
        let args = ClaimArgs {
            request_id: claim.request_id.to_string(),
            fingerprint: fingerprint.to_owned(),
            now_ms: now_ms(),
            retention_ms: millis(claim.limits.retention),
            write: claim.write,
        };
        if !claim.write {
            return self.store.run(move |c| Ok(args.attempt(c)?.into())).await;
        }
        let Backend::Postgres { holdings, .. } = &self.store.backend else {
            return Err(StoreError::Worker("the ledger needs PostgreSQL".to_owned()));
        };
        let held = holdings.hold().await?;
        Ok(match held.run_raw(move |c| args.attempt(c)).await? {
            RawAttempt::Claimed(seq) => Attempt::Claimed {
                seq,
                held: Some(held),
            },
            RawAttempt::Found(Some(row)) => Attempt::Found(row),
            RawAttempt::Found(None) | RawAttempt::Busy => Attempt::Busy,
        })
    }

    /// Deletes an expired fingerprint.
    async fn forget(&self, seq: i64) -> Result<(), StoreError> {
        self.store
            .run(move |c| {
                c.execute(
                    "DELETE FROM tool_calls WHERE seq = ?1 AND state = 'evicted'",
                    [seq],
                )?;
                Ok(())
            })
            .await
    }

    /// Takes over a read whose server stopped renewing its lease.
    async fn take_over(&self, seq: i64) -> Result<bool, StoreError> {
        let now = now_ms();
        let lease = now + millis(LEASE);
        self.store
            .run(move |c| {
                Ok(c.execute(
                    "UPDATE tool_calls SET lease_until_ms = ?2
                     WHERE seq = ?1 AND state = 'running' AND lease_until_ms < ?3",
                    params![seq, lease, now],
                )? == 1)
            })
            .await
    }

    async fn retained_here(
        self: Arc<Self>,
        request_id: Arc<str>,
    ) -> Result<Option<ToolResult>, ToolError> {
        let started = Instant::now();
        loop {
            let id = request_id.to_string();
            let row = self
                .store
                .run(move |c| read_row(c, &id))
                .await
                .map_err(unavailable)?;
            match row {
                Some(row) if row.state == "kept" => return Ok(Some(row.into_result(&request_id))),
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
        Arc::new(self.clone()).claim_here(claim).boxed()
    }

    fn retained(
        &self,
        request_id: Arc<str>,
    ) -> BoxFuture<'static, Result<Option<ToolResult>, ToolError>> {
        Arc::new(self.clone()).retained_here(request_id).boxed()
    }
}

fn now_ms() -> i64 {
    millis(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default(),
    )
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "a `map_err` adapter: it takes the error it maps"
)]
fn unavailable(error: StoreError) -> ToolError {
    let message = if error.is_unavailable() {
        StoreError::UNAVAILABLE_MESSAGE.to_owned()
    } else {
        format!("The call could not be recorded in the shared store: {error}")
    };
    ToolError::new(ErrorCode::ServiceUnavailable, message)
}

fn still_running() -> ToolError {
    ToolError::new(
        ErrorCode::ServiceUnavailable,
        "Another server is still running the call with this requestId; send it again later with the same requestId",
    )
}

fn conflict() -> ToolError {
    ToolError::new(
        ErrorCode::ToolIdempotencyConflict,
        "requestId was already used for a different tool call",
    )
}

fn expired() -> ToolError {
    ToolError::new(
        ErrorCode::ToolIdempotencyExpired,
        "requestId result has expired and cannot be replayed safely",
    )
}
