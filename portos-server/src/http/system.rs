//! `/api/system/*`.

use crate::portos_route;
use axum::{Json, extract::State};
use schemars::JsonSchema;
use serde::Serialize;

use crate::app::App;

#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct Health {
    pub ok: bool,
    /// The server's version.
    pub version: &'static str,
    /// How many tools the registry serves.
    pub tools: usize,
}

/// Liveness: answers as long as the process serves requests. Always public.
#[portos_route(method = "GET", path = "/api/system/health", summary = "Health")]
async fn health(State(app): State<App>) -> Json<Health> {
    Json(Health {
        ok: true,
        version: env!("CARGO_PKG_VERSION"),
        tools: app.registry.tools().len(),
    })
}
