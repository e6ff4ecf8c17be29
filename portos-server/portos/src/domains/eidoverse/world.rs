//! The local world: its identity, setup (terrain, grass, sky), presence
//! and guest setting, and its status, the compact summary `eidoverse.status`
//! and the world view give.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

impl Status {
    /// The world's status as both the tool and the REST view give it.
    pub fn of(world: World, counts: Counts) -> Status {
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
        Status {
            ok: true,
            world: world.identity,
            presence: world.presence,
            setup: world.setup,
            counts,
            accept_guests: world.accept_guests,
            summary,
        }
    }
}
