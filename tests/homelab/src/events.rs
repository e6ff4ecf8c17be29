//! The homelab's Socket.IO event. `#[portos_event]` declares it, so the
//! event inventory (`/api/docs/events.json`) and the AsyncAPI document
//! list it beside the runtime's own; [`portos_server::events::Events::emit`]
//! sends it.

use portos_core::portos_event;
use schemars::JsonSchema;
use serde::Serialize;

use crate::hosts::Host;

/// A host was added to the lab (by `lab.hosts.add`, whoever called it).
#[portos_event(name = "lab:host-added", direction = "server-to-client")]
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HostAdded {
    /// The lab's site name.
    pub site: String,
    pub host: Host,
}
