//! Chief-of-Staff tasks and the agent runs working on them: the records
//! behind `cos.agents.status`, the `/api/cos/tasks` and `/api/cos/agents`
//! routes, and the list of managed apps. Every task change is recorded in
//! the user-actions ledger in the same transaction.

pub mod model;
pub mod store;

pub use model::{
    AgentOutcome, AgentRun, AgentStatus, NewTask, Origin, Priority, Task, TaskChanges, TaskStatus,
};
pub use store::ManagedApp;
