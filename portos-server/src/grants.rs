//! The grants of the principals that hold them, read from the settings:
//! the MCP transport's principal from the Agent Tools settings, each
//! in-process principal from the key its application named. Every grant
//! defaults to off.

use std::sync::Arc;

use portos_core::contract::words::MAX_SCOPES;
use portos_core::{Capabilities, CatalogScope, Scope};

use crate::agent_tools::AgentContextConfig;
use crate::cached::Cached;
use crate::settings::{AGENT_CONTEXT, get_json};
use crate::store::StoreError;
use crate::store::sql::Connection;

/// Where the grants of the principals that hold them are kept: the MCP
/// transport's principal in the Agent Tools settings (the runtime's), each
/// in-process principal under the settings key its application named
/// (`ServerBuilder::stored_grants`). A principal with neither holds none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GrantSources {
    pub mcp: Option<Scope>,
    pub stored: Vec<(Scope, &'static str)>,
}

impl GrantSources {
    /// The settings keys whose principal's grants differ between `before`
    /// and `after`: the reasons a catalog change is announced with.
    pub fn changed(&self, before: &StoredGrants, after: &StoredGrants) -> Vec<&'static str> {
        self.stored
            .iter()
            .filter(|(scope, _)| before.of(*scope) != after.of(*scope))
            .map(|(_, key)| *key)
            .collect()
    }
}

/// The stored grants of every principal that holds them, by scope.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoredGrants {
    by_scope: [Capabilities; MAX_SCOPES],
}

impl StoredGrants {
    pub fn load(
        connection: &Connection,
        sources: &GrantSources,
    ) -> Result<StoredGrants, StoreError> {
        let mut grants = StoredGrants::default();
        for (scope, key) in &sources.stored {
            let held = get_json(connection, key)?
                .map(|value| Capabilities::from_json(&value))
                .unwrap_or_default();
            grants.set(*scope, held);
        }
        if let Some(scope) = sources.mcp {
            // The agent's grants are those of a valid configuration only: an
            // unknown key anywhere in `agentContext` revokes them all
            // (docs/reference.md#mcp-gating).
            let config = AgentContextConfig::resolve(get_json(connection, AGENT_CONTEXT)?.as_ref());
            grants.set(scope, config.grants());
        }
        Ok(grants)
    }

    /// What `scope` holds (nothing, for a principal that holds no grants).
    pub fn of(&self, scope: Scope) -> Capabilities {
        let held = self
            .by_scope
            .get(scope.index())
            .copied()
            .unwrap_or_default();
        // Only what the principal can be granted counts.
        held.intersect(scope.grantable().iter().copied().collect())
    }

    fn set(&mut self, scope: Scope, held: Capabilities) {
        if let Some(slot) = self.by_scope.get_mut(scope.index()) {
            *slot = held;
        }
    }

    /// The grants that decide `granted` in a catalog read of `scope`.
    pub fn for_catalog(&self, scope: CatalogScope) -> Capabilities {
        match scope {
            CatalogScope::Only(scope) => self.of(scope),
            CatalogScope::All => Capabilities::NONE,
        }
    }
}

/// The stored grants, kept in memory so that reading a catalog does not touch
/// the database. The copy is refreshed on the store's connection inside the
/// same `Store::run` as the write that changed it: the store serializes its
/// work on that connection, so the copy can never run behind the store.
#[derive(Clone, Debug)]
pub(crate) struct GrantsCache {
    sources: Arc<GrantSources>,
    current: Arc<Cached<StoredGrants>>,
}

impl GrantsCache {
    pub(crate) fn load(
        connection: &Connection,
        sources: GrantSources,
    ) -> Result<GrantsCache, StoreError> {
        Ok(GrantsCache {
            current: Cached::new(StoredGrants::load(connection, &sources)?),
            sources: Arc::new(sources),
        })
    }

    /// Where each principal's grants are kept.
    pub(crate) fn sources(&self) -> &GrantSources {
        &self.sources
    }

    pub(crate) fn current(&self) -> StoredGrants {
        self.current.current()
    }

    /// Re-reads the grants. Call it on the connection that just changed a
    /// grants source, after the commit, before
    /// leaving `Store::run` (or when another server changed them).
    pub(crate) fn refresh(&self, connection: &Connection) -> Result<StoredGrants, StoreError> {
        self.current
            .load(|| StoredGrants::load(connection, &self.sources))
    }
}

/// The server's in-memory copy of the stored grants, as server state: a
/// route of the application that writes a grants key it named
/// (`ServerBuilder::stored_grants`) refreshes the copy on the same
/// connection, after its commit and before leaving `Store::run`, so the
/// next call and catalog read see the new grants.
#[derive(Clone, Debug)]
pub struct LiveGrants(pub(crate) GrantsCache);

impl LiveGrants {
    /// Re-reads every principal's stored grants on `connection`.
    pub fn refresh(&self, connection: &Connection) -> Result<(), StoreError> {
        self.0.refresh(connection).map(drop)
    }
}
