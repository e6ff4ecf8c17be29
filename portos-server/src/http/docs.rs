//! The `docs` mount (PortOS: `/api/api-docs`): the documents derived from the link-time lists
//! (`crate::documents`), served byte for byte as the CLI dumps them.

use crate::portos_route;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use portos_core::inventory::RouteIo;
use serde_json::Value;

use super::{ApiError, RouteOutput};
use crate::app::App;

/// A rendered JSON document, served byte for byte (documented as any JSON:
/// each document has its own specification), or the reason it could not be
/// built (500).
struct JsonDocument(Result<Bytes, String>);

impl IntoResponse for JsonDocument {
    fn into_response(self) -> Response {
        match self.0 {
            Ok(bytes) => (
                [(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                )],
                bytes,
            )
                .into_response(),
            Err(message) => ApiError::internal(message).into_response(),
        }
    }
}

impl RouteOutput for JsonDocument {
    fn describe(io: &mut RouteIo) {
        io.response = Some(super::io::schema_of::<Value>());
    }
}

/// The Socket.IO events: names, directions, payload schemas.
#[portos_route(
    method = "GET",
    mount = "docs",
    path = "/events.json",
    summary = "Event inventory"
)]
async fn events_json_route(State(app): State<App>) -> JsonDocument {
    JsonDocument(app.documents.events_json())
}

/// AsyncAPI 3.0.0 for the Socket.IO transport.
#[portos_route(
    method = "GET",
    mount = "docs",
    path = "/asyncapi.json",
    summary = "AsyncAPI"
)]
async fn asyncapi_route(State(app): State<App>) -> JsonDocument {
    JsonDocument(app.documents.asyncapi())
}

/// The HTTP route inventory: domains, access and side-effect classes.
#[portos_route(
    method = "GET",
    mount = "docs",
    path = "/catalog.json",
    summary = "Route inventory"
)]
async fn catalog_json(State(app): State<App>) -> JsonDocument {
    JsonDocument(
        app.documents
            .routes_catalog(&app.api_access.current())
            .map(Bytes::from),
    )
}

/// OpenAPI 3.0.3 for every mounted HTTP operation.
#[portos_route(
    method = "GET",
    mount = "docs",
    path = "/internal/openapi.json",
    summary = "Internal OpenAPI"
)]
async fn internal_openapi_json(State(app): State<App>) -> JsonDocument {
    JsonDocument(app.documents.internal_openapi())
}

/// OpenAPI 3.0.3 for only the APIs exposed through API Access.
#[portos_route(
    method = "GET",
    mount = "docs",
    path = "/openapi.json",
    summary = "Public OpenAPI"
)]
async fn public_openapi_json(State(app): State<App>) -> JsonDocument {
    JsonDocument(
        app.documents
            .public_openapi(&app.api_access.current())
            .map(|text| Bytes::from(text.to_string())),
    )
}

/// The operations annotated as HTTP tools, one small record each, with
/// their binding and declared failures.
#[portos_route(
    method = "GET",
    mount = "docs",
    path = "/tools.min.json",
    summary = "HTTP tool resource"
)]
async fn tools_min_json(State(app): State<App>) -> JsonDocument {
    JsonDocument(app.documents.tools_min())
}
