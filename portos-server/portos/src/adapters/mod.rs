//! The semantic adapters, one file per tool family. Each is a
//! `#[portos_tool]`; nothing else registers them.

pub mod brain;
pub mod catalog;
pub mod goals;
pub mod health;
pub mod journal;
pub mod processes;
pub mod time;
pub mod user_actions;
pub mod weather;
