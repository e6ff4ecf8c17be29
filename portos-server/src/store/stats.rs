//! The store's numbers for `/metrics`: how long its work takes (queue and
//! run, as a caller waits for it) and, on PostgreSQL, how busy the pool's
//! connections are and how often work found none free.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use crate::telemetry::histogram::{Histogram, SECONDS, STORE_SECONDS};
use crate::telemetry::{Exposition, Kind};

#[derive(Debug)]
pub(super) struct StoreStats {
    duration: Histogram,
    /// PostgreSQL's pool; `None` on SQLite.
    pool: Option<Arc<PoolStats>>,
}

/// The pool's connections (PostgreSQL).
#[derive(Debug)]
pub(super) struct PoolStats {
    pub size: usize,
    /// Connections running work now.
    pub busy: AtomicUsize,
    /// Work queued while every connection was busy.
    pub waits: AtomicU64,
}

impl PoolStats {
    pub(super) fn new(size: usize) -> PoolStats {
        PoolStats {
            size,
            busy: AtomicUsize::new(0),
            waits: AtomicU64::new(0),
        }
    }

    /// Work is being queued: it waits if every connection is busy.
    pub(super) fn queued(&self) {
        if self.busy.load(Ordering::Relaxed) >= self.size {
            self.waits.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl StoreStats {
    /// A store's numbers: PostgreSQL's with its `pool`, SQLite's without.
    pub(super) fn new(pool: Option<Arc<PoolStats>>) -> StoreStats {
        StoreStats {
            duration: Histogram::new(STORE_SECONDS, SECONDS),
            pool,
        }
    }

    /// OpenTelemetry's `db.system.name`.
    pub(super) fn engine(&self) -> &'static str {
        match self.pool {
            Some(_) => "postgresql",
            None => "sqlite",
        }
    }

    pub(super) fn observe(&self, took: Duration) {
        self.duration.observe(took);
    }

    pub(super) fn write(&self, out: &mut Exposition) {
        const DURATION: &str = "store_operation_duration_seconds";
        out.family(
            DURATION,
            Kind::Histogram,
            "Store work awaited by the server's tasks, from queueing to its answer (OpenTelemetry's db.client.operation.duration, queue included).",
        );
        out.histogram(
            DURATION,
            &[("db_system_name", self.engine())],
            &self.duration,
        );
        let Some(pool) = &self.pool else {
            return;
        };
        const CONNECTIONS: &str = "store_pool_connections";
        out.family(
            CONNECTIONS,
            Kind::Gauge,
            "The PostgreSQL pool's connections, busy running work or idle (those a write call holds for its run aside).",
        );
        let busy = pool.busy.load(Ordering::Relaxed).min(pool.size);
        for (state, count) in [("busy", busy), ("idle", pool.size - busy)] {
            out.sample(
                CONNECTIONS,
                &[("db_system_name", self.engine()), ("state", state)],
                count,
            );
        }
        const WAITS: &str = "store_pool_waits_total";
        out.family(
            WAITS,
            Kind::Counter,
            "Store work queued while every pool connection was busy.",
        );
        out.sample(
            WAITS,
            &[("db_system_name", self.engine())],
            pool.waits.load(Ordering::Relaxed),
        );
    }
}
