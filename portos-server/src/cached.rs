//! A value read from the store and kept in memory (grants, API Access,
//! Agent Tools settings), which loads can refresh at once: on PostgreSQL a
//! reload after another server's change may run beside this server's own
//! change. Each load takes a ticket before it reads, and what it read is
//! kept only if no load that began later was kept already, so a read of
//! the old value can never replace the new one.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

#[derive(Debug, Default)]
pub(crate) struct Cached<T> {
    current: RwLock<(u64, T)>,
    tickets: AtomicU64,
}

impl<T: Clone> Cached<T> {
    pub(crate) fn new(value: T) -> Arc<Cached<T>> {
        Arc::new(Cached {
            current: RwLock::new((0, value)),
            tickets: AtomicU64::new(0),
        })
    }

    pub(crate) fn current(&self) -> T {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .1
            .clone()
    }

    /// Reads the value with `read` and keeps it unless a later load was
    /// kept first; answers what was read.
    ///
    /// A server's own change is read back the same way once it committed
    /// (never set from what it wrote): a load another server's change
    /// triggered meanwhile may have read that change too, and is kept only
    /// if it began later.
    pub(crate) fn load<E>(&self, read: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
        let ticket = self.tickets.fetch_add(1, Ordering::SeqCst) + 1;
        let value = read()?;
        let mut current = self.current.write().unwrap_or_else(PoisonError::into_inner);
        if ticket > current.0 {
            *current = (ticket, value.clone());
        }
        Ok(value)
    }
}
