//! The cluster's idempotency on PostgreSQL ([`portos_core::CallLedger`]):
//! BEHAVIOUR §1.5–1.6 kept in the `tool_calls` table, so every server on
//! the database answers a requestId the same way.
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

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::BoxFuture;
use portos_core::AdapterOutcome;
use portos_core::contract::{
    ErrorCode, OutputJson, SCHEMA_VERSION, ToolError, ToolResult, ToolState,
};
use portos_core::registry::{CallLedger, Claim, Claimed, ClaimedCall, RegistryLimits};

use super::held::HeldConnection;
use super::sql::{Connection, OptionalExtension, params};
use super::{Backend, Store, StoreError};

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
                    if !self.write_in_flight(id).await.map_err(unavailable)? {
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

impl SharedCalls {
    /// Whether a write of `request_id` may be running: an insert of its row
    /// (rolled back at once) waits on another server's uncommitted claim,
    /// and finds a row that committed since it was looked for. Only an
    /// insert that goes through says that nothing is there.
    async fn write_in_flight(&self, request_id: String) -> Result<bool, StoreError> {
        self.store
            .run(move |c| {
                c.begin_with(CLAIM_LOCK_TIMEOUT)?;
                let probed = c
                    .query_row(
                        "INSERT INTO tool_calls (request_id, fingerprint, state, lease_until_ms, expires_at_ms)
                         VALUES (?1, '', 'running', 0, 0)
                         ON CONFLICT (request_id) DO NOTHING
                         RETURNING seq",
                        [&request_id],
                        |_| Ok(()),
                    )
                    .optional();
                c.end(false)?;
                match probed {
                    Ok(inserted) => Ok(inserted.is_none()),
                    Err(error) if error.is_lock_timeout() => Ok(true),
                    Err(error) => Err(error.into()),
                }
            })
            .await
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

enum Attempt {
    Claimed {
        seq: i64,
        /// A write's connection, its transaction open.
        held: Option<Arc<HeldConnection>>,
    },
    Found(CallRow),
    /// Another server's claim has not committed yet.
    Busy,
}

enum RawAttempt {
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

struct ClaimArgs {
    request_id: String,
    fingerprint: String,
    now_ms: i64,
    retention_ms: i64,
    write: bool,
}

impl ClaimArgs {
    /// Inserts the claim's row, or finds the one there. A write's claim
    /// is the first statement of its transaction, which stays open; a
    /// read's is one statement on its own (it waits, unbounded, only for a
    /// write of the same requestId to end: a conflict then).
    fn attempt(&self, c: &mut Connection) -> Result<RawAttempt, StoreError> {
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

/// A row of `tool_calls`.
struct CallRow {
    seq: i64,
    fingerprint: String,
    state: String,
    lease_until_ms: i64,
    expires_at_ms: i64,
    name: Option<String>,
    failed: bool,
    output: Option<String>,
    error: Option<String>,
}

impl CallRow {
    /// The kept envelope (its `duplicate` false, as kept).
    fn into_result(self, request_id: &str) -> ToolResult {
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

fn read_row(c: &Connection, request_id: &str) -> Result<Option<CallRow>, StoreError> {
    Ok(c.query_row(
        "SELECT seq, fingerprint, state, lease_until_ms, expires_at_ms, name, failed, output, error
         FROM tool_calls WHERE request_id = ?1",
        [request_id],
        |row| {
            Ok(CallRow {
                seq: row.get(0)?,
                fingerprint: row.get(1)?,
                state: row.get(2)?,
                lease_until_ms: row.get(3)?,
                expires_at_ms: row.get(4)?,
                name: row.get(5)?,
                failed: row.get::<_, Option<i64>>(6)?.unwrap_or(0) != 0,
                output: row.get(7)?,
                error: row.get(8)?,
            })
        },
    )
    .optional()?)
}

/// Writes the result into the claim's row, then applies the limits: the
/// newest `max_results` results are kept, older ones leave only their
/// fingerprint; every [`PRUNE_EVERY`] claims, fingerprints past their
/// expiry or beyond the newest `max_fingerprints` go.
fn keep_result(
    c: &Connection,
    seq: i64,
    result: &KeptResult,
    limits: RegistryLimits,
) -> Result<(), StoreError> {
    let max_results = i64::try_from(limits.max_results).unwrap_or(i64::MAX);
    let max_fingerprints = i64::try_from(limits.max_tombstones).unwrap_or(i64::MAX);
    // One statement: the result kept, and what falls out of the newest
    // `max_results` evicted (both read one snapshot, in which this row is
    // not kept yet: so it counts one fewer of the others).
    c.execute(
        "WITH kept AS (
             UPDATE tool_calls SET state = 'kept', name = ?2, failed = ?3, output = ?4, error = ?5
             WHERE seq = ?1
             RETURNING seq
         )
         UPDATE tool_calls SET state = 'evicted', output = NULL, error = NULL, name = NULL
         WHERE state = 'kept' AND seq <= (
             SELECT seq FROM tool_calls WHERE state = 'kept' AND seq <> ?1
             ORDER BY seq DESC LIMIT 1 OFFSET ?6
         )",
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
            "DELETE FROM tool_calls WHERE state = 'evicted' AND (expires_at_ms <= ?1 OR seq <= (
                 SELECT seq FROM tool_calls ORDER BY seq DESC LIMIT 1 OFFSET ?2
             ))",
            params![now_ms(), max_fingerprints],
        )?;
    }
    Ok(())
}

/// What of a result the row keeps.
struct KeptResult {
    name: String,
    failed: bool,
    output: Option<String>,
    error: Option<String>,
}

impl KeptResult {
    fn of(result: &ToolResult) -> KeptResult {
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

/// A write's claim: its transaction is open on `held` until the result is
/// kept (committed with everything the adapter stored) or the call fails.
struct WriteClaim {
    held: Arc<HeldConnection>,
    seq: i64,
    limits: RegistryLimits,
}

impl ClaimedCall for WriteClaim {
    fn run(
        &mut self,
        adapter: BoxFuture<'static, AdapterOutcome>,
    ) -> BoxFuture<'static, AdapterOutcome> {
        let held = Arc::clone(&self.held);
        async move { held.scope(adapter).await }.boxed()
    }

    fn keep(self: Box<Self>, result: &ToolResult) -> BoxFuture<'static, Result<(), ToolError>> {
        let kept = KeptResult::of(result);
        let WriteClaim { held, seq, limits } = *self;
        async move {
            held.run_raw(move |c| {
                let written = keep_result(c, seq, &kept, limits);
                match written {
                    Ok(()) => Ok(c.end(true)?),
                    Err(error) => {
                        c.end(false)?;
                        Err(error)
                    }
                }
            })
            .await
            .map_err(unavailable)?;
            held.committed();
            Ok(())
        }
        .boxed()
    }
}

/// A read's claim: committed, with a lease renewed while the adapter runs.
struct ReadClaim {
    store: Store,
    seq: i64,
    limits: RegistryLimits,
}

impl ClaimedCall for ReadClaim {
    fn run(
        &mut self,
        adapter: BoxFuture<'static, AdapterOutcome>,
    ) -> BoxFuture<'static, AdapterOutcome> {
        let store = self.store.clone();
        let seq = self.seq;
        async move {
            let renew = renew_lease(store, seq);
            tokio::pin!(renew);
            let mut adapter = adapter;
            tokio::select! {
                biased;
                outcome = &mut adapter => return outcome,
                () = &mut renew => {}
            }
            adapter.await
        }
        .boxed()
    }

    fn keep(self: Box<Self>, result: &ToolResult) -> BoxFuture<'static, Result<(), ToolError>> {
        let kept = KeptResult::of(result);
        let ReadClaim { store, seq, limits } = *self;
        async move {
            store
                // Each of its statements stands alone (no transaction to
                // begin and end: fewer round trips on the hot path).
                .run(move |c| keep_result(c, seq, &kept, limits))
                .await
                .map_err(unavailable)
        }
        .boxed()
    }
}

/// Renews a read's lease until the claim is no longer this server's (then
/// it ends; the run goes on, and its result is kept if the row is still
/// there).
async fn renew_lease(store: Store, seq: i64) {
    loop {
        tokio::time::sleep(RENEW_EVERY).await;
        let lease = now_ms() + millis(LEASE);
        let renewed = store
            .run(move |c| {
                Ok(c.execute(
                    "UPDATE tool_calls SET lease_until_ms = ?2 WHERE seq = ?1 AND state = 'running'",
                    params![seq, lease],
                )?)
            })
            .await;
        if matches!(renewed, Ok(0)) {
            return;
        }
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
