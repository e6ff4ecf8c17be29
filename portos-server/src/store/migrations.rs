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
    // 3: feeds and calendar: feed subscriptions and their items (deduplicated
    // by guid per feed); calendar sources and events (a source's events are
    // replaced on refresh; API events have no source). Event starts are civil
    // date-times with their zone (NULL: the user's zone), so a recurrence
    // keeps its wall-clock time across DST.
    "CREATE TABLE feeds (
        id           TEXT PRIMARY KEY,
        title        TEXT NOT NULL,
        custom_title INTEGER NOT NULL,
        source       TEXT NOT NULL UNIQUE,
        created_at   TEXT NOT NULL,
        refreshed_at TEXT,
        seq          INTEGER NOT NULL
    );
    CREATE TABLE feed_items (
        id           TEXT PRIMARY KEY,
        feed_id      TEXT NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
        guid         TEXT NOT NULL,
        title        TEXT NOT NULL,
        link         TEXT,
        published_at TEXT,
        fetched_at   TEXT NOT NULL,
        read         INTEGER NOT NULL DEFAULT 0,
        seq          INTEGER NOT NULL,
        UNIQUE (feed_id, guid)
    );
    CREATE INDEX feed_items_unread ON feed_items (read, seq DESC);
    CREATE TABLE calendar_sources (
        id           TEXT PRIMARY KEY,
        title        TEXT NOT NULL,
        source       TEXT NOT NULL UNIQUE,
        created_at   TEXT NOT NULL,
        refreshed_at TEXT,
        seq          INTEGER NOT NULL
    );
    CREATE TABLE calendar_events (
        id         TEXT PRIMARY KEY,
        source_id  TEXT REFERENCES calendar_sources (id) ON DELETE CASCADE,
        uid        TEXT,
        title      TEXT NOT NULL,
        location   TEXT,
        all_day    INTEGER NOT NULL,
        start_at   TEXT NOT NULL,
        end_at     TEXT,
        tzid       TEXT,
        rrule      TEXT,
        exdates    TEXT,
        created_at TEXT NOT NULL
    );
    CREATE INDEX calendar_events_source ON calendar_events (source_id);",
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
