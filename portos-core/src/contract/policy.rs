use serde::Serialize;

pub use super::vocabulary::{Confirmation, SideEffect};
use super::{Capability, Scope};

impl SideEffect {
    /// Everything but `read` counts as a write.
    pub fn is_read(self) -> bool {
        self == SideEffect::Read
    }
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
