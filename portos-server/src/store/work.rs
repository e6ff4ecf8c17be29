//! What the store's thread is given: pieces of work, and the sessions of
//! write tool calls (`batch`), with the answers they hand back.

use std::time::Duration;

use super::StoreError;
use super::sql::Connection;

/// Hands a piece of work's answer back, told whether what it committed was
/// made durable (`Err` when the fsync failed, or when the transaction it
/// was part of was rolled back).
pub(super) type Deliver = Box<dyn FnOnce(Result<(), &std::io::Error>) + Send>;
/// One piece of work; what it returns delivers its answer.
pub(super) type Work = Box<dyn FnOnce(&mut Connection) -> Deliver + Send>;

/// A write call's session, unique within its process.
pub(super) type SessionId = u64;

/// A piece of a session's work, told whether its session was rolled back
/// (then it must not run: it answers that the call did not happen).
pub(super) type SessionWork = Box<dyn FnOnce(&mut Connection, Undone) -> Deliver + Send>;

/// Whether a session's transaction was rolled back before this piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Undone(pub(super) bool);

/// What a session keeps at its end (its call's result), in its transaction.
pub(crate) type Keep = Box<dyn FnOnce(&mut Connection) -> Result<(), StoreError> + Send>;

/// A session's end: its kept result, and who is told how it ended.
pub(super) struct End {
    pub(super) keep: Keep,
    /// `Ok` once the result is committed and durable.
    pub(super) answer: Box<dyn FnOnce(Result<(), StoreError>) + Send>,
}

/// What the store's thread is sent.
pub(super) enum Message {
    /// Work of its own, committing what it commits.
    Work(Work),
    /// A piece of a write call's work.
    Piece(SessionId, SessionWork),
    /// A write call's end: its kept result.
    End(SessionId, End),
}

/// At most this many pieces of work share one fsync, so the first of a
/// group does not wait behind an unbounded queue.
pub(super) const MAX_GROUP: usize = 64;

/// How long a batch may keep its transaction open (and the rest of the
/// store's work waiting) before it is rolled back. (Shorter in unit tests,
/// which wait for it.)
#[cfg(not(test))]
pub(super) const SESSION_LIMIT: Duration = Duration::from_secs(10);
#[cfg(test)]
pub(super) const SESSION_LIMIT: Duration = Duration::from_secs(1);

/// What a piece of a rolled-back session answers.
pub(super) fn rolled_back() -> StoreError {
    StoreError::Unavailable(format!(
        "the call's transaction was undone: a write call in it held the store longer than {} s",
        SESSION_LIMIT.as_secs()
    ))
}
