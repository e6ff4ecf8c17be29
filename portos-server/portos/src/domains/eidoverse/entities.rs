//! The world's entities: made by augment (`source = 'augment'`) or
//! mirrored from PortOS resources by project (`source` = the resource kind,
//! `source_key` = its id), and the bounds every entity keeps to.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

/// The source of entities built by `eidoverse.augment`.
pub const AUGMENT: &str = "augment";
/// The most entities a world holds.
pub const MAX_ENTITIES: i64 = 5000;
/// How far from the origin an entity may stand (x and z), in metres.
pub const HALF_EXTENT: f64 = 500.0;
/// The highest an entity may float, in metres.
pub const MAX_HEIGHT: f64 = 200.0;

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Entity {
    pub id: String,
    pub kind: String,
    pub label: String,
    pub position: [f64; 3],
    pub components: Map<String, Value>,
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_key: Option<String>,
}

/// An entity and the digest of the resource it mirrors.
#[derive(Clone, Debug)]
pub struct Stored {
    pub entity: Entity,
    pub digest: Option<String>,
}

/// A fresh entity id: `e-` and 12 hex digits.
pub fn new_id() -> String {
    let uuid = uuid::Uuid::new_v4().simple().to_string();
    format!("e-{}", &uuid[..12])
}
