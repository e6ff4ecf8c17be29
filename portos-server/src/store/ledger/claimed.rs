//! A call this server runs: a write's claim, its transaction held open
//! until the result is kept; a read, claimed only when its result is kept.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::BoxFuture;
use portos_core::AdapterOutcome;
use portos_core::contract::{ToolError, ToolResult};
use portos_core::registry::{ClaimedCall, Kept, RegistryLimits};

use super::kept::KeptResult;
use super::shared::{Ledger, WAIT, lost, still_running, unavailable};
use super::verdict::{Verdict, keep_write};
use super::{millis, now_ms};
use crate::store::held::HeldConnection;

/// A write's claim: its transaction is open on `held` until the result is
/// kept (committed with everything the adapter stored) or the call fails.
pub(super) struct WriteClaim {
    pub(super) ledger: Arc<Ledger>,
    pub(super) held: Arc<HeldConnection>,
    pub(super) seq: i64,
    pub(super) limits: RegistryLimits,
}

impl ClaimedCall for WriteClaim {
    fn run(
        &mut self,
        adapter: BoxFuture<'static, AdapterOutcome>,
    ) -> BoxFuture<'static, AdapterOutcome> {
        let held = Arc::clone(&self.held);
        async move { held.scope(adapter).await }.boxed()
    }

    fn keep(self: Box<Self>, result: &ToolResult) -> BoxFuture<'static, Result<Kept, ToolError>> {
        let kept = KeptResult::of(result);
        let WriteClaim {
            ledger,
            held,
            seq,
            limits,
        } = *self;
        async move {
            held.run_raw(move |c| {
                let written = keep_write(c, seq, &kept);
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
            ledger.prune_after(seq, limits);
            Ok(Kept::This)
        }
        .boxed()
    }
}

/// A read: nothing is claimed before it runs (it changes nothing, so a
/// duplicate running meanwhile on another server costs only its run); its
/// result is kept in one statement, unless the requestId was taken
/// meanwhile, and then what the row says is the answer.
pub(super) struct ReadClaim {
    pub(super) ledger: Arc<Ledger>,
    pub(super) request_id: Arc<str>,
    pub(super) fingerprint: String,
    pub(super) limits: RegistryLimits,
}

impl ClaimedCall for ReadClaim {
    fn run(
        &mut self,
        adapter: BoxFuture<'static, AdapterOutcome>,
    ) -> BoxFuture<'static, AdapterOutcome> {
        adapter
    }

    fn keep(self: Box<Self>, result: &ToolResult) -> BoxFuture<'static, Result<Kept, ToolError>> {
        self.keep_read(KeptResult::of(result)).boxed()
    }
}

impl ReadClaim {
    async fn keep_read(self, kept: KeptResult) -> Result<Kept, ToolError> {
        let ReadClaim {
            ledger,
            request_id,
            fingerprint,
            limits,
        } = self;
        let started = Instant::now();
        let mut pause = Duration::from_millis(2);
        let failed = i64::from(kept.failed);
        loop {
            let open = ledger.connections.get().await.map_err(unavailable)?;
            let now = now_ms();
            let inserted = open
                .client
                .query_opt(
                    &open.keep_read,
                    &[
                        &&*request_id,
                        &fingerprint,
                        &(now + millis(limits.retention)),
                        &kept.name,
                        &failed,
                        &kept.output,
                        &kept.error,
                    ],
                )
                .await
                .map_err(lost)?;
            if let Some(row) = inserted {
                ledger.prune_after(row.try_get(0).map_err(lost)?, limits);
                return Ok(Kept::This);
            }
            let found = open.read_row(&request_id, limits).await.map_err(lost)?;
            if let Some(row) = found {
                match row.verdict(&request_id, &fingerprint, limits, now) {
                    Verdict::Replay(result) => return Ok(Kept::Earlier(result)),
                    Verdict::Refused(error) => return Err(error),
                    Verdict::Stale(seq) => {
                        ledger.forget(seq).await.map_err(unavailable)?;
                        continue;
                    }
                    Verdict::Running => {}
                }
            }
            if started.elapsed() >= WAIT {
                return Err(still_running());
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_millis(100));
        }
    }
}
