use axum::Router;
use axum::routing::get;
use axum::{Json, extract::State};
use serde_json::{Value, json};

use crate::app::App;

pub fn routes() -> Router<App> {
    Router::new().route("/api/system/health", get(health))
}

/// Always public: answers as long as the process serves requests.
async fn health(State(app): State<App>) -> Json<Value> {
    Json(json!({
        "ok": true,
        "version": env!("CARGO_PKG_VERSION"),
        "tools": app.registry.tools().len(),
    }))
}
