//! `/api/system/processes`: the same report as `system.processes.status`.

use axum::Json;
use axum::extract::State;
use portos_core::portos_route;
use portos_server::app::{App, NoSuchState};
use portos_server::http::RouteErrors;

use super::model::{ProcessWatch, ProcessesStatus};
use super::ops;

/// The report's only failures are the server's own (500, logged).
#[derive(Debug, thiserror::Error, RouteErrors)]
enum StatusFault {
    /// The server was built without the watch list.
    #[error(transparent)]
    #[route_error(transparent)]
    NoWatch(#[from] NoSuchState),
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
async fn status(State(app): State<App>) -> Result<Json<ProcessesStatus>, StatusFault> {
    let watch = app.state::<ProcessWatch>()?;
    ops::status(watch)
        .await
        .map(Json)
        .map_err(StatusFault::Read)
}
