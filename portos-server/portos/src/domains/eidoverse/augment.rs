//! `eidoverse.augment`: bounded construction operations applied in one
//! transaction, in order, each with its own outcome — accepted, rewritten
//! (applied after clamping, with notes) or refused (with the reason; nothing
//! of that operation is applied, the others still are).

use portos_server::store::sql::Connection;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::entities::{AUGMENT, Entity, HALF_EXTENT, MAX_ENTITIES, MAX_HEIGHT, new_id};
use super::op_args::{OpArgs, Refusal};
use super::store::{entities, grants, world};
use super::world::Setup;
use crate::store::{Store, StoreError};

/// The largest `args` of one operation, as JSON text, in characters.
pub const ARGS_MAX_JSON_CHARS: usize = 8192;
/// The most components one entity carries.
const MAX_COMPONENTS: usize = 32;

/// A construction verb and the `args` keys it takes (checked by the adapter,
/// an unknown key refuses the operation): `spawn` kind, id?, label?, x?, y?,
/// z?; `place` id and any of x, y, z; `remove` id (built entities only);
/// `comp` id, name, value (null drops it); `light` type?, id?, color?,
/// intensity?, x?, y?, z?; `terrain` preset, height?, seed?; `grass`
/// density, color?; `sky` preset, sunAngle?; `grant` to, permission.
// Variants carry no doc comments, so the schema is a plain `enum`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verb {
    Spawn,
    Place,
    Remove,
    Comp,
    Light,
    Terrain,
    Grass,
    Sky,
    Grant,
}

impl Verb {
    /// The verb as callers write it.
    pub fn name(self) -> &'static str {
        match self {
            Verb::Spawn => "spawn",
            Verb::Place => "place",
            Verb::Remove => "remove",
            Verb::Comp => "comp",
            Verb::Light => "light",
            Verb::Terrain => "terrain",
            Verb::Grass => "grass",
            Verb::Sky => "sky",
            Verb::Grant => "grant",
        }
    }
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    pub verb: Verb,
    /// The verb's arguments (keys of at most 80 characters, at most 8192
    /// characters as JSON).
    #[schemars(extend("propertyNames" = { "maxLength": 80 }))]
    pub args: Map<String, Value>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AugmentArgs {
    /// 1..100 operations, applied in order.
    #[schemars(length(min = 1, max = 100))]
    pub operations: Vec<Operation>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Accepted,
    Rewritten,
    Refused,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OperationOutcome {
    pub index: usize,
    pub verb: Verb,
    pub outcome: Outcome,
    /// Why it was refused, or what was rewritten.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The entity made or changed, for entity verbs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity_id: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Augmented {
    pub ok: bool,
    pub applied: usize,
    pub refused: usize,
    pub outcomes: Vec<OperationOutcome>,
    pub summary: String,
}

/// The one bound JSON Schema cannot say: the size of each operation's
/// `args` as JSON. What is wrong, when one is too big (nothing is applied).
pub fn check_sizes(operations: &[Operation]) -> Result<(), String> {
    for (index, operation) in operations.iter().enumerate() {
        let chars = Value::Object(operation.args.clone())
            .to_string()
            .chars()
            .count();
        if chars > ARGS_MAX_JSON_CHARS {
            return Err(format!(
                "operation {index}'s args are {chars} characters as JSON; at most {ARGS_MAX_JSON_CHARS} are allowed — nothing was applied"
            ));
        }
    }
    Ok(())
}

/// Applies `operations` (their sizes checked) in one transaction, in order,
/// each with its own outcome.
pub async fn augment(store: &Store, operations: Vec<Operation>) -> Result<Augmented, StoreError> {
    let outcomes = store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            // Entities are counted against their cap on every server one
            // batch at a time.
            transaction.lock_name("eidoverse:entities")?;
            let outcomes = operations
                .iter()
                .enumerate()
                .map(|(index, operation)| apply(&transaction, index, operation))
                .collect::<Result<Vec<_>, StoreError>>()?;
            transaction.commit()?;
            Ok(outcomes)
        })
        .await?;
    let refused = outcomes
        .iter()
        .filter(|o| o.outcome == Outcome::Refused)
        .count();
    let rewritten = outcomes
        .iter()
        .filter(|o| o.outcome == Outcome::Rewritten)
        .count();
    let applied = outcomes.len() - refused;
    let mut summary = format!(
        "Applied {applied} of {} operations ({rewritten} rewritten, {refused} refused).",
        outcomes.len()
    );
    if let Some(first) = outcomes.iter().find(|o| o.outcome == Outcome::Refused) {
        summary.push_str(&format!(
            " First refusal: operation {} ({}): {}.",
            first.index,
            first.verb.name(),
            first.reason.as_deref().unwrap_or("")
        ));
    }
    Ok(Augmented {
        ok: applied > 0,
        applied,
        refused,
        outcomes,
        summary,
    })
}

