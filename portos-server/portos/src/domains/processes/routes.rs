//! `/api/system/processes`: the same report as `system.processes.status`.

use axum::Json;
use axum::extract::State;
use portos_core::portos_route;
use portos_server::app::App;
use portos_server::http::ApiError;

use super::model::{ProcessWatch, ProcessesStatus};
use super::ops;

/// Which processes of this machine (or of the configured watch list) run.
#[portos_route(
    method = "GET",
    path = "/api/system/processes",
    summary = "Process status",
    response = ProcessesStatus,
)]
async fn status(State(app): State<App>) -> Result<Json<ProcessesStatus>, ApiError> {
    ops::status(app.state::<ProcessWatch>()?)
        .await
        .map(Json)
        .map_err(ApiError::internal)
}
