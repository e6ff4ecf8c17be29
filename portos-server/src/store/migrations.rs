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
    // 3: cos/ledger: the user-actions ledger, CoS tasks and their agent runs.
    "CREATE TABLE user_actions (
        seq            INTEGER PRIMARY KEY AUTOINCREMENT,
        happened_at_ms INTEGER NOT NULL,
        type           TEXT NOT NULL,
        actor          TEXT NOT NULL CHECK (actor IN ('user', 'mind', 'schedule', 'system')),
        summary        TEXT NOT NULL,
        target         TEXT,
        target_name    TEXT,
        payload        TEXT NOT NULL,
        source_route   TEXT,
        source_method  TEXT
    );
    CREATE INDEX user_actions_recent ON user_actions (happened_at_ms DESC, seq DESC);
    CREATE TABLE cos_tasks (
        id          TEXT PRIMARY KEY,
        description TEXT NOT NULL,
        app         TEXT,
        status      TEXT NOT NULL CHECK (status IN
                      ('pending', 'in_progress', 'blocked', 'completed', 'failed', 'cancelled')),
        priority    TEXT NOT NULL CHECK (priority IN ('LOW', 'MEDIUM', 'HIGH', 'CRITICAL')),
        created_at  TEXT NOT NULL,
        updated_at  TEXT NOT NULL,
        seq         INTEGER NOT NULL
    );
    CREATE INDEX cos_tasks_recent ON cos_tasks (seq DESC);
    CREATE INDEX cos_tasks_app ON cos_tasks (app, status);
    CREATE TABLE cos_agent_runs (
        id             TEXT PRIMARY KEY,
        task_id        TEXT NOT NULL REFERENCES cos_tasks (id) ON DELETE CASCADE,
        phase          TEXT NOT NULL,
        started_at_ms  INTEGER NOT NULL,
        finished_at_ms INTEGER,
        outcome        TEXT CHECK (outcome IN ('completed', 'failed', 'cancelled'))
    );
    CREATE INDEX cos_agent_runs_running ON cos_agent_runs (finished_at_ms, started_at_ms);
    CREATE INDEX cos_agent_runs_task ON cos_agent_runs (task_id);",
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
