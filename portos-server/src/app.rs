//! Assembles the running application: store, clock, registry.

use std::sync::Arc;

use portos_core::{
    CatalogBuildError, Catalogs, Registry, RegistryBuildError, RegistryBuilder, StateMap,
};
use socketioxide::layer::SocketIoLayer;

use crate::api_access::ApiAccessCache;
use crate::auth::Auth;
use crate::clock::{UnknownTimeZone, UserClock};
use crate::config::Config;
use crate::events::Events;
use crate::settings::GrantsCache;
use crate::store::{Store, StoreError};

/// Everything a request handler needs: one shared allocation, so the clone
/// each extractor takes is a single reference-count increment.
#[derive(Clone)]
pub struct App(Arc<AppState>);

impl std::ops::Deref for App {
    type Target = AppState;

    fn deref(&self) -> &AppState {
        &self.0
    }
}

/// The parts of the application, reached through [`App`].
pub struct AppState {
    pub registry: Arc<Registry>,
    pub store: Store,
    pub auth: Auth,
    pub events: Events,
    /// The stored grants, in memory (refreshed by the routes that change them).
    pub grants: GrantsCache,
    /// The catalogs of `registry` (PortOS's intent groups), with their
    /// served bodies and ETags memoized by query and grants.
    pub catalogs: Arc<Catalogs>,
    /// Which API groups are exposed (Settings → API Access), in memory.
    pub api_access: ApiAccessCache,
    /// The Socket.IO layer, mounted on the same port as HTTP.
    pub socket_layer: SocketIoLayer,
    pub config: Arc<Config>,
    /// The user's clock (the same zone the adapters use).
    pub clock: UserClock,
    /// The Agent Tools settings (`agentContext`), resolved, in memory.
    pub agent_context: crate::mcp::AgentContextCache,
    /// Managed apps for the workspaces context scope.
    pub workspaces: Arc<dyn crate::mcp::context::WorkspaceSource>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("registry", &self.registry)
            .field("store", &self.store)
            .field("config", &self.config)
            .finish_non_exhaustive()
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
    #[error("cannot build the outbound HTTP client: {0}")]
    Outbound(#[from] reqwest::Error),
}

impl App {
    /// Opens the store in the configured data directory and builds the registry.
    pub fn open(config: Config) -> Result<App, StartError> {
        let store = Store::open(&config.data_dir)?;
        App::with_store(config, store)
    }

    pub fn with_store(config: Config, store: Store) -> Result<App, StartError> {
        let (socket_layer, events) = Events::new();
        let registry = Arc::new(
            registry_builder(&config, store.clone())?
                .on_result(events.tool_observer())
                .build()?,
        );
        let catalogs = Arc::new(crate::contract_facts::catalogs(registry.clone())?);
        let auth = Auth::load(store.clone(), config.session_ttl)?;
        let grants = store.run_blocking(|connection| GrantsCache::load(connection))?;
        let api_access = store.run_blocking(|connection| ApiAccessCache::load(connection))?;
        let clock = UserClock::new(config.timezone.as_deref())?;
        let agent_context =
            store.run_blocking(|connection| crate::mcp::AgentContextCache::load(connection))?;
        let workspaces = Arc::new(crate::mcp::context::TaskStoreWorkspaces::new(store.clone()));
        Ok(App(Arc::new(AppState {
            grants,
            api_access,
            catalogs,
            registry,
            store,
            auth,
            events,
            socket_layer,
            config: Arc::new(config),
            clock,
            agent_context,
            workspaces,
        })))
    }
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The registry of every linked tool, with the server state adapters use.
pub fn build_registry(config: &Config, store: Store) -> Result<Registry, StartError> {
    Ok(registry_builder(config, store)?.build()?)
}

fn registry_builder(config: &Config, store: Store) -> Result<RegistryBuilder, StartError> {
    let mut state = StateMap::new();
    state.insert(store);
    state.insert(UserClock::new(config.timezone.as_deref())?);
    state.insert(crate::open_meteo::OpenMeteo::new(&config.weather_url)?);
    state.insert(crate::processes::ProcessWatch::new(
        config.watch_processes.clone(),
    ));
    Ok(crate::contract_facts::registry_builder().state(state))
}
