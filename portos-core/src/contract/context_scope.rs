use std::fmt;

use serde::de;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::words::{ContextTerm, vocabulary, words};

/// A context scope of the application's vocabulary: one kind of context
/// item its Agent Tools context tools serve, which the owner lets an agent
/// read (`context { ... }` in `portos_core::vocabulary!` declares one
/// constant per scope). An application without context tools has none.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContextScope(u8);

impl ContextScope {
    /// The context scope declared at `index` of the linked vocabulary: what
    /// the constants `vocabulary!` declares are made of.
    #[doc(hidden)]
    pub const fn declared(index: u8) -> ContextScope {
        ContextScope(index)
    }

    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The declaration, if the linked vocabulary has it.
    pub fn term(self) -> Option<&'static ContextTerm> {
        vocabulary().context.get(self.index())
    }

    /// The name, as in the Agent Tools settings.
    pub fn as_str(self) -> &'static str {
        self.term()
            .map_or("<undeclared context scope>", |term| term.name)
    }

    pub fn from_name(name: &str) -> Option<ContextScope> {
        vocabulary()
            .context
            .iter()
            .position(|term| term.name == name)
            .and_then(|index| u8::try_from(index).ok())
            .map(ContextScope)
    }

    /// Every context scope of the linked vocabulary, in its order.
    pub fn all() -> impl Iterator<Item = ContextScope> + Clone {
        (0..vocabulary().context.len())
            .filter_map(|index| u8::try_from(index).ok())
            .map(ContextScope)
    }

    /// The ones an agent reads until the owner chooses (`#[default]`).
    pub fn defaults() -> impl Iterator<Item = ContextScope> + Clone {
        ContextScope::all().filter(|scope| scope.term().is_some_and(|term| term.default))
    }
}

impl fmt::Debug for ContextScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for ContextScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ContextScope {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ContextScope {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        ContextScope::from_name(&name)
            .ok_or_else(|| de::Error::unknown_variant(&name, words().context_names.as_slice()))
    }
}

/// One of the vocabulary's context scopes' names.
impl schemars::JsonSchema for ContextScope {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ContextScope".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names = &words().context_names;
        if names.is_empty() {
            return schemars::json_schema!({
                "type": "string",
                "description": "The application declares no context scopes: none can be named.",
                "maxLength": 0,
            });
        }
        schemars::json_schema!({
            "type": "string",
            "enum": names,
            "description": "The context scopes, in the contract's order.",
        })
    }
}
