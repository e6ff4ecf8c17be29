//! The derived fields of an operation (docs/reference.md#route-catalog,
//! docs/reference.md#openapi): domain, label, summary, access class,
//! side-effect class and operationId.

use crate::descriptor::{Access, ErrorSpec, HttpMethod, RouteEffect, RouteSpec};

/// Paths named exactly, and path prefixes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathSet {
    /// Paths that match only exactly.
    pub exact: &'static [&'static str],
    /// Matched with `starts_with`: end one with `/` to mean "under it".
    pub prefixes: &'static [&'static str],
}

impl PathSet {
    /// No paths at all.
    pub const EMPTY: PathSet = PathSet {
        exact: &[],
        prefixes: &[],
    };

    /// Whether `path` is one of the exact paths or starts with a prefix.
    pub fn contains(&self, path: &str) -> bool {
        self.exact.contains(&path) || self.prefixes.iter().any(|prefix| path.starts_with(prefix))
    }
}

/// Which of an application's paths fall in which access class
/// (docs/reference.md#route-catalog `access`), for the operations that do not
/// declare `access` themselves. Which paths those are is the application's to
/// say; the default puts every undeclared operation behind authentication.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Classifier {
    /// Pass the authentication gate without credentials.
    pub always_public: PathSet,
    /// Answer only on the loopback interface.
    pub loopback: PathSet,
    /// The groups an operator may expose to other machines.
    pub externally_exposable: PathSet,
    /// What the server's gate answers in front of the operations of an
    /// access class (e.g. an unexposed API group's 403): added to each such
    /// operation's declared failures.
    pub gate_errors: &'static [GateErrors],
    /// Error codes the documents write under the application's name: each
    /// pair is the code a handler describes and the one the application
    /// answers instead (a runtime whose refusals the application names
    /// with its own prefix).
    pub renamed_codes: &'static [(&'static str, &'static str)],
}

/// The gate's refusals in front of one access class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GateErrors {
    /// The access class the refusals stand in front of.
    pub access: Access,
    /// The gate's answers, added to the operations' declared failures.
    pub errors: &'static [ErrorSpec],
}

impl Classifier {
    /// Whether `path` passes the gate without credentials.
    pub fn is_always_public(&self, path: &str) -> bool {
        self.always_public.contains(path)
    }

    /// The gate's refusals in front of operations of `access`.
    pub fn gate_errors(&self, access: Access) -> &'static [ErrorSpec] {
        self.gate_errors
            .iter()
            .find(|gate| gate.access == access)
            .map_or(&[], |gate| gate.errors)
    }

    /// `code` as the application answers it.
    pub fn code_name(&self, code: &'static str) -> &'static str {
        self.renamed_codes
            .iter()
            .find(|(described, _)| *described == code)
            .map_or(code, |(_, answered)| answered)
    }

    /// The declared access, else the first class whose paths hold the route
    /// (always public, loopback, externally exposable), else authenticated.
    pub fn access(&self, route: &RouteSpec) -> Access {
        if let Some(access) = route.access {
            return access;
        }
        let path = route.path;
        if self.always_public.contains(path) {
            Access::AlwaysPublic
        } else if self.loopback.contains(path) {
            Access::Loopback
        } else if self.externally_exposable.contains(path) {
            Access::ExternallyExposable
        } else {
            Access::AuthenticatedUi
        }
    }
}

const DESTRUCTIVE_SEGMENTS: [&str; 8] = [
    "delete",
    "remove",
    "clear",
    "reset",
    "revoke",
    "terminate",
    "logout",
    "archive",
];
const PROCESS_CONTROL_SEGMENTS: [&str; 17] = [
    "start",
    "stop",
    "restart",
    "launch",
    "open",
    "install",
    "uninstall",
    "execute",
    "run",
    "cancel",
    "interrupt",
    "resume",
    "pause",
    "reload",
    "sync",
    "update",
    "shutdown",
];

fn segments(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter(|segment| !segment.is_empty())
}

fn is_param(segment: &str) -> bool {
    segment.starts_with('{') || segment.starts_with(':') || segment.starts_with('*')
}

