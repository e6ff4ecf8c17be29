//! Idempotency shared by several servers (replicas on one database).
//!
//! Without a [`CallLedger`] the registry keeps docs/reference.md#idempotency's
//! two stores in its own memory (`idempotency`), which is exact for one
//! process. With one, the ledger is the truth for every replica: a call's
//! fingerprint is claimed there before its adapter runs, a duplicate anywhere
//! replays what was kept there, and the limits (500 results, 10,000
//! fingerprints, 24 h) count calls of the whole cluster. The registry keeps
//! only the calls running in this process, so duplicates arriving here at once
//! share one claim instead of each asking the ledger.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};

use super::{Fingerprint, RegistryLimits};
use crate::contract::{ErrorCode, ToolError, ToolResult};
use crate::descriptor::AdapterOutcome;

/// Where the cluster's calls are claimed and their results kept.
pub trait CallLedger: Send + Sync + 'static {
    /// Claims `claim.request_id` for this server, or answers what the
    /// cluster already knows of it: its kept result (a replay), or the
    /// refusal of docs/reference.md#idempotency (`TOOL_IDEMPOTENCY_CONFLICT`,
    /// `..._EXPIRED`). While another server runs the call, this waits for its
    /// result, up to a bound; past it (or without the database) the refusal is
    /// `SERVICE_UNAVAILABLE` and nothing ran.
    ///
    /// A ledger may answer a read's claim at once and settle it when the
    /// result is kept ([`ClaimedCall::keep`] answering [`Kept::Earlier`]):
    /// a read changes nothing, so running it for a requestId the cluster
    /// already knows costs only the run, and saves a round trip on every
    /// other call.
    fn claim(&self, claim: Claim) -> BoxFuture<'static, Result<Claimed, ToolError>>;

    /// The kept result of `request_id` (`GET /calls/:requestId`), waiting
    /// (bounded) for a write another server is running; `None` when the
    /// cluster keeps no result for it (under `limits`: past the newest
    /// `max_results`, a result is gone).
    fn retained(
        &self,
        request_id: Arc<str>,
        limits: RegistryLimits,
    ) -> BoxFuture<'static, Result<Option<ToolResult>, ToolError>>;
}

/// A call to claim.
#[derive(Clone, Debug)]
pub struct Claim {
    /// The call's `requestId`, the key claimed.
    pub request_id: Arc<str>,
    /// What a later call under the same `requestId` is compared with.
    pub fingerprint: Fingerprint,
    /// Whether the tool changes anything: a write's adapter runs inside its
    /// claim, so its changes and its result are kept together or not at all.
    pub write: bool,
    /// The registry's limits, which the ledger keeps results and fingerprints
    /// within across the cluster.
    pub limits: RegistryLimits,
}

/// What the ledger answered a claim.
pub enum Claimed {
    /// This server runs the call.
    Fresh(Box<dyn ClaimedCall>),
    /// The cluster already ran it: this is a replay.
    Kept(ToolResult),
}

impl std::fmt::Debug for Claimed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Claimed::Fresh(_) => f.write_str("Fresh"),
            Claimed::Kept(result) => f.debug_tuple("Kept").field(result).finish(),
        }
    }
}

/// A claim this server holds while it runs the adapter.
pub trait ClaimedCall: Send {
    /// Wraps the adapter's run so that what it stores belongs to the claim
    /// (for a write: one transaction with the claim and the result).
    fn run(
        &mut self,
        adapter: BoxFuture<'static, AdapterOutcome>,
    ) -> BoxFuture<'static, AdapterOutcome>;

    /// Keeps `result` for replays on every server and ends the claim. An
    /// `Err` means nothing of the call was kept (a write's changes are
    /// undone with it): the caller is told the call did not happen; it is
    /// also the refusal (`TOOL_IDEMPOTENCY_CONFLICT`, `..._EXPIRED`) of a
    /// read whose claim was answered before the ledger looked.
    fn keep(self: Box<Self>, result: &ToolResult) -> BoxFuture<'static, Result<Kept, ToolError>>;
}

/// What keeping a result came to.
#[derive(Debug)]
pub enum Kept {
    /// This run's result is the one kept.
    This,
    /// Another run of the same call (a read, on some server) was kept
    /// first: every caller is answered that one, as a replay, and this
    /// run's result is dropped.
    Earlier(ToolResult),
}

/// A call running in this process: its result, and whether it was a replay
/// of another server's run.
pub(super) type Pending = Shared<BoxFuture<'static, Result<(Arc<ToolResult>, bool), ToolError>>>;

/// The calls this process is running under a ledger, by requestId: a
/// duplicate that arrives meanwhile joins the run (a replay) instead of
/// claiming again. An entry leaves when its run ends; later duplicates ask
/// the ledger, which keeps the cluster's view.
#[derive(Default)]
pub(super) struct InFlight {
    calls: Mutex<HashMap<Arc<str>, (Fingerprint, Pending)>>,
}

impl InFlight {
    /// Joins the run of `request_id` here, or starts `start`'s (spawned, so
    /// it reaches its end even if every caller leaves) and notes it.
    pub(super) fn join_or_start(
        self: &Arc<Self>,
        request_id: &Arc<str>,
        fingerprint: Fingerprint,
        start: impl FnOnce() -> BoxFuture<'static, Result<(Arc<ToolResult>, bool), ToolError>>,
    ) -> Result<(Pending, bool), ToolError> {
        let mut calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((running, pending)) = calls.get(request_id) {
            return if *running == fingerprint {
                Ok((pending.clone(), true))
            } else {
                Err(conflict())
            };
        }
        let this = Arc::clone(self);
        let id = Arc::clone(request_id);
        let run = start();
        // The entry leaves when the run ends, whoever waits for it (the lock
        // held here until it is inserted keeps the two in order).
        let run = tokio::spawn(async move {
            let outcome = run.await;
            this.calls
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&id);
            outcome
        });
        let pending = run
            .map(|joined| {
                joined.unwrap_or_else(|_| {
                    Err(ToolError::new(
                        ErrorCode::ServiceUnavailable,
                        "The call stopped before its result was kept; send it again with the same requestId",
                    ))
                })
            })
            .boxed()
            .shared();
        calls.insert(Arc::clone(request_id), (fingerprint, pending.clone()));
        Ok((pending, false))
    }

    /// The run of `request_id` in this process, if one is going on.
    pub(super) fn running(&self, request_id: &str) -> Option<Pending> {
        let calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        calls.get(request_id).map(|(_, pending)| pending.clone())
    }
}

pub(super) fn conflict() -> ToolError {
    ToolError::new(
        ErrorCode::ToolIdempotencyConflict,
        "requestId was already used for a different tool call",
    )
}
