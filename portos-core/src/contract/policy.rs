use serde::Serialize;

use super::{Capability, Scope};

/// What a tool does to the world. Everything but `read` counts as a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SideEffect {
    Read,
    Write,
    SupervisedWrite,
    Destructive,
}

impl SideEffect {
    pub fn is_read(self) -> bool {
        self == SideEffect::Read
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Confirmation {
    None,
    CapabilityGrant,
}

/// The public policy block of a catalog entry, in the contract's key order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Policy {
    pub scopes: Vec<Scope>,
    pub required_capabilities: Vec<Capability>,
    pub side_effect: SideEffect,
    pub idempotent: bool,
    #[serde(rename = "async")]
    pub is_async: bool,
    pub confirmation: Confirmation,
}
