//! Which Persistent Mind turn (wake) a running call belongs to. A tool
//! gets its call's requestId, not the turn: the turn loop notes each call
//! here while it runs, so `cos.create-task` can derive its task id from
//! the wake (docs/reference.md#task-creation).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// The requestIds of the calls in flight, each with its turn id.
#[derive(Clone, Debug, Default)]
pub struct Wakes {
    calls: Arc<Mutex<HashMap<String, String>>>,
}

impl Wakes {
    /// Notes that `request_id` runs in `turn_id` until the guard is dropped.
    pub fn enter(&self, request_id: &str, turn_id: &str) -> InWake {
        self.lock()
            .insert(request_id.to_owned(), turn_id.to_owned());
        InWake {
            wakes: self.clone(),
            request_id: request_id.to_owned(),
        }
    }

    /// The turn `request_id` runs in, if a turn made the call.
    pub fn turn_of(&self, request_id: &str) -> Option<String> {
        self.lock().get(request_id).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A call's place in its turn, forgotten when dropped.
#[derive(Debug)]
pub struct InWake {
    wakes: Wakes,
    request_id: String,
}

impl Drop for InWake {
    fn drop(&mut self) {
        self.wakes.lock().remove(&self.request_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_in_its_turn_while_it_runs() {
        let wakes = Wakes::default();
        let guard = wakes.enter("mind-tool-1", "turn-1");
        assert_eq!(wakes.turn_of("mind-tool-1").as_deref(), Some("turn-1"));
        assert_eq!(wakes.turn_of("other"), None);
        drop(guard);
        assert_eq!(wakes.turn_of("mind-tool-1"), None);
    }
}
