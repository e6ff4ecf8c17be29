//! Durable writes for a server that owns its store alone (SQLite).
//!
//! Without a cluster [`CallLedger`](super::CallLedger) the registry keeps
//! docs/reference.md#idempotency's two stores in this process's memory,
//! which is exact for one process but forgotten by the next. A
//! [`CallJournal`] keeps each **write**'s fingerprint and result in the
//! store, committed in one transaction with everything the write's adapter
//! stored: a server killed mid-call leaves nothing of it, and a server
//! killed after answering kept both. At start-up the registry is given
//! what the journal kept ([`Recalled`]), so a retry after a crash or a
//! restart replays the result (`duplicate: true`) or answers
//! `TOOL_IDEMPOTENCY_CONFLICT` / `..._EXPIRED` as before it. Reads change
//! nothing and stay in memory only.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;

use super::{Fingerprint, RegistryLimits};
use crate::contract::{ToolError, ToolResult};

/// Where a one-process registry keeps its writes' results durably.
pub trait CallJournal: Send + Sync + 'static {
    /// Runs a write: `run` (its adapter, ending in its result) so that what
    /// the adapter stores and the kept result commit together; resolves
    /// with the result once it is durable. `Err`: nothing of the call was
    /// kept (what it stored was undone), and its caller is told the call
    /// did not happen.
    fn write(
        &self,
        call: JournaledCall,
        run: BoxFuture<'static, ToolResult>,
    ) -> BoxFuture<'static, Result<ToolResult, ToolError>>;
}

/// The write a journal keeps.
#[derive(Clone, Debug)]
pub struct JournaledCall {
    /// The call's `requestId`.
    pub request_id: Arc<str>,
    /// What a later call under the same `requestId` is compared with.
    pub fingerprint: Fingerprint,
    /// The limits the journal keeps results and fingerprints within (the
    /// registry's).
    pub limits: RegistryLimits,
}

/// A write a journal kept before this process started.
#[derive(Clone, Debug)]
pub struct Recalled {
    /// The call's `requestId`.
    pub request_id: String,
    /// What a later call under the same `requestId` is compared with.
    pub fingerprint: Fingerprint,
    /// How long its fingerprint is still kept.
    pub expires_in: Duration,
    /// Its result, unless the limit on kept results dropped it (a retry is
    /// then told the result expired).
    pub result: Option<ToolResult>,
}
