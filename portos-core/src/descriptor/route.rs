//! What `#[portos_route]` declares about an HTTP operation, as const data.
//! The server pairs each spec with its handler; documents are derived from
//! the specs alone, so this module knows no HTTP framework.

use std::fmt;

use schemars::{Schema, SchemaGenerator};

use super::SourceLocation;
use crate::context::StateNeed;

// The words of a route declaration, each enum generated from its table in
// portos-vocabulary (the one `#[portos_route]` checks against), with its
// string form as `as_str`, `Display` and its serde form.
portos_vocabulary::http_methods!(crate::contract::contract_enum);
portos_vocabulary::route_access!(crate::contract::contract_enum);
portos_vocabulary::route_effects!(crate::contract::contract_enum);
portos_vocabulary::tool_privacy!(crate::contract::contract_enum);
portos_vocabulary::http_tool_effects!(crate::contract::contract_enum);

impl HttpMethod {
    /// The method's name in lowercase, as OpenAPI's path items and operationIds
    /// write it.
    pub fn lowercase(self) -> &'static str {
        match self {
            HttpMethod::Get => "get",
            HttpMethod::Post => "post",
            HttpMethod::Put => "put",
            HttpMethod::Patch => "patch",
            HttpMethod::Delete => "delete",
        }
    }
}

/// `#[portos_route(tool(...))]`: the operation is also an HTTP tool, with
/// an `x-portos-tool` annotation in OpenAPI and a record in tools.min.json.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HttpToolSpec {
    /// The tool's name (`x-portos-tool`'s `name`).
    pub name: &'static str,
    /// The tool's contract version.
    pub version: u32,
    /// `privacy`: whose data the tool handles.
    pub privacy: ToolPrivacy,
    /// `side_effect`: what the tool does.
    pub side_effect: HttpToolEffect,
    /// `async`: the operation queues work.
    pub is_async: bool,
}

/// Generates a type's schema in a shared generator (definitions collected
/// once for the whole document): `SchemaGenerator::subschema_for::<T>`.
pub type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

/// A declared error answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorSpec {
    /// The HTTP status of the answer.
    pub status: u16,
    /// The error body's `code`, e.g. `VALIDATION_ERROR`.
    pub code: &'static str,
}

/// What an operation takes and answers, derived from its handler's
/// signature: each extractor, the success type and the error type add what
/// they do, so the documents say what the handler does.
#[derive(Clone, Debug)]
pub struct RouteIo {
    /// The path parameters: an object schema with a property per `{name}`,
    /// or, for a path with one parameter, that parameter's own schema.
    /// Without it every parameter is a plain string.
    pub path: Option<SchemaFn>,
    /// The query parameters: an object schema with a property per parameter.
    pub query: Option<SchemaFn>,
    /// The JSON request body.
    pub request: Option<SchemaFn>,
    /// The JSON body of a successful answer.
    pub response: Option<SchemaFn>,
    /// The successful answer's media type when it is not JSON (an event
    /// stream's `text/event-stream`).
    pub response_media_type: Option<&'static str>,
    /// The status of a successful answer (200 unless the output says).
    pub success_status: u16,
    /// Declared failures, in the order their sources added them; a repeated
    /// `(status, code)` is kept once.
    pub errors: Vec<ErrorSpec>,
    /// Set by an output whose shape is known even without a body (204).
    pub modeled: bool,
    /// Answers that are not refusals but not the success status either,
    /// e.g. a tool call's failed result envelope at 422.
    pub outcomes: Vec<OutcomeSpec>,
    /// The server state the handler takes (`Shared<T>` parameters): the
    /// server refuses to start without each. Not part of any document.
    pub state: Vec<StateNeed>,
}

/// A declared answer that is not a refusal (no `PortosError` body): a
/// second status with a body of its own, or one with none. One at the
/// success status describes that answer instead of the generic "Success".
#[derive(Clone, Copy, Debug)]
pub struct OutcomeSpec {
    /// The HTTP status of the answer.
    pub status: u16,
    /// What the answer means, for the documents.
    pub description: &'static str,
    /// The JSON body, or `None` for an empty one.
    pub schema: Option<SchemaFn>,
}

impl Default for RouteIo {
    fn default() -> RouteIo {
        RouteIo {
            path: None,
            query: None,
            request: None,
            response: None,
            response_media_type: None,
            success_status: 200,
            errors: Vec::new(),
            modeled: false,
            outcomes: Vec::new(),
            state: Vec::new(),
        }
    }
}

impl RouteIo {
    /// Adds a failure unless the same status and code were declared.
    pub fn error(&mut self, status: u16, code: &'static str) {
        let spec = ErrorSpec { status, code };
        if !self.errors.contains(&spec) {
            self.errors.push(spec);
        }
    }

    /// Modeled when a schema for what goes in or out is known.
    pub fn is_modeled(&self) -> bool {
        self.modeled || self.request.is_some() || self.response.is_some() || self.query.is_some()
    }
}

