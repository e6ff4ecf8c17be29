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
//!
//! **Sessions.** A write tool call's store work and its kept result are one
//! transaction (`ledger::local`): its pieces come tagged with the call's
//! session. The first piece that changes anything leaves the transaction
//! open; from then on only that session's pieces run, and the rest waits
//! in order, until the session's end (its kept result) commits it. A
//! session that holds the transaction longer than [`SESSION_LIMIT`] is
//! rolled back (its call is told it did not happen), so a call that waits
//! on something slow after changing the store cannot stall it for good.

use std::collections::{HashSet, VecDeque};
use std::fs::File;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::sql::Connection;

/// Hands a piece of work's answer back, told whether what it committed was
/// made durable (`Err` when the fsync failed).
pub(super) type Deliver = Box<dyn FnOnce(Result<(), &std::io::Error>) + Send>;
/// One piece of work; what it returns delivers its answer.
pub(super) type Work = Box<dyn FnOnce(&mut Connection) -> Deliver + Send>;
/// A piece of a session's work, told whether its session was rolled back
/// (then it must not run: it answers that the call did not happen).
pub(super) type SessionWork = Box<dyn FnOnce(&mut Connection, Undone) -> Deliver + Send>;

/// Whether a session's transaction was rolled back before this piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Undone(pub(super) bool);

/// A write call's session, unique within its store.
pub(super) type SessionId = u64;

/// What the store's thread is sent.
pub(super) enum Message {
    /// Work on its own, committing what it commits.
    Work(Work),
    /// A piece of a session's work: in the session's transaction, each in a
    /// savepoint of its own (undone alone if it fails).
    Piece(SessionId, SessionWork),
    /// The session's last piece: its kept result, which ends (commits, or on
    /// an error rolls back) the session's transaction.
    End(SessionId, SessionWork),
}

/// At most this many pieces of work share one fsync, so the first of a
/// group does not wait behind an unbounded queue.
const MAX_GROUP: usize = 64;

/// How long a session may keep its transaction open (and the rest of the
/// store's work waiting) before it is rolled back. (Shorter in unit tests,
/// which wait for it.)
#[cfg(not(test))]
pub(super) const SESSION_LIMIT: Duration = Duration::from_secs(10);
#[cfg(test)]
pub(super) const SESSION_LIMIT: Duration = Duration::from_millis(300);

/// The queue to the store's thread; clones share it. The thread ends when
/// the last clone is dropped.
#[derive(Clone, Debug)]
pub(super) struct Worker {
    queue: mpsc::Sender<Message>,
}

impl Worker {
    /// Starts the thread for `durable`'s connection.
    pub(super) fn start(durable: Arc<Durable>) -> std::io::Result<Worker> {
        let (queue, pending) = mpsc::channel::<Message>();
        std::thread::Builder::new()
            .name("portos-store".to_owned())
            .spawn(move || serve(&durable, &pending))?;
        Ok(Worker { queue })
    }

    /// Queues `message`; `Err` gives it back when the thread is gone.
    pub(super) fn send(&self, message: Message) -> Result<(), Message> {
        self.queue.send(message).map_err(|error| error.0)
    }
}

/// The sessions' side of the store's thread.
#[derive(Default)]
struct Sessions {
    /// The session whose transaction is open, and when it opened.
    open: Option<(SessionId, Instant)>,
    /// What came while a session was open, in order, for after it.
    waiting: VecDeque<Message>,
    /// Sessions rolled back for holding the transaction too long, until
    /// their end comes.
    undone: HashSet<SessionId>,
}

/// The next thing for the store's thread to do.
enum Next {
    Run(Message),
    /// The open session held the transaction past [`SESSION_LIMIT`].
    Expire(SessionId),
}

impl Sessions {
    /// Whether `message` may run now: anything while no session is open,
    /// and only the open session's pieces while one is.
    fn admits(&self, message: &Message) -> bool {
        match (self.open, message) {
            (None, _) => true,
            (Some((open, _)), Message::Piece(id, _) | Message::End(id, _)) => *id == open,
            (Some(_), Message::Work(_)) => false,
        }
    }

    /// The next message that may run; waits for one when `block`. `None`:
    /// nothing now (or, when blocking, the queue is closed).
    fn next(&mut self, pending: &mpsc::Receiver<Message>, block: bool) -> Option<Next> {
        loop {
            if self.open.is_none()
                && let Some(message) = self.waiting.pop_front()
            {
                return Some(Next::Run(message));
            }
            let message = match (block, self.open) {
                (false, _) => pending.try_recv().ok()?,
                (true, None) => pending.recv().ok()?,
                (true, Some((id, since))) => {
                    let left = SESSION_LIMIT.saturating_sub(since.elapsed());
                    match pending.recv_timeout(left) {
                        Ok(message) => message,
                        Err(mpsc::RecvTimeoutError::Timeout) => return Some(Next::Expire(id)),
                        Err(mpsc::RecvTimeoutError::Disconnected) => return None,
                    }
                }
            };
            if self.admits(&message) {
                return Some(Next::Run(message));
            }
            self.waiting.push_back(message);
        }
    }

