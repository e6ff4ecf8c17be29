//! Write calls' sessions on the store's thread: each write tool call's store
//! work and its kept result commit in one transaction, and concurrent calls
//! share it, so they share one commit and one fsync.
//!
//! A write call's pieces of work come tagged with its session. The first
//! piece that changes anything leaves its transaction open: a **batch**.
//! For a short window ([`BATCH_WINDOW`]) other calls' pieces and other work
//! join it (each piece in a savepoint of its own); after it, only the
//! batch's own calls' pieces run, and everything else waits, in order. Each
//! call's end keeps its result in the batch; when the last has ended, the
//! batch commits, and only then (after the group's fsync) are the calls and
//! the work that joined answered. A batch that stays open longer than
//! [`SESSION_LIMIT`] (a call waiting on something slow after its first
//! change) is rolled back whole: its calls are told they did not happen,
//! and nothing answered is lost.

use std::collections::{HashSet, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::StoreError;
use super::durable::Durable;
use super::sql::Connection;
use super::work::{
    Deliver, End, Keep, MAX_GROUP, Message, SESSION_LIMIT, SessionId, SessionWork, Undone, Work,
    rolled_back,
};

/// How long a batch takes in other calls after it opened.
const BATCH_WINDOW: Duration = Duration::from_millis(2);

/// An open transaction that write calls share. Its calls still running
/// (it commits when none is left) are the connection's to know
/// ([`Durable::join_batch`]): work from other threads asks there.
struct Batch {
    opened: Instant,
    /// Answers waiting for its commit: its calls' ends, and work that ran
    /// in it.
    held: Vec<Deliver>,
}

impl Batch {
    fn accepting(&self, durable: &Durable) -> bool {
        self.opened.elapsed() < BATCH_WINDOW && durable.batch_len() < MAX_GROUP
    }
}

/// The next thing for the store's thread to do.
pub(super) enum Next {
    Run(Message),
    /// The open batch held its transaction past [`SESSION_LIMIT`].
    Expire,
}

/// The batches' side of the store's thread.
#[derive(Default)]
pub(super) struct Batches {
    open: Option<Batch>,
    /// What came while a batch was open and not taking it, in order.
    waiting: VecDeque<Message>,
    /// Sessions rolled back with their batch, until their end comes.
    undone: HashSet<SessionId>,
}

impl Batches {
    /// Whether `message` may run now.
    fn admits(&self, message: &Message, durable: &Durable) -> bool {
        let Some(batch) = &self.open else {
            return true;
        };
        match message {
            Message::Piece(id, _) | Message::End(id, _) => {
                durable.in_batch(Some(*id)) == Some(true)
                    || self.undone.contains(id)
                    || batch.accepting(durable)
            }
            Message::Work(_) => batch.accepting(durable),
        }
    }

    /// The next message that may run; waits for one when `block`. `None`:
    /// nothing now (or, when blocking, the queue is closed).
    pub(super) fn next(
        &mut self,
        pending: &mpsc::Receiver<Message>,
        block: bool,
        durable: &Durable,
    ) -> Option<Next> {
        loop {
            if self
                .waiting
                .front()
                .is_some_and(|front| self.admits(front, durable))
            {
                return self.waiting.pop_front().map(Next::Run);
            }
            let message = match (block, &self.open) {
                (false, _) => pending.try_recv().ok()?,
                (true, None) => pending.recv().ok()?,
                (true, Some(batch)) => {
                    let left = SESSION_LIMIT.saturating_sub(batch.opened.elapsed());
                    match pending.recv_timeout(left) {
                        Ok(message) => message,
                        Err(mpsc::RecvTimeoutError::Timeout) => return Some(Next::Expire),
                        Err(mpsc::RecvTimeoutError::Disconnected) => return None,
                    }
                }
            };
            if self.admits(&message, durable) {
                return Some(Next::Run(message));
            }
            self.waiting.push_back(message);
        }
    }

    /// Runs `next` on `connection`; answers to hand back after this group's
    /// fsync go to `answers`.
    pub(super) fn run(
        &mut self,
        next: Next,
        connection: &mut Connection,
        durable: &Durable,
        answers: &mut Vec<Deliver>,
    ) {
        match next {
            Next::Expire => {
                tracing::warn!(
                    limit_s = SESSION_LIMIT.as_secs(),
                    "a write call held the store's transaction too long; its batch was rolled back"
                );
                self.roll_back(
                    connection,
                    durable,
                    "a write call in its transaction held the store too long, so it was undone",
                );
            }
            Next::Run(Message::Work(work)) => self.work(work, connection, answers),
            Next::Run(Message::Piece(id, work)) => {
                self.piece(id, work, connection, durable, answers);
            }
            Next::Run(Message::End(id, end)) => self.end(id, end, connection, durable, answers),
        }
    }

    /// Work of its own: committed as it commits, or, inside an open batch,
    /// with the batch.
    fn work(&mut self, work: Work, connection: &mut Connection, answers: &mut Vec<Deliver>) {
        // A panic in one piece of work drops its answer (its caller gets
        // `StoreError::Worker`) and undoes what it left open; the rest goes
        // on.
        let ran = catch_unwind(AssertUnwindSafe(|| work(connection)));
        match &mut self.open {
            None => {
                unwind(connection, 0);
                answers.extend(ran.ok());
            }
            Some(batch) => {
                unwind(connection, 1);
                batch.held.extend(ran.ok());
            }
        }
    }

    /// A piece of a write call's work: in the open batch (joining it), or,
    /// with none open, in a transaction that stays open as a new batch if
    /// the piece changed anything.
    fn piece(
        &mut self,
        id: SessionId,
        work: SessionWork,
        connection: &mut Connection,
        durable: &Durable,
        answers: &mut Vec<Deliver>,
    ) {
        if self.undone.contains(&id) {
            answers.extend(catch_unwind(AssertUnwindSafe(|| work(connection, Undone(true)))).ok());
            return;
        }
        if self.open.is_some() {
            let ran = catch_unwind(AssertUnwindSafe(|| work(connection, Undone(false))));
            unwind(connection, 1);
            durable.join_batch(id);
            answers.extend(ran.ok());
            return;
        }
        let before = changes(connection);
        if connection.begin().is_err() {
            answers.extend(catch_unwind(AssertUnwindSafe(|| work(connection, Undone(true)))).ok());
            return;
        }
        let ran = catch_unwind(AssertUnwindSafe(|| work(connection, Undone(false))));
        unwind(connection, 1);
        if ran.is_ok() && changes(connection) > before {
            durable.join_batch(id);
            self.open = Some(Batch {
                opened: Instant::now(),
                held: Vec::new(),
            });
        } else if connection.end(ran.is_ok()).is_err() {
            unwind(connection, 0);
        }
        answers.extend(ran.ok());
    }

    /// A write call's end: its result kept in the open batch (which commits
    /// when its last call has ended), or, with none open, in a transaction
    /// of its own.
    fn end(
        &mut self,
        id: SessionId,
        end: End,
        connection: &mut Connection,
        durable: &Durable,
        answers: &mut Vec<Deliver>,
    ) {
        if self.undone.remove(&id) {
            (end.answer)(Err(rolled_back()));
            return;
        }
        let End { keep, answer } = end;
        let Some(batch) = &mut self.open else {
            let kept = super::in_transaction(connection, |connection| guarded(keep, connection));
            unwind(connection, 0);
            answers.push(told(answer, kept));
            return;
        };
        let kept = guarded(keep, connection);
        unwind(connection, 1);
        match kept {
            Ok(()) => {
                batch.held.push(told(answer, Ok(())));
                if durable.leave_batch(id) == 0 {
                    self.commit(connection, durable, answers);
                }
            }
            Err(error) => {
                answer(Err(error));
                self.roll_back(
                    connection,
                    durable,
                    "another write call in its transaction could not keep its result, so it was undone",
                );
            }
        }
    }

    /// Commits the open batch; its answers go out after this group's fsync.
    fn commit(
        &mut self,
        connection: &mut Connection,
        durable: &Durable,
        answers: &mut Vec<Deliver>,
    ) {
        let Some(batch) = self.open.take() else {
            return;
        };
        match connection.end(true) {
            Ok(()) => answers.extend(batch.held),
            Err(error) => {
                unwind(connection, 0);
                fail(
                    batch.held,
                    &format!("its transaction did not commit: {error}"),
                );
            }
        }
        durable.close_batch();
    }

    /// Rolls the open batch back: its calls still running are undone, and
    /// everything waiting for its commit is told it did not happen.
    fn roll_back(&mut self, connection: &mut Connection, durable: &Durable, why: &str) {
        let Some(batch) = self.open.take() else {
            return;
        };
        unwind(connection, 0);
        self.undone.extend(durable.close_batch());
        fail(batch.held, why);
    }

    /// The queue closed: an open batch was never answered, so it is rolled
    /// back.
    pub(super) fn close(&mut self, connection: &mut Connection, durable: &Durable) {
        self.roll_back(connection, durable, "the store stopped");
    }
}

/// `keep`, a panic in it an error.
fn guarded(keep: Keep, connection: &mut Connection) -> Result<(), StoreError> {
    catch_unwind(AssertUnwindSafe(|| keep(connection))).unwrap_or_else(|_| {
        Err(StoreError::Worker(
            "keeping the call's result panicked; nothing of it was kept".to_owned(),
        ))
    })
}

/// Tells `answer` how its call ended once the group's fsync is known.
fn told(
    answer: Box<dyn FnOnce(Result<(), StoreError>) + Send>,
    kept: Result<(), StoreError>,
) -> Deliver {
    Box::new(move |synced: Result<(), &std::io::Error>| {
        answer(kept.and(synced.map_err(super::not_durable)));
    })
}

/// Tells every answer in `held` that what it waited for did not happen.
fn fail(held: Vec<Deliver>, why: &str) {
    let error = std::io::Error::other(why.to_owned());
    for deliver in held {
        deliver(Err(&error));
    }
}

/// The count of rows changed on this connection so far.
fn changes(connection: &Connection) -> u64 {
    connection
        .as_sqlite()
        .map_or(0, rusqlite::Connection::total_changes)
}

/// Rolls back what a piece of work left open beyond `depth` transactions
/// (only a panic leaves anything open).
fn unwind(connection: &mut Connection, depth: u32) {
    while connection.depth() > depth {
        if connection.end(false).is_err() {
            break;
        }
    }
}
