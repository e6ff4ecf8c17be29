//! Socket.IO events declared with `#[portos_event]` on their payload type:
//! the event inventory, `events.json` and AsyncAPI 3 are derived from this
//! list the way the route inventory and OpenAPI come from `#[portos_route]`.

use std::fmt;

use serde::Serialize;

use super::SourceLocation;
use super::route::SchemaFn;

// Generated from its table in portos-vocabulary, as the macro checks it.
portos_vocabulary::event_directions!(crate::contract::contract_enum);

/// One event, as declared.
#[derive(Clone, Copy)]
pub struct EventSpec {
    pub name: &'static str,
    pub directions: &'static [Direction],
    pub summary: &'static str,
    /// The payload's schema; `None` for an event without payload.
    pub payload: Option<SchemaFn>,
    pub location: SourceLocation,
}

impl fmt::Debug for EventSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventSpec")
            .field("name", &self.name)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// A payload type declared with `#[portos_event]`: emit it by its name.
pub trait PortosEvent: Serialize {
    const NAME: &'static str;
}
