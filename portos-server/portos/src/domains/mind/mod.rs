//! The Persistent Mind: its capabilities (the grants it holds, the models
//! and apps it may use), its authority view, what it may do with them, and
//! what it keeps of itself — memories, its chosen name, its trajectory and
//! the context derived from it, its thinking preset requests and its local
//! context window — with the tools it manages them by and the routes people
//! read and configure them through.

pub mod answer;
pub mod cleanup;
pub mod grants;
mod grants_routes;
pub mod local_context;
pub mod memory;
pub mod ops;
mod routes;
pub mod settings;
pub mod store;
pub mod task;
pub mod thinking;
pub mod tools;
pub mod turn;

pub use grants::load as load_grants;
pub use settings::{MindSettings, MindSettingsInput};
pub use store::live_settings;
pub use turn::{MindModel, ModelOptions};
