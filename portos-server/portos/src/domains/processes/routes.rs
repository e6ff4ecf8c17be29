//! `/api/system/processes`: the same report as `system.processes.status`.

use axum::Json;
use portos_core::Shared;
use portos_server::http::RouteErrors;
use portos_server::portos_route;

use super::model::{ProcessWatch, ProcessesStatus};
use super::ops;

/// The report's only failure is the server's own (500, logged).
#[derive(Debug, thiserror::Error, RouteErrors)]
enum StatusFault {
    /// The process table could not be read.
    #[error("{0}")]
    #[route_error(internal)]
    Read(String),
}

/// Which processes of this machine (or of the configured watch list) run.
#[portos_route(
    method = "GET",
    path = "/api/system/processes",
    summary = "Process status"
)]
async fn status(watch: Shared<ProcessWatch>) -> Result<Json<ProcessesStatus>, StatusFault> {
    ops::status(&watch)
        .await
        .map(Json)
        .map_err(StatusFault::Read)
}
