//! The ledger's own connections to PostgreSQL: asynchronous
//! (tokio-postgres), used straight from the call's task, so a read call's
//! one statement costs no hop to a store thread and back. Calls share each
//! connection: what they send at once is pipelined on it. No transaction
//! is ever opened here (it would take in the statements of every other
//! call on the connection); a write's claim lives on a connection it holds
//! (`held`).
//!
//! A connection the database closed is made again on its next use, so the
//! ledger comes back by itself when the database does; meanwhile its calls
//! are answered `SERVICE_UNAVAILABLE`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio_postgres::types::Type;
use tokio_postgres::{Client, Statement};

use portos_core::registry::RegistryLimits;

use super::kept::{CallRow, max_results};
use super::verdict::{FORGET_FINGERPRINTS, PRUNE_RESULTS, READ_ROW};
use crate::store::StoreError;
use crate::store::sql::{self, postgres_connect_async};

/// Connections per server, each made when first used: each is one
/// database backend working through the statements pipelined on it. Fewer,
/// with more pipelined on each, cost more (measured, docs/benchmarks.md:
/// 4 gave 4,650 reads/s where 8 gave 5,830 and 16 about the same as 8).
/// The database must allow them beside the store's own (docs/scaling.md).
pub(super) const CONNECTIONS: usize = 8;

/// A read's result, kept in one statement unless the requestId is taken.
const KEEP_READ: &str = "INSERT INTO tool_calls
         (request_id, fingerprint, state, lease_until_ms, expires_at_ms, name, failed, output, error)
     VALUES ($1, $2, 'kept', 0, $3, $4, $5, $6, $7)
     ON CONFLICT (request_id) DO NOTHING
     RETURNING seq";

#[derive(Debug)]
pub(super) struct Connections {
    url: Arc<str>,
    slots: Box<[Slot]>,
    next: AtomicUsize,
}

#[derive(Debug, Default)]
struct Slot {
    open: Mutex<Option<Arc<Open>>>,
    /// Held while the slot's connection is made, so the calls that found
    /// it closed wait for one new connection instead of each making one.
    connecting: tokio::sync::Mutex<()>,
}

/// A connection and its statements, prepared once.
#[derive(Debug)]
pub(super) struct Open {
    pub(super) client: Client,
    pub(super) keep_read: Statement,
    pub(super) read_row: Statement,
    pub(super) prune_results: Statement,
    pub(super) forget_fingerprints: Statement,
}

impl Connections {
    pub(super) fn new(url: &str) -> Connections {
        Connections {
            url: Arc::from(url),
            slots: (0..CONNECTIONS).map(|_| Slot::default()).collect(),
            next: AtomicUsize::new(0),
        }
    }

    /// The next connection in turn, made (again) if it is not open.
    pub(super) async fn get(&self) -> Result<Arc<Open>, StoreError> {
        let slot = &self.slots[self.next.fetch_add(1, Ordering::Relaxed) % self.slots.len()];
        if let Some(open) = slot.current() {
            return Ok(open);
        }
        let _connecting = slot.connecting.lock().await;
        if let Some(open) = slot.current() {
            return Ok(open);
        }
        let open = Arc::new(Open::connect(&self.url).await.map_err(|error| {
            if error.is_unavailable() {
                StoreError::Unavailable(error.to_string())
            } else {
                StoreError::from(error)
            }
        })?);
        *slot.open.lock().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&open));
        Ok(open)
    }
}

impl Slot {
    fn current(&self) -> Option<Arc<Open>> {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .filter(|open| !open.client.is_closed())
            .cloned()
    }
}

impl Open {
    /// The row of `request_id` as [`READ_ROW`] reads it.
    pub(super) async fn read_row(
        &self,
        request_id: &str,
        limits: RegistryLimits,
    ) -> Result<Option<CallRow>, tokio_postgres::Error> {
        self.client
            .query_opt(&self.read_row, &[&request_id, &max_results(limits)])
            .await?
            .as_ref()
            .map(CallRow::from_pg)
            .transpose()
    }

    async fn connect(url: &str) -> Result<Open, sql::Error> {
        let client = postgres_connect_async(url).await?;
        let keep_read = client
            .prepare_typed(
                KEEP_READ,
                &[
                    Type::TEXT,
                    Type::TEXT,
                    Type::INT8,
                    Type::TEXT,
                    Type::INT8,
                    Type::TEXT,
                    Type::TEXT,
                ],
            )
            .await?;
        let read_row = client
            .prepare_typed(
                &sql::numbered_parameters(READ_ROW),
                &[Type::TEXT, Type::INT8],
            )
            .await?;
        let prune_results = client
            .prepare_typed(PRUNE_RESULTS, &[Type::INT8, Type::INT8])
            .await?;
        let forget_fingerprints = client
            .prepare_typed(FORGET_FINGERPRINTS, &[Type::INT8])
            .await?;
        Ok(Open {
            client,
            keep_read,
            read_row,
            prune_results,
            forget_fingerprints,
        })
    }
}
