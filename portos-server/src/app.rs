//! The running server's state, [`App`], shared by every request handler, the
//! MCP transports and the CLI; built by [`crate::ServerBuilder`].

use std::sync::Arc;

use portos_core::{CatalogBuildError, Catalogs, Registry, RegistryBuildError};

use crate::agent_tools::{AgentContextCache, ContextTools};
use crate::api_access::{ApiAccessCache, ExposableApis};
use crate::auth::Auth;
use crate::clock::UnknownTimeZone;
use crate::config::Config;
use crate::documents::Documents;
use crate::events::Events;
use crate::grants::GrantsCache;
use crate::store::{Store, StoreError};

/// Everything a request handler needs: one shared allocation, so the clone
/// each extractor takes is a single reference-count increment.
#[derive(Clone)]
pub struct App(pub(crate) Arc<AppState>);

impl std::ops::Deref for App {
    type Target = AppState;

    fn deref(&self) -> &AppState {
        &self.0
    }
}

impl App {
    /// The server state every tool and route reaches with `Shared<T>`: the
    /// application's values and the runtime's (the store, the clock, the
    /// events, [`crate::LiveRegistry`], [`crate::LiveCatalogs`],
    /// [`crate::LiveGrants`]), for code that runs outside a handler (a
    /// command of the CLI).
    pub fn state(&self) -> &portos_core::StateMap {
        self.registry.state()
    }

    /// Who the server says it is.
    pub fn identity(&self) -> &Identity {
        &self.identity
    }
}

/// Who the server says it is: document titles, the MCP server name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// A short product name, e.g. `PortOS`.
    pub name: String,
    /// The application's version, in the documents.
    pub version: String,
    /// `serverInfo.name` of Agent Tools MCP.
    pub agent_tools_name: String,
}

impl Identity {
    pub fn new(name: &str, version: &str) -> Identity {
        Identity {
            name: name.to_owned(),
            version: version.to_owned(),
            agent_tools_name: format!("{name} Agent Tools"),
        }
    }
}

/// The scopes the runtime's transports speak for, from the application's
/// vocabulary (`#[transport(http)]`, `#[transport(mcp)]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Principals {
    /// Callers of the tool-call route and of the routes that call tools.
    pub http: portos_core::Scope,
    /// MCP clients (HTTP and stdio).
    pub mcp: portos_core::Scope,
}

impl Principals {
    /// The linked vocabulary's transport scopes; a start-up error names
    /// what is missing.
    pub fn of_vocabulary() -> Result<Principals, StartError> {
        use portos_core::{Scope, Transport};
        let of = |transport: Transport| {
            Scope::of_transport(transport).ok_or_else(|| {
                format!(
                    "the application's vocabulary names no scope for the {transport} transport: mark the scope its callers speak for with `#[transport({transport})]`"
                )
            })
        };
        match (of(Transport::Http), of(Transport::Mcp)) {
            (Ok(http), Ok(mcp)) => Ok(Principals { http, mcp }),
            (http, mcp) => Err(StartError::Application(
                [http.err(), mcp.err()]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join("; "),
            )),
        }
    }
}

/// The parts of the running server, reached through [`App`]: the
/// runtime's own. An application reaches what it needs as server state
/// (`Shared<T>` in a route or a tool, [`App::state`] elsewhere).
pub struct AppState {
    pub(crate) identity: Identity,
    /// The scopes HTTP callers and MCP clients speak for.
    pub(crate) principals: Principals,
    /// Where the mounted routes and events are (the runtime's tool
    /// endpoints and events: `mounts.tools()`).
    pub(crate) mounts: crate::mounts::Mounts,
    /// How the MCP endpoint names itself in its refusals and manifest.
    pub(crate) mcp_names: crate::McpNames,
    /// Its refusals' codes under the application's prefix.
    pub(crate) mcp_refusals: crate::names::RefusalCodes,
    pub(crate) registry: Arc<Registry>,
    /// The durable jobs of long-running tools.
    pub(crate) jobs: crate::jobs::Jobs,
    pub(crate) store: Store,
    pub(crate) auth: Auth,
    pub(crate) events: Events,
    /// The stored grants, in memory (refreshed by the routes that change them).
    pub(crate) grants: GrantsCache,
    /// The catalogs of `registry` (the application's intent groups), with their
    /// served bodies and ETags memoized by query and grants.
    pub(crate) catalogs: Arc<Catalogs>,
    /// Which paths pass the gate without credentials, answer on loopback
    /// only, or may be exposed (the runtime's, with the application's
    /// always-public prefixes).
    pub(crate) classifier: portos_core::inventory::Classifier,
    /// Which API groups are exposed (Settings → API Access), in memory.
    pub(crate) api_access: ApiAccessCache,
    /// The groups that can be exposed, as the application declared them.
    pub(crate) exposable_apis: ExposableApis,
    /// The Socket.IO layer, mounted on the same port as HTTP (one that adds
    /// nothing without the `socketio` feature).
    pub(crate) socket_layer: crate::events::SocketLayer,
    pub(crate) config: Arc<Config>,
    /// The Agent Tools settings (`agentContext`), resolved, in memory.
    pub(crate) agent_context: AgentContextCache,
    /// The application's context tools on Agent Tools MCP.
    pub(crate) context_tools: Arc<dyn ContextTools>,
    /// Told of each change the runtime's settings routes make, in its
    /// transaction (an audit trail, say).
    pub(crate) settings_observer: Arc<dyn crate::settings::SettingsObserver>,
    /// The documents, each computed once.
    pub(crate) documents: Documents,
    /// Remote mode, when configured (docs/remote.md).
    pub(crate) remote: Option<Arc<crate::remote::RemoteAuth>>,
    /// The runtime's series for `/metrics` (docs/observability.md).
    pub(crate) metrics: Arc<crate::telemetry::Metrics>,
    /// The application's series, written after the runtime's.
    pub(crate) metric_sources: Vec<Arc<dyn crate::telemetry::MetricSource>>,
    /// The live 2025 MCP sessions of the HTTP endpoint.
    pub(crate) mcp_sessions: crate::agent_tools::session::Sessions,
    /// What MCP 2026-07-28's multi-round calls seal their state with.
    pub(crate) request_state: crate::agent_tools::request_state::RequestStateKey,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("identity", &self.identity)
            .field("registry", &self.registry)
            .field("store", &self.store)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Registry(#[from] RegistryBuildError),
    #[error(transparent)]
    Catalogs(#[from] CatalogBuildError),
    #[error(transparent)]
    TimeZone(#[from] UnknownTimeZone),
    #[error(transparent)]
    Routes(#[from] portos_core::inventory::InventoryError),
    /// A mistake in what the application gave the builder.
    #[error("{0}")]
    Application(String),
}