    /// Runs one message on `connection`; its answer, unless it panicked.
    fn run(
        &mut self,
        next: Next,
        connection: &mut Connection,
        durable: &Durable,
    ) -> Option<Deliver> {
        let message = match next {
            Next::Run(message) => message,
            Next::Expire(id) => {
                tracing::warn!(
                    limit_s = SESSION_LIMIT.as_secs(),
                    "a write call held the store's transaction too long; it was rolled back"
                );
                unwind(connection, 0);
                self.open = None;
                durable.set_session_open(false);
                self.undone.insert(id);
                return None;
            }
        };
        // A panic in one piece of work drops its answer (its caller gets
        // `StoreError::Worker`) and undoes what it left open; the others go
        // on.
        let ran = match message {
            Message::Work(work) => {
                let ran = catch_unwind(AssertUnwindSafe(|| work(connection)));
                unwind(connection, 0);
                ran
            }
            Message::Piece(id, work) if self.undone.contains(&id) => {
                catch_unwind(AssertUnwindSafe(|| work(connection, Undone(true))))
            }
            Message::Piece(id, work) => {
                let ran = self.piece(id, work, connection);
                if self.open.is_some() {
                    durable.set_session_open(true);
                }
                ran
            }
            Message::End(id, work) => {
                let undone = self.undone.remove(&id);
                let opened = !undone && self.open.is_none() && connection.begin().is_ok();
                let ran = catch_unwind(AssertUnwindSafe(|| {
                    work(
                        connection,
                        Undone(undone || !(opened || self.open.is_some())),
                    )
                }));
                if self.open.take().is_some() {
                    durable.set_session_open(false);
                }
                unwind(connection, 0);
                ran
            }
        };
        ran.ok()
    }

    /// A session's piece: the first that changes anything opens the
    /// session's transaction; one that changes nothing commits its own.
    fn piece(
        &mut self,
        id: SessionId,
        work: SessionWork,
        connection: &mut Connection,
    ) -> std::thread::Result<Deliver> {
        if self.open.is_some() {
            let ran = catch_unwind(AssertUnwindSafe(|| work(connection, Undone(false))));
            unwind(connection, 1);
            return ran;
        }
        let before = changes(connection);
        if connection.begin().is_err() {
            return catch_unwind(AssertUnwindSafe(|| work(connection, Undone(true))));
        }
        let ran = catch_unwind(AssertUnwindSafe(|| work(connection, Undone(false))));
        unwind(connection, 1);
        if ran.is_ok() && changes(connection) > before {
            self.open = Some((id, Instant::now()));
        } else if connection.end(ran.is_ok()).is_err() {
            unwind(connection, 0);
        }
        ran
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

fn serve(durable: &Durable, pending: &mpsc::Receiver<Message>) {
    let mut answers: Vec<Deliver> = Vec::with_capacity(MAX_GROUP);
    let mut sessions = Sessions::default();
    while let Some(first) = sessions.next(pending, true) {
        let ((), synced) = durable.group(|connection| {
            let mut next = Some(first);
            while let Some(message) = next.take() {
                if let Some(deliver) = sessions.run(message, connection, durable) {
                    answers.push(deliver);
                }
                if answers.len() < MAX_GROUP {
                    next = sessions.next(pending, false);
                }
            }
        });
        for deliver in answers.drain(..) {
            deliver(synced.as_ref().map(|_| ()));
        }
    }
    // The queue closed with a session open: nothing of it was answered as
    // kept, so it is rolled back.
    if sessions.open.is_some() {
        let ((), _) = durable.group(|connection| unwind(connection, 0));
        durable.set_session_open(false);
    }
}

/// A connection whose commits are made durable by [`Durable::group`].
#[derive(Debug)]
pub(super) struct Durable {
    connection: Mutex<Connection>,
    /// Whether a session's transaction is open on the connection (set by
    /// the store's thread): work from other threads waits for its end.
    session_open: AtomicBool,
    session_ended: Condvar,
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
            session_open: AtomicBool::new(false),
            session_ended: Condvar::new(),
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
    /// waits for an open session's end, unless it is `inside` that session
    /// (work of the session's own task), when it runs in a savepoint of the
    /// session's transaction.
    pub(super) fn group_outside_sessions<R>(
        &self,
        inside: bool,
        work: impl FnOnce(&mut Connection) -> Result<R, super::StoreError>,
    ) -> (Result<R, super::StoreError>, std::io::Result<()>) {
        let mut guard = self
            .connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        while !inside && self.session_open.load(Ordering::Acquire) {
            guard = self
                .session_ended
                .wait(guard)
                .unwrap_or_else(PoisonError::into_inner);
        }
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

    /// Notes whether a session's transaction is open; its end wakes the
    /// work waiting for it.
    fn set_session_open(&self, open: bool) {
        self.session_open.store(open, Ordering::Release);
        if !open {
            self.session_ended.notify_all();
        }
    }

    /// Whether the last group committed anything (tests).
    #[cfg(test)]
    pub(super) fn committed_since_group(&self) -> bool {
        self.committed.load(Ordering::Acquire)
    }
}
