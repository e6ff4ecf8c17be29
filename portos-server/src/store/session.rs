//! A write tool call's session on a SQLite store: everything the call's
//! adapter stores and the result the call keeps commit in one transaction
//! (the store thread's sessions, `worker`), and what the call announces
//! meanwhile waits for that commit. A server killed mid-call leaves nothing
//! of the call; one killed after answering kept all of it.
//!
//! The session follows the call's task (a task-local, as a held PostgreSQL
//! connection does): the adapter's [`Store::run`](super::Store::run) calls
//! become the session's pieces, and so do those of a read tool it calls on
//! the same task and of work it hands to [`detached`](super::detached).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use futures::future::BoxFuture;

use super::announcements::Announcements;
use super::durable::Durable;
use super::work::SessionId;

tokio::task_local! {
    /// The session of the write call running on this task, if any.
    static SESSION: Arc<Session>;
}

/// One write call's session.
pub(super) struct Session {
    pub(super) id: SessionId,
    /// The store it belongs to (its connection's address): work on another
    /// store is not routed into it.
    store: usize,
    /// Announcements waiting for the commit.
    announcements: Announcements,
}

impl Session {
    pub(super) fn new(durable: &Arc<Durable>) -> Arc<Session> {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Arc::new(Session {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            store: store_key(durable),
            announcements: Announcements::default(),
        })
    }

    /// The session of the call running on this task, if it is one on the
    /// store of `durable`.
    pub(super) fn current(durable: &Arc<Durable>) -> Option<Arc<Session>> {
        let key = store_key(durable);
        SESSION
            .try_with(|session| (session.store == key).then(|| Arc::clone(session)))
            .ok()
            .flatten()
    }

    /// Runs `future` as this session's call.
    pub(super) async fn scope<F: Future>(self: &Arc<Self>, future: F) -> F::Output {
        SESSION.scope(Arc::clone(self), future).await
    }

    /// Sends what the call announced, now that it committed.
    pub(super) fn committed(&self) {
        self.announcements.committed();
    }
}

/// Holds `announce` back until the session on this task commits (dropped if
/// it does not), when there is one; otherwise hands it back.
pub(super) fn hold(announce: BoxFuture<'static, ()>) -> Option<BoxFuture<'static, ()>> {
    match SESSION.try_with(Arc::clone) {
        Ok(session) => {
            session.announcements.hold(announce);
            None
        }
        Err(_) => Some(announce),
    }
}

/// `future`, run in the session of this task (if any) wherever it is
/// polled: for work handed to a task of its own.
pub(super) fn carried<F: Future>(future: F) -> impl Future<Output = F::Output> {
    let session = SESSION.try_with(Arc::clone).ok();
    async move {
        match session {
            Some(session) => SESSION.scope(session, future).await,
            None => future.await,
        }
    }
}

fn store_key(durable: &Arc<Durable>) -> usize {
    Arc::as_ptr(durable).addr()
}
