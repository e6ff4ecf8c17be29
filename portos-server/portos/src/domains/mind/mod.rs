//! The Persistent Mind: its capabilities (the grants it holds, the models
//! and apps it may use), its authority view, and what it may do with them.

pub mod grants;
mod grants_routes;
pub mod settings;
pub mod turn;

pub use settings::{MindSettings, MindSettingsInput};
