//! Where the application places the routes and events declared under a
//! mount (`#[portos_route(mount = "tools", path = "/call")]`,
//! `#[portos_event(mount = "tools", name = "called")]`; their doc comments
//! write `{mount.path}` and `{mount.events}` for the places). The runtime's own
//! tool endpoints and events live under the `tools` mount, so an
//! application gives them its own paths and names (PortOS: `/api/cos/tools`
//! and `cos:tools`) and no framework word is forced on it.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use portos_core::inventory::{EventSpec, PortosEvent, RouteEntry, RouteSpec};
use portos_core::linked;

/// The mount of the runtime's tool endpoints (catalog, call, kept results,
/// jobs) and tool events (`…:called`, `…:catalog-changed`, …).
pub const TOOLS: &str = "tools";

/// The mount of the MCP endpoint (Streamable HTTP: `POST`, `GET` to
/// listen, `DELETE` to end a session), by default at `/mcp`.
pub const MCP: &str = "mcp";

/// The mount of the MCP endpoint's manifest, by default at `/mcp/manifest`.
pub const MCP_MANIFEST: &str = "mcp-manifest";

/// The mount of the MCP endpoint's settings (`GET` and `PUT`), by default
/// at `/api/settings/mcp`.
pub const MCP_SETTINGS: &str = "mcp-settings";

/// The mount of the settings that expose API groups (`GET` and `PUT`), by
/// default at `/api/settings/api-access`.
pub const API_ACCESS: &str = "api-access";

/// The mount of the password gate's routes (`/status`, `/whoami`,
/// `/login`, `/logout`), by default at `/api/auth`.
pub const AUTH: &str = "auth";

/// The mount of the documents (`/openapi.json`, `/asyncapi.json`,
/// `/catalog.json`, …), by default at `/api/docs`.
pub const DOCS: &str = "docs";

/// Where the `tools` mount is unless the application places it.
pub const DEFAULT_TOOLS: Mount = Mount {
    path: "/api/tools",
    events: "tools",
};

/// Every runtime mount at its default place.
pub const DEFAULTS: [(&str, Mount); 7] = [
    (TOOLS, DEFAULT_TOOLS),
    (MCP, Mount::at("/mcp")),
    (MCP_MANIFEST, Mount::at("/mcp/manifest")),
    (MCP_SETTINGS, Mount::at("/api/settings/mcp")),
    (API_ACCESS, Mount::at("/api/settings/api-access")),
    (AUTH, Mount::at("/api/auth")),
    (DOCS, Mount::at("/api/docs")),
];

/// One mount's place: the path prefix of its routes and the name prefix of
/// its events (an event `called` under `tools` at `cos:tools` is
/// `cos:tools:called`).
///
/// ```
/// use portos_server::Mount;
///
/// // Routes only (the MCP endpoint): no event prefix.
/// let endpoint = Mount::at("/api/agents/mcp");
/// assert_eq!(endpoint.events, "");
/// // Routes and events (the tool endpoints).
/// let tools = Mount::at("/api/my/tools").with_events("my:tools");
/// assert_eq!(tools.events, "my:tools");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mount {
    /// Starts with `/`, no trailing `/` (e.g. `/api/cos/tools`).
    pub path: &'static str,
    /// Has no whitespace and does not end with `:` (e.g. `cos:tools`);
    /// empty for a mount with routes only.
    pub events: &'static str,
}

impl Mount {
    /// A mount of routes only, at `path`.
    pub const fn at(path: &'static str) -> Mount {
        Mount { path, events: "" }
    }

    /// This mount with its events named under `events`.
    #[must_use]
    pub const fn with_events(self, events: &'static str) -> Mount {
        Mount { events, ..self }
    }
}

/// Every mount the server places, by name.
#[derive(Clone, Debug)]
pub struct Mounts {
    places: Arc<BTreeMap<&'static str, Mount>>,
    /// Mounted application events' full names, made once each.
    event_names: Arc<Mutex<HashMap<(&'static str, &'static str), &'static str>>>,
    /// Every linked route and event at its place, resolved once (the
    /// router, the inventory check and each document read them).
    placed: Arc<OnceLock<Placed>>,
}

/// The linked routes and events where these mounts put them, or every
/// reason they cannot be served.
#[derive(Debug)]
struct Placed {
    routes: Result<Vec<&'static RouteEntry>, Vec<String>>,
    events: Result<Vec<&'static EventSpec>, Vec<String>>,
}

impl Default for Mounts {
    fn default() -> Self {
        Mounts {
            places: Arc::new(BTreeMap::from(DEFAULTS)),
            event_names: Arc::default(),
            placed: Arc::default(),
        }
    }
}

impl PartialEq for Mounts {
    fn eq(&self, other: &Mounts) -> bool {
        self.places == other.places
    }
}

impl Mounts {
    /// These mounts with `name` placed at `mount`.
    #[must_use]
    pub fn with(&self, name: &'static str, mount: Mount) -> Mounts {
        let mut places = (*self.places).clone();
        places.insert(name, mount);
        Mounts {
            places: Arc::new(places),
            event_names: Arc::default(),
            placed: Arc::default(),
        }
    }

