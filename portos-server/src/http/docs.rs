//! `/api/api-docs/*`: the documents derived from the link-time lists. Each is
//! computed once per process and served (and dumped by the CLI) byte for byte.

use std::sync::OnceLock;

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use portos_core::inventory::{EVENTS, EventInventory, OpenApiOptions};
use portos_core::portos_route;
use serde_json::Value;

use super::{ApiError, inventory};
use crate::app::App;
use crate::config::Config;

/// A document as served: JSON text, computed on first use.
fn cached(
    slot: &'static OnceLock<Result<String, String>>,
    build: fn() -> Result<Value, String>,
) -> Result<&'static str, String> {
    slot.get_or_init(|| build().map(|value| value.to_string()))
        .as_deref()
        .map_err(Clone::clone)
}

fn json_response(body: Result<&'static str, String>) -> Response {
    match body {
        Ok(text) => (
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            text,
        )
            .into_response(),
        Err(message) => ApiError::internal(message).into_response(),
    }
}

fn build_routes_catalog() -> Result<Value, String> {
    let inventory = inventory().map_err(|error| error.to_string())?;
    let mut catalog = inventory.catalog_json();
    if let Some(object) = catalog.as_object_mut() {
        // No API group of this server can be exposed outside yet.
        object.insert(
            "externallyExposableApis".to_owned(),
            Value::Array(Vec::new()),
        );
    }
    Ok(catalog)
}

fn build_internal_openapi() -> Result<Value, String> {
    let inventory = inventory().map_err(|error| error.to_string())?;
    Ok(inventory.openapi(
        &OpenApiOptions {
            title: "PortOS Internal HTTP API",
            version: env!("CARGO_PKG_VERSION"),
            description: "Every HTTP operation this server mounts, derived from its #[portos_route] declarations.",
            server_url: None,
        },
        |_| true,
    ))
}

fn build_public_openapi() -> Result<Value, String> {
    let inventory = inventory().map_err(|error| error.to_string())?;
    Ok(inventory.openapi(
        &OpenApiOptions {
            title: "PortOS Public API",
            version: env!("CARGO_PKG_VERSION"),
            description: "The API groups exposed through Settings → API Access.",
            server_url: None,
        },
        // The registry tools and agent transport are never public, and this
        // server has no externally exposable API group yet.
        |route| {
            portos_core::inventory::classify::access(route)
                == portos_core::inventory::Access::ExternallyExposable
        },
    ))
}

fn event_inventory() -> Result<EventInventory, String> {
    EventInventory::new(EVENTS.iter()).map_err(|error| error.to_string())
}

fn build_events_json() -> Result<Value, String> {
    Ok(event_inventory()?.events_json())
}

static ROUTES_CATALOG: OnceLock<Result<String, String>> = OnceLock::new();
static EVENTS_JSON: OnceLock<Result<String, String>> = OnceLock::new();
static ASYNCAPI: OnceLock<Result<String, String>> = OnceLock::new();
static INTERNAL_OPENAPI: OnceLock<Result<String, String>> = OnceLock::new();
static PUBLIC_OPENAPI: OnceLock<Result<String, String>> = OnceLock::new();

/// The route inventory document (`--dump-routes`).
pub fn routes_catalog() -> Result<&'static str, String> {
    cached(&ROUTES_CATALOG, build_routes_catalog)
}

/// OpenAPI 3.0.3 of every operation (`--dump-openapi`).
pub fn internal_openapi() -> Result<&'static str, String> {
    cached(&INTERNAL_OPENAPI, build_internal_openapi)
}

/// OpenAPI 3.0.3 of the exposed API groups (`--dump-openapi-public`).
pub fn public_openapi() -> Result<&'static str, String> {
    cached(&PUBLIC_OPENAPI, build_public_openapi)
}

/// The Socket.IO event inventory (`--dump-events`).
pub fn events_json() -> Result<&'static str, String> {
    cached(&EVENTS_JSON, build_events_json)
}

/// AsyncAPI 3.0.0 of the Socket.IO transport (`--dump-asyncapi`). The server
/// address is the configured bind address; one configuration per process.
pub fn asyncapi(config: &Config) -> Result<&'static str, String> {
    ASYNCAPI
        .get_or_init(|| {
            event_inventory().map(|events| {
                events
                    .asyncapi(env!("CARGO_PKG_VERSION"), &config.bind.to_string())
                    .to_string()
            })
        })
        .as_deref()
        .map_err(Clone::clone)
}

/// The Socket.IO events: names, directions, payload schemas.
#[portos_route(method = "GET", path = "/api/api-docs/events.json", summary = "Event inventory", response = serde_json::Value)]
async fn events_json_route() -> Response {
    json_response(events_json())
}

/// AsyncAPI 3.0.0 for the Socket.IO transport.
#[portos_route(method = "GET", path = "/api/api-docs/asyncapi.json", summary = "AsyncAPI", response = serde_json::Value)]
async fn asyncapi_route(State(app): State<App>) -> Response {
    json_response(asyncapi(&app.config))
}

/// The HTTP route inventory: domains, access and side-effect classes.
#[portos_route(method = "GET", path = "/api/api-docs/catalog.json", summary = "Route inventory", response = serde_json::Value)]
async fn catalog_json() -> Response {
    json_response(routes_catalog())
}

/// OpenAPI 3.0.3 for every mounted HTTP operation.
#[portos_route(method = "GET", path = "/api/api-docs/internal/openapi.json", summary = "Internal OpenAPI", response = serde_json::Value)]
async fn internal_openapi_json() -> Response {
    json_response(internal_openapi())
}

/// OpenAPI 3.0.3 for only the APIs exposed through API Access.
#[portos_route(method = "GET", path = "/api/api-docs/openapi.json", summary = "Public OpenAPI", response = serde_json::Value)]
async fn public_openapi_json() -> Response {
    json_response(public_openapi())
}
