//! The configured peer rows.

use portos_server::store::sql::{Connection, OptionalExtension, params};

use crate::domains::eidoverse::peers::{MAX_PEERS, Peer};
use crate::store::StoreError;

pub fn list(connection: &Connection) -> Result<Vec<Peer>, StoreError> {
    let mut statement =
        connection.prepare_cached("SELECT id, url, name FROM eidoverse_peers ORDER BY id")?;
    let rows = statement.query_map([], |row| {
        Ok(Peer {
            id: row.get(0)?,
            url: row.get(1)?,
            name: row.get(2)?,
        })
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

pub fn get(connection: &Connection, id: &str) -> Result<Option<Peer>, StoreError> {
    Ok(connection
        .query_row(
            "SELECT id, url, name FROM eidoverse_peers WHERE id = ?1",
            [id],
            |row| {
                Ok(Peer {
                    id: row.get(0)?,
                    url: row.get(1)?,
                    name: row.get(2)?,
                })
            },
        )
        .optional()?)
}

/// Adds or replaces a peer; `Err` when the list is full.
pub fn upsert(connection: &mut Connection, peer: &Peer) -> Result<Result<(), String>, StoreError> {
    // Counted and added on every server one at a time.
    let transaction = connection.transaction()?;
    transaction.lock_name("eidoverse:peers")?;
    let connection = &transaction;
    let exists = get(connection, &peer.id)?.is_some();
    let count: i64 =
        connection.query_row("SELECT COUNT(*) FROM eidoverse_peers", [], |row| row.get(0))?;
    if !exists && count >= MAX_PEERS {
        return Ok(Err(format!(
            "at most {MAX_PEERS} peers can be configured; remove one first"
        )));
    }
    connection.execute(
        "INSERT INTO eidoverse_peers (id, url, name, created_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (id) DO UPDATE SET url = excluded.url, name = excluded.name",
        params![
            peer.id,
            peer.url,
            peer.name,
            jiff::Timestamp::now().to_string()
        ],
    )?;
    transaction.commit()?;
    Ok(Ok(()))
}

/// Whether a peer was removed.
pub fn remove(connection: &Connection, id: &str) -> Result<bool, StoreError> {
    Ok(connection.execute("DELETE FROM eidoverse_peers WHERE id = ?1", [id])? > 0)
}
