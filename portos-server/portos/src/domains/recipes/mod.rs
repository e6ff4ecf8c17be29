//! Saved read recipes (docs/reference.md#saved-recipes): small, versioned
//! programs the Persistent Mind writes that call up to five read tools in order
//! and answer named outputs. This folder holds the definition and its rules,
//! the checks against the live catalog, the library's storage with every
//! revision, the six `mind.recipes.*` tools the Mind manages it with, the
//! routes people review it through, and the executor that runs a recipe's
//! steps (the registry plugs it in).

pub mod answer;
pub mod catalog;
pub mod definition;
pub mod error;
pub mod events;
pub mod execute;
pub mod model;
pub mod ops;
mod routes;
pub mod run;
pub mod store;
pub mod tools;
pub mod validate;

#[cfg(test)]
mod tests;
