//! Health logs: drinks, nicotine, weights and workouts, each dated by the
//! user's local day, logged by voice, agents or people and summarized
//! against the week before. Tools and routes log through the same
//! operations, so both agree on what is stored.

pub mod model;
pub mod ops;
mod routes;
pub mod store;
pub mod tools;
