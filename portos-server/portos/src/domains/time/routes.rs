//! `/api/public/clock/*`: the time as the API group `clock` that Settings →
//! API Access can expose to other devices (displays, automations). It runs
//! `time.now` as the owner (see `crate::shared::public_api`).

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use portos_core::inventory::RouteIo;
use portos_core::portos_route;
use portos_server::app::App;
use portos_server::http::{ApiError, RouteErrors};
use serde_json::Map;

use super::model::TimeNow;
use crate::shared::public_api::run_as_owner;

/// The time and date in the user's timezone.
#[portos_route(
    method = "GET",
    path = "/api/public/clock/now",
    summary = "Current time",
    tool(name = "clock.now", privacy = "internal", side_effect = "read")
)]
async fn clock(State(app): State<App>) -> Result<Json<TimeNow>, ClockFault> {
    let now = run_as_owner(&app, "time.now", Map::new()).await?;
    serde_json::from_value(now)
        .map(Json)
        .map_err(|error| ClockFault::Decode(error.to_string()))
}

/// `time.now` run as the owner is neither refused (the owner's `ui` scope
/// may call it, it takes no arguments, nothing marks it unavailable) nor
/// failed (it only formats the clock): whatever comes back instead of the
/// time is the server's fault, answered as `run_as_owner` made it (status,
/// code, message and context). None of it is documented.
#[derive(Debug)]
enum ClockFault {
    Call(ApiError),
    /// The tool's result is not a `TimeNow`.
    Decode(String),
}

impl From<ApiError> for ClockFault {
    fn from(error: ApiError) -> ClockFault {
        ClockFault::Call(error)
    }
}

impl From<ClockFault> for ApiError {
    fn from(fault: ClockFault) -> ApiError {
        match fault {
            ClockFault::Call(error) => error,
            ClockFault::Decode(message) => {
                ApiError::internal(format!("time.now answered something else: {message}"))
            }
        }
    }
}

impl IntoResponse for ClockFault {
    fn into_response(self) -> Response {
        ApiError::from(self).into_response()
    }
}

impl RouteErrors for ClockFault {
    fn describe(_: &mut RouteIo) {}
}
