//! The thread that runs the store's work, and makes it durable in groups.
//!
//! SQLite on one connection runs one statement at a time whatever we do, so
//! the store's work is queued to a single thread that owns the turn, instead
//! of handing each piece to tokio's blocking pool where, under load, dozens
//! of pool threads would park on the connection's lock and wake one another.
//!
//! Durability is the other cost: with `synchronous=FULL` every commit waits
//! for its own fsync, and a job (three commits) spent most of its time
//! there. So the serving connection commits with `synchronous=NORMAL`
//! (in WAL mode: no fsync at commit) and this thread fsyncs the WAL file
//! itself once after each group of work that committed anything, **before**
//! any answer of the group is handed back. An answer still means durable,
//! as before; a group of concurrent writes shares one fsync. (See
//! docs/benchmarks.md, durable jobs.)

use std::fs::File;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};

use super::sql::Connection;

/// Hands a piece of work's answer back, told whether what it committed was
/// made durable (`Err` when the fsync failed).
pub(super) type Deliver = Box<dyn FnOnce(Result<(), &std::io::Error>) + Send>;
/// One piece of work; what it returns delivers its answer.
pub(super) type Work = Box<dyn FnOnce(&mut Connection) -> Deliver + Send>;

/// At most this many pieces of work share one fsync, so the first of a
/// group does not wait behind an unbounded queue.
const MAX_GROUP: usize = 64;

/// The queue to the store's thread; clones share it. The thread ends when
/// the last clone is dropped.
#[derive(Clone, Debug)]
pub(super) struct Worker {
    queue: mpsc::Sender<Work>,
}

impl Worker {
    /// Starts the thread for `durable`'s connection.
    pub(super) fn start(durable: Arc<Durable>) -> std::io::Result<Worker> {
        let (queue, pending) = mpsc::channel::<Work>();
        std::thread::Builder::new()
            .name("portos-store".to_owned())
            .spawn(move || serve(&durable, &pending))?;
        Ok(Worker { queue })
    }

    /// Queues `work`; `Err` gives it back when the thread is gone.
    pub(super) fn send(&self, work: Work) -> Result<(), Work> {
        self.queue.send(work).map_err(|error| error.0)
    }
}

fn serve(durable: &Durable, pending: &mpsc::Receiver<Work>) {
    let mut answers: Vec<Deliver> = Vec::with_capacity(MAX_GROUP);
    while let Ok(first) = pending.recv() {
        let ((), synced) = durable.group(|connection| {
            let mut next = Some(first);
            while let Some(work) = next.take() {
                // A panic in one piece of work drops its answer (its caller
                // gets `StoreError::Worker`); the others go on.
                if let Ok(deliver) = catch_unwind(AssertUnwindSafe(|| work(connection))) {
                    answers.push(deliver);
                }
                if answers.len() < MAX_GROUP {
                    next = pending.try_recv().ok();
                }
            }
        });
        for deliver in answers.drain(..) {
            deliver(synced.as_ref().map(|_| ()));
        }
    }
}

/// A connection whose commits are made durable by [`Durable::group`].
#[derive(Debug)]
pub(super) struct Durable {
    connection: Mutex<Connection>,
    /// Set by the connection's commit hook.
    committed: Arc<AtomicBool>,
    /// The WAL file to fsync; `None` for a store in memory.
    wal: Option<PathBuf>,
}

impl Durable {
    /// Takes `connection` (in WAL mode) over: from here on it commits
    /// without syncing, and [`Durable::group`] syncs.
    pub(super) fn new(
        connection: Connection,
        database: Option<&Path>,
    ) -> Result<Durable, rusqlite::Error> {
        let mut connection = connection;
        let committed = Arc::new(AtomicBool::new(false));
        let flag = committed.clone();
        if let Some(sqlite) = connection.as_sqlite_mut() {
            sqlite.commit_hook(Some(move || {
                flag.store(true, Ordering::Release);
                false
            }))?;
            if database.is_some() {
                sqlite.pragma_update(None, "synchronous", "NORMAL")?;
            }
        }
        Ok(Durable {
            connection: Mutex::new(connection),
            committed,
            wal: database.map(|path| {
                let mut wal = path.as_os_str().to_owned();
                wal.push("-wal");
                PathBuf::from(wal)
            }),
        })
    }

    /// Runs `work` with the connection, then, if anything committed, fsyncs
    /// the WAL before returning: what `work` committed is durable once this
    /// returns `Ok`.
    pub(super) fn group<R>(
        &self,
        work: impl FnOnce(&mut Connection) -> R,
    ) -> (R, std::io::Result<()>) {
        let mut guard = self
            .connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        self.committed.store(false, Ordering::Release);
        let value = work(&mut guard);
        let synced = match &self.wal {
            Some(wal) if self.committed.load(Ordering::Acquire) => {
                File::open(wal).and_then(|file| file.sync_data())
            }
            _ => Ok(()),
        };
        if let Err(error) = &synced {
            tracing::error!(%error, "the store's commits could not be made durable");
        }
        (value, synced)
    }

    /// Whether the last group committed anything (tests).
    #[cfg(test)]
    pub(super) fn committed_since_group(&self) -> bool {
        self.committed.load(Ordering::Acquire)
    }
}
