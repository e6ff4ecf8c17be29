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
    /// `scopes`: the principals that may call the tool.
    pub scopes: Vec<Scope>,
    /// `requiredCapabilities`: what a call needs granted (checked for a
    /// principal that holds grants, and against a limited credential); empty
    /// for an unguarded tool or a read that names none.
    pub required_capabilities: Vec<Capability>,
    /// `sideEffect`: what the tool does to the world.
    pub side_effect: SideEffect,
    /// `idempotent`: a replay of the same call is harmless.
    pub idempotent: bool,
    /// `async`: the call queues work rather than finishing it.
    #[serde(rename = "async")]
    pub is_async: bool,
    /// `confirmation`: what a call needs before it runs.
    pub confirmation: Confirmation,
    /// `long_running = true`: a call answers with a durable job (HTTP 202,
    /// an MCP task) instead of waiting for the result. Listed only when
    /// set, so the contract's policy block of every other tool is as it was.
    #[serde(rename = "longRunning", skip_serializing_if = "is_false")]
    pub long_running: bool,
    /// Why a tool that is not a read requires no capability (`unguarded`
    /// in `#[portos_tool]`). Listed only when declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unguarded: Option<&'static str>,
}

// serde's `skip_serializing_if` takes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_false(flag: &bool) -> bool {
    !*flag
}