/// What an applied operation reports.
struct Applied {
    entity_id: Option<String>,
    rewrites: Vec<String>,
}

fn apply(
    connection: &Connection,
    index: usize,
    operation: &Operation,
) -> Result<OperationOutcome, StoreError> {
    let verb = operation.verb;
    let result = match verb {
        Verb::Spawn => spawn(connection, &operation.args)?,
        Verb::Place => place(connection, &operation.args)?,
        Verb::Remove => remove(connection, &operation.args)?,
        Verb::Comp => component(connection, &operation.args)?,
        Verb::Light => light(connection, &operation.args)?,
        Verb::Terrain => terrain(connection, &operation.args)?,
        Verb::Grass => grass(connection, &operation.args)?,
        Verb::Sky => sky(connection, &operation.args)?,
        Verb::Grant => grant(connection, &operation.args)?,
    };
    Ok(match result {
        Ok(applied) if applied.rewrites.is_empty() => OperationOutcome {
            index,
            verb,
            outcome: Outcome::Accepted,
            reason: None,
            entity_id: applied.entity_id,
        },
        Ok(applied) => OperationOutcome {
            index,
            verb,
            outcome: Outcome::Rewritten,
            reason: Some(applied.rewrites.join("; ")),
            entity_id: applied.entity_id,
        },
        Err(reason) => OperationOutcome {
            index,
            verb,
            outcome: Outcome::Refused,
            reason: Some(reason),
            entity_id: None,
        },
    })
}

/// A verb's result: the store may fail (the whole call fails), or the
/// operation may be refused (only it).
type VerbResult = Result<Result<Applied, Refusal>, StoreError>;

macro_rules! refuse_on {
    ($expr:expr) => {
        match $expr {
            Ok(value) => value,
            Err(reason) => return Ok(Err(reason)),
        }
    };
}

fn position(reader: &mut OpArgs<'_>, base: [f64; 3]) -> Result<[f64; 3], Refusal> {
    Ok([
        reader
            .number("x", -HALF_EXTENT, HALF_EXTENT)?
            .unwrap_or(base[0]),
        reader.number("y", 0.0, MAX_HEIGHT)?.unwrap_or(base[1]),
        reader
            .number("z", -HALF_EXTENT, HALF_EXTENT)?
            .unwrap_or(base[2]),
    ])
}

/// Inserts a new augment entity after the common checks (room, free id).
fn create(connection: &Connection, entity: Entity, reader: OpArgs<'_>) -> VerbResult {
    if entities::count(connection)? >= MAX_ENTITIES {
        return Ok(Err(format!(
            "the world already holds {MAX_ENTITIES} entities; remove some first"
        )));
    }
    if entities::get(connection, &entity.id)?.is_some() {
        return Ok(Err(format!("an entity '{}' already exists", entity.id)));
    }
    entities::insert(connection, &entity, None)?;
    Ok(Ok(Applied {
        entity_id: Some(entity.id),
        rewrites: reader.rewrites,
    }))
}

