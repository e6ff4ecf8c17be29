//! Turns a dead process left `running`. A turn is saved as it goes, so a
//! crash, a kill or a stop mid-turn leaves its row `running` for good:
//! nobody should wait on it. At start-up such a turn is ended `failed`
//! ("The server stopped while this turn was running") and its summary goes
//! to the Mind's trajectory like any other ended turn.
//!
//! "Dead" is decided by a lock, not by assumption: `portos --mind-turn`
//! may run a turn on the data directory of a server that is starting. For
//! as long as a turn runs, its process holds an exclusive OS lock on
//! `<data dir>/mind-turns/<turn id>.lock`; the OS lets go of it when the
//! process ends, however it ends. A running turn whose lock can be taken
//! (or whose file is gone) has no live owner.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

use portos_server::store::sql::Connection;
use portos_server::store::{Store, StoreError};

use super::record::TurnState;
use super::{store, trajectory};

/// The error of a turn whose process stopped under it.
pub const STOPPED: &str = "The server stopped while this turn was running";
/// The lock files' folder, in the data directory.
const LOCK_DIR: &str = "mind-turns";

/// Where the turns' lock files live: beside the store's database; none for
/// an in-memory store (no other process can share it).
pub fn lock_dir(store: &Store) -> Option<PathBuf> {
    Some(store.path()?.parent()?.join(LOCK_DIR))
}

/// A running turn's hold on its lock file; let go (and the file removed)
/// when dropped, after the turn's end is saved.
#[derive(Debug)]
pub struct TurnLock {
    file: Option<File>,
    path: PathBuf,
}

impl TurnLock {
    pub fn acquire(dir: &Path, turn_id: &str) -> io::Result<TurnLock> {
        fs::create_dir_all(dir)?;
        let path = lock_path(dir, turn_id)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a turn id"))?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)?;
        if let Err(error) = file.try_lock() {
            drop(file);
            let _ = fs::remove_file(&path);
            return Err(match error {
                TryLockError::WouldBlock => io::Error::from(io::ErrorKind::WouldBlock),
                TryLockError::Error(error) => error,
            });
        }
        Ok(TurnLock {
            file: Some(file),
            path,
        })
    }
}

impl Drop for TurnLock {
    fn drop(&mut self) {
        // Closed first: some systems do not delete a file that is open.
        drop(self.file.take());
        let _ = fs::remove_file(&self.path);
    }
}

/// `<dir>/<id>.lock`, for ids this server makes (a UUID); none for
/// anything else read back from the store, so no stored text names a path.
fn lock_path(dir: &Path, turn_id: &str) -> Option<PathBuf> {
    let plain = !turn_id.is_empty()
        && turn_id.len() <= 64
        && turn_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-');
    plain.then(|| dir.join(format!("{turn_id}.lock")))
}

/// Whether a live process still runs `turn_id`.
fn owner_alive(dir: Option<&Path>, turn_id: &str) -> bool {
    let Some(path) = dir.and_then(|dir| lock_path(dir, turn_id)) else {
        return false;
    };
    let file = match OpenOptions::new().write(true).open(&path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return false,
        Err(error) => {
            // Cannot tell: leaving a dead turn running is the lesser harm.
            tracing::warn!(turn = %turn_id, %error, "cannot read the Persistent Mind turn's lock; leaving it running");
            return true;
        }
    };
    match file.try_lock() {
        Ok(()) => {
            drop(file);
            let _ = fs::remove_file(&path);
            false
        }
        Err(TryLockError::WouldBlock) => true,
        // No locks on this file system: no turn could take one either.
        Err(TryLockError::Error(_)) => false,
    }
}