/// One HTTP operation, as declared.
#[derive(Clone, Copy)]
pub struct RouteSpec {
    /// The operation's HTTP method.
    pub method: HttpMethod,
    /// `{name}` marks a path parameter, as in axum and OpenAPI. Under a
    /// `mount`, the path after the mount's prefix (`""` for the prefix
    /// itself).
    pub path: &'static str,
    /// The named prefix the operation lives under (`mount = "tools"`): the
    /// application says where each mount is, so a framework's routes take
    /// the application's paths. Resolved once, when the server is built
    /// ([`RouteSpec::mounted_at`]).
    pub mount: Option<&'static str>,
    /// `summary`: one line for the documents; when absent they derive one from
    /// the method and the path.
    pub summary: Option<&'static str>,
    /// The handler's doc comment (may be empty).
    pub description: &'static str,
    /// `access`: who may reach the operation; when absent the application's
    /// [`Classifier`](crate::inventory::Classifier) derives it from the path.
    pub access: Option<Access>,
    /// `side_effect`: what the operation does; when absent it is derived from
    /// the method and the path's segments.
    pub side_effect: Option<RouteEffect>,
    /// Describes the handler's inputs, output and failures (generated by
    /// `#[portos_route]` from the signature).
    pub io: fn() -> RouteIo,
    /// Set when the operation is annotated as an HTTP tool.
    pub tool: Option<HttpToolSpec>,
    /// A default that another declaration of the same method and path
    /// replaces (a runtime route an application serves its own way).
    pub replaceable: bool,
    /// Where the `#[portos_route]` attribute was written.
    pub location: SourceLocation,
}

impl fmt::Debug for RouteSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RouteSpec")
            .field("method", &self.method)
            .field("path", &self.path)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// The declarations that are served: every one, except a `replaceable`
/// one whose method and path another declaration also names.
pub fn effective<'a, T: 'a>(
    entries: impl IntoIterator<Item = &'a T>,
    spec: impl Fn(&T) -> &RouteSpec,
) -> Vec<&'a T> {
    let entries: Vec<&T> = entries.into_iter().collect();
    let replaced = |candidate: &RouteSpec| {
        candidate.replaceable
            && entries.iter().any(|other| {
                let other = spec(other);
                !other.replaceable
                    && other.method == candidate.method
                    && other.path == candidate.path
            })
    };
    entries
        .iter()
        .copied()
        .filter(|entry| !replaced(spec(entry)))
        .collect()
}

impl RouteSpec {
    /// The operation at its full path under a mount placed at `path` (its
    /// events at `events`), no longer mounted; in the summary and
    /// description, `{mount.path}` and `{mount.events}` become those
    /// places. Made once per server, and kept for the process's life like
    /// the declarations themselves.
    pub fn mounted_at(&self, path: &str, events: &str) -> RouteSpec {
        RouteSpec {
            path: keep(format!("{path}{}", self.path)),
            summary: self.summary.map(|text| placed(text, path, events)),
            description: placed(self.description, path, events),
            mount: None,
            ..*self
        }
    }

    /// What the handler takes and answers.
    pub fn io(&self) -> RouteIo {
        (self.io)()
    }

    /// An operation whose handler declares nothing (tests, generated routes).
    pub fn undescribed() -> RouteIo {
        RouteIo::default()
    }

    /// The names of the `{param}` segments, in order.
    pub fn path_params(&self) -> impl Iterator<Item = &'static str> {
        self.path
            .split('/')
            .filter_map(|segment| segment.strip_prefix('{')?.strip_suffix('}'))
    }
}

/// A declared operation and its handler, type-erased so this crate stays
/// free of any HTTP framework: the server knows the concrete type (an axum
/// `MethodRouter` of its state) and the macro checks it at compile time.
pub struct RouteEntry {
    /// The operation as declared.
    pub spec: RouteSpec,
    /// Makes the handler, boxed; the server downcasts it to its router type.
    pub handler: fn() -> Box<dyn std::any::Any + Send>,
}

impl fmt::Debug for RouteEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RouteEntry")
            .field("spec", &self.spec)
            .finish_non_exhaustive()
    }
}

/// `text` with the mount's places written in, kept.
pub(crate) fn placed(text: &'static str, path: &str, events: &str) -> &'static str {
    if !text.contains("{mount.") {
        return text;
    }
    keep(
        text.replace("{mount.path}", path)
            .replace("{mount.events}", events),
    )
}

/// A string made once per server from the declarations, kept like them.
pub(crate) fn keep(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(method: HttpMethod, path: &'static str, replaceable: bool, line: u32) -> RouteSpec {
        RouteSpec {
            method,
            path,
            mount: None,
            summary: None,
            description: "",
            access: None,
            side_effect: None,
            io: RouteSpec::undescribed,
            tool: None,
            replaceable,
            location: SourceLocation {
                file: "x.rs",
                line,
                column: 1,
            },
        }
    }

    #[test]
    fn a_replaceable_route_gives_way_to_another_of_the_same_method_and_path() {
        let routes = [
            spec(HttpMethod::Get, "/api/grants", true, 1),
            spec(HttpMethod::Put, "/api/grants", true, 2),
            spec(HttpMethod::Get, "/api/grants", false, 3),
            spec(HttpMethod::Get, "/api/other", true, 4),
        ];
        let served: Vec<u32> = effective(&routes, |route| route)
            .iter()
            .map(|route| route.location.line)
            .collect();
        // The runtime's GET is replaced; its PUT and the lone default stay.
        assert_eq!(served, [2, 3, 4]);
        // Two replaceable declarations of one operation stay a duplicate.
        let twice = [
            spec(HttpMethod::Get, "/a", true, 1),
            spec(HttpMethod::Get, "/a", true, 2),
        ];
        assert_eq!(effective(&twice, |route| route).len(), 2);
    }
}
