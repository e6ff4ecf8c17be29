//! The daily journal: text appended to a user-local day, segment by
//! segment, by voice, agents or people, and read back a day at a time.

pub mod model;
pub mod ops;
mod routes;
pub mod store;
pub mod tools;
