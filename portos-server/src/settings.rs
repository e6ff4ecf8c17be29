//! Settings the contract keeps in the store. Every grant defaults to off.

use crate::cached::Cached;
use std::sync::Arc;

use crate::store::sql::{Connection, OptionalExtension, params};
use portos_core::Capabilities;
use serde_json::Value;

use crate::store::StoreError;

/// Persistent Mind capability grants (`state.config.persistentMindCapabilities`).
pub const MIND_CAPABILITIES: &str = "persistentMindCapabilities";
/// Agent Tools settings (`settings.agentContext`), whose `actions` are grants.
pub const AGENT_CONTEXT: &str = "agentContext";

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

/// The stored grants of the two principals that carry capabilities.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoredGrants {
    pub mind: Capabilities,
    pub agent: Capabilities,
}

impl StoredGrants {
    pub fn load(connection: &Connection) -> Result<StoredGrants, StoreError> {
        let mind = get_json(connection, MIND_CAPABILITIES)?
            .map(|value| Capabilities::from_json(&value))
            .unwrap_or_default();
        // The agent's grants are those of a valid configuration only: an
        // unknown key anywhere in `agentContext` revokes them all
        // (docs/reference.md#mcp-gating).
        let agent =
            crate::mcp::AgentContextConfig::resolve(get_json(connection, AGENT_CONTEXT)?.as_ref())
                .grants();
        Ok(StoredGrants { mind, agent })
    }

    /// The grants that decide `granted` in a catalog read: the agent's
    /// action grants at agent scope, the mind's capabilities otherwise.
    pub fn for_catalog(&self, scope: portos_core::CatalogScope) -> Capabilities {
        match scope {
            portos_core::CatalogScope::Only(portos_core::Scope::Agent) => self.agent,
            _ => self.mind,
        }
    }
}

/// The stored grants, kept in memory so that reading a catalog does not touch
/// the database. The copy is refreshed on the store's connection inside the
/// same `Store::run` as the write that changed it: the store serializes its
/// work on that connection, so the copy can never run behind the store.
#[derive(Clone, Debug)]
pub struct GrantsCache {
    current: Arc<Cached<StoredGrants>>,
}

impl GrantsCache {
    pub fn load(connection: &Connection) -> Result<GrantsCache, StoreError> {
        Ok(GrantsCache {
            current: Cached::new(StoredGrants::load(connection)?),
        })
    }

    pub fn current(&self) -> StoredGrants {
        self.current.current()
    }

    /// Re-reads the grants. Call it on the connection that just changed
    /// `MIND_CAPABILITIES` or `AGENT_CONTEXT`, after the commit, before
    /// leaving `Store::run` (or when another server changed them).
    pub fn refresh(&self, connection: &Connection) -> Result<StoredGrants, StoreError> {
        self.current.load(|| StoredGrants::load(connection))
    }
}
