//! A turn's budgets (docs/reference.md#turn-budgets): five tool calls and five
//! task requests; what is over budget is refused with the contract's text and
//! never runs.

/// Tool calls a turn may run.
pub const MAX_CALLS_PER_TURN: usize = 5;
/// `cos.create-task` calls a turn may run (a budget of their own).
pub const MAX_TASKS_PER_TURN: usize = 5;
/// Provider rounds a turn may take.
pub const MAX_ROUNDS: usize = 4;

pub const CALL_LIMIT_REACHED: &str =
    "The PortOS tool-call limit of 5 was reached; additional calls were not executed.";
pub const TASK_LIMIT_REACHED: &str =
    "Persistent Mind task request limit of 5 was reached for this turn";
/// Told to the model when the tool-call budget is spent.
pub const BUDGET_EXHAUSTED: &str =
    "The PortOS tool-call budget for this turn is exhausted: answer without calling tools.";

use std::sync::Arc;

use portos_core::CallBudget;

/// The tool that queues tasks, charged to the task budget.
pub const CREATE_TASK: &str = "cos.create-task";

/// What a turn has spent. Calls are charged before they run, one at a
/// time, so parallel calls in one model answer cannot overspend. The call
/// budget is shared: a saved recipe's children are charged to it by the
/// recipe itself (docs/reference.md#turn-budgets), through the registry.
#[derive(Debug)]
pub struct TurnBudget {
    calls: Arc<CallBudget>,
    pub tasks_used: usize,
    pub calls_refused: usize,
}

impl Default for TurnBudget {
    fn default() -> TurnBudget {
        TurnBudget {
            calls: Arc::new(CallBudget::new(MAX_CALLS_PER_TURN)),
            tasks_used: 0,
            calls_refused: 0,
        }
    }
}

impl TurnBudget {
    /// Charges one call of `tool` (its canonical name), or says why it may
    /// not run.
    pub fn charge(&mut self, tool: &str) -> Result<(), &'static str> {
        let charged = if tool == CREATE_TASK {
            let free = self.tasks_used < MAX_TASKS_PER_TURN;
            self.tasks_used += usize::from(free);
            free
        } else {
            self.calls.try_charge()
        };
        if charged {
            return Ok(());
        }
        self.calls_refused += 1;
        Err(if tool == CREATE_TASK {
            TASK_LIMIT_REACHED
        } else {
            CALL_LIMIT_REACHED
        })
    }

    /// Tool calls run, the turn's own and its recipes' children.
    pub fn calls_used(&self) -> usize {
        self.calls.used()
    }

    pub fn calls_exhausted(&self) -> bool {
        self.calls.is_spent()
    }

    /// The call budget, for the registry to hand a recipe's children.
    pub fn shared_calls(&self) -> Arc<CallBudget> {
        self.calls.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seven_calls_and_six_tasks_run_five_of_each() {
        let mut budget = TurnBudget::default();
        let calls = (0..7)
            .filter(|_| budget.charge("goals.list").is_ok())
            .count();
        let tasks = (0..6)
            .filter(|_| budget.charge(CREATE_TASK).is_ok())
            .count();
        assert_eq!((calls, tasks), (5, 5));
        assert_eq!(budget.calls_refused, 3);
        assert_eq!(budget.charge("brain.recent"), Err(CALL_LIMIT_REACHED));
        assert_eq!(budget.charge(CREATE_TASK), Err(TASK_LIMIT_REACHED));
        assert!(budget.calls_exhausted());
    }
}
