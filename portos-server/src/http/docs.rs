//! `/api/api-docs/*`: the documents derived from the link-time lists. Each is
//! computed once per server and served (and dumped by the CLI) byte for byte.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use portos_core::inventory::{
    Access, AsyncApiOptions, Classifier, EventInventory, OpenApiOptions, Placement, RouteIo,
};
use portos_core::portos_route;
use serde_json::Value;

use super::{ApiError, RouteOutput, inventory};
use crate::api_access::ApiAccess;
use crate::app::{App, Identity};
use crate::mounts::Mounts;

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

/// The documents of one server, each computed on first use and then served
/// (and dumped by the CLI) byte for byte.
#[derive(Debug)]
pub struct Documents {
    name: String,
    version: String,
    bind: SocketAddr,
    classifier: Classifier,
    /// Where the mounted routes and events are.
    mounts: Mounts,
    routes_catalog: OnceLock<Result<Value, String>>,
    tools_min: OnceLock<Result<Bytes, String>>,
    events_json: OnceLock<Result<Bytes, String>>,
    asyncapi: OnceLock<Result<Bytes, String>>,
    internal_openapi: OnceLock<Result<Bytes, String>>,
    /// The last public document and the choices it was built for: they
    /// change rarely, and the document is the same until they do.
    public_openapi: Mutex<Option<(ApiAccess, Arc<str>)>>,
}

/// The document in `slot`, built on first use; a clone shares the bytes.
fn text_of(
    slot: &OnceLock<Result<Bytes, String>>,
    build: impl FnOnce() -> Result<String, String>,
) -> Result<Bytes, String> {
    slot.get_or_init(|| build().map(Bytes::from)).clone()
}

impl Documents {
    /// `identity` names the documents; the AsyncAPI server address is the
    /// bind address; mounted routes and events are where `mounts` places
    /// them.
    pub fn new(
        identity: &Identity,
        bind: SocketAddr,
        classifier: Classifier,
        mounts: Mounts,
    ) -> Documents {
        Documents {
            name: identity.name.clone(),
            version: identity.version.clone(),
            bind,
            classifier,
            mounts,
            routes_catalog: OnceLock::new(),
            tools_min: OnceLock::new(),
            events_json: OnceLock::new(),
            asyncapi: OnceLock::new(),
            internal_openapi: OnceLock::new(),
            public_openapi: Mutex::new(None),
        }
    }

    /// The route inventory document (`--dump-routes`), with the exposable
    /// API groups as `access` resolves them.
    pub fn routes_catalog(&self, access: &ApiAccess) -> Result<String, String> {
        let base = self
            .routes_catalog
            .get_or_init(|| {
                Ok(inventory(self.classifier, &self.mounts)
                    .map_err(|error| error.to_string())?
                    .catalog_json())
            })
            .as_ref()
            .map_err(Clone::clone)?;
        let mut catalog = base.clone();
        if let Some(object) = catalog.as_object_mut() {
            object.insert(
                "externallyExposableApis".to_owned(),
                serde_json::to_value(access.describe().apis).unwrap_or_default(),
            );
        }
        Ok(catalog.to_string())
    }

    /// The HTTP tools resource (`--dump-tools-min`).
    pub fn tools_min(&self) -> Result<Bytes, String> {
        text_of(&self.tools_min, || {
            inventory(self.classifier, &self.mounts)
                .map_err(|error| error.to_string())?
                .tools_min(&self.version)
                .map(|value| value.to_string())
                .map_err(|error| error.to_string())
        })
    }

    /// OpenAPI 3.0.3 of every operation (`--dump-openapi`).
    pub fn internal_openapi(&self) -> Result<Bytes, String> {
        text_of(&self.internal_openapi, || {
            let inventory =
                inventory(self.classifier, &self.mounts).map_err(|error| error.to_string())?;
            let title = format!("{} Internal HTTP API", self.name);
            Ok(inventory
                .openapi(
                    &OpenApiOptions {
                        title: &title,
                        version: &self.version,
                        description: "Every HTTP operation this server mounts, derived from its #[portos_route] declarations.",
                        server_url: None,
                    },
                    |route| Some(Placement::by_domain(route, inventory.classifier())),
                )
                .to_string())
        })
    }

