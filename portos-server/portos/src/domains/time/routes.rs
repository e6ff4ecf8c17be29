//! `/api/public/clock/*`: the time as the API group `clock` that Settings →
//! API Access can expose to other devices (displays, automations). It runs
//! `time.now` as the owner (see `crate::shared::public_api`).

use axum::Json;
use portos_core::Shared;
use portos_server::LiveRegistry;
use portos_server::portos_route;
use serde_json::Map;

use super::model::TimeNow;
use crate::shared::public_api::{OwnerCallError, run_as_owner};

/// The time and date in the user's timezone.
// `time.now` run as the owner is neither refused nor fails on input, so
// only the server's own faults can stop it (none documented).
#[portos_route(
    method = "GET",
    path = "/api/public/clock/now",
    summary = "Current time",
    tool(name = "clock.now", privacy = "internal", side_effect = "read")
)]
async fn clock(live_registry: Shared<LiveRegistry>) -> Result<Json<TimeNow>, OwnerCallError> {
    Ok(Json(
        run_as_owner(&live_registry, "time.now", Map::new()).await?,
    ))
}
