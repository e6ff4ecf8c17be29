//! The world row: identity, setup, presence and the guest setting, and the
//! sizes of what the world holds.

use portos_server::store::sql::{Connection, OptionalExtension, params};

use crate::domains::eidoverse::world::{Counts, Identity, Presence, World};
use crate::store::StoreError;

/// Reads the world row (the migration created it).
pub fn load(connection: &Connection) -> Result<World, StoreError> {
    let row = connection
        .query_row(
            "SELECT world_id, name, recipe, setup, presence_name, presence_seen, accept_guests
             FROM eidoverse_world WHERE id = 1",
            [],
            |row| {
                Ok((
                    Identity {
                        id: row.get(0)?,
                        name: row.get(1)?,
                        recipe: row.get(2)?,
                    },
                    row.get::<_, String>(3)?,
                    Presence {
                        name: row.get(4)?,
                        kind: "cos".to_owned(),
                        last_seen_at: row.get(5)?,
                    },
                    row.get::<_, bool>(6)?,
                ))
            },
        )
        .optional()?
        .ok_or_else(|| StoreError::Worker("the eidoverse world row is missing".to_owned()))?;
    let (identity, setup, presence, accept_guests) = row;
    let setup = serde_json::from_str(&setup).map_err(|error| {
        StoreError::Worker(format!("the stored world setup is unreadable: {error}"))
    })?;
    Ok(World {
        identity,
        setup,
        presence,
        accept_guests,
    })
}

pub fn save_setup(
    connection: &Connection,
    setup: &crate::domains::eidoverse::world::Setup,
) -> Result<(), StoreError> {
    let text =
        serde_json::to_string(setup).map_err(|error| StoreError::Worker(error.to_string()))?;
    connection.execute("UPDATE eidoverse_world SET setup = ?1 WHERE id = 1", [text])?;
    Ok(())
}

pub fn mark_presence_seen(connection: &Connection, at: &str) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE eidoverse_world SET presence_seen = ?1 WHERE id = 1",
        [at],
    )?;
    Ok(())
}

pub fn set_accept_guests(connection: &Connection, accept: bool) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE eidoverse_world SET accept_guests = ?1 WHERE id = 1",
        params![accept],
    )?;
    Ok(())
}

pub fn counts(connection: &Connection) -> Result<Counts, StoreError> {
    let count = |sql: &str| connection.query_row(sql, [], |row| row.get::<_, i64>(0));
    Ok(Counts {
        entities: count("SELECT COUNT(*) FROM eidoverse_entities")?,
        projected: count("SELECT COUNT(*) FROM eidoverse_entities WHERE source <> 'augment'")?,
        chat_messages: count("SELECT COUNT(*) FROM eidoverse_chat")?,
        active_guests: super::visits::active_guests(connection)?,
    })
}
