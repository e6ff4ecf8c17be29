//! Chief-of-Staff tasks and the agent runs working on them: the records
//! behind `cos.agents.status`, the `/api/cos/tasks` and `/api/cos/agents`
//! routes, and the list of managed apps (the Agent Tools workspaces). Every
//! task change is recorded in the user-actions ledger in the same
//! transaction.

pub mod model;
mod routes;
pub mod store;
mod tools;

pub use model::{
    AgentOutcome, AgentRun, AgentStatus, NewTask, Origin, Priority, RunningAgent, Task,
    TaskChanges, TaskFilter, TaskStatus,
};
pub use store::ManagedApp;
