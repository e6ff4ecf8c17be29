//! Visits in both directions: guests from peer worlds visiting this one,
//! and this world's presence visiting peers (so a visit id this world never
//! opened is refused before anything is sent).

use portos_server::store::sql::{Connection, OptionalExtension, params};

use crate::domains::eidoverse::peers::Peer;
use crate::store::StoreError;

/// How many guests are visiting now.
pub fn active_guests(connection: &Connection) -> Result<i64, StoreError> {
    Ok(connection.query_row(
        "SELECT COUNT(*) FROM eidoverse_guest_visits WHERE left_at IS NULL",
        [],
        |row| row.get(0),
    )?)
}

pub fn open_guest_visit(
    connection: &Connection,
    visit_id: &str,
    guest_name: &str,
) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO eidoverse_guest_visits (visit_id, guest_name, started_at) VALUES (?1, ?2, ?3)",
        params![visit_id, guest_name, jiff::Timestamp::now().to_string()],
    )?;
    Ok(())
}

/// The guest name of an active visit.
pub fn active_guest(connection: &Connection, visit_id: &str) -> Result<Option<String>, StoreError> {
    Ok(connection
        .query_row(
            "SELECT guest_name FROM eidoverse_guest_visits WHERE visit_id = ?1 AND left_at IS NULL",
            [visit_id],
            |row| row.get(0),
        )
        .optional()?)
}

/// Ends an active guest visit; false when there was none.
pub fn end_guest_visit(connection: &Connection, visit_id: &str) -> Result<bool, StoreError> {
    let changed = connection.execute(
        "UPDATE eidoverse_guest_visits SET left_at = ?2 WHERE visit_id = ?1 AND left_at IS NULL",
        params![visit_id, jiff::Timestamp::now().to_string()],
    )?;
    Ok(changed == 1)
}

/// An open visit of this world's presence to a peer.
#[derive(Clone, Debug)]
pub struct OutgoingVisit {
    pub peer_id: String,
    pub peer_url: String,
    /// The peer's name when the visit began.
    pub world_name: String,
}

pub fn open_outgoing(
    connection: &Connection,
    visit_id: &str,
) -> Result<Option<OutgoingVisit>, StoreError> {
    Ok(connection
        .query_row(
            "SELECT peer_id, peer_url, world_name FROM eidoverse_outgoing_visits
             WHERE visit_id = ?1 AND left_at IS NULL",
            [visit_id],
            |row| {
                Ok(OutgoingVisit {
                    peer_id: row.get(0)?,
                    peer_url: row.get(1)?,
                    world_name: row.get(2)?,
                })
            },
        )
        .optional()?)
}

pub fn record_outgoing(
    connection: &Connection,
    visit_id: &str,
    peer: &Peer,
) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO eidoverse_outgoing_visits (visit_id, peer_id, peer_url, world_name, started_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            visit_id,
            peer.id,
            peer.url,
            peer.name,
            jiff::Timestamp::now().to_string()
        ],
    )?;
    Ok(())
}

pub fn end_outgoing(connection: &Connection, visit_id: &str) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE eidoverse_outgoing_visits SET left_at = ?2 WHERE visit_id = ?1",
        params![visit_id, jiff::Timestamp::now().to_string()],
    )?;
    Ok(())
}
