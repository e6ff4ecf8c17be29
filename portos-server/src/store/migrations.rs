//! Versioned schema migrations. Each entry runs once, in order, inside one
//! transaction with the `user_version` bump; never edit a shipped entry.

use rusqlite::Connection;

use super::StoreError;

const MIGRATIONS: &[&str] = &[
    // 1: settings and the brain inbox.
    "CREATE TABLE settings (
        key        TEXT PRIMARY KEY,
        value      TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE brain_captures (
        id          TEXT PRIMARY KEY,
        text        TEXT NOT NULL,
        captured_at TEXT NOT NULL,
        local_date  TEXT NOT NULL,
        seq         INTEGER NOT NULL
    );
    CREATE INDEX brain_captures_recent ON brain_captures (seq DESC);",
    // 2: login sessions. Only a digest of each token is kept.
    "CREATE TABLE auth_sessions (
        token_digest TEXT PRIMARY KEY,
        created_at   TEXT NOT NULL,
        expires_at   INTEGER NOT NULL
    );
    CREATE INDEX auth_sessions_expiry ON auth_sessions (expires_at);",
    // 3: catalog: the creative catalog's entries and user-defined types.
    // `refs` is a JSON array of strings.
    "CREATE TABLE catalog_types (
        name       TEXT PRIMARY KEY,
        label      TEXT NOT NULL,
        active     INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL
    );
    CREATE TABLE catalog_entries (
        id         TEXT PRIMARY KEY,
        name       TEXT NOT NULL,
        type       TEXT NOT NULL,
        body       TEXT NOT NULL,
        refs       TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE INDEX catalog_entries_type ON catalog_entries (type);",
];

fn known_version() -> u32 {
    u32::try_from(MIGRATIONS.len()).unwrap_or(u32::MAX)
}

fn current_version(connection: &Connection) -> Result<u32, StoreError> {
    Ok(connection.pragma_query_value(None, "user_version", |row| row.get(0))?)
}

pub fn apply(connection: &mut Connection) -> Result<(), StoreError> {
    let found = current_version(connection)?;
    if found > known_version() {
        return Err(StoreError::TooNew {
            found,
            known: known_version(),
        });
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        let transaction = connection.transaction()?;
        transaction.execute_batch(sql)?;
        transaction.pragma_update(
            None,
            "user_version",
            i64::try_from(index + 1).unwrap_or(i64::MAX),
        )?;
        transaction.commit()?;
    }
    Ok(())
}

/// A read-only opener cannot migrate: it only refuses a newer schema.
pub fn check_readable(connection: &Connection) -> Result<(), StoreError> {
    let found = current_version(connection)?;
    if found > known_version() {
        return Err(StoreError::TooNew {
            found,
            known: known_version(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrates_once_and_refuses_newer() {
        let mut connection = Connection::open_in_memory().expect("memory db");
        apply(&mut connection).expect("first run");
        apply(&mut connection).expect("second run is a no-op");
        assert_eq!(
            current_version(&connection).expect("version"),
            known_version()
        );
        connection
            .pragma_update(None, "user_version", known_version() + 1)
            .expect("bump");
        assert!(matches!(
            apply(&mut connection),
            Err(StoreError::TooNew { .. })
        ));
    }
}
