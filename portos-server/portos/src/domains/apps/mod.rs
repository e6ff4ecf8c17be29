//! Managed apps: the repositories the Persistent Mind may work on (queue
//! tasks for, list and file issues on), each with its work tracker and the
//! forge repository its git remote names (docs/reference.md#forge-issues).
//! People manage the roster over REST; the Mind's tools and Agent Tools'
//! workspaces read it.

pub mod git;
pub mod model;
pub mod ops;
mod routes;
pub mod store;

pub use model::{App, AppView, MAX_RUNNABLE_APPS};
pub use ops::{RemoteCache, ResolvedApp, get, resolve_app, runnable};
pub use store::all;
