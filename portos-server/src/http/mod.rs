//! The HTTP surface, one module per endpoint family.

mod auth;
mod body;
mod catalog_cache;
pub mod docs;
mod error;
mod explorer;
mod mind;
mod public;
mod route;
mod settings;
mod system;
mod tools;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use portos_core::inventory::InventoryError;
use tower_http::trace::TraceLayer;

pub use catalog_cache::{CatalogCache, ServedCatalog};
pub use error::ApiError;
pub use route::{MethodRoute, inventory};

use crate::app::App;

/// The full router of the server, mounted from the link-time route list.
pub fn router(app: App) -> Result<Router, InventoryError> {
    // The same check the documents rely on: one declaration per operation.
    inventory()?;
    let body_limit = app.config.body_limit;
    let gate = axum::middleware::from_fn_with_state(
        std::sync::Arc::new(crate::auth::GateState {
            auth: app.auth.clone(),
            api_access: app.api_access.clone(),
        }),
        crate::auth::gate,
    );
    let socket_layer = app.socket_layer.clone();
    // Layers wrap from the bottom up: the gate runs before Socket.IO, so a
    // password protects the event stream as it does every route.
    // Per-request spans and logs cost about a tenth of a small call's CPU
    // (callgrind): they are layered only when `RUST_LOG` asks for them, e.g.
    // `RUST_LOG=info,tower_http=debug`.
    let router = route::mount(Router::new())?
        .fallback(|| async { ApiError::not_found() })
        .layer(socket_layer)
        .layer(gate)
        .layer(DefaultBodyLimit::max(body_limit));
    let router = if tracing::enabled!(target: "tower_http::trace", tracing::Level::DEBUG) {
        router.layer(TraceLayer::new_for_http())
    } else {
        router
    };
    Ok(router.with_state(app))
}
