//! The two process-local stores of BEHAVIOUR §1.6, kept separate on purpose:
//! evicting a result from the first must answer `TOOL_IDEMPOTENCY_EXPIRED`
//! from the second, never run the adapter again.
//!
//! * results: requestId → (fingerprint, shared pending result), FIFO, 500;
//! * tombstones: requestId → (fingerprint, expiry), 24 h and FIFO 10,000.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::{BoxFuture, Shared};
use tokio::time::Instant;

use super::{Fingerprint, RegistryLimits};
use crate::contract::{ErrorCode, ToolError, ToolResult};

/// A result that may still be running; every waiter gets the same value.
pub type SharedResult = Shared<BoxFuture<'static, Arc<ToolResult>>>;

/// What to do with an incoming call.
pub enum Admission {
    /// First sight of this requestId: the caller's future was stored and runs.
    Fresh(SharedResult),
    /// Same requestId and fingerprint: wait for the stored result.
    Replay(SharedResult),
}

struct Retained {
    fingerprint: Fingerprint,
    result: SharedResult,
}

struct Tombstone {
    fingerprint: Fingerprint,
    expires_at: Instant,
}

#[derive(Default)]
struct Stores {
    results: HashMap<Arc<str>, Retained>,
    result_order: VecDeque<Arc<str>>,
    tombstones: HashMap<Arc<str>, Tombstone>,
    /// Insertion order; expiry is insertion time plus a constant, so this is
    /// also expiry order.
    tombstone_order: VecDeque<Arc<str>>,
}

pub struct CallStore {
    limits: RegistryLimits,
    stores: Mutex<Stores>,
}

impl CallStore {
    pub fn new(limits: RegistryLimits) -> CallStore {
        CallStore {
            limits,
            stores: Mutex::new(Stores::default()),
        }
    }

    pub fn limits(&self) -> RegistryLimits {
        self.limits
    }

    /// Looks the call up and, on first sight, stores the future `start` makes
    /// (which should already be running). Atomic: two concurrent first calls
    /// with one requestId run the adapter once.
    pub fn admit(
        &self,
        request_id: &str,
        fingerprint: Fingerprint,
        start: impl FnOnce() -> SharedResult,
    ) -> Result<Admission, ToolError> {
        let mut stores = self.stores.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        stores.prune(now, self.limits.max_tombstones);

        if let Some(retained) = stores.results.get(request_id) {
            return if retained.fingerprint == fingerprint {
                Ok(Admission::Replay(retained.result.clone()))
            } else {
                Err(conflict())
            };
        }
        if let Some(tombstone) = stores.tombstones.get(request_id) {
            return Err(if tombstone.fingerprint == fingerprint {
                ToolError::new(
                    ErrorCode::ToolIdempotencyExpired,
                    "requestId result has expired and cannot be replayed safely",
                )
            } else {
                conflict()
            });
        }

        let key: Arc<str> = Arc::from(request_id);
        let result = start();
        stores.tombstones.insert(
            key.clone(),
            Tombstone {
                fingerprint,
                expires_at: now + self.limits.retention,
            },
        );
        stores.tombstone_order.push_back(key.clone());
        stores.results.insert(
            key.clone(),
            Retained {
                fingerprint,
                result: result.clone(),
            },
        );
        stores.result_order.push_back(key);
        while stores.results.len() > self.limits.max_results {
            match stores.result_order.pop_front() {
                Some(oldest) => {
                    stores.results.remove(&oldest);
                }
                None => break,
            }
        }
        stores.prune(now, self.limits.max_tombstones);
        Ok(Admission::Fresh(result))
    }

    /// The retained result of a requestId, if it is still in the result store.
    pub fn retained(&self, request_id: &str) -> Option<SharedResult> {
        let stores = self.stores.lock().unwrap_or_else(PoisonError::into_inner);
        stores.results.get(request_id).map(|r| r.result.clone())
    }
}

impl Stores {
    /// Drops expired fingerprints from the front, then trims to the cap.
    fn prune(&mut self, now: Instant, max_tombstones: usize) {
        while let Some(oldest) = self.tombstone_order.front() {
            let expired = self
                .tombstones
                .get(oldest)
                .is_none_or(|t| t.expires_at <= now);
            let over = self.tombstones.len() > max_tombstones;
            if !expired && !over {
                break;
            }
            if let Some(oldest) = self.tombstone_order.pop_front() {
                self.tombstones.remove(&oldest);
            }
        }
    }
}

fn conflict() -> ToolError {
    ToolError::new(
        ErrorCode::ToolIdempotencyConflict,
        "requestId was already used for a different tool call",
    )
}
