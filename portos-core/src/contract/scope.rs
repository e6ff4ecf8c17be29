use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Where a call came in from. Derived by the server, never by the request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Agent,
    Mind,
    Ui,
    Voice,
}

impl Scope {
    pub const ALL: [Scope; 4] = [Scope::Agent, Scope::Mind, Scope::Ui, Scope::Voice];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Agent => "agent",
            Scope::Mind => "mind",
            Scope::Ui => "ui",
            Scope::Voice => "voice",
        }
    }

    /// Mind and agent principals carry capability grants; ui and voice do not.
    pub fn is_granted_principal(self) -> bool {
        matches!(self, Scope::Mind | Scope::Agent)
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The catalog's `scope` query: a principal scope, or `all`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CatalogScope {
    #[default]
    All,
    Only(Scope),
}

impl CatalogScope {
    pub const VALUES: [&'static str; 5] = ["all", "agent", "mind", "ui", "voice"];

    pub fn as_str(self) -> &'static str {
        match self {
            CatalogScope::All => "all",
            CatalogScope::Only(scope) => scope.as_str(),
        }
    }

    pub fn includes(self, scopes: &[Scope]) -> bool {
        match self {
            CatalogScope::All => true,
            CatalogScope::Only(scope) => scopes.contains(&scope),
        }
    }
}

impl FromStr for CatalogScope {
    type Err = ();

    fn from_str(value: &str) -> Result<Self, ()> {
        Ok(match value {
            "all" => CatalogScope::All,
            "agent" => CatalogScope::Only(Scope::Agent),
            "mind" => CatalogScope::Only(Scope::Mind),
            "ui" => CatalogScope::Only(Scope::Ui),
            "voice" => CatalogScope::Only(Scope::Voice),
            _ => return Err(()),
        })
    }
}

impl Serialize for CatalogScope {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}
