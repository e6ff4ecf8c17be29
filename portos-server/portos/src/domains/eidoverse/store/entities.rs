//! The entity rows: get, list, count, insert, update, delete.

use portos_server::store::sql::{Connection, OptionalExtension, params};
use serde_json::Value;

use crate::domains::eidoverse::entities::{Entity, Stored};
use crate::store::StoreError;

const COLUMNS: &str = "id, kind, label, x, y, z, components, source, source_key, digest";

fn from_row(row: &portos_server::store::sql::Row<'_>) -> portos_server::store::sql::Result<Stored> {
    let components: String = row.get(6)?;
    Ok(Stored {
        entity: Entity {
            id: row.get(0)?,
            kind: row.get(1)?,
            label: row.get(2)?,
            position: [row.get(3)?, row.get(4)?, row.get(5)?],
            components: serde_json::from_str(&components).unwrap_or_default(),
            source: row.get(7)?,
            source_key: row.get(8)?,
        },
        digest: row.get(9)?,
    })
}

pub fn get(connection: &Connection, id: &str) -> Result<Option<Stored>, StoreError> {
    Ok(connection
        .query_row(
            &format!("SELECT {COLUMNS} FROM eidoverse_entities WHERE id = ?1"),
            [id],
            from_row,
        )
        .optional()?)
}

/// Every entity of one source, keyed rows first by key.
pub fn of_source(connection: &Connection, source: &str) -> Result<Vec<Stored>, StoreError> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM eidoverse_entities WHERE source = ?1 ORDER BY source_key"
    ))?;
    let rows = statement.query_map([source], from_row)?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// The first `limit` entities, oldest first.
pub fn list(connection: &Connection, limit: i64) -> Result<Vec<Entity>, StoreError> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM eidoverse_entities ORDER BY created_at, id LIMIT ?1"
    ))?;
    let rows = statement.query_map([limit], from_row)?;
    Ok(rows
        .map(|row| row.map(|stored| stored.entity))
        .collect::<Result<Vec<_>, _>>()?)
}

pub fn count(connection: &Connection) -> Result<i64, StoreError> {
    Ok(
        connection.query_row("SELECT COUNT(*) FROM eidoverse_entities", [], |row| {
            row.get(0)
        })?,
    )
}

pub fn insert(
    connection: &Connection,
    entity: &Entity,
    digest: Option<&str>,
) -> Result<(), StoreError> {
    let now = jiff::Timestamp::now().to_string();
    connection.execute(
        "INSERT INTO eidoverse_entities
            (id, kind, label, x, y, z, components, source, source_key, digest, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11)",
        params![
            entity.id,
            entity.kind,
            entity.label,
            entity.position[0],
            entity.position[1],
            entity.position[2],
            Value::Object(entity.components.clone()).to_string(),
            entity.source,
            entity.source_key,
            digest,
            now
        ],
    )?;
    Ok(())
}

/// Rewrites everything but the id, source and creation time.
pub fn update(
    connection: &Connection,
    entity: &Entity,
    digest: Option<&str>,
) -> Result<(), StoreError> {
    let now = jiff::Timestamp::now().to_string();
    connection.execute(
        "UPDATE eidoverse_entities
         SET kind = ?2, label = ?3, x = ?4, y = ?5, z = ?6, components = ?7, digest = ?8,
             updated_at = ?9
         WHERE id = ?1",
        params![
            entity.id,
            entity.kind,
            entity.label,
            entity.position[0],
            entity.position[1],
            entity.position[2],
            Value::Object(entity.components.clone()).to_string(),
            digest,
            now
        ],
    )?;
    Ok(())
}

pub fn delete(connection: &Connection, id: &str) -> Result<(), StoreError> {
    connection.execute("DELETE FROM eidoverse_entities WHERE id = ?1", [id])?;
    Ok(())
}
