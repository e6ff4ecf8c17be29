//! PostgreSQL's connections, each on a thread of the store's own: the
//! client is synchronous (as SQLite's is), so the store's work reads the
//! same on both engines and never blocks an async worker. Work is taken in
//! the order it comes by whichever thread is free. A thread whose
//! connection was lost connects again for its next piece of work, so the
//! store comes back by itself when the database does; meanwhile work is
//! answered [`StoreError::Unavailable`].

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};

use super::StoreError;
use super::sql::Connection;
use super::stats::PoolStats;

/// Connections per server: enough to keep two cores busy while others
/// wait on the network; the database must allow this many per replica
/// (docs/scaling.md).
pub(super) const DEFAULT_SIZE: usize = 8;

/// One piece of work, given a connection (or why there is none).
pub(super) type Work = Box<dyn FnOnce(Result<&mut Connection, StoreError>) + Send>;

#[derive(Clone, Debug)]
pub(super) struct Pool {
    queue: mpsc::Sender<Work>,
    url: Arc<str>,
    losses: Losses,
    stats: Arc<PoolStats>,
}

/// Counts the losses of the database seen by any connection of a server:
/// a connection made before the latest one is not trusted again (the
/// database may have restarted since), so after an outage no request
/// meets a dead connection that nobody had used yet.
#[derive(Clone, Debug, Default)]
pub(super) struct Losses(Arc<AtomicU64>);

impl Losses {
    pub(super) fn now(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }

    pub(super) fn lost(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl Pool {
    /// Starts `size` threads for the database at `url`. Each connects on
    /// its first piece of work.
    pub(super) fn start(url: &str, size: usize) -> Result<Pool, StoreError> {
        let (queue, pending) = mpsc::channel::<Work>();
        let pending = Arc::new(Mutex::new(pending));
        let losses = Losses::default();
        let stats = Arc::new(PoolStats::new(size.max(1)));
        for index in 0..size.max(1) {
            let pending = pending.clone();
            let url = url.to_owned();
            let losses = losses.clone();
            let stats = stats.clone();
            std::thread::Builder::new()
                .name(format!("store-{index}"))
                .spawn(move || serve(&url, &pending, &losses, &stats))
                .map_err(|error| {
                    StoreError::Worker(format!("cannot start the store's threads: {error}"))
                })?;
        }
        Ok(Pool {
            queue,
            url: Arc::from(url),
            losses,
            stats,
        })
    }

    pub(super) fn url(&self) -> &str {
        &self.url
    }

    pub(super) fn losses(&self) -> &Losses {
        &self.losses
    }

    pub(super) fn stats(&self) -> &Arc<PoolStats> {
        &self.stats
    }

    /// Queues `work`; `false` when the threads are gone.
    pub(super) fn send(&self, work: Work) -> bool {
        self.stats.queued();
        self.queue.send(work).is_ok()
    }

    /// Runs `work` on a connection of its own, on a thread of its own (the
    /// synchronous client must not run on an async worker), and waits for
    /// it here: start-up, the CLI and tests, never a request.
    pub(super) fn run_blocking<R: Send>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<R, StoreError> + Send,
    ) -> Result<R, StoreError> {
        std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let mut connection = Connection::postgres(&self.url)
                        .map_err(|error| StoreError::Unavailable(error.to_string()))?;
                    work(&mut connection)
                })
                .join()
                .unwrap_or_else(|_| {
                    Err(StoreError::Worker(
                        "the store's work panicked; nothing was answered".to_owned(),
                    ))
                })
        })
    }
}

fn serve(url: &str, pending: &Mutex<mpsc::Receiver<Work>>, losses: &Losses, stats: &PoolStats) {
    let mut connection: Option<Connection> = None;
    // The losses counted when `connection` was made.
    let mut made_at = 0;
    loop {
        let next = pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .recv();
        let Ok(work) = next else {
            return;
        };
        stats.busy.fetch_add(1, Ordering::Relaxed);
        serve_one(url, work, &mut connection, &mut made_at, losses);
        stats.busy.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Runs one piece of work on `connection`, connecting first if it has none
/// (or one made before the database was last lost).
fn serve_one(
    url: &str,
    work: Work,
    connection: &mut Option<Connection>,
    made_at: &mut u64,
    losses: &Losses,
) {
    if connection.is_some() && *made_at < losses.now() {
        *connection = None;
    }
    if connection.is_none() {
        *made_at = losses.now();
        match Connection::postgres(url) {
            Ok(connected) => *connection = Some(connected),
            Err(error) => {
                losses.lost();
                work(Err(StoreError::Unavailable(error.to_string())));
                return;
            }
        }
    }
    let Some(open) = connection.as_mut() else {
        return;
    };
    // A panic answers nobody (the caller sees the work dropped); the
    // connection, perhaps mid-transaction, is not trusted again.
    if catch_unwind(AssertUnwindSafe(|| work(Ok(open)))).is_err() {
        *connection = None;
    } else if open.is_closed() {
        losses.lost();
        *connection = None;
    }
}
