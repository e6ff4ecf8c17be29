//! What `#[portos_route]` declares about an HTTP operation, as const data.
//! The server pairs each spec with its handler; documents are derived from
//! the specs alone, so this module knows no HTTP framework.

use std::fmt;

use schemars::{Schema, SchemaGenerator};

use super::SourceLocation;

// The words of a route declaration, each enum generated from its table in
// portos-vocabulary (the one `#[portos_route]` checks against), with its
// string form as `as_str`, `Display` and its serde form.
portos_vocabulary::http_methods!(crate::contract::contract_enum);
portos_vocabulary::route_access!(crate::contract::contract_enum);
portos_vocabulary::route_effects!(crate::contract::contract_enum);
portos_vocabulary::tool_privacy!(crate::contract::contract_enum);
portos_vocabulary::http_tool_effects!(crate::contract::contract_enum);

impl HttpMethod {
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
    pub name: &'static str,
    pub version: u32,
    pub privacy: ToolPrivacy,
    pub side_effect: HttpToolEffect,
    pub is_async: bool,
}

/// Generates a type's schema in a shared generator (definitions collected
/// once for the whole document): `SchemaGenerator::subschema_for::<T>`.
pub type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

/// A declared error answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorSpec {
    pub status: u16,
    pub code: &'static str,
}

/// One HTTP operation, as declared.
#[derive(Clone, Copy)]
pub struct RouteSpec {
    pub method: HttpMethod,
    /// `{name}` marks a path parameter, as in axum and OpenAPI.
    pub path: &'static str,
    pub summary: Option<&'static str>,
    /// The handler's doc comment (may be empty).
    pub description: &'static str,
    pub access: Option<Access>,
    pub side_effect: Option<RouteEffect>,
    pub query: Option<SchemaFn>,
    pub request: Option<SchemaFn>,
    /// The JSON body of a successful answer.
    pub response: Option<SchemaFn>,
    /// The status of a successful answer (200 unless declared).
    pub success_status: u16,
    pub errors: &'static [ErrorSpec],
    /// Set when the operation is annotated as an HTTP tool.
    pub tool: Option<HttpToolSpec>,
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

impl RouteSpec {
    /// Modeled when the declaration gives a schema for what goes in or out.
    pub fn is_modeled(&self) -> bool {
        self.request.is_some() || self.response.is_some() || self.query.is_some()
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
    pub spec: RouteSpec,
    pub handler: fn() -> Box<dyn std::any::Any + Send>,
}

impl fmt::Debug for RouteEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RouteEntry")
            .field("spec", &self.spec)
            .finish_non_exhaustive()
    }
}
