//! The HTTP surface, one module per endpoint family.

mod auth;
mod body;
mod error;
mod system;
mod tools;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use tower_http::trace::TraceLayer;

pub use error::ApiError;

use crate::app::App;

/// The full router of the server.
pub fn router(app: App) -> Router {
    let body_limit = app.config.body_limit;
    let gate = axum::middleware::from_fn_with_state(app.auth.clone(), crate::auth::gate);
    Router::new()
        .merge(system::routes())
        .merge(auth::routes())
        .merge(tools::routes())
        .fallback(|| async { ApiError::not_found() })
        .layer(gate)
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(TraceLayer::new_for_http())
        .with_state(app)
}