/// `/api/<domain>/…` → `<domain>`; otherwise the first segment (`sdapi`).
pub fn domain(path: &str) -> String {
    let mut parts = segments(path);
    match (parts.next(), parts.next()) {
        (Some("api"), Some(domain)) => domain.to_owned(),
        (Some(first), _) => first.to_owned(),
        (None, _) => "root".to_owned(),
    }
}

/// Title case, `-` and `_` read as spaces: `agent-context` → `Agent Context`.
pub fn title_case(text: &str) -> String {
    text.split(['-', '_', ' '])
        .filter(|word| !word.is_empty())
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().collect::<String>() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The mount an operation belongs to: `/api/<domain>` (or `/<domain>`).
pub fn mount_path(path: &str) -> String {
    if path.starts_with("/api/") {
        format!("/api/{}", domain(path))
    } else {
        format!("/{}", domain(path))
    }
}

/// A verb for the method plus the last two non-parameter segments after
/// the domain, title-cased: `GET /api/cos/tools/calls/{id}` → `Read Tools Calls`.
pub fn default_summary(method: HttpMethod, path: &str) -> String {
    let verb = match method {
        HttpMethod::Get => "Read",
        HttpMethod::Post => "Create or run",
        HttpMethod::Put => "Replace",
        HttpMethod::Patch => "Update",
        HttpMethod::Delete => "Delete",
    };
    let skip = if path.starts_with("/api/") { 2 } else { 1 };
    let rest: Vec<&str> = segments(path).skip(skip).filter(|s| !is_param(s)).collect();
    let tail = &rest[rest.len().saturating_sub(2)..];
    let words = if tail.is_empty() {
        title_case(&domain(path))
    } else {
        tail.iter()
            .map(|s| title_case(s))
            .collect::<Vec<_>>()
            .join(" ")
    };
    format!("{verb} {words}")
}

/// The declared side effect, else: `read` for GET; `destructive` for DELETE
/// or a destructive path segment (`delete`, `remove`, `clear`, ...);
/// `process-control` for a segment such as `start`, `stop` or `run`;
/// otherwise `write`.
pub fn side_effect(route: &RouteSpec) -> RouteEffect {
    if let Some(effect) = route.side_effect {
        return effect;
    }
    if route.method == HttpMethod::Get {
        return RouteEffect::Read;
    }
    let words: Vec<&str> = segments(route.path).filter(|s| !is_param(s)).collect();
    if route.method == HttpMethod::Delete || words.iter().any(|w| DESTRUCTIVE_SEGMENTS.contains(w))
    {
        RouteEffect::Destructive
    } else if words.iter().any(|w| PROCESS_CONTROL_SEGMENTS.contains(w)) {
        RouteEffect::ProcessControl
    } else {
        RouteEffect::Write
    }
}

/// The Express-style form of a path (`{id}` → `:id`), which the
/// operationId hash covers so ids stay those of the contract's inventory.
pub fn express_path(path: &str) -> String {
    path.split('/')
        .map(
            |segment| match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(name) => format!(":{name}"),
                None => segment.to_owned(),
            },
        )
        .collect::<Vec<_>>()
        .join("/")
}

/// `<method>_<path>` (`{}:*?` dropped, other non-alphanumerics → `_`, edges
/// trimmed, at most 80 characters) + `_` + base36 FNV-1a-32 of
/// `"<METHOD> <express path>"`.
pub fn operation_id(method: HttpMethod, path: &str) -> String {
    let mut stem = String::with_capacity(path.len() + 8);
    stem.push_str(method.lowercase());
    stem.push('_');
    for ch in path.chars() {
        match ch {
            '{' | '}' | ':' | '*' | '?' => {}
            c if c.is_ascii_alphanumeric() => stem.push(c),
            // A run of other characters is one `_` (`get_` + `/api` is
            // `get_api`, not `get__api`).
            _ if stem.ends_with('_') => {}
            _ => stem.push('_'),
        }
    }
    let trimmed: String = stem.trim_matches('_').chars().take(80).collect();
    let hash = fnv1a_utf16(&format!("{} {}", method.as_str(), express_path(path)));
    format!("{trimmed}_{}", base36(hash))
}

