//! What the context tools read from the store: the newest brain captures
//! and whether an identity-export section has data. Read-only; the tables
//! belong to the brain domain and the runtime's settings.

use rusqlite::{Connection, OptionalExtension};

use crate::store::StoreError;

/// The newest `limit` brain captures, newest first, as `(id, text)`.
pub fn newest_captures(
    connection: &Connection,
    limit: usize,
) -> Result<Vec<(String, String)>, StoreError> {
    let mut statement = connection
        .prepare_cached("SELECT id, text FROM brain_captures ORDER BY seq DESC LIMIT ?1")?;
    let rows = statement
        .query_map([i64::try_from(limit).unwrap_or(i64::MAX)], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// What shows that an identity-export section has data.
#[derive(Clone, Copy, Debug)]
pub enum Evidence {
    /// Any brain capture.
    BrainCaptures,
    /// The runtime's setting with this key.
    Setting(&'static str),
}

/// Whether the `evidence` of a section is in the store.
pub fn has_data(connection: &Connection, evidence: Evidence) -> Result<bool, StoreError> {
    let found = match evidence {
        Evidence::BrainCaptures => connection
            .query_row("SELECT 1 FROM brain_captures LIMIT 1", [], |_| Ok(()))
            .optional()?,
        Evidence::Setting(key) => connection
            .query_row("SELECT 1 FROM settings WHERE key = ?1", [key], |_| Ok(()))
            .optional()?,
    };
    Ok(found.is_some())
}
