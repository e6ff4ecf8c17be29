//! The store's SQLite connection, whose commits are made durable in
//! groups: it commits with `synchronous=NORMAL` (in WAL mode, no fsync at
//! commit) and [`Durable::group`] fsyncs the WAL once after a group of work
//! that committed anything, before any answer of the group is handed back.
//! It also knows which write calls' batch holds a transaction open, so work
//! from other threads waits for its end.

use std::collections::HashSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use super::sql::Connection;
use super::work::SessionId;

/// A connection whose commits are made durable by [`Durable::group`].
#[derive(Debug)]
pub(super) struct Durable {
    connection: Mutex<Connection>,
    /// The write calls (sessions) of the batch whose transaction is open on
    /// the connection and whose end has not come yet, if a batch is open:
    /// the store's thread changes it while it holds the connection; work
    /// from other threads waits for the batch's end, unless it is one of
    /// them.
    batch: Mutex<Option<HashSet<SessionId>>>,
    batch_ended: Condvar,
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
            batch: Mutex::new(None),
            batch_ended: Condvar::new(),
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
        self.grouped(&mut guard, work)
    }

    /// [`Durable::group`] for work from outside the store's thread: it
    /// waits for an open batch's end, unless it is work of `session`, one of
    /// the batch's (then it runs in a savepoint of the batch's transaction).
    pub(super) fn group_outside_sessions<R>(
        &self,
        session: Option<SessionId>,
        work: impl FnOnce(&mut Connection) -> Result<R, super::StoreError>,
    ) -> (Result<R, super::StoreError>, std::io::Result<()>) {
        let mut guard = self
            .connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let inside = loop {
            match self.in_batch(session) {
                None => break false,
                Some(true) => break true,
                Some(false) => {}
            }
            guard = self
                .batch_ended
                .wait(guard)
                .unwrap_or_else(PoisonError::into_inner);
        };
        self.grouped(&mut guard, |connection| {
            if inside {
                super::in_transaction(connection, work)
            } else {
                work(connection)
            }
        })
    }

    /// `work` on the locked connection, then the fsync of what it committed.
    fn grouped<R>(
        &self,
        connection: &mut Connection,
        work: impl FnOnce(&mut Connection) -> R,
    ) -> (R, std::io::Result<()>) {
        self.committed.store(false, Ordering::Release);
        let value = work(connection);
        (value, self.sync())
    }

    /// Fsyncs the WAL if anything committed since the flag was cleared.
    fn sync(&self) -> std::io::Result<()> {
        let synced = match &self.wal {
            Some(wal) if self.committed.load(Ordering::Acquire) => {
                File::open(wal).and_then(|file| file.sync_data())
            }
            _ => Ok(()),
        };
        if let Err(error) = &synced {
            tracing::error!(%error, "the store's commits could not be made durable");
        }
        synced
    }

    /// `None` when no batch is open; else whether `session` is one of its
    /// calls still running.
    pub(super) fn in_batch(&self, session: Option<SessionId>) -> Option<bool> {
        self.members()
            .as_ref()
            .map(|running| session.is_some_and(|id| running.contains(&id)))
    }

    /// How many calls of the open batch are still running (0: none open).
    pub(super) fn batch_len(&self) -> usize {
        self.members().as_ref().map_or(0, HashSet::len)
    }

    /// Opens a batch for `session`'s transaction, or takes `session` into
    /// the open one.
    pub(super) fn join_batch(&self, session: SessionId) {
        self.members()
            .get_or_insert_with(HashSet::new)
            .insert(session);
    }

    /// `session` has ended; how many of the batch's calls still run.
    pub(super) fn leave_batch(&self, session: SessionId) -> usize {
        self.members().as_mut().map_or(0, |running| {
            running.remove(&session);
            running.len()
        })
    }

    /// The batch committed or rolled back: the work waiting for its end
    /// goes on. Its calls still running are handed back.
    pub(super) fn close_batch(&self) -> HashSet<SessionId> {
        let running = self.members().take().unwrap_or_default();
        self.batch_ended.notify_all();
        running
    }

    fn members(&self) -> std::sync::MutexGuard<'_, Option<HashSet<SessionId>>> {
        self.batch.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the last group committed anything (tests).
    #[cfg(test)]
    pub(super) fn committed_since_group(&self) -> bool {
        self.committed.load(Ordering::Acquire)
    }
}