/// Ends every running turn that no live process owns; their ids.
pub fn recover(connection: &mut Connection, dir: Option<&Path>) -> Result<Vec<String>, StoreError> {
    let mut ended = Vec::new();
    for id in store::running(connection)? {
        if owner_alive(dir, &id) {
            continue;
        }
        let transaction = connection.transaction()?;
        // Read again under the write: its owner may have ended it since.
        let Some(mut turn) = store::get(&transaction, &id)? else {
            continue;
        };
        if turn.state != TurnState::Running {
            continue;
        }
        turn.finish(TurnState::Failed, Some(STOPPED.to_owned()));
        store::save(&transaction, &turn)?;
        trajectory::record(&transaction, &turn)?;
        transaction.commit()?;
        ended.push(id);
    }
    Ok(ended)
}

/// The start-up job: [`recover`] on the server's store, logged.
pub fn at_start(store: &Store) {
    let dir = lock_dir(store);
    match store.run_blocking(move |connection| recover(connection, dir.as_deref())) {
        Ok(ended) => {
            for turn in ended {
                tracing::warn!(%turn, "a Persistent Mind turn was left running by a stopped server: marked failed");
            }
        }
        Err(error) => {
            tracing::error!(%error, "cannot settle the Persistent Mind turns left running");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domains::mind::store::{MIND, trajectory as history};
    use crate::domains::mind::turn::record::TurnRecord;
    use crate::domains::mind::turn::store::MIND_TURNS;

    fn running(store: &Store, id: &str) {
        let turn = TurnRecord::start(id.to_owned(), "wake".to_owned(), "qwen".to_owned());
        store
            .run_blocking(|connection| store::insert(connection, &turn))
            .expect("inserted");
    }

    fn state_of(store: &Store, id: &str) -> (TurnState, Option<String>) {
        let turn = store
            .run_blocking(|connection| store::get(connection, id))
            .expect("read")
            .expect("stored");
        (turn.state, turn.error)
    }

    #[test]
    fn a_turn_without_a_live_owner_is_ended_and_one_with_is_left() {
        let dir = tempfile::tempdir().expect("dir");
        let locks = dir.path().join(LOCK_DIR);
        let store = Store::open_in_memory(&[MIND, MIND_TURNS]).expect("store");
        for id in ["dead-1", "alive-2", "unlocked-3"] {
            running(&store, id);
        }
        // alive-2's process still holds its lock; unlocked-3's file is
        // there but nobody holds it (its process died before removing it).
        let held = TurnLock::acquire(&locks, "alive-2").expect("locked");
        drop(File::create(locks.join("unlocked-3.lock")).expect("file"));

        let ended = store
            .run_blocking(|connection| recover(connection, Some(&locks)))
            .expect("recovered");
        assert_eq!(ended, ["dead-1", "unlocked-3"]);
        assert_eq!(
            state_of(&store, "dead-1"),
            (TurnState::Failed, Some(STOPPED.to_owned()))
        );
        assert_eq!(state_of(&store, "alive-2").0, TurnState::Running);
        assert!(
            !locks.join("unlocked-3.lock").exists(),
            "a stale lock file is removed"
        );
        let summaries = store
            .run_blocking(|connection| history::recent_turns(connection, 10))
            .expect("history");
        assert_eq!(summaries.len(), 2);
        assert_eq!(
            summaries[0].summary,
            format!("Failed: {STOPPED}. No tool calls.")
        );

        // Its process lets go without ending it, as a crash does.
        drop(held);
        assert!(!locks.join("alive-2.lock").exists());
        let ended = store
            .run_blocking(|connection| recover(connection, Some(&locks)))
            .expect("recovered");
        assert_eq!(ended, ["alive-2"], "no lock left: its process is gone");
    }

    #[test]
    fn stored_ids_never_name_a_path() {
        let dir = Path::new("/tmp/x");
        assert_eq!(lock_path(dir, "../../etc/passwd"), None);
        assert_eq!(lock_path(dir, ""), None);
        assert!(lock_path(dir, "3f2c9a6e-0b1d-4c55-9a7e-1f0d2b3c4d5e").is_some());
        assert!(!owner_alive(Some(dir), "../x"));
        assert!(
            !owner_alive(None, "t1"),
            "an in-memory store has no other owner"
        );
    }
}