fn spawn(connection: &Connection, args: &Map<String, Value>) -> VerbResult {
    let mut reader = refuse_on!(OpArgs::new(args, &["kind", "id", "label", "x", "y", "z"]));
    let kind = refuse_on!(reader.required_string("kind", 40));
    if !kind
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Ok(Err(
            "'kind' may hold only lowercase letters, digits and '-'".to_owned(),
        ));
    }
    let id = refuse_on!(reader.id("id")).unwrap_or_else(new_id);
    let label = refuse_on!(reader.string("label", 120)).unwrap_or_else(|| kind.clone());
    let position = refuse_on!(position(&mut reader, [0.0; 3]));
    let entity = Entity {
        id,
        kind,
        label,
        position,
        components: Map::new(),
        source: AUGMENT.to_owned(),
        source_key: None,
    };
    create(connection, entity, reader)
}

fn place(connection: &Connection, args: &Map<String, Value>) -> VerbResult {
    let mut reader = refuse_on!(OpArgs::new(args, &["id", "x", "y", "z"]));
    let id = refuse_on!(
        reader
            .id("id")
            .and_then(|id| id.ok_or_else(|| "'id' is required".to_owned()))
    );
    if !["x", "y", "z"].iter().any(|key| reader.has(key)) {
        return Ok(Err("give at least one of x, y, z".to_owned()));
    }
    let Some(mut stored) = entities::get(connection, &id)? else {
        return Ok(Err(format!("no entity '{id}'")));
    };
    stored.entity.position = refuse_on!(position(&mut reader, stored.entity.position));
    entities::update(connection, &stored.entity, stored.digest.as_deref())?;
    Ok(Ok(Applied {
        entity_id: Some(id),
        rewrites: reader.rewrites,
    }))
}

fn remove(connection: &Connection, args: &Map<String, Value>) -> VerbResult {
    let reader = refuse_on!(OpArgs::new(args, &["id"]));
    let id = refuse_on!(
        reader
            .id("id")
            .and_then(|id| id.ok_or_else(|| "'id' is required".to_owned()))
    );
    let Some(stored) = entities::get(connection, &id)? else {
        return Ok(Err(format!("no entity '{id}'")));
    };
    if stored.entity.source != AUGMENT {
        return Ok(Err(format!(
            "'{id}' mirrors a PortOS {} resource; eidoverse.project removes it when the resource goes",
            stored.entity.source
        )));
    }
    entities::delete(connection, &id)?;
    Ok(Ok(Applied {
        entity_id: Some(id),
        rewrites: Vec::new(),
    }))
}

fn component(connection: &Connection, args: &Map<String, Value>) -> VerbResult {
    let reader = refuse_on!(OpArgs::new(args, &["id", "name", "value"]));
    let id = refuse_on!(
        reader
            .id("id")
            .and_then(|id| id.ok_or_else(|| "'id' is required".to_owned()))
    );
    let name = refuse_on!(
        reader
            .id("name")
            .and_then(|n| n.ok_or_else(|| "'name' is required".to_owned()))
    );
    let Some(value) = reader.raw("value") else {
        return Ok(Err(
            "'value' is required (null removes the component)".to_owned()
        ));
    };
    let Some(mut stored) = entities::get(connection, &id)? else {
        return Ok(Err(format!("no entity '{id}'")));
    };
    if value.is_null() {
        if stored.entity.components.remove(&name).is_none() {
            return Ok(Err(format!("'{id}' has no component '{name}'")));
        }
    } else {
        if !stored.entity.components.contains_key(&name)
            && stored.entity.components.len() >= MAX_COMPONENTS
        {
            return Ok(Err(format!(
                "'{id}' already carries {MAX_COMPONENTS} components"
            )));
        }
        stored.entity.components.insert(name, value.clone());
    }
    entities::update(connection, &stored.entity, stored.digest.as_deref())?;
    Ok(Ok(Applied {
        entity_id: Some(id),
        rewrites: Vec::new(),
    }))
}

