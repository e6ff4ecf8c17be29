//! The host side of travel: the guest visits this world receives. The guest
//! routes (`http/eidoverse_guest.rs`) call these.

use rusqlite::{Connection, OptionalExtension, params};

use super::chat::{self, AuthorKind, Message};
use super::protocol::{self, Arrival, HostWorld, Welcome};
use super::world;
use crate::store::StoreError;

/// The most guests at once.
pub const MAX_ACTIVE_GUESTS: i64 = 20;

/// Why the host turns a guest away.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// The owner has not opened the world to guests.
    NotAccepting,
    Full,
    UnknownVisit,
}

/// The visiting presence's name as shown in chat: `"Name (from World)"`.
fn display_name(arrival: &Arrival) -> String {
    format!(
        "{} (from {})",
        arrival.guest_name.trim(),
        arrival.from_world.trim()
    )
}

/// Whether the owner lets guests in.
pub fn accepting(connection: &Connection) -> Result<bool, StoreError> {
    Ok(world::load(connection)?.accept_guests)
}

pub fn host_world(world: &world::World) -> HostWorld {
    HostWorld {
        id: world.identity.id.clone(),
        name: world.identity.name.clone(),
        recipe: world.identity.recipe.clone(),
    }
}

/// Lets a guest in (the caller has validated the arrival's shape).
pub fn arrive(
    connection: &mut Connection,
    arrival: &Arrival,
) -> Result<Result<Welcome, Refused>, StoreError> {
    let transaction = connection.transaction()?;
    let world = world::load(&transaction)?;
    if !world.accept_guests {
        return Ok(Err(Refused::NotAccepting));
    }
    let active: i64 = transaction.query_row(
        "SELECT COUNT(*) FROM eidoverse_guest_visits WHERE left_at IS NULL",
        [],
        |row| row.get(0),
    )?;
    if active >= MAX_ACTIVE_GUESTS {
        return Ok(Err(Refused::Full));
    }
    let visit_id =
        protocol::new_visit_id().map_err(|error| StoreError::Worker(error.to_string()))?;
    transaction.execute(
        "INSERT INTO eidoverse_guest_visits (visit_id, guest_name, started_at) VALUES (?1, ?2, ?3)",
        params![
            visit_id,
            display_name(arrival),
            jiff::Timestamp::now().to_string()
        ],
    )?;
    transaction.commit()?;
    Ok(Ok(Welcome {
        visit_id,
        world: host_world(&world),
        host: world.presence.name,
    }))
}

/// The guest name of an active visit.
fn active_guest(connection: &Connection, visit_id: &str) -> Result<Option<String>, StoreError> {
    Ok(connection
        .query_row(
            "SELECT guest_name FROM eidoverse_guest_visits WHERE visit_id = ?1 AND left_at IS NULL",
            [visit_id],
            |row| row.get(0),
        )
        .optional()?)
}

/// Posts a guest's line into this world's chat.
pub fn say(
    connection: &Connection,
    visit_id: &str,
    text: &str,
) -> Result<Result<Message, Refused>, StoreError> {
    if !accepting(connection)? {
        return Ok(Err(Refused::NotAccepting));
    }
    let Some(guest) = active_guest(connection, visit_id)? else {
        return Ok(Err(Refused::UnknownVisit));
    };
    Ok(Ok(chat::post(
        connection,
        &guest,
        AuthorKind::Guest,
        Some(visit_id),
        text,
    )?))
}

/// The chat a guest of an active visit may read.
pub fn read(
    connection: &Connection,
    visit_id: &str,
    after: i64,
) -> Result<Result<chat::Page, Refused>, StoreError> {
    if !accepting(connection)? {
        return Ok(Err(Refused::NotAccepting));
    }
    if active_guest(connection, visit_id)?.is_none() {
        return Ok(Err(Refused::UnknownVisit));
    }
    Ok(Ok(chat::page(connection, after)?))
}

/// Ends an active visit. Leaving is always allowed, even after the owner
/// closed the world to guests.
pub fn leave(connection: &Connection, visit_id: &str) -> Result<Result<(), Refused>, StoreError> {
    let changed = connection.execute(
        "UPDATE eidoverse_guest_visits SET left_at = ?2 WHERE visit_id = ?1 AND left_at IS NULL",
        params![visit_id, jiff::Timestamp::now().to_string()],
    )?;
    Ok(if changed == 1 {
        Ok(())
    } else {
        Err(Refused::UnknownVisit)
    })
}
