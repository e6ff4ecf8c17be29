//! The runtime's HTTP surface, one module per endpoint family, and the
//! pieces an application's routes use: the typed extractors [`Body`] and
//! [`Query`], the outputs [`Created`], [`Accepted`] and [`NoContent`], error enums derived
//! with [`RouteErrors`], and [`ApiError`], the one error body.

pub(crate) mod access;
mod agent_caller;
mod agent_context;
mod auth;
pub mod body;
mod docs;
mod error;
mod explorer;
pub(crate) mod gate;
pub mod io;
mod jobs;
mod mcp_listen;
mod metrics;
mod primitives;
pub mod query;
pub(crate) mod remote_gate;
mod route;
mod schema_gate;
mod server_span;
mod settings;
mod shared;
mod system;
mod tools;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use portos_core::inventory::InventoryError;
use tower::Layer;
use tower_http::trace::TraceLayer;

pub use crate::route_list::inventory;
pub(crate) use crate::route_list::missing_state;
/// The JSON body a route answers: axum's, re-exported so an application
/// never matches the runtime's axum version by hand.
pub use axum::Json;
pub use body::Body;
pub use error::ApiError;
pub use io::{
    Accepted, Created, InputError, Invalid, NoContent, RouteErrors, RouteInput, RouteOutput,
};
/// `#[derive(RouteErrors)]`: see [`RouteErrors`].
pub use portos_macros::RouteErrors;
pub use query::Query;
#[doc(hidden)]
pub use route::MethodRoute;

use crate::app::App;

/// The full router of the server, mounted from the link-time route list.
/// The inventory (one declaration per operation) was checked when the
/// `App` was built, so it is not built again here.
pub(crate) fn router(app: App) -> Result<Router, InventoryError> {
    let router = Router::new().fallback_service(service(app)?);
    // Per-request spans and logs cost about a tenth of a small call's CPU:
    // layered only when `RUST_LOG` asks for them, e.g.
    // `RUST_LOG=info,tower_http=debug`, or spans are exported.
    let router = if log_requests() {
        router.layer(TraceLayer::new_for_http())
    } else {
        router
    };
    Ok(if crate::telemetry::traces::exporting() {
        router.layer(axum::middleware::from_fn(server_span::server_span))
    } else {
        router
    })
}

/// Whether each request needs the outer router's layers: a span and log
/// lines per request (`RUST_LOG`), or an exported server span.
pub(crate) fn tracing_requested() -> bool {
    log_requests() || crate::telemetry::traces::exporting()
}

fn log_requests() -> bool {
    tracing::enabled!(target: "tower_http::trace", tracing::Level::DEBUG)
}

/// The routes with their layers, as one service: what [`router`] wraps, and
/// what the server serves as it is when no request tracing is asked for (an
/// outer `Router` would match every path once more and box the service and
/// the future of every request).
pub(crate) fn service(
    app: App,
) -> Result<
    impl tower::Service<
        axum::extract::Request,
        Response = axum::response::Response,
        Error = std::convert::Infallible,
        Future: Send + 'static,
    > + Clone
    + Send
    + Sync
    + 'static,
    InventoryError,
> {
    let body_limit = app.config.body_limit;
    let gate = gate::GateLayer::new(std::sync::Arc::new(gate::GateState {
        auth: app.auth.clone(),
        api_access: app.api_access.clone(),
        classifier: app.classifier,
        remote: app.remote.clone().map(|auth| {
            remote_gate::RemoteGate::new(auth, crate::remote::Surface::of(&app.mounts))
        }),
        api_access_path: app.mounts.path_of(crate::mounts::API_ACCESS),
    }));
    let socket_layer = app.socket_layer.clone();
    let mut routes = route::mount(Router::new(), &app.mounts)?;
    if crate::telemetry::traces::exporting() {
        routes = routes.route_layer(axum::middleware::from_fn(server_span::route_name));
    }
    let routes = routes
        .fallback(|| async { ApiError::not_found() })
        .with_state(app);
    // The layers wrap the routed service once, not each route: `Router::layer`
    // would box every layer around every route, and a request would pay for
    // cloning that chain (callgrind: a sixth of a 304). From the outside in:
    // the body limit, the password gate (so it also protects the Socket.IO
    // stream), Socket.IO, then the routes.
    Ok(DefaultBodyLimit::max(body_limit).layer(gate.layer(socket_layer.layer(routes))))
}
