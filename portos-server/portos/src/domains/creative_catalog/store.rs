//! The creative catalog's tables and every SQL statement on them: the
//! user-defined types and the entries (`refs` kept as a JSON array).

use portos_server::store::sql::{Connection, OptionalExtension, params};
use portos_server::store::{Schema, StoreError};

use super::model::{CatalogType, Entry, Hit, snippet};

portos_server::store_schema!(
    /// The creative catalog's entries and user-defined types; `refs` is a JSON
    /// array of strings.
    CREATIVE_CATALOG = Schema {
        component: "creative-catalog",
        migrations: &[
            // 1 (IF NOT EXISTS: a store written before components has them).
            "CREATE TABLE IF NOT EXISTS catalog_types (
                name       TEXT PRIMARY KEY,
                label      TEXT NOT NULL,
                active     INTEGER NOT NULL DEFAULT 1,
                created_at TEXT NOT NULL
            );
            CREATE TABLE IF NOT EXISTS catalog_entries (
                id         TEXT PRIMARY KEY,
                name       TEXT NOT NULL,
                type       TEXT NOT NULL,
                body       TEXT NOT NULL,
                refs       TEXT NOT NULL,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL
            );
            CREATE INDEX IF NOT EXISTS catalog_entries_type ON catalog_entries (type);",
        ],
    }
);

/// Whether the user type `name` is active; `None` when there is none.
pub fn user_type_active(connection: &Connection, name: &str) -> Result<Option<bool>, StoreError> {
    Ok(connection
        .query_row(
            "SELECT active FROM catalog_types WHERE name = ?1",
            [name],
            |row| row.get(0),
        )
        .optional()?)
}

/// The user's own types, by name.
pub fn user_types(connection: &Connection) -> Result<Vec<CatalogType>, StoreError> {
    let mut statement =
        connection.prepare_cached("SELECT name, label, active FROM catalog_types ORDER BY name")?;
    let rows = statement.query_map([], |row| {
        Ok(CatalogType {
            name: row.get(0)?,
            label: row.get(1)?,
            built_in: false,
            active: row.get(2)?,
        })
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// Adds the user type `kind`; `false` when one of its name exists.
pub fn insert_type(connection: &Connection, kind: &CatalogType) -> Result<bool, StoreError> {
    let inserted = connection.execute(
        "INSERT INTO catalog_types (name, label, active, created_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (name) DO NOTHING",
        params![
            kind.name,
            kind.label,
            kind.active,
            jiff::Timestamp::now().to_string()
        ],
    )?;
    Ok(inserted > 0)
}

/// Changes the user type `name` (`None` keeps a value); `false` when there
/// is none.
pub fn update_type(
    connection: &Connection,
    name: &str,
    label: Option<&str>,
    active: Option<bool>,
) -> Result<bool, StoreError> {
    let changed = connection.execute(
        "UPDATE catalog_types SET label = COALESCE(?2, label), active = COALESCE(?3, active)
         WHERE name = ?1",
        params![name, label, active],
    )?;
    Ok(changed > 0)
}

pub fn insert_entry(connection: &Connection, entry: &Entry) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO catalog_entries (id, name, type, body, refs, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            entry.id,
            entry.name,
            entry.kind,
            entry.body,
            refs_json(&entry.refs),
            entry.created_at,
            entry.updated_at
        ],
    )?;
    Ok(())
}

/// Writes every field of `entry` but its creation time over the stored one.
pub fn update_entry(connection: &Connection, entry: &Entry) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE catalog_entries SET name = ?2, type = ?3, body = ?4, refs = ?5, updated_at = ?6
         WHERE id = ?1",
        params![
            entry.id,
            entry.name,
            entry.kind,
            entry.body,
            refs_json(&entry.refs),
            entry.updated_at
        ],
    )?;
    Ok(())
}

/// Deletes the entry `id`; `false` when there was none.
pub fn delete_entry(connection: &Connection, id: &str) -> Result<bool, StoreError> {
    Ok(connection.execute("DELETE FROM catalog_entries WHERE id = ?1", [id])? > 0)
}

pub fn entry(connection: &Connection, id: &str) -> Result<Option<Entry>, StoreError> {
    Ok(connection
        .query_row(
            "SELECT id, name, type, body, refs, created_at, updated_at
             FROM catalog_entries WHERE id = ?1",
            [id],
            entry_from_row,
        )
        .optional()?)
}

/// Every entry, by name; only those of `kind` when given.
pub fn list_entries(connection: &Connection, kind: Option<&str>) -> Result<Vec<Entry>, StoreError> {
    let mut statement = connection.prepare_cached(
        "SELECT id, name, type, body, refs, created_at, updated_at FROM catalog_entries
         WHERE ?1 IS NULL OR type = ?1
         ORDER BY portos_fold(name), id",
    )?;
    let rows = statement.query_map([kind], entry_from_row)?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// Entries whose name or body contains `query` (case-insensitive), name
/// matches first, then by name; only those of `kind` when given.
pub fn search(
    connection: &Connection,
    query: &str,
    kind: Option<&str>,
    limit: usize,
) -> Result<Vec<Hit>, StoreError> {
    let needle = query.to_lowercase();
    let mut statement = connection.prepare_cached(
        "SELECT id, name, type, body, json_array_length(refs) FROM catalog_entries
         WHERE (instr(portos_fold(name), ?1) > 0 OR instr(portos_fold(body), ?1) > 0)
           AND (?2 IS NULL OR type = ?2)
         ORDER BY instr(portos_fold(name), ?1) = 0, portos_fold(name), id
         LIMIT ?3",
    )?;
    let rows = statement.query_map(
        params![needle, kind, i64::try_from(limit).unwrap_or(i64::MAX)],
        |row| {
            let body: String = row.get(3)?;
            let refs_count: i64 = row.get(4)?;
            Ok(Hit {
                id: row.get(0)?,
                name: row.get(1)?,
                kind: row.get(2)?,
                snippet: snippet(&body, &needle),
                refs_count: usize::try_from(refs_count).unwrap_or(0),
            })
        },
    )?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

fn refs_json(refs: &[String]) -> String {
    serde_json::Value::from(refs.to_vec()).to_string()
}

fn entry_from_row(
    row: &portos_server::store::sql::Row<'_>,
) -> portos_server::store::sql::Result<Entry> {
    let refs: String = row.get(4)?;
    Ok(Entry {
        id: row.get(0)?,
        name: row.get(1)?,
        kind: row.get(2)?,
        body: row.get(3)?,
        // Written by `refs_json` only; an unreadable value reads as none.
        refs: serde_json::from_str(&refs).unwrap_or_default(),
        created_at: row.get(5)?,
        updated_at: row.get(6)?,
    })
}
