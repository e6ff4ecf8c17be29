//! [`CallBudget`]: a count of tool calls shared by everything a caller runs
//! in one unit of work. A Persistent Mind turn holds one of five calls
//! (docs/reference.md#turn-budgets); a saved recipe's children draw from the
//! same one, so a recipe cannot multiply what a turn may do.

use std::sync::atomic::{AtomicUsize, Ordering};

/// A number of tool calls, shared (behind an `Arc`) by every call of one unit
/// of work.
#[derive(Debug)]
pub struct CallBudget {
    limit: usize,
    used: AtomicUsize,
}

impl CallBudget {
    /// A budget of `limit` calls, none used.
    pub fn new(limit: usize) -> CallBudget {
        CallBudget {
            limit,
            used: AtomicUsize::new(0),
        }
    }

    /// Takes one call from the budget; false (and nothing taken) when it is
    /// spent. Atomic, so calls charged from several tasks cannot overspend.
    pub fn try_charge(&self) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                (used < self.limit).then_some(used + 1)
            })
            .is_ok()
    }

    /// How many calls were charged.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Acquire)
    }

    /// How many calls the budget allows.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Whether every call has been charged.
    pub fn is_spent(&self) -> bool {
        self.used() >= self.limit
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn charges_up_to_the_limit_and_no_further() {
        let budget = CallBudget::new(5);
        let charged = (0..7).filter(|_| budget.try_charge()).count();
        assert_eq!(charged, 5);
        assert_eq!(budget.used(), 5);
        assert!(budget.is_spent());
    }

    #[test]
    fn threads_racing_cannot_overspend() {
        let budget = Arc::new(CallBudget::new(5));
        let threads: Vec<_> = (0..16)
            .map(|_| {
                let budget = budget.clone();
                std::thread::spawn(move || (0..10).filter(|_| budget.try_charge()).count())
            })
            .collect();
        let charged: usize = threads
            .into_iter()
            .map(|thread| thread.join().unwrap_or(0))
            .sum();
        assert_eq!(charged, 5);
        assert_eq!(budget.used(), 5);
    }
}
