//! Versioned schema migrations, one numbered list per component (the runtime
//! itself, then each of the application's domains), written once for both
//! engines: each step is SQLite's SQL, which PostgreSQL runs in its own
//! types (`sql::postgres_migration`). Each step runs once, in order, inside
//! one transaction with its version bump; never edit a shipped step.
//! Versions are kept per component in `store_migrations`, so a database can
//! hold the tables of several components and a server that links fewer of
//! them leaves the others alone. On PostgreSQL several servers may start
//! at once: they take turns (an advisory lock), so each step still runs
//! once.
//!
//! Stores written before components existed kept one `PRAGMA user_version`;
//! every component's first step uses `IF NOT EXISTS`, so adopting such a
//! store creates only what it lacks.

use super::StoreError;
use super::sql::{self, Connection, Engine, OptionalExtension, params};

/// The tables of one component and the steps that build them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schema {
    /// A stable name: the key its version is stored under.
    pub component: &'static str,
    /// The steps, oldest first; step `n` (1-based) brings the component to
    /// version `n`.
    pub migrations: &'static [&'static str],
}

impl Schema {
    pub fn version(&self) -> u32 {
        u32::try_from(self.migrations.len()).unwrap_or(u32::MAX)
    }
}

const VERSIONS_TABLE: &str = "CREATE TABLE IF NOT EXISTS store_migrations (
    component  TEXT PRIMARY KEY,
    version    INTEGER NOT NULL,
    updated_at TEXT NOT NULL
)";

/// The advisory lock PostgreSQL servers take turns on while migrating
/// (any fixed number; this one spells "portos").
const MIGRATION_LOCK: i64 = 0x706f_7274_6f73;

pub(super) fn versions_table_exists(connection: &Connection) -> Result<bool, StoreError> {
    let sql = match connection.engine() {
        Engine::Sqlite => {
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'store_migrations'"
        }
        Engine::Postgres => "SELECT 1 WHERE to_regclass('store_migrations') IS NOT NULL",
    };
    Ok(connection
        .query_row(sql, [], |row| row.get::<_, i64>(0))
        .optional()?
        .is_some())
}

fn stored_version(connection: &Connection, component: &str) -> Result<u32, StoreError> {
    if !versions_table_exists(connection)? {
        return Ok(0);
    }
    let version: Option<u32> = connection
        .query_row(
            "SELECT version FROM store_migrations WHERE component = ?1",
            [component],
            |row| row.get(0),
        )
        .optional()?;
    Ok(version.unwrap_or(0))
}

/// A step's SQL for `engine`.
fn step_sql(engine: Engine, sql: &str) -> std::borrow::Cow<'_, str> {
    match engine {
        Engine::Sqlite => sql.into(),
        Engine::Postgres => sql::postgres_migration(sql).into(),
    }
}

/// Brings every component to its newest version, refusing a store that a
/// newer build already moved past this one (nothing is changed then).
pub(super) fn apply(connection: &mut Connection, schemas: &[Schema]) -> Result<(), StoreError> {
    let engine = connection.engine();
    if engine == Engine::Postgres {
        connection.query_row("SELECT pg_advisory_lock(?1)", [MIGRATION_LOCK], |_| Ok(()))?;
    }
    let applied = apply_steps(connection, schemas);
    if engine == Engine::Postgres {
        let unlocked = connection.query_row(
            "SELECT pg_advisory_unlock(?1)",
            [MIGRATION_LOCK],
            |_| Ok(()),
        );
        return applied.and(unlocked.map_err(StoreError::from));
    }
    applied
}

