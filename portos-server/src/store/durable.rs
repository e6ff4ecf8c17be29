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
    /// The sessions of the batch whose transaction is open on the
    /// connection, if one is (kept by the store's thread while it holds the
    /// connection): work from other threads waits for its end, unless it
    /// is one of them.
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
        self.committed.store(false, Ordering::Release);
        let value = work(&mut guard);
        let synced = self.sync();
        (value, synced)
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
            match &*self.batch.lock().unwrap_or_else(PoisonError::into_inner) {
                None => break false,
                Some(members) if session.is_some_and(|id| members.contains(&id)) => break true,
                Some(_) => {}
            }
            guard = self
                .batch_ended
                .wait(guard)
                .unwrap_or_else(PoisonError::into_inner);
        };
        self.committed.store(false, Ordering::Release);
        let value = if inside {
            match guard.begin() {
                Ok(()) => {
                    let value = work(&mut guard);
                    let ended = guard.end(value.is_ok()).map_err(super::StoreError::from);
                    value.and_then(|value| ended.map(|()| value))
                }
                Err(error) => Err(error.into()),
            }
        } else {
            work(&mut guard)
        };
        let synced = self.sync();
        (value, synced)
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

    /// Notes the open batch's sessions (`None`: no batch is open, which
    /// wakes the work waiting for its end). Called by the store's thread
    /// while it holds the connection.
    pub(super) fn set_batch(&self, members: Option<HashSet<SessionId>>) {
        let ended = members.is_none();
        *self.batch.lock().unwrap_or_else(PoisonError::into_inner) = members;
        if ended {
            self.batch_ended.notify_all();
        }
    }

    /// Whether the last group committed anything (tests).
    #[cfg(test)]
    pub(super) fn committed_since_group(&self) -> bool {
        self.committed.load(Ordering::Acquire)
    }
}
