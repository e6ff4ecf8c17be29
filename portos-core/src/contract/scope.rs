use std::fmt;
use std::str::FromStr;

use serde::de;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Capability;
use super::words::{Guard, ScopeTerm, Transport, vocabulary, words};

/// A scope of the application's vocabulary: who a call speaks for
/// (`portos_core::vocabulary!` declares one constant per scope).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Scope(u8);

impl Scope {
    /// The scope declared at `index` of the linked vocabulary: what the
    /// constants `vocabulary!` declares are made of.
    #[doc(hidden)]
    pub const fn declared(index: u8) -> Scope {
        Scope(index)
    }

    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The declaration, if the linked vocabulary has it.
    pub fn term(self) -> Option<&'static ScopeTerm> {
        vocabulary().scopes.get(self.index())
    }

    /// The name, as on the wire and in `#[portos_tool]`.
    pub fn as_str(self) -> &'static str {
        self.term().map_or("<undeclared scope>", |term| term.name)
    }

    pub fn from_name(name: &str) -> Option<Scope> {
        vocabulary().scope(name)
    }

    /// Every scope of the linked vocabulary, in its order.
    pub fn all() -> impl Iterator<Item = Scope> + Clone {
        (0..vocabulary().scopes.len())
            .filter_map(|index| u8::try_from(index).ok())
            .map(Scope)
    }

    /// The scope `transport`'s callers speak for, if the vocabulary names one.
    pub fn of_transport(transport: Transport) -> Option<Scope> {
        vocabulary().scope_of(transport)
    }

    /// How the principal is guarded (an undeclared scope holds nothing and
    /// is trusted with nothing: it is guarded like a principal without grants).
    pub fn guard(self) -> Guard {
        self.term().map_or(Guard::Grants(&[]), |term| term.guard)
    }

    /// The principal holds capability grants (its catalog says `granted`).
    pub fn holds_grants(self) -> bool {
        matches!(self.guard(), Guard::Grants(_))
    }

    /// What the principal can be granted, in its grants object's order
    /// (nothing for a principal that holds no grants).
    pub fn grantable(self) -> &'static [Capability] {
        match self.guard() {
            Guard::Grants(grantable) => grantable,
            Guard::SignedIn | Guard::Trusted => &[],
        }
    }
}

impl fmt::Debug for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Scope {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Scope {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Scope::from_name(&name)
            .ok_or_else(|| de::Error::unknown_variant(&name, &words().catalog_scopes[1..]))
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
    pub fn values() -> &'static [&'static str] {
        &words().catalog_scopes
    }

    pub fn as_str(self) -> &'static str {
        match self {
            CatalogScope::All => portos_vocabulary::ALL_SCOPES_WORD,
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
        if value == portos_vocabulary::ALL_SCOPES_WORD {
            return Ok(CatalogScope::All);
        }
        Scope::from_name(value).map(CatalogScope::Only).ok_or(())
    }
}

impl Serialize for CatalogScope {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}