fn apply_steps(connection: &mut Connection, schemas: &[Schema]) -> Result<(), StoreError> {
    check_readable(connection, schemas)?;
    let engine = connection.engine();
    if engine == Engine::Postgres {
        connection.execute_batch(sql::POSTGRES_PRELUDE)?;
    }
    connection.execute_batch(&step_sql(engine, VERSIONS_TABLE))?;
    for schema in schemas {
        let found = stored_version(connection, schema.component)?;
        for (index, sql) in schema.migrations.iter().enumerate().skip(found as usize) {
            let transaction = connection.transaction()?;
            transaction
                .execute_batch(&step_sql(engine, sql))
                .map_err(|source| StoreError::Migration {
                    component: schema.component,
                    version: index + 1,
                    source,
                })?;
            transaction.execute(
                "INSERT INTO store_migrations (component, version, updated_at)
                 VALUES (?1, ?2, ?3)
                 ON CONFLICT (component) DO UPDATE
                 SET version = excluded.version, updated_at = excluded.updated_at",
                params![
                    schema.component,
                    i64::try_from(index + 1).unwrap_or(i64::MAX),
                    jiff::Timestamp::now().to_string()
                ],
            )?;
            transaction.commit()?;
        }
    }
    Ok(())
}

/// A read-only opener cannot migrate: it only refuses a newer schema (and a
/// component declared twice, whose second list would never run).
pub(super) fn check_readable(
    connection: &Connection,
    schemas: &[Schema],
) -> Result<(), StoreError> {
    for (index, schema) in schemas.iter().enumerate() {
        if schemas[..index]
            .iter()
            .any(|earlier| earlier.component == schema.component)
        {
            return Err(StoreError::DuplicateComponent(schema.component));
        }
    }
    for schema in schemas {
        let found = stored_version(connection, schema.component)?;
        if found > schema.version() {
            return Err(StoreError::TooNew {
                component: schema.component,
                found,
                known: schema.version(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: Schema = Schema {
        component: "one",
        migrations: &[
            "CREATE TABLE IF NOT EXISTS a (x INTEGER)",
            "CREATE TABLE b (y INTEGER)",
        ],
    };
    const TWO: Schema = Schema {
        component: "two",
        migrations: &["CREATE TABLE IF NOT EXISTS c (z INTEGER)"],
    };

    #[test]
    fn migrates_each_component_once_and_refuses_newer() {
        let mut connection = Connection::open_in_memory().expect("memory db");
        apply(&mut connection, &[ONE]).expect("first run");
        apply(&mut connection, &[ONE, TWO]).expect("a new component is added");
        apply(&mut connection, &[ONE, TWO]).expect("a second run is a no-op");
        assert_eq!(stored_version(&connection, "one").expect("version"), 2);
        assert_eq!(stored_version(&connection, "two").expect("version"), 1);
        connection
            .execute(
                "UPDATE store_migrations SET version = 5 WHERE component = 'two'",
                [],
            )
            .expect("bump");
        let refused = apply(&mut connection, &[ONE, TWO]);
        assert!(
            matches!(
                refused,
                Err(StoreError::TooNew {
                    component: "two",
                    found: 5,
                    known: 1
                })
            ),
            "{refused:?}"
        );
    }

    #[test]
    fn a_component_left_out_keeps_its_tables() {
        let mut connection = Connection::open_in_memory().expect("memory db");
        apply(&mut connection, &[ONE, TWO]).expect("both");
        apply(&mut connection, &[ONE]).expect("only one");
        assert_eq!(stored_version(&connection, "two").expect("version"), 1);
    }

    #[test]
    fn a_component_declared_twice_is_refused_and_nothing_is_created() {
        let mut connection = Connection::open_in_memory().expect("memory");
        let again = Schema {
            component: "one",
            migrations: &["CREATE TABLE d (w INTEGER)"],
        };
        let refused = apply(&mut connection, &[ONE, TWO, again]);
        assert!(
            matches!(refused, Err(StoreError::DuplicateComponent("one"))),
            "{refused:?}"
        );
        let tables: i64 = connection
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |row| row.get(0),
            )
            .expect("count");
        assert_eq!(tables, 0, "refused before anything ran");
    }
}