    pub fn get(&self, name: &str) -> Option<Mount> {
        self.places.get(name).copied()
    }

    /// Where the runtime's tool endpoints and events are.
    pub fn tools(&self) -> Mount {
        self.get(TOOLS).unwrap_or(DEFAULT_TOOLS)
    }

    /// The path of the runtime's mount `name` (one of [`DEFAULTS`], which
    /// every `Mounts` places).
    pub fn path_of(&self, name: &str) -> &'static str {
        self.get(name).map_or("", |mount| mount.path)
    }

    /// What is wrong with the places, one line each.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (name, mount) in self.places.iter() {
            let path_fits = mount.path.starts_with('/')
                && !mount.path.ends_with('/')
                && !mount.path.contains("//")
                && !mount.path.contains(['{', '}', ' ']);
            if !path_fits {
                problems.push(format!(
                    "mount `{name}`: path `{}` must start with `/`, have no empty segment, no parameter and no trailing `/`",
                    mount.path
                ));
            }
            if mount.events.ends_with(':') || mount.events.chars().any(char::is_whitespace) {
                problems.push(format!(
                    "mount `{name}`: event prefix `{}` must be without whitespace or a trailing `:`",
                    mount.events
                ));
            }
        }
        problems
    }

    /// Every linked route at its full path (a mounted one where its mount
    /// is placed), or every reason some cannot be served (a misplaced or
    /// unplaced mount).
    pub fn routes(&self) -> Result<Vec<&'static RouteEntry>, Vec<String>> {
        self.placed().routes.clone()
    }

    /// Every linked event under its full name, or every reason some cannot
    /// be listed.
    pub fn events(&self) -> Result<Vec<&'static EventSpec>, Vec<String>> {
        self.placed().events.clone()
    }

    fn placed(&self) -> &Placed {
        self.placed.get_or_init(|| {
            let problems = self.problems();
            if !problems.is_empty() {
                return Placed {
                    routes: Err(problems.clone()),
                    events: Err(problems),
                };
            }
            Placed {
                routes: every(linked::routes(), |entry| self.route(entry)),
                events: every(linked::events(), |spec| self.event(spec)),
            }
        })
    }

    fn route(&self, entry: &'static RouteEntry) -> Result<&'static RouteEntry, String> {
        let Some(name) = entry.spec.mount else {
            return Ok(entry);
        };
        let mount = self.get(name).ok_or_else(|| unplaced(name, &entry.spec))?;
        Ok(Box::leak(Box::new(RouteEntry {
            spec: entry.spec.mounted_at(mount.path, mount.events),
            handler: entry.handler,
        })))
    }

    fn event(&self, spec: &'static EventSpec) -> Result<&'static EventSpec, String> {
        let Some(name) = spec.mount else {
            return Ok(spec);
        };
        let mount = self.get(name).ok_or_else(|| {
            format!(
                "event `{}` ({}) lives under the mount `{name}`, which the server does not place: `ServerBuilder::mount(\"{name}\", ..)`",
                spec.name, spec.location
            )
        })?;
        if mount.events.is_empty() {
            return Err(format!(
                "event `{}` ({}) lives under the mount `{name}`, which has no event prefix: `Mount::at(..).with_events(..)`",
                spec.name, spec.location
            ));
        }
        Ok(Box::leak(Box::new(
            spec.mounted_at(mount.path, mount.events),
        )))
    }

    /// The full name `E` is emitted under.
    pub fn event_name<E: PortosEvent>(&self) -> &'static str {
        let Some(name) = E::MOUNT else {
            return E::NAME;
        };
        let prefix = self.get(name).map_or(name, |mount| mount.events);
        let mut names = self
            .event_names
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let full: &'static str = names
            .entry((name, E::NAME))
            .or_insert_with(|| portos_core::inventory::mounted_event_name(prefix, E::NAME));
        full
    }
}

/// Each item placed, or every problem.
fn every<T>(
    items: impl Iterator<Item = T>,
    place: impl Fn(T) -> Result<T, String>,
) -> Result<Vec<T>, Vec<String>> {
    let (placed, problems): (Vec<_>, Vec<_>) = items.map(place).partition(Result::is_ok);
    if problems.is_empty() {
        Ok(placed.into_iter().filter_map(Result::ok).collect())
    } else {
        Err(problems.into_iter().filter_map(Result::err).collect())
    }
}

fn unplaced(name: &str, spec: &RouteSpec) -> String {
    format!(
        "`{} {}` ({}) lives under the mount `{name}`, which the server does not place: `ServerBuilder::mount(\"{name}\", ..)`",
        spec.method, spec.path, spec.location
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_checked() {
        let good = Mounts::default().with(
            TOOLS,
            Mount {
                path: "/api/cos/tools",
                events: "cos:tools",
            },
        );
        assert!(good.problems().is_empty());
        assert_eq!(good.tools().path, "/api/cos/tools");
        let bad = Mounts::default().with(
            TOOLS,
            Mount {
                path: "api/tools/",
                events: "tools:",
            },
        );
        assert_eq!(bad.problems().len(), 2);
    }
}
