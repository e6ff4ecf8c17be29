//! What the context tools read from the store: the newest brain captures
//! and whether an identity-export section has data. Read-only; the brain's
//! table is read through the brain domain's store, the settings directly
//! (they are the runtime's).

use portos_server::store::sql::{Connection, OptionalExtension};

use crate::domains::brain;
use crate::store::StoreError;

/// The newest `limit` brain captures, newest first, as `(id, text)`.
pub fn newest_captures(
    connection: &Connection,
    limit: usize,
) -> Result<Vec<(String, String)>, StoreError> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    Ok(brain::latest_captures(connection, limit, 0)?
        .into_iter()
        .map(|capture| (capture.id, capture.text))
        .collect())
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
    Ok(match evidence {
        Evidence::BrainCaptures => brain::has_captures(connection)?,
        Evidence::Setting(key) => connection
            .query_row("SELECT 1 FROM settings WHERE key = ?1", [key], |_| Ok(()))
            .optional()?
            .is_some(),
    })
}
