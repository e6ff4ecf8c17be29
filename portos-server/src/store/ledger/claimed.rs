//! A claim this server runs: a write's, its transaction held open until
//! the result is kept; a read's, committed, with a lease renewed meanwhile.

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use portos_core::AdapterOutcome;
use portos_core::contract::{ToolError, ToolResult};
use portos_core::registry::{ClaimedCall, RegistryLimits};

use super::kept::{KeptResult, keep_result};
use super::{LEASE, RENEW_EVERY, millis, now_ms, unavailable};
use crate::store::Store;
use crate::store::held::HeldConnection;
use crate::store::sql::params;

/// A write's claim: its transaction is open on `held` until the result is
/// kept (committed with everything the adapter stored) or the call fails.
pub(super) struct WriteClaim {
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
pub(super) struct ReadClaim {
    pub(super) store: Store,
    pub(super) seq: i64,
    pub(super) limits: RegistryLimits,
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
pub(super) async fn renew_lease(store: Store, seq: i64) {
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
