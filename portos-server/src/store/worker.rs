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
//! any answer of the group is handed back (`durable`). An answer still
//! means durable, as before; a group of concurrent writes shares one fsync.
//! (See docs/benchmarks.md, durable jobs.)
//!
//! Write tool calls' sessions (their store work and kept result in one
//! transaction, several calls' sharing one commit) are `batch`'s.

use std::sync::{Arc, mpsc};

use super::batch::Batches;
use super::durable::Durable;
use super::work::{Deliver, MAX_GROUP, Message};

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

fn serve(durable: &Durable, pending: &mpsc::Receiver<Message>) {
    let mut answers: Vec<Deliver> = Vec::with_capacity(MAX_GROUP);
    let mut batches = Batches::default();
    while let Some(first) = batches.next(pending, true, durable) {
        let ((), synced) = durable.group(|connection| {
            let mut next = Some(first);
            while let Some(message) = next.take() {
                batches.run(message, connection, durable, &mut answers);
                if answers.len() < MAX_GROUP {
                    next = batches.next(pending, false, durable);
                }
            }
        });
        for deliver in answers.drain(..) {
            deliver(synced.as_ref().map(|_| ()));
        }
    }
    // The queue closed with a batch open: nothing of it was answered as
    // kept, so it is rolled back.
    let ((), _) = durable.group(|connection| batches.close(connection, durable));
}
