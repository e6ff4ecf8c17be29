//! PortOS's REST routes, one module per domain, on the runtime's HTTP
//! pieces (the error body, the strict JSON body and query).

pub use portos_server::http::{ApiError, body, query};

mod brain;
mod creative_catalog;
mod goals;
mod health;
mod journal;
mod location;
mod processes;
mod public;
mod user_actions;
