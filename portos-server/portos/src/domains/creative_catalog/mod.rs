//! The creative catalog: characters, places, objects, ideas, scenes,
//! concepts and the user's own types, each entry with a body text and
//! references. `catalog.search` reads it; `/api/catalog/*` edits it.

pub mod model;
pub mod ops;
mod routes;
pub mod store;
pub mod tools;
