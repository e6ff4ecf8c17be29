//! Chief-of-Staff tasks and the agent runs working on them: the records
//! behind `cos.agents.status`, the `/api/cos/tasks` and `/api/cos/agents`
//! routes, and the list of managed apps (the Agent Tools workspaces). The
//! Persistent Mind queues tasks with `cos.create-task` for the coding
//! providers the owner configured. Every task change is recorded in the
//! user-actions ledger in the same transaction.

pub mod dispatch;
pub mod model;
pub mod providers;
mod routes;
pub mod store;
mod tools;

pub use dispatch::{EffortChoice, PrCompletion, ReadinessCheck, TaskDispatch};
pub use model::{
    AgentOutcome, AgentRun, AgentStatus, NewTask, Origin, Priority, RunningAgent, Task,
    TaskChanges, TaskFilter, TaskStatus,
};
pub use providers::{CodingProvider, Effort, Providers, stored as stored_providers};
pub use store::{ManagedApp, managed_apps, queue_dispatched_task};
