//! A PostgreSQL connection held by one tool call for its whole run, so the
//! call's claim, everything its adapter stores and its kept result are one
//! transaction: a server killed mid-call leaves nothing of it (the database
//! rolls the transaction back when the connection drops).
//!
//! While the call's future runs inside [`HeldConnection::scope`], the
//! store's work ([`Store::run`](super::Store::run)) goes to this connection
//! instead of the pool, each piece in a savepoint of its own: a piece that
//! fails undoes only itself, as it would have outside a transaction.
//! What the call announces meanwhile (its Socket.IO events, through
//! [`super::after_commit`]) waits for the commit, and is dropped with a rollback:
//! nobody hears of a change that others cannot read yet, or ever.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::StoreError;
use super::announcements::Announcements;
use super::pool::Losses;
use super::sql::Connection;

/// Connections a server lets calls hold at once, beside the pool's: the
/// database must allow this many more per replica (docs/scaling.md).
pub(super) const DEFAULT_HELD: usize = 16;

/// How long a call waits for a connection to hold before it is answered
/// that the database is busy (503) rather than waiting without end.
const HOLD_WAIT: Duration = Duration::from_secs(10);

/// The connections calls may hold: a bound, and the idle ones kept open.
#[derive(Debug)]
pub(super) struct Holdings {
    url: Arc<str>,
    permits: Arc<Semaphore>,
    /// Each with the losses counted when it was made (see `Losses`).
    idle: Mutex<Vec<(u64, Connection)>>,
    losses: Losses,
}

tokio::task_local! {
    /// The connection the running call holds, if it holds one.
    static HELD: Arc<HeldConnection>;
}

/// One held connection.
#[derive(Debug)]
pub(super) struct HeldConnection {
    holdings: Arc<Holdings>,
    made_at: u64,
    /// `None` once the connection is lost (or handed back).
    connection: Mutex<Option<Connection>>,
    /// Announcements waiting for the commit.
    after_commit: Announcements,
    _permit: OwnedSemaphorePermit,
}

/// Holds `announce` back until the transaction of the connection the call
/// running on this task holds commits ([`super::after_commit`]); hands it
/// back when the task holds none (not a PostgreSQL write).
pub(super) fn hold_until_commit(
    announce: BoxFuture<'static, ()>,
) -> Option<BoxFuture<'static, ()>> {
    match HELD.try_with(Arc::clone) {
        Ok(held) => {
            held.after_commit.hold(announce);
            None
        }
        Err(_) => Some(announce),
    }
}

impl Holdings {
    pub(super) fn new(url: Arc<str>, size: usize, losses: Losses) -> Holdings {
        Holdings {
            url,
            permits: Arc::new(Semaphore::new(size.max(1))),
            idle: Mutex::new(Vec::new()),
            losses,
        }
    }

    /// Takes a connection (an idle one, or a new one) for one call.
    pub(super) async fn hold(self: &Arc<Self>) -> Result<Arc<HeldConnection>, StoreError> {
        let permit = tokio::time::timeout(HOLD_WAIT, Arc::clone(&self.permits).acquire_owned())
            .await
            .map_err(|_| {
                StoreError::Unavailable(
                    "every connection the server may hold for calls is in use".to_owned(),
                )
            })?
            .map_err(|_| StoreError::Worker("the store is closed".to_owned()))?;
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let (made_at, connection) = match idle {
            Some((made_at, connection)) if made_at >= self.losses.now() => (made_at, connection),
            stale => {
                if let Some((_, connection)) = stale {
                    discard(connection);
                }
                let made_at = self.losses.now();
                let url = Arc::clone(&self.url);
                let connection = tokio::task::spawn_blocking(move || Connection::postgres(&url))
                    .await
                    .map_err(|error| StoreError::Worker(error.to_string()))?;
                match connection {
                    Ok(connection) => (made_at, connection),
                    Err(error) => {
                        self.losses.lost();
                        return Err(StoreError::Unavailable(error.to_string()));
                    }
                }
            }
        };
        Ok(Arc::new(HeldConnection {
            holdings: Arc::clone(self),
            made_at,
            connection: Mutex::new(Some(connection)),
            after_commit: Announcements::default(),
            _permit: permit,
        }))
    }

    /// The connection the current call holds on these holdings, if any.
    pub(super) fn current(self: &Arc<Self>) -> Option<Arc<HeldConnection>> {
        HELD.try_with(|held| Arc::ptr_eq(&held.holdings, self).then(|| Arc::clone(held)))
            .ok()
            .flatten()
    }
}

impl HeldConnection {
    /// Runs `future` with this connection as its store's (see the module).
    pub(super) async fn scope<F: Future>(self: &Arc<Self>, future: F) -> F::Output {
        HELD.scope(Arc::clone(self), future).await
    }

    /// Runs `work` on the connection, on a blocking thread (the client is
    /// synchronous), as it is: no savepoint (the claim's own statements).
    pub(super) async fn run_raw<R, F>(self: &Arc<Self>, work: F) -> Result<R, StoreError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
    {
        let held = Arc::clone(self);
        tokio::task::spawn_blocking(move || {
            let mut slot = held
                .connection
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let Some(connection) = slot.as_mut() else {
                return Err(StoreError::Unavailable(
                    "the call's connection to the database was lost".to_owned(),
                ));
            };
            let result = work(connection);
            if connection.is_closed() {
                held.holdings.losses.lost();
                if let Some(connection) = slot.take() {
                    discard(connection);
                }
            }
            result
        })
        .await
        .map_err(|_| {
            StoreError::Worker("the store's work panicked; nothing was answered".to_owned())
        })?
    }

    /// Sends what the call announced, now that its transaction committed.
    pub(super) fn committed(&self) {
        self.after_commit.committed();
    }

    /// A piece of the call's store work, in a savepoint: undone alone if it
    /// fails.
    pub(super) async fn run<R, F>(self: &Arc<Self>, work: F) -> Result<R, StoreError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
    {
        self.run_raw(move |connection| super::in_transaction(connection, work))
            .await
    }
}

impl Drop for HeldConnection {
    /// Hands the connection back for the next call, unless it is lost or a
    /// transaction is still open on it (a call that stopped before its end:
    /// closing the connection rolls that back).
    fn drop(&mut self) {
        let connection = self
            .connection
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let Some(connection) = connection else {
            return;
        };
        if connection.in_transaction() || connection.is_closed() {
            discard(connection);
        } else {
            self.holdings
                .idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((self.made_at, connection));
        }
    }
}

impl Drop for Holdings {
    fn drop(&mut self) {
        let idle = self.idle.get_mut().unwrap_or_else(PoisonError::into_inner);
        for (_, connection) in idle.drain(..) {
            discard(connection);
        }
    }
}

/// Closes a connection off the async workers: the synchronous client owns a
/// small runtime of its own, which must not be dropped on one.
fn discard(connection: Connection) {
    let _ = std::thread::Builder::new()
        .name("portos-store-close".to_owned())
        .spawn(move || drop(connection));
}
