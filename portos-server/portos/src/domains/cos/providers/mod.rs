//! The coding providers tasks can be queued for: the CLI and TUI coding
//! agents (and API providers, which never take tasks) installed on this
//! machine, with the models and effort levels each one accepts. The owner
//! configures them (`GET`/`PUT /api/cos/providers`); `cos.create-task`
//! checks every task against them.

pub mod model;
mod routes;
pub mod store;

pub use model::{CodingProvider, Effort, ProviderKind, Providers};
pub use store::get as stored;
