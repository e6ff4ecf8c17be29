use std::str::FromStr;

use serde::Serialize;

pub use super::vocabulary::Scope;

impl Scope {
    /// Mind and agent principals carry capability grants; ui and voice do not.
    pub fn is_granted_principal(self) -> bool {
        matches!(self, Scope::Mind | Scope::Agent)
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
    /// `all`, then every scope's name.
    pub const VALUES: [&'static str; Scope::ALL.len() + 1] = {
        let mut values = ["all"; Scope::ALL.len() + 1];
        let mut index = 0;
        while index < Scope::ALL.len() {
            values[index + 1] = Scope::ALL[index].as_str();
            index += 1;
        }
        values
    };

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
        match value {
            "all" => Ok(CatalogScope::All),
            other => Scope::from_name(other).map(CatalogScope::Only).ok_or(()),
        }
    }
}

impl Serialize for CatalogScope {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}
