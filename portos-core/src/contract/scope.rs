use std::str::FromStr;

use serde::Serialize;

use super::Capability;
use super::words::{Guard, ScopeTerm, Transport, vocabulary, words};

super::words::vocabulary_word! {
    /// A scope of the application's vocabulary: who a call speaks for
    /// (`portos_core::vocabulary!` declares one constant per scope).
    Scope, ScopeTerm, list: scopes, names: scope_names, undeclared: "<undeclared scope>"
}

impl Scope {
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

/// The catalog's `scope` query: a principal scope, or `all`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CatalogScope {
    /// `all`: every scope's tools.
    #[default]
    All,
    /// One scope's tools only.
    Only(Scope),
}

impl CatalogScope {
    /// `all`, then every scope's name.
    pub fn values() -> &'static [&'static str] {
        &words().catalog_scopes
    }

    /// The query's word: `all` or the scope's name.
    pub fn as_str(self) -> &'static str {
        match self {
            CatalogScope::All => portos_vocabulary::ALL_SCOPES_WORD,
            CatalogScope::Only(scope) => scope.as_str(),
        }
    }

    /// Whether a tool offered to `scopes` is listed under this query.
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
