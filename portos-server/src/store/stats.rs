//! The store's numbers for `/metrics`: how long its work takes (queue and
//! run, as a caller waits for it) and, on PostgreSQL, how busy the pool's
//! connections are and how often work found none free.

#[cfg(feature = "postgres")]
use std::sync::Arc;
#[cfg(feature = "postgres")]
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use crate::telemetry::histogram::{Histogram, SECONDS, STORE_SECONDS};
use crate::telemetry::{Exposition, Kind};

#[derive(Debug)]
pub(super) struct StoreStats {
    duration: Histogram,
    /// PostgreSQL's pool; `None` on SQLite.
    #[cfg(feature = "postgres")]
    pool: Option<Arc<PoolStats>>,
}

/// The pool's connections (PostgreSQL).
#[cfg(feature = "postgres")]
#[derive(Debug)]
pub(super) struct PoolStats {
    pub size: usize,
    /// Connections running work now.
    pub busy: AtomicUsize,
    /// Work queued while every connection was busy.
    pub waits: AtomicU64,
}

#[cfg(feature = "postgres")]
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
    /// A SQLite store's numbers.
    pub(super) fn new() -> StoreStats {
        StoreStats {
            duration: Histogram::new(STORE_SECONDS, SECONDS),
            #[cfg(feature = "postgres")]
            pool: None,
        }
    }

    /// A PostgreSQL store's numbers, with its `pool`'s.
    #[cfg(feature = "postgres")]
    pub(super) fn with_pool(pool: Arc<PoolStats>) -> StoreStats {
        StoreStats {
            pool: Some(pool),
            ..StoreStats::new()
        }
    }

    /// OpenTelemetry's `db.system.name`.
    pub(super) fn engine(&self) -> &'static str {
        #[cfg(feature = "postgres")]
        if self.pool.is_some() {
            return "postgresql";
        }
        "sqlite"
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
        #[cfg(feature = "postgres")]
        if let Some(pool) = &self.pool {
            self.write_pool(pool, out);
        }
    }

    /// The pool's series (PostgreSQL).
    #[cfg(feature = "postgres")]
    fn write_pool(&self, pool: &PoolStats, out: &mut Exposition) {
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
