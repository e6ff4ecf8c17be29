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
    // 3: eidoverse: the local world (one row, its id drawn here), its
    // entities, chat log (AUTOINCREMENT, so a cursor is never reused), grants,
    // peer worlds, and visits in both directions.
    "CREATE TABLE eidoverse_world (
        id            INTEGER PRIMARY KEY CHECK (id = 1),
        world_id      TEXT NOT NULL,
        name          TEXT NOT NULL,
        recipe        TEXT NOT NULL,
        setup         TEXT NOT NULL,
        presence_name TEXT NOT NULL,
        presence_seen TEXT,
        accept_guests INTEGER NOT NULL DEFAULT 0,
        created_at    TEXT NOT NULL
    );
    INSERT INTO eidoverse_world
        (id, world_id, name, recipe, setup, presence_name, accept_guests, created_at)
    VALUES (1, lower(hex(randomblob(16))), 'PortOS world', 'portos-garden',
        '{\"terrain\":{\"preset\":\"flat\",\"height\":0},\"grass\":{\"density\":0.5,\"color\":\"#4a7c3a\"},\"sky\":{\"preset\":\"day\",\"sunAngle\":60}}',
        'Chief of Staff', 0, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));
    CREATE TABLE eidoverse_entities (
        id         TEXT PRIMARY KEY,
        kind       TEXT NOT NULL,
        label      TEXT NOT NULL,
        x          REAL NOT NULL,
        y          REAL NOT NULL,
        z          REAL NOT NULL,
        components TEXT NOT NULL,
        source     TEXT NOT NULL,
        source_key TEXT,
        digest     TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE UNIQUE INDEX eidoverse_entities_source
        ON eidoverse_entities (source, source_key) WHERE source_key IS NOT NULL;
    CREATE TABLE eidoverse_grants (
        subject    TEXT NOT NULL,
        permission TEXT NOT NULL,
        granted_at TEXT NOT NULL,
        PRIMARY KEY (subject, permission)
    );
    CREATE TABLE eidoverse_chat (
        cursor      INTEGER PRIMARY KEY AUTOINCREMENT,
        author      TEXT NOT NULL,
        author_kind TEXT NOT NULL,
        visit_id    TEXT,
        text        TEXT NOT NULL,
        posted_at   TEXT NOT NULL
    );
    CREATE TABLE eidoverse_peers (
        id         TEXT PRIMARY KEY,
        url        TEXT NOT NULL,
        name       TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE eidoverse_outgoing_visits (
        visit_id   TEXT PRIMARY KEY,
        peer_id    TEXT NOT NULL,
        peer_url   TEXT NOT NULL,
        world_name TEXT NOT NULL,
        started_at TEXT NOT NULL,
        left_at    TEXT
    );
    CREATE TABLE eidoverse_guest_visits (
        visit_id   TEXT PRIMARY KEY,
        guest_name TEXT NOT NULL,
        started_at TEXT NOT NULL,
        left_at    TEXT
    );",
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
