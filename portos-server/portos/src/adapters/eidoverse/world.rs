//! The local world's identity, setup, presence and guest setting (one row),
//! and `eidoverse.status`, its compact summary.

use portos_core::{AdapterError, ToolContext, portos_tool};
use rusqlite::{Connection, OptionalExtension, params};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::store::{Store, StoreError};

/// The ground of the world.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Terrain {
    pub preset: String,
    /// Peak height in metres, 0..100.
    pub height: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Grass {
    /// 0 (bare) .. 1 (meadow).
    pub density: f64,
    /// `#rrggbb`.
    pub color: String,
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Sky {
    pub preset: String,
    /// Degrees above the horizon, 0..180.
    pub sun_angle: f64,
}

/// The world-wide construction state that augment's terrain/grass/sky change.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct Setup {
    pub terrain: Terrain,
    pub grass: Grass,
    pub sky: Sky,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Identity {
    pub id: String,
    pub name: String,
    /// The template the world was made from.
    pub recipe: String,
}

/// The Chief of Staff's presence in the world (the author of `say`).
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Presence {
    pub name: String,
    pub kind: String,
    /// When the presence last spoke (RFC 3339), if ever.
    pub last_seen_at: Option<String>,
}

/// The world row as stored.
#[derive(Clone, Debug)]
pub struct World {
    pub identity: Identity,
    pub setup: Setup,
    pub presence: Presence,
    pub accept_guests: bool,
}

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

pub fn save_setup(connection: &Connection, setup: &Setup) -> Result<(), StoreError> {
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

/// Sizes of the world, for summaries.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub entities: i64,
    /// Entities kept by `eidoverse.project` (mirrors of PortOS resources).
    pub projected: i64,
    pub chat_messages: i64,
    /// Guests from other worlds visiting now.
    pub active_guests: i64,
}

pub fn counts(connection: &Connection) -> Result<Counts, StoreError> {
    let count = |sql: &str| connection.query_row(sql, [], |row| row.get::<_, i64>(0));
    Ok(Counts {
        entities: count("SELECT COUNT(*) FROM eidoverse_entities")?,
        projected: count("SELECT COUNT(*) FROM eidoverse_entities WHERE source <> 'augment'")?,
        chat_messages: count("SELECT COUNT(*) FROM eidoverse_chat")?,
        active_guests: count("SELECT COUNT(*) FROM eidoverse_guest_visits WHERE left_at IS NULL")?,
    })
}

#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusArgs {}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub ok: bool,
    pub world: Identity,
    pub presence: Presence,
    pub setup: Setup,
    pub counts: Counts,
    pub accept_guests: bool,
    pub summary: String,
}

/// The world's status as both the tool and the REST view give it.
pub fn status(connection: &Connection) -> Result<Status, StoreError> {
    let world = load(connection)?;
    let counts = counts(connection)?;
    let summary = format!(
        "{} ({} recipe): {} entities ({} projected), {} chat messages, {} guests here; {} is present; sky {}, terrain {}.",
        world.identity.name,
        world.identity.recipe,
        counts.entities,
        counts.projected,
        counts.chat_messages,
        counts.active_guests,
        world.presence.name,
        world.setup.sky.preset,
        world.setup.terrain.preset,
    );
    Ok(Status {
        ok: true,
        world: world.identity,
        presence: world.presence,
        setup: world.setup,
        counts,
        accept_guests: world.accept_guests,
        summary,
    })
}

/// Read the private Eidoverse world's identity, recipe, presence and setup.
#[portos_tool(
    name = "eidoverse.status",
    aliases = ["eidoverse_status"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
)]
pub async fn eidoverse_status(
    ctx: &ToolContext,
    _args: StatusArgs,
) -> Result<Status, AdapterError> {
    let store = ctx.state::<Store>()?.clone();
    Ok(store.run(|connection| status(connection)).await?)
}
