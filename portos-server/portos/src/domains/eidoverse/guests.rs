//! The host side of travel: the guest visits this world receives. The guest
//! routes (`guest_routes.rs`) call these; every one but leaving is refused
//! while the owner keeps the world closed to guests.

use portos_server::store::sql::Connection;

use super::chat::{AuthorKind, Message, Page};
use super::protocol::{self, Arrival, Door, HostWorld, Welcome};
use super::store::{chat, visits, world};
use super::world::World;
use crate::store::StoreError;

/// The most guests at once.
pub const MAX_ACTIVE_GUESTS: i64 = 20;

/// The owner has not opened the world to guests.
#[derive(Debug, PartialEq, Eq)]
pub struct Closed;

/// Why the host does not let a guest in.
#[derive(Debug, PartialEq, Eq)]
pub enum ArrivalRefused {
    /// The owner has not opened the world to guests.
    Closed,
    /// [`MAX_ACTIVE_GUESTS`] are already here.
    Full,
}

/// Why the host turns away a guest's request about a visit.
#[derive(Debug, PartialEq, Eq)]
pub enum VisitRefused {
    /// The owner has not opened the world to guests.
    Closed,
    /// No open visit has that id.
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

pub fn host_world(world: &World) -> HostWorld {
    HostWorld {
        id: world.identity.id.clone(),
        name: world.identity.name.clone(),
        recipe: world.identity.recipe.clone(),
    }
}

/// This world as a guest sees it at the door.
pub fn door(connection: &Connection) -> Result<Result<Door, Closed>, StoreError> {
    let world = world::load(connection)?;
    if !world.accept_guests {
        return Ok(Err(Closed));
    }
    Ok(Ok(Door {
        world: host_world(&world),
        accept_guests: true,
    }))
}

/// Lets a guest in (the caller has checked the arrival, see
/// [`Arrival::checked`]).
pub fn arrive(
    connection: &mut Connection,
    arrival: &Arrival,
) -> Result<Result<Welcome, ArrivalRefused>, StoreError> {
    let transaction = connection.transaction()?;
    // Arrivals on every server count the guests one at a time.
    transaction.lock_name("eidoverse:guests")?;
    let world = world::load(&transaction)?;
    if !world.accept_guests {
        return Ok(Err(ArrivalRefused::Closed));
    }
    if visits::active_guests(&transaction)? >= MAX_ACTIVE_GUESTS {
        return Ok(Err(ArrivalRefused::Full));
    }
    let visit_id =
        protocol::new_visit_id().map_err(|error| StoreError::Worker(error.to_string()))?;
    visits::open_guest_visit(&transaction, &visit_id, &display_name(arrival))?;
    transaction.commit()?;
    Ok(Ok(Welcome {
        visit_id,
        world: host_world(&world),
        host: world.presence.name,
    }))
}

/// Posts a guest's line into this world's chat.
pub fn say(
    connection: &Connection,
    visit_id: &str,
    text: &str,
) -> Result<Result<Message, VisitRefused>, StoreError> {
    if !accepting(connection)? {
        return Ok(Err(VisitRefused::Closed));
    }
    let Some(guest) = visits::active_guest(connection, visit_id)? else {
        return Ok(Err(VisitRefused::UnknownVisit));
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
) -> Result<Result<Page, VisitRefused>, StoreError> {
    if !accepting(connection)? {
        return Ok(Err(VisitRefused::Closed));
    }
    if visits::active_guest(connection, visit_id)?.is_none() {
        return Ok(Err(VisitRefused::UnknownVisit));
    }
    Ok(Ok(chat::page(connection, after)?))
}

/// Ends an active visit; false when no open visit has that id. Leaving is
/// always allowed, even after the owner closed the world to guests.
pub fn leave(connection: &Connection, visit_id: &str) -> Result<bool, StoreError> {
    visits::end_guest_visit(connection, visit_id)
}
