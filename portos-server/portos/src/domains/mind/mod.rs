//! The Persistent Mind: its capabilities (the grants it holds, the models
//! and apps it may use), and what it may do with them.

pub mod settings;
pub mod turn;

pub use settings::{MindSettings, MindSettingsInput};
pub use turn::ModelOptions;