    /// OpenAPI 3.0.3 of the exposed API groups (`--dump-openapi-public`):
    /// only their modeled operations, tagged by group, secured when the
    /// group still requires the password. The registry tools and the agent
    /// transport are never under `/api/public/`, so never here.
    pub fn public_openapi(&self, access: &ApiAccess) -> Result<Arc<str>, String> {
        let mut last = self
            .public_openapi
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((built_for, text)) = last.as_ref()
            && built_for == access
        {
            return Ok(text.clone());
        }
        let inventory =
            inventory(self.classifier, &self.mounts).map_err(|error| error.to_string())?;
        let title = format!("{} Public API", self.name);
        let document = inventory.openapi(
            &OpenApiOptions {
                title: &title,
                version: &self.version,
                description: "The API groups exposed through Settings → API Access.",
                server_url: None,
            },
            |route| {
                if inventory.access(route) != Access::ExternallyExposable
                    || !inventory.io(route).is_modeled()
                {
                    return None;
                }
                let (api, exposure) = access.for_path(route.path)?;
                exposure.exposed.then(|| Placement {
                    tag: api.id.to_owned(),
                    tag_description: Some(api.description.to_owned()),
                    secured: exposure.require_auth,
                })
            },
        );
        let text: Arc<str> = document.to_string().into();
        *last = Some((access.clone(), text.clone()));
        Ok(text)
    }

    /// The Socket.IO event inventory (`--dump-events`).
    pub fn events_json(&self) -> Result<Bytes, String> {
        text_of(&self.events_json, || {
            Ok(event_inventory(&self.mounts)?.events_json().to_string())
        })
    }

    /// AsyncAPI 3.0.0 of the Socket.IO transport (`--dump-asyncapi`).
    pub fn asyncapi(&self) -> Result<Bytes, String> {
        text_of(&self.asyncapi, || {
            let title = format!("{} Socket.IO API", self.name);
            let server_description = format!("This {} server's Socket.IO endpoint.", self.name);
            let host = self.bind.to_string();
            Ok(event_inventory(&self.mounts)?
                .asyncapi(&AsyncApiOptions {
                    title: &title,
                    version: &self.version,
                    description: "Socket.IO events of this server, derived from its #[portos_event] declarations.",
                    host: &host,
                    server_description: &server_description,
                })
                .to_string())
        })
    }
}

/// Every linked event under its full name (a mounted one where `mounts`
/// places it).
fn event_inventory(mounts: &Mounts) -> Result<EventInventory, String> {
    let events = mounts.events().map_err(|problems| problems.join("; "))?;
    EventInventory::new(events).map_err(|error| error.to_string())
}

/// The Socket.IO events: names, directions, payload schemas.
#[portos_route(
    method = "GET",
    path = "/api/api-docs/events.json",
    summary = "Event inventory"
)]
async fn events_json_route(State(app): State<App>) -> JsonDocument {
    JsonDocument(app.documents.events_json())
}

/// AsyncAPI 3.0.0 for the Socket.IO transport.
#[portos_route(
    method = "GET",
    path = "/api/api-docs/asyncapi.json",
    summary = "AsyncAPI"
)]
async fn asyncapi_route(State(app): State<App>) -> JsonDocument {
    JsonDocument(app.documents.asyncapi())
}

/// The HTTP route inventory: domains, access and side-effect classes.
#[portos_route(
    method = "GET",
    path = "/api/api-docs/catalog.json",
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
    path = "/api/api-docs/internal/openapi.json",
    summary = "Internal OpenAPI"
)]
async fn internal_openapi_json(State(app): State<App>) -> JsonDocument {
    JsonDocument(app.documents.internal_openapi())
}

/// OpenAPI 3.0.3 for only the APIs exposed through API Access.
#[portos_route(
    method = "GET",
    path = "/api/api-docs/openapi.json",
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
    path = "/api/api-docs/tools.min.json",
    summary = "HTTP tool resource"
)]
async fn tools_min_json(State(app): State<App>) -> JsonDocument {
    JsonDocument(app.documents.tools_min())
}