fn light(connection: &Connection, args: &Map<String, Value>) -> VerbResult {
    let mut reader = refuse_on!(OpArgs::new(
        args,
        &["type", "id", "color", "intensity", "x", "y", "z"]
    ));
    let kind = refuse_on!(reader.choice("type", &["ambient", "directional", "point", "spot"]))
        .unwrap_or_else(|| "point".to_owned());
    let id = refuse_on!(reader.id("id")).unwrap_or_else(new_id);
    let color = refuse_on!(reader.color("color")).unwrap_or_else(|| "#ffffff".to_owned());
    let intensity = refuse_on!(reader.number("intensity", 0.0, 10.0)).unwrap_or(1.0);
    let position = refuse_on!(position(&mut reader, [0.0, 10.0, 0.0]));
    let mut components = Map::new();
    components.insert(
        "light".to_owned(),
        serde_json::json!({ "type": kind, "color": color, "intensity": intensity }),
    );
    let entity = Entity {
        id,
        kind: "light".to_owned(),
        label: format!("{kind} light"),
        position,
        components,
        source: AUGMENT.to_owned(),
        source_key: None,
    };
    create(connection, entity, reader)
}

/// Changes the world setup with `change`, which reads the operation's args.
fn change_setup(
    connection: &Connection,
    change: impl FnOnce(&mut Setup) -> Result<Vec<String>, Refusal>,
) -> VerbResult {
    let mut setup = world::load(connection)?.setup;
    let rewrites = refuse_on!(change(&mut setup));
    world::save_setup(connection, &setup)?;
    Ok(Ok(Applied {
        entity_id: None,
        rewrites,
    }))
}

fn terrain(connection: &Connection, args: &Map<String, Value>) -> VerbResult {
    change_setup(connection, |setup| {
        let mut reader = OpArgs::new(args, &["preset", "height", "seed"])?;
        let preset = reader
            .choice("preset", &["flat", "hills", "mountains", "islands"])?
            .ok_or_else(|| "'preset' is required".to_owned())?;
        let height = reader.number("height", 0.0, 100.0)?;
        let seed = reader.integer("seed")?;
        setup.terrain.preset = preset;
        if let Some(height) = height {
            setup.terrain.height = height;
        }
        if seed.is_some() {
            setup.terrain.seed = seed;
        }
        Ok(reader.rewrites)
    })
}

fn grass(connection: &Connection, args: &Map<String, Value>) -> VerbResult {
    change_setup(connection, |setup| {
        let mut reader = OpArgs::new(args, &["density", "color"])?;
        let density = reader
            .number("density", 0.0, 1.0)?
            .ok_or_else(|| "'density' is required".to_owned())?;
        let color = reader.color("color")?;
        setup.grass.density = density;
        if let Some(color) = color {
            setup.grass.color = color;
        }
        Ok(reader.rewrites)
    })
}

fn sky(connection: &Connection, args: &Map<String, Value>) -> VerbResult {
    change_setup(connection, |setup| {
        let mut reader = OpArgs::new(args, &["preset", "sunAngle"])?;
        let preset = reader
            .choice("preset", &["dawn", "day", "dusk", "night", "overcast"])?
            .ok_or_else(|| "'preset' is required".to_owned())?;
        let sun_angle = reader.number("sunAngle", 0.0, 180.0)?;
        setup.sky.preset = preset;
        if let Some(angle) = sun_angle {
            setup.sky.sun_angle = angle;
        }
        Ok(reader.rewrites)
    })
}

fn grant(connection: &Connection, args: &Map<String, Value>) -> VerbResult {
    let reader = refuse_on!(OpArgs::new(args, &["to", "permission"]));
    let to = refuse_on!(reader.required_string("to", 80));
    let permission = refuse_on!(reader.choice("permission", &["build", "chat", "visit"]))
        .ok_or_else(|| "'permission' is required".to_owned());
    let permission = refuse_on!(permission);
    grants::grant(connection, &to, &permission)?;
    Ok(Ok(Applied {
        entity_id: None,
        rewrites: Vec::new(),
    }))
}
