//! What the gate (`crate::http::gate`) finds out about a request, as
//! handlers read it.

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AuthMethod {
    Session,
    Basic,
}

/// What the gate found out about a request; handlers read it from the
/// request extensions (the registry's `{principal.http}` authority comes from here).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct AuthContext {
    pub enabled: bool,
    pub authenticated: bool,
    pub method: Option<AuthMethod>,
}
