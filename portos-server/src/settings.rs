//! Settings the runtime keeps in the store, key by key, and the hook an
//! application hangs on the changes the runtime's own routes make. The
//! grants read from them are in `crate::grants`.

use crate::store::sql::{Connection, OptionalExtension, params};
use serde_json::Value;

use crate::store::StoreError;

/// Agent Tools settings (`settings.agentContext`), whose `actions` are the
/// grants of the MCP transport's principal.
pub const AGENT_CONTEXT: &str = "agentContext";

/// A change the runtime's own settings routes make, as the application's
/// [`SettingsObserver`] is told of it.
#[derive(Clone, Debug, PartialEq)]
pub struct SettingsChange {
    /// The settings key written ([`AGENT_CONTEXT`], `apiAccess`).
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