/// FNV-1a, 32 bits, over UTF-16 code units (as JavaScript strings are).
pub fn fnv1a_utf16(text: &str) -> u32 {
    text.encode_utf16().fold(2_166_136_261_u32, |hash, unit| {
        (hash ^ u32::from(unit)).wrapping_mul(16_777_619)
    })
}

/// `value` in base 36, lowercase digits (`0` for zero).
pub fn base36(mut value: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if value == 0 {
        return "0".to_owned();
    }
    let mut out = Vec::new();
    while value > 0 {
        out.push(DIGITS[(value % 36) as usize]);
        value /= 36;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_and_labels() {
        assert_eq!(domain("/api/cos/tools"), "cos");
        assert_eq!(domain("/sdapi/v1/txt2img"), "sdapi");
        assert_eq!(title_case("agent-context"), "Agent Context");
        assert_eq!(mount_path("/api/cos/tools/call"), "/api/cos");
    }

    #[test]
    fn summaries() {
        assert_eq!(
            default_summary(HttpMethod::Get, "/api/cos/tools/calls/{requestId}"),
            "Read Tools Calls"
        );
        assert_eq!(
            default_summary(HttpMethod::Post, "/api/cos/tools/call"),
            "Create or run Tools Call"
        );
        assert_eq!(
            default_summary(HttpMethod::Get, "/api/system/health"),
            "Read Health"
        );
        assert_eq!(default_summary(HttpMethod::Get, "/api/brain"), "Read Brain");
    }

    #[test]
    fn access_classes_in_order() {
        let classifier = Classifier {
            always_public: PathSet {
                exact: &["/api/auth/login"],
                prefixes: &["/api/guest/"],
            },
            loopback: PathSet {
                exact: &["/api/local"],
                prefixes: &["/api/local/"],
            },
            externally_exposable: PathSet {
                exact: &[],
                prefixes: &["/api/"],
            },
            gate_errors: &[],
            renamed_codes: &[],
        };
        let route = |path: &'static str| RouteSpec {
            method: HttpMethod::Get,
            path,
            mount: None,
            summary: None,
            description: "",
            access: None,
            side_effect: None,
            io: RouteSpec::undescribed,
            tool: None,
            replaceable: false,
            location: crate::descriptor::SourceLocation {
                file: "x.rs",
                line: 1,
                column: 1,
            },
        };
        assert!(classifier.is_always_public("/api/guest/visits"));
        assert!(!classifier.is_always_public("/api/guest"));
        assert_eq!(
            classifier.access(&route("/api/auth/login")),
            Access::AlwaysPublic
        );
        assert_eq!(classifier.access(&route("/api/local")), Access::Loopback);
        assert_eq!(classifier.access(&route("/api/local/x")), Access::Loopback);
        assert_eq!(
            classifier.access(&route("/api/other")),
            Access::ExternallyExposable
        );
        assert_eq!(
            classifier.access(&route("/sdapi/x")),
            Access::AuthenticatedUi
        );
        assert_eq!(
            Classifier::default().access(&route("/api/auth/login")),
            Access::AuthenticatedUi
        );
        let declared = RouteSpec {
            access: Some(Access::Loopback),
            ..route("/api/auth/login")
        };
        assert_eq!(classifier.access(&declared), Access::Loopback);
    }

    #[test]
    fn fnv_and_base36() {
        // FNV-1a-32 of the empty string is the offset basis.
        assert_eq!(fnv1a_utf16(""), 2_166_136_261);
        assert_eq!(fnv1a_utf16("a"), 0xe40c_292c);
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
    }

    #[test]
    fn operation_ids() {
        let id = operation_id(HttpMethod::Get, "/api/cos/tools/calls/{requestId}");
        // `get_` + `/api/…`: a run of non-alphanumerics is one `_`.
        assert!(id.starts_with("get_api_cos_tools_calls_requestId_"), "{id}");
        let runs = operation_id(HttpMethod::Put, "/api/a//b-{id}/c");
        assert!(runs.starts_with("put_api_a_b_id_c_"), "{runs}");
        let hash = base36(fnv1a_utf16("GET /api/cos/tools/calls/:requestId"));
        assert!(id.ends_with(&hash));
        let long = format!("/api/{}", "x".repeat(200));
        let id = operation_id(HttpMethod::Post, &long);
        assert!(id.len() <= 80 + 1 + 7);
    }
}
