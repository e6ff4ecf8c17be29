//! PortOS's REST routes, one module per domain, on the runtime's HTTP
//! pieces (the error body, the strict JSON body and query).

pub use portos_server::http::{ApiError, body, query};

mod calendar;
mod cos;
mod eidoverse;
mod eidoverse_guest;
mod feeds;
mod sources;
