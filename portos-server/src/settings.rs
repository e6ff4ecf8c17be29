//! Settings the contract keeps in the store. Every grant defaults to off.

use crate::cached::Cached;
use std::sync::Arc;

use crate::store::sql::{Connection, OptionalExtension, params};
use portos_core::contract::words::MAX_SCOPES;
use portos_core::{Capabilities, CatalogScope, Scope};
use serde_json::Value;

use crate::store::StoreError;

/// Agent Tools settings (`settings.agentContext`), whose `actions` are the
/// grants of the MCP transport's principal.
pub const AGENT_CONTEXT: &str = "agentContext";

/// A change the runtime's own settings routes make, as the application's
/// [`SettingsObserver`] is told of it.
#[derive(Clone, Debug, PartialEq)]
pub struct SettingsChange {
    /// The settings key written ([`AGENT_CONTEXT`],
    /// [`API_ACCESS`](crate::api_access::API_ACCESS)).
    pub key: &'static str,
    /// Its name for a person: `Agent Tools`, `API Access`.
    pub name: &'static str,
    /// What changed, in a sentence.
    pub summary: String,
    /// What changed, as JSON.
    pub details: Value,
    /// The route that changed it: its method and path.
    pub method: &'static str,
    pub route: &'static str,
}

/// Told of each change to the runtime's own settings in the transaction
/// that makes it, before it commits: what it writes (an audit row) commits
/// with the change or not at all, and an error refuses the change.
pub trait SettingsObserver: Send + Sync + 'static {
    fn changed(&self, transaction: &Connection, change: &SettingsChange) -> Result<(), StoreError>;
}

/// The default: nothing besides the change itself is written.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoSettingsObserver;

impl SettingsObserver for NoSettingsObserver {
    fn changed(&self, _: &Connection, _: &SettingsChange) -> Result<(), StoreError> {
        Ok(())
    }
}

pub fn get_json(connection: &Connection, key: &str) -> Result<Option<Value>, StoreError> {
    let text: Option<String> = connection
        .query_row("SELECT value FROM settings WHERE key = ?1", [key], |row| {
            row.get(0)
        })
        .optional()?;
    // A value that no longer parses reads as absent: grants fail closed.
    Ok(text.and_then(|text| serde_json::from_str(&text).ok()))
}

pub fn set_json(connection: &Connection, key: &str, value: &Value) -> Result<(), StoreError> {
    let now = jiff::Timestamp::now().to_string();
    connection.execute(
        "INSERT INTO settings (key, value, updated_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        params![key, value.to_string(), now],
    )?;
    Ok(())
}

/// Holds `key` until the transaction open on `connection` ends, so that a
/// read-modify-write of it on another server waits for this one to commit
/// and then reads what it wrote (read the value after taking the lock).
pub fn lock_for_change(connection: &Connection, key: &str) -> Result<(), StoreError> {
    Ok(connection.lock_name(&format!("settings:{key}"))?)
}

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
            let config = crate::mcp::AgentContextConfig::resolve(
                get_json(connection, AGENT_CONTEXT)?.as_ref(),
            );
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
pub struct GrantsCache {
    sources: Arc<GrantSources>,
    current: Arc<Cached<StoredGrants>>,
}

impl GrantsCache {
    pub fn load(connection: &Connection, sources: GrantSources) -> Result<GrantsCache, StoreError> {
        Ok(GrantsCache {
            current: Cached::new(StoredGrants::load(connection, &sources)?),
            sources: Arc::new(sources),
        })
    }

    /// Where each principal's grants are kept.
    pub fn sources(&self) -> &GrantSources {
        &self.sources
    }

    pub fn current(&self) -> StoredGrants {
        self.current.current()
    }

    /// Re-reads the grants. Call it on the connection that just changed a
    /// grants source, after the commit, before
    /// leaving `Store::run` (or when another server changed them).
    pub fn refresh(&self, connection: &Connection) -> Result<StoredGrants, StoreError> {
        self.current
            .load(|| StoredGrants::load(connection, &self.sources))
    }
}
