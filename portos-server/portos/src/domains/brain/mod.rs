//! The brain inbox: thoughts captured as said, by voice, agents, the UI or
//! another device, and read back by search or recency. Every capture goes
//! through `brain.capture`, so each lands in the user-actions ledger.

pub mod model;
pub mod ops;
mod prompts;
mod public;
mod routes;
pub mod store;
pub mod tools;

pub use store::{any as has_captures, latest as latest_captures};
