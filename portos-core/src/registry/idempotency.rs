//! The two process-local stores of docs/reference.md#idempotency, kept separate
//! on purpose: evicting a result from the first must answer
//! `TOOL_IDEMPOTENCY_EXPIRED` from the second, never run the adapter again.
//!
//! * results: requestId → (fingerprint, shared pending result), FIFO, 500;
//! * tombstones: requestId → (fingerprint, expiry), 24 h and FIFO 10,000.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher, RandomState};
use std::sync::{Arc, Mutex, PoisonError};

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use tokio::time::Instant;

use super::journal::Recalled;
use super::{Fingerprint, RegistryLimits};
use crate::contract::{ErrorCode, ToolError, ToolResult};

/// A result that may still be running; every waiter gets the same value.
/// `Err`: the call could not be kept (a write whose journal failed), so
/// nothing of it happened.
pub(super) type SharedResult = Shared<BoxFuture<'static, Result<Arc<ToolResult>, ToolError>>>;

/// What to do with an incoming call.
pub(super) enum Admission {
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
}

/// A requestId with its hash computed once (SipHash with this process's
/// random key, so crafted ids cannot flood a bucket). Both stores and both
/// queues reuse it instead of hashing the id again at every step.
#[derive(Clone)]
struct Key {
    hash: u64,
    id: Arc<str>,
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.hash == other.hash && self.id == other.id
    }
}

impl Eq for Key {}

/// Passes a [`Key`]'s precomputed hash through.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is ever called, by `Key::hash`; fold anything else.
        for byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*byte);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}

type KeyMap<V> = HashMap<Key, V, BuildHasherDefault<PassThrough>>;

#[derive(Default)]
struct Stores {
    results: KeyMap<Retained>,
    result_order: VecDeque<Key>,
    tombstones: KeyMap<Tombstone>,
    /// Insertion order with each expiry; expiry is insertion time plus a
    /// constant, so this is also expiry order.
    tombstone_order: VecDeque<(Key, Instant)>,
}

pub(super) struct CallStore {
    limits: RegistryLimits,
    hasher: RandomState,
    stores: Mutex<Stores>,
}

impl CallStore {
    pub(super) fn new(limits: RegistryLimits) -> CallStore {
        CallStore {
            limits,
            hasher: RandomState::new(),
            stores: Mutex::new(Stores::default()),
        }
    }

    pub(super) fn limits(&self) -> RegistryLimits {
        self.limits
    }

    fn key(&self, request_id: &str) -> Key {
        Key {
            hash: self.hasher.hash_one(request_id),
            id: Arc::from(request_id),
        }
    }

    /// Looks the call up and, on first sight, stores the future `start` makes
    /// (which should already be running). Atomic: two concurrent first calls
    /// with one requestId run the adapter once.
    pub(super) fn admit(
        &self,
        request_id: &str,
        fingerprint: Fingerprint,
        start: impl FnOnce() -> SharedResult,
    ) -> Result<Admission, ToolError> {
        let key = self.key(request_id);
        let mut stores = self.stores.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        stores.prune(now, self.limits.max_tombstones);

        if let Some(retained) = stores.results.get(&key) {
            return if retained.fingerprint == fingerprint {
                Ok(Admission::Replay(retained.result.clone()))
            } else {
                Err(conflict())
            };
        }
        if let Some(tombstone) = stores.tombstones.get(&key) {
            return Err(if tombstone.fingerprint == fingerprint {
                ToolError::new(
                    ErrorCode::ToolIdempotencyExpired,
                    "requestId result has expired and cannot be replayed safely",
                )
            } else {
                conflict()
            });
        }

        let result = start();
        stores.remember(
            key,
            fingerprint,
            now + self.limits.retention,
            Some(result.clone()),
            self.limits,
        );
        Ok(Admission::Fresh(result))
    }

    /// Takes in what a journal kept before this process started, oldest
    /// first: each fingerprint until its expiry, and each result still kept,
    /// within the limits as if the calls had just run here.
    pub(super) fn restore(&self, recalled: Vec<Recalled>) {
        let mut stores = self.stores.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        for call in recalled {
            let key = self.key(&call.request_id);
            let result = call.result.map(|result| {
                futures::future::ready(Ok(Arc::new(result)))
                    .boxed()
                    .shared()
            });
            stores.remember(
                key,
                call.fingerprint,
                now + call.expires_in,
                result,
                self.limits,
            );
        }
    }

    /// Forgets `request_id` entirely: its call did not happen (its result
    /// could not be kept), so the same requestId may run it again.
    pub(super) fn forget(&self, request_id: &str) {
        let key = self.key(request_id);
        let mut stores = self.stores.lock().unwrap_or_else(PoisonError::into_inner);
        stores.results.remove(&key);
        stores.tombstones.remove(&key);
        // Its places in the queues go too, or a later run of the same
        // requestId would leave the stores early when they came up. A scan,
        // on a failure's path only.
        stores.result_order.retain(|queued| *queued != key);
        stores.tombstone_order.retain(|(queued, _)| *queued != key);
    }

    /// The retained result of a requestId, if it is still in the result store.
    pub(super) fn retained(&self, request_id: &str) -> Option<SharedResult> {
        let key = self.key(request_id);
        let stores = self.stores.lock().unwrap_or_else(PoisonError::into_inner);
        stores.results.get(&key).map(|r| r.result.clone())
    }
}

impl Stores {
    /// Notes a call: its fingerprint until `expires_at`, and its result (if
    /// given) among the newest `max_results`.
    fn remember(
        &mut self,
        key: Key,
        fingerprint: Fingerprint,
        expires_at: Instant,
        result: Option<SharedResult>,
        limits: RegistryLimits,
    ) {
        self.tombstones
            .insert(key.clone(), Tombstone { fingerprint });
        self.tombstone_order.push_back((key.clone(), expires_at));
        if let Some(result) = result {
            self.results.insert(
                key.clone(),
                Retained {
                    fingerprint,
                    result,
                },
            );
            self.result_order.push_back(key);
        }
        while self.results.len() > limits.max_results {
            match self.result_order.pop_front() {
                Some(oldest) => {
                    self.results.remove(&oldest);
                }
                None => break,
            }
        }
        // One insert can put the fingerprints at most one over the cap.
        if self.tombstones.len() > limits.max_tombstones
            && let Some((oldest, _)) = self.tombstone_order.pop_front()
        {
            self.tombstones.remove(&oldest);
        }
    }

    /// Drops expired fingerprints from the front, then trims to the cap.
    fn prune(&mut self, now: Instant, max_tombstones: usize) {
        while let Some((_, expires_at)) = self.tombstone_order.front() {
            let expired = *expires_at <= now;
            if !expired && self.tombstones.len() <= max_tombstones {
                break;
            }
            if let Some((oldest, _)) = self.tombstone_order.pop_front() {
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
