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
    /// The event's name; under a `mount`, the part after the mount's
    /// prefix and `:` (`called` under `tools` mounted as `cos:tools` is
    /// `cos:tools:called`).
    pub name: &'static str,
    /// The named prefix the event lives under (`mount = "tools"`), placed
    /// by the application (see `RouteSpec::mount`).
    pub mount: Option<&'static str>,
    /// Where its mount was placed, once it is (`mounted_at`): the
    /// documents write it into the payload's descriptions too.
    pub place: Option<Place>,
    /// `direction`: which ways the event travels.
    pub directions: &'static [Direction],
    /// `summary`: one line for the documents; `{mount.path}` and
    /// `{mount.events}` are written in once the mount is placed.
    pub summary: &'static str,
    /// The payload's schema; `None` for an event without payload.
    pub payload: Option<SchemaFn>,
    /// Where the `#[portos_event]` attribute was written.
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

impl EventSpec {
    /// The event under a mount whose events are at `events` (`called` at
    /// `cos:tools` is `cos:tools:called`) and routes at `path` (written into
    /// the summary's `{mount.path}`, `{mount.events}`), no longer mounted;
    /// made once per server and kept, like the declarations.
    pub fn mounted_at(&self, path: &str, events: &str) -> EventSpec {
        EventSpec {
            name: mounted_event_name(events, self.name),
            summary: super::route::placed(self.summary, path, events),
            mount: None,
            place: Some(Place {
                path: super::route::keep(path.to_owned()),
                events: super::route::keep(events.to_owned()),
            }),
            ..*self
        }
    }
}

/// Where a mount was placed: its routes' path prefix and its events' name
/// prefix, written for `{mount.path}` and `{mount.events}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The routes' path prefix (`{mount.path}`), e.g. `/api/cos/tools`.
    pub path: &'static str,
    /// The events' name prefix (`{mount.events}`), e.g. `cos:tools`.
    pub events: &'static str,
}

impl Place {
    /// Writes the place into every string of `value` (a payload schema's
    /// descriptions).
    pub fn write_into(self, value: &mut serde_json::Value) {
        match value {
            serde_json::Value::String(text) if text.contains("{mount.") => {
                *text = text
                    .replace("{mount.path}", self.path)
                    .replace("{mount.events}", self.events);
            }
            serde_json::Value::Array(items) => {
                items.iter_mut().for_each(|item| self.write_into(item));
            }
            serde_json::Value::Object(map) => {
                map.values_mut().for_each(|item| self.write_into(item));
            }
            _ => {}
        }
    }
}

/// `{events}:{name}`, kept for the process's life.
pub fn mounted_event_name(events: &str, name: &str) -> &'static str {
    super::route::keep(format!("{events}:{name}"))
}

/// A payload type declared with `#[portos_event]`: emit it by its name.
pub trait PortosEvent: Serialize {
    /// The declared name (after the mount's prefix, when mounted).
    const NAME: &'static str;
    /// The mount the event lives under, if any.
    const MOUNT: Option<&'static str> = None;
}
