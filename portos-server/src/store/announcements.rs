//! What a write call announces (its Socket.IO events) while its transaction
//! is open: held until the commit, then sent in order, or dropped with a
//! rollback, so nobody hears of a change that others cannot read yet, or
//! ever. Shared by a held PostgreSQL connection (`held`) and a SQLite
//! write's session (`session`).

use std::sync::{Mutex, PoisonError};

use futures::future::BoxFuture;

/// Announcements waiting for a commit, in the order they were made.
#[derive(Default)]
pub(super) struct Announcements(Mutex<Vec<BoxFuture<'static, ()>>>);

impl Announcements {
    pub(super) fn hold(&self, announce: BoxFuture<'static, ()>) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(announce);
    }

    /// Sends them, in order, now that the transaction committed (on a task
    /// of their own: the call's answer does not wait on them).
    pub(super) fn committed(&self) {
        let held = std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner));
        if !held.is_empty() {
            tokio::spawn(async move {
                for announce in held {
                    announce.await;
                }
            });
        }
    }
}

impl std::fmt::Debug for Announcements {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let held = self.0.lock().map_or(0, |held| held.len());
        write!(f, "{held} announcement(s)")
    }
}
