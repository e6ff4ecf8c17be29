//! The Mind's memories and its chosen name.

use portos_server::store::StoreError;
use portos_server::store::sql::{Connection, OptionalExtension, Row, params};

use crate::domains::mind::memory::{Memory, MemoryKind, MindIdentity, Protection};

const COLUMNS: &str = "id, text, kind, protection, archived, archived_at, created_at, updated_at";

fn memory_from(row: &Row<'_>) -> portos_server::store::sql::Result<Memory> {
    let kind: String = row.get(2)?;
    let protection: String = row.get(3)?;
    Ok(Memory {
        id: row.get(0)?,
        text: row.get(1)?,
        kind: MemoryKind::from_stored(&kind),
        protection: Protection::from_stored(&protection),
        archived: row.get(4)?,
        archived_at: row.get(5)?,
        created_at: row.get(6)?,
        updated_at: row.get(7)?,
    })
}

/// Which memories to list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listed {
    Active,
    Archived,
    All,
}

pub fn insert(connection: &Connection, memory: &Memory) -> Result<(), StoreError> {
    connection.execute(
        &format!("INSERT INTO mind_memories ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
        params![
            memory.id,
            memory.text,
            memory.kind.as_str(),
            memory.protection.as_str(),
            memory.archived,
            memory.archived_at,
            memory.created_at,
            memory.updated_at
        ],
    )?;
    Ok(())
}

pub fn get(connection: &Connection, id: &str) -> Result<Option<Memory>, StoreError> {
    Ok(connection
        .query_row(
            &format!("SELECT {COLUMNS} FROM mind_memories WHERE id = ?1"),
            [id],
            memory_from,
        )
        .optional()?)
}

/// Memories, oldest first.
pub fn list(connection: &Connection, which: Listed) -> Result<Vec<Memory>, StoreError> {
    let archived: Option<bool> = match which {
        Listed::Active => Some(false),
        Listed::Archived => Some(true),
        Listed::All => None,
    };
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM mind_memories
         WHERE ?1 IS NULL OR archived = ?1
         ORDER BY created_at, rowid"
    ))?;
    let rows = statement.query_map([archived], memory_from)?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// Sets a memory's protection; `false` when it is not there.
pub fn set_protection(
    connection: &Connection,
    id: &str,
    protection: Protection,
    at: &str,
) -> Result<bool, StoreError> {
    let changed = connection.execute(
        "UPDATE mind_memories SET protection = ?2, updated_at = ?3 WHERE id = ?1",
        params![id, protection.as_str(), at],
    )?;
    Ok(changed > 0)
}

/// Archives every active unprotected memory; how many.
pub fn archive_unprotected(connection: &Connection, at: &str) -> Result<usize, StoreError> {
    Ok(connection.execute(
        "UPDATE mind_memories SET archived = 1, archived_at = ?1, updated_at = ?1
         WHERE archived = 0 AND protection = 'standard' AND kind = 'note'",
        [at],
    )?)
}

/// How many active memories are protected.
pub fn count_active_protected(connection: &Connection) -> Result<usize, StoreError> {
    let count: i64 = connection.query_row(
        "SELECT count(*) FROM mind_memories WHERE archived = 0 AND protection <> 'standard'",
        [],
        |row| row.get(0),
    )?;
    Ok(usize::try_from(count).unwrap_or(0))
}

/// The chosen name, if any.
pub fn identity(connection: &Connection) -> Result<MindIdentity, StoreError> {
    let found = connection
        .query_row(
            "SELECT name, memory_id, chosen_at FROM mind_identity WHERE slot = 1",
            [],
            |row| {
                Ok(MindIdentity {
                    name: Some(row.get(0)?),
                    memory_id: Some(row.get(1)?),
                    chosen_at: Some(row.get(2)?),
                })
            },
        )
        .optional()?;
    Ok(found.unwrap_or_default())
}

/// Rewrites the identity memory's text (the name changed).
pub fn set_text(
    connection: &Connection,
    id: &str,
    text: &str,
    at: &str,
) -> Result<bool, StoreError> {
    let changed = connection.execute(
        "UPDATE mind_memories SET text = ?2, updated_at = ?3 WHERE id = ?1",
        params![id, text, at],
    )?;
    Ok(changed > 0)
}

/// Stores the chosen name and the memory that holds it.
pub fn save_identity(
    connection: &Connection,
    name: &str,
    memory_id: &str,
    at: &str,
) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO mind_identity (slot, name, memory_id, chosen_at) VALUES (1, ?1, ?2, ?3)
         ON CONFLICT (slot) DO UPDATE SET name = excluded.name, memory_id = excluded.memory_id,
             chosen_at = excluded.chosen_at",
        params![name, memory_id, at],
    )?;
    Ok(())
}
