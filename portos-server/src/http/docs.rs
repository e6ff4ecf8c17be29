//! `/api/api-docs/*`: the documents derived from the link-time lists. Each is
//! computed once per process and served (and dumped by the CLI) byte for byte.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use portos_core::inventory::{Access, AsyncApiOptions, EventInventory, OpenApiOptions, Placement};
use portos_core::{linked, portos_route};
use serde_json::Value;

use super::{ApiError, inventory};
use crate::api_access::ApiAccess;
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

fn json_response(body: Result<impl Into<axum::body::Body>, String>) -> Response {
    match body {
        Ok(text) => (
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            text.into(),
        )
            .into_response(),
        Err(message) => ApiError::internal(message).into_response(),
    }
}

fn build_routes_catalog() -> Result<Value, String> {
    Ok(inventory()
        .map_err(|error| error.to_string())?
        .catalog_json())
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
        |route| Some(Placement::by_domain(route, inventory.classifier())),
    ))
}

/// Only the exposed groups' modeled operations, tagged by group, secured
/// when the group still requires the password. The registry tools and the
/// agent transport are never under `/api/public/`, so never here.
fn build_public_openapi(access: &ApiAccess) -> Result<Value, String> {
    let inventory = inventory().map_err(|error| error.to_string())?;
    Ok(inventory.openapi(
        &OpenApiOptions {
            title: "PortOS Public API",
            version: env!("CARGO_PKG_VERSION"),
            description: "The API groups exposed through Settings → API Access.",
            server_url: None,
        },
        |route| {
            if inventory.access(route) != Access::ExternallyExposable || !route.is_modeled() {
                return None;
            }
            let (api, exposure) = access.for_path(route.path)?;
            exposure.exposed.then(|| Placement {
                tag: api.id.to_owned(),
                tag_description: Some(api.description.to_owned()),
                secured: exposure.require_auth,
            })
        },
    ))
}

fn build_tools_min() -> Result<Value, String> {
    inventory()
        .map_err(|error| error.to_string())?
        .tools_min(env!("CARGO_PKG_VERSION"))
        .map_err(|error| error.to_string())
}

fn event_inventory() -> Result<EventInventory, String> {
    EventInventory::new(linked::events()).map_err(|error| error.to_string())
}

fn build_events_json() -> Result<Value, String> {
    Ok(event_inventory()?.events_json())
}

static ROUTES_CATALOG: OnceLock<Result<Value, String>> = OnceLock::new();
static TOOLS_MIN: OnceLock<Result<String, String>> = OnceLock::new();
static EVENTS_JSON: OnceLock<Result<String, String>> = OnceLock::new();
static ASYNCAPI: OnceLock<Result<String, String>> = OnceLock::new();
static INTERNAL_OPENAPI: OnceLock<Result<String, String>> = OnceLock::new();
/// The last public document and the choices it was built for: they change
/// rarely, and the document is the same until they do.
static PUBLIC_OPENAPI: Mutex<Option<(ApiAccess, Arc<str>)>> = Mutex::new(None);

/// The route inventory document (`--dump-routes`), with the exposable API
/// groups as `access` resolves them.
pub fn routes_catalog(access: &ApiAccess) -> Result<String, String> {
    let base = ROUTES_CATALOG
        .get_or_init(build_routes_catalog)
        .as_ref()
        .map_err(Clone::clone)?;
    let mut catalog = base.clone();
    if let Some(object) = catalog.as_object_mut() {
        object.insert("externallyExposableApis".to_owned(), access.describe());
    }
    Ok(catalog.to_string())
}

/// The HTTP tools resource (`--dump-tools-min`).
pub fn tools_min() -> Result<&'static str, String> {
    cached(&TOOLS_MIN, build_tools_min)
}

/// OpenAPI 3.0.3 of every operation (`--dump-openapi`).
pub fn internal_openapi() -> Result<&'static str, String> {
    cached(&INTERNAL_OPENAPI, build_internal_openapi)
}

/// OpenAPI 3.0.3 of the exposed API groups (`--dump-openapi-public`).
pub fn public_openapi(access: &ApiAccess) -> Result<Arc<str>, String> {
    let mut last = PUBLIC_OPENAPI
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some((built_for, text)) = last.as_ref()
        && built_for == access
    {
        return Ok(text.clone());
    }
    let text: Arc<str> = build_public_openapi(access)?.to_string().into();
    *last = Some((access.clone(), text.clone()));
    Ok(text)
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
                let host = config.bind.to_string();
                events
                    .asyncapi(&AsyncApiOptions {
                        title: crate::contract_facts::ASYNCAPI_TITLE,
                        version: env!("CARGO_PKG_VERSION"),
                        description: crate::contract_facts::ASYNCAPI_DESCRIPTION,
                        host: &host,
                        server_description: crate::contract_facts::ASYNCAPI_SERVER_DESCRIPTION,
                    })
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
async fn catalog_json(State(app): State<App>) -> Response {
    json_response(routes_catalog(&app.api_access.current()))
}

/// OpenAPI 3.0.3 for every mounted HTTP operation.
#[portos_route(method = "GET", path = "/api/api-docs/internal/openapi.json", summary = "Internal OpenAPI", response = serde_json::Value)]
async fn internal_openapi_json() -> Response {
    json_response(internal_openapi())
}

/// OpenAPI 3.0.3 for only the APIs exposed through API Access.
#[portos_route(method = "GET", path = "/api/api-docs/openapi.json", summary = "Public OpenAPI", response = serde_json::Value)]
async fn public_openapi_json(State(app): State<App>) -> Response {
    json_response(public_openapi(&app.api_access.current()).map(|text| text.to_string()))
}

/// The operations annotated as HTTP tools, one small record each, with
/// their binding and declared failures.
#[portos_route(method = "GET", path = "/api/api-docs/tools.min.json", summary = "HTTP tool resource", response = serde_json::Value)]
async fn tools_min_json() -> Response {
    json_response(tools_min())
}
