//! `/api/public/clock/*`: the time as the API group `clock` that Settings →
//! API Access can expose to other devices (displays, automations). It runs
//! `time.now` as the owner (see `crate::shared::public_api`).

use axum::Json;
use axum::extract::State;
use portos_core::portos_route;
use portos_server::app::App;
use portos_server::http::ApiError;
use serde_json::{Map, Value};

use super::model::TimeNow;
use crate::shared::public_api::run_as_owner;

/// The time and date in the user's timezone.
#[portos_route(
    method = "GET",
    path = "/api/public/clock/now",
    summary = "Current time",
    response = TimeNow,
    errors = [(401, "AUTH_REQUIRED"), (403, "FORBIDDEN")],
    tool(name = "clock.now", privacy = "internal", side_effect = "read"),
)]
async fn clock(State(app): State<App>) -> Result<Json<Value>, ApiError> {
    Ok(Json(run_as_owner(&app, "time.now", Map::new()).await?))
}
