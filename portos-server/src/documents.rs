//! The documents of one server, derived from the link-time lists: the route
//! inventory, the internal and public OpenAPI, tools.min, the event
//! inventory and AsyncAPI. Each is computed on first use, then served
//! (`crate::http::docs`) and dumped by the CLI byte for byte.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use axum::body::Bytes;
use portos_core::inventory::{
    Access, AsyncApiOptions, Classifier, EventInventory, OpenApiOptions, Placement,
};
use serde_json::Value;

use portos_core::Scope;

use crate::api_access::ApiAccess;
use crate::mounts::Mounts;
use crate::route_list::inventory;
use crate::settings::AGENT_CONTEXT;

/// The application's words in the runtime's served texts. The runtime's
/// doc comments (route descriptions, schema descriptions) cannot name an
/// application's scopes or paths, so they hold these placeholders, and each
/// document is rendered with the words of the application it describes:
///
/// | placeholder | becomes | PortOS |
/// |---|---|---|
/// | `{principal.http}` | the scope HTTP callers speak for | `ui` |
/// | `{principals}` | every scope, the HTTP one first: `` `a`, `b` or `c` `` | `` `ui`, `agent`, `mind` or `voice` `` |
/// | `{tools.path}` | where the runtime's tool endpoints are | `/api/cos/tools` |
/// | `{grants.key}` | a settings key grants are kept under | `persistentMindCapabilities` |
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocumentWords {
    replacements: Vec<(&'static str, String)>,
}

impl DocumentWords {
    /// The words of an application whose HTTP callers speak for `http`,
    /// whose tool endpoints are at `tools_path` and whose in-process
    /// principals keep their grants under `grants_keys` (the Agent Tools
    /// settings' key when there is none).
    pub fn new(http: Option<Scope>, tools_path: &str, grants_keys: &[&str]) -> DocumentWords {
        let mut replacements = Vec::new();
        if let Some(http) = http {
            let mut scopes: Vec<String> = std::iter::once(http)
                .chain(Scope::all().filter(|scope| *scope != http))
                .map(|scope| format!("`{}`", scope.as_str()))
                .collect();
            let last = scopes.pop().unwrap_or_default();
            let principals = if scopes.is_empty() {
                last
            } else {
                format!("{} or {last}", scopes.join(", "))
            };
            replacements.push(("{principal.http}", http.as_str().to_owned()));
            replacements.push(("{principals}", principals));
        }
        replacements.push(("{tools.path}", tools_path.to_owned()));
        let key = grants_keys.first().copied().unwrap_or(AGENT_CONTEXT);
        replacements.push(("{grants.key}", key.to_owned()));
        DocumentWords { replacements }
    }

    /// `text` with every placeholder replaced.
    pub fn render(&self, text: &str) -> String {
        if !text.contains('{') {
            return text.to_owned();
        }
        self.replacements
            .iter()
            .fold(text.to_owned(), |text, (placeholder, word)| {
                text.replace(placeholder, word)
            })
    }
}

/// The documents of one server, each computed on first use and then served
/// (and dumped by the CLI) byte for byte.
#[derive(Debug)]
pub struct Documents {
    name: String,
    version: String,
    words: DocumentWords,
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
    /// Remote mode, when on: the internal document says so.
    remote: Option<crate::remote::openapi::RemoteDocs>,
}

/// The document in `slot`, built on first use; a clone shares the bytes.
fn text_of(
    slot: &OnceLock<Result<Bytes, String>>,
    build: impl FnOnce() -> Result<String, String>,
) -> Result<Bytes, String> {
    slot.get_or_init(|| build().map(Bytes::from)).clone()
}

impl Documents {
    /// `name` and `version` (the application's) title the documents; the
    /// AsyncAPI server address is the bind address; mounted routes and
    /// events are where `mounts` places them.
    pub fn new(
        name: &str,
        version: &str,
        words: DocumentWords,
        bind: SocketAddr,
        classifier: Classifier,
        mounts: Mounts,
    ) -> Documents {
        Documents {
            name: name.to_owned(),
            version: version.to_owned(),
            words,
            bind,
            classifier,
            mounts,
            routes_catalog: OnceLock::new(),
            tools_min: OnceLock::new(),
            events_json: OnceLock::new(),
            asyncapi: OnceLock::new(),
            internal_openapi: OnceLock::new(),
            public_openapi: Mutex::new(None),
            remote: None,
        }
    }

    /// The same documents for a server in remote mode: the internal OpenAPI
    /// document adds the protected resource metadata and the challenges of
    /// the MCP endpoint and the tool routes (docs/remote.md).
    #[must_use]
    pub fn with_remote(mut self, config: &crate::remote::RemoteConfig) -> Documents {
        self.remote = Some(crate::remote::openapi::RemoteDocs::new(config));
        self
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
        Ok(self.words.render(&catalog.to_string()))
    }

    /// The HTTP tools resource (`--dump-tools-min`).
    pub fn tools_min(&self) -> Result<Bytes, String> {
        text_of(&self.tools_min, || {
            inventory(self.classifier, &self.mounts)
                .map_err(|error| error.to_string())?
                .tools_min(&self.version)
                .map(|value| self.words.render(&value.to_string()))
                .map_err(|error| error.to_string())
        })
    }

    /// OpenAPI 3.0.3 of every operation (`--dump-openapi`).
    pub fn internal_openapi(&self) -> Result<Bytes, String> {
        text_of(&self.internal_openapi, || {
            let inventory =
                inventory(self.classifier, &self.mounts).map_err(|error| error.to_string())?;
            let title = format!("{} Internal HTTP API", self.name);
            let document = inventory.openapi(
                    &OpenApiOptions {
                        title: &title,
                        version: &self.version,
                        description: "Every HTTP operation this server mounts, derived from its #[portos_route] declarations.",
                        server_url: None,
                    },
                    |route| Some(Placement::by_domain(route, inventory.classifier())),
                );
            let mut document = document;
            if let Some(remote) = &self.remote {
                remote.annotate(&mut document, crate::remote::Surface::of(&self.mounts));
            }
            Ok(self.words.render(&document.to_string()))
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
        let text: Arc<str> = self.words.render(&document.to_string()).into();
        *last = Some((access.clone(), text.clone()));
        Ok(text)
    }

    /// The Socket.IO event inventory (`--dump-events`).
    pub fn events_json(&self) -> Result<Bytes, String> {
        text_of(&self.events_json, || {
            let mut document = event_inventory(&self.mounts)?.events_json();
            if let Some(remote) = &self.remote {
                remote.annotate_events(None, Some(&mut document), &self.called_event());
            }
            Ok(self.words.render(&document.to_string()))
        })
    }

    /// AsyncAPI 3.0.0 of the Socket.IO transport (`--dump-asyncapi`).
    pub fn asyncapi(&self) -> Result<Bytes, String> {
        text_of(&self.asyncapi, || {
            let title = format!("{} Socket.IO API", self.name);
            let server_description = format!("This {} server's Socket.IO endpoint.", self.name);
            let host = self.bind.to_string();
            let document = event_inventory(&self.mounts)?.asyncapi(&AsyncApiOptions {
                    title: &title,
                    version: &self.version,
                    description: "Socket.IO events of this server, derived from its #[portos_event] declarations.",
                    host: &host,
                    server_description: &server_description,
                });
            let mut document = document;
            if let Some(remote) = &self.remote {
                remote.annotate_events(Some(&mut document), None, &self.called_event());
            }
            Ok(self.words.render(&document.to_string()))
        })
    }
}

impl Documents {
    /// The full name of the tool-call event (`{tools events}:called`).
    fn called_event(&self) -> String {
        format!("{}:called", self.mounts.tools().events)
    }
}

/// Every linked event under its full name (a mounted one where `mounts`
/// places it).
fn event_inventory(mounts: &Mounts) -> Result<EventInventory, String> {
    let events = mounts.events().map_err(|problems| problems.join("; "))?;
    EventInventory::new(events).map_err(|error| error.to_string())
}
