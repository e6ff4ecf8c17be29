//! Assembles the running application: store, clock, registry.

use std::sync::Arc;

use portos_core::{Registry, RegistryBuildError, StateMap};

use crate::auth::Auth;
use crate::clock::{UnknownTimeZone, UserClock};
use crate::config::Config;
use crate::store::{Store, StoreError};

/// Everything a request handler needs. Cheap to clone.
#[derive(Clone, Debug)]
pub struct App {
    pub registry: Arc<Registry>,
    pub store: Store,
    pub auth: Auth,
    pub config: Arc<Config>,
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Registry(#[from] RegistryBuildError),
    #[error(transparent)]
    TimeZone(#[from] UnknownTimeZone),
}

impl App {
    /// Opens the store in the configured data directory and builds the registry.
    pub fn open(config: Config) -> Result<App, StartError> {
        let store = Store::open(&config.data_dir)?;
        App::with_store(config, store)
    }

    pub fn with_store(config: Config, store: Store) -> Result<App, StartError> {
        let registry = build_registry(&config, store.clone())?;
        let auth = Auth::load(store.clone(), config.session_ttl)?;
        Ok(App {
            registry: Arc::new(registry),
            store,
            auth,
            config: Arc::new(config),
        })
    }
}

/// The registry of every linked tool, with the server state adapters use.
pub fn build_registry(config: &Config, store: Store) -> Result<Registry, StartError> {
    let mut state = StateMap::new();
    state.insert(store);
    state.insert(UserClock::new(config.timezone.as_deref())?);
    Ok(Registry::builder().state(state).build()?)
}
