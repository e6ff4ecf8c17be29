//! Permissions granted to others in this world (augment's `grant`).

use portos_server::store::sql::{Connection, params};

use crate::store::StoreError;

/// Grants `permission` to `subject` (granting it again changes nothing).
pub fn grant(connection: &Connection, subject: &str, permission: &str) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO eidoverse_grants (subject, permission, granted_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (subject, permission) DO NOTHING",
        params![subject, permission, jiff::Timestamp::now().to_string()],
    )?;
    Ok(())
}
