//! REST pieces the domains' routes share: the answer to a deletion.

use schemars::JsonSchema;
use serde::Serialize;

/// What a deletion removed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Deleted {
    pub ok: bool,
    pub id: String,
}
