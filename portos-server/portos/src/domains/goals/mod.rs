//! Goals: what the user is working towards (title, horizon, category,
//! urgency, progress, status) with dated notes. People create and edit them
//! over REST; the tools list them, update progress and add notes by a
//! spoken title. Both go through the same operations and rules.

pub mod model;
pub mod ops;
mod routes;
pub mod store;
pub mod tools;
