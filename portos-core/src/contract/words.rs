//! The application's vocabulary: the capabilities its tools require and the
//! scopes its callers speak for. The framework has none of its own; each
//! application declares exactly one with `portos_core::vocabulary!`, which
//! registers it in a link-time list like tools and routes, so every part of
//! the server (grants objects, catalogs, documents) reads the same words.
//!
//! A tool names its words as strings (`capabilities = ["readBooks"]`); the
//! macro checks their spelling and the registry build checks that the
//! linked vocabulary declares them, reporting every unknown word at once
//! with its tool's source location.

use std::fmt;
use std::sync::LazyLock;

use portos_vocabulary::{ALL_SCOPES_WORD, capability_name_problem, scope_name_problem};

use super::location::SourceLocation;
use super::{Capability, Scope};

/// At most this many capabilities: a grant set is one bit each.
pub const MAX_CAPABILITIES: usize = 64;
/// At most this many scopes.
pub const MAX_SCOPES: usize = 32;

/// One application's words, as `portos_core::vocabulary!` declares them.
#[derive(Clone, Copy, Debug)]
pub struct Vocabulary {
    /// In declaration order: the order of every grants object's keys.
    pub capabilities: &'static [CapabilityTerm],
    /// In declaration order: who may call, and how each principal is guarded.
    pub scopes: &'static [ScopeTerm],
    /// The kinds of context item the application's Agent Tools context
    /// tools serve (none without context tools), in order.
    pub context: &'static [ContextTerm],
    /// Where `vocabulary!` was invoked, for messages about the declaration.
    pub location: SourceLocation,
}

/// A context scope: one kind of context item an agent may be let read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextTerm {
    /// The context scope's name, as on the wire.
    pub name: &'static str,
    /// Its doc comment: what kind of item it is.
    pub description: &'static str,
    /// Read until the owner chooses otherwise.
    pub default: bool,
}

/// A capability: a grant a principal may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CapabilityTerm {
    /// The camelCase key, e.g. `readBooks`.
    pub name: &'static str,
    /// Its doc comment: what holding it allows.
    pub description: &'static str,
    /// Holding it means reaching other machines: every tool that requires
    /// it is open-world (MCP `openWorldHint`) whatever its author wrote.
    pub open_world: bool,
}

/// A scope: who a call speaks for, and how that principal is guarded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScopeTerm {
    /// The scope's name on the wire, e.g. `reader`.
    pub name: &'static str,
    /// Its doc comment: who speaks for it.
    pub description: &'static str,
    /// How the principal is guarded: `#[grants]`, `#[signed_in]` or `#[trusted]`.
    pub guard: Guard,
    /// The transport whose callers speak for this scope, if any.
    pub transport: Option<Transport>,
}

/// What stands between a principal and a tool beyond the tool's scopes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// The principal holds grants, and a tool runs only when each capability
    /// it requires is granted. The list is what it can be granted: the keys
    /// of its grants object, in their order.
    Grants(&'static [Capability]),
    /// A person: a tool that is not a read needs an authenticated caller.
    SignedIn,
    /// An in-process caller the application trusts (a voice pipeline):
    /// neither grants nor sign-in are asked of it.
    Trusted,
}

/// A transport of the serving runtime, whose callers speak for one scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transport {
    /// The tool-call route and every HTTP route that calls tools.
    Http,
    /// The MCP endpoint (HTTP and stdio).
    Mcp,
}

impl Transport {
    /// The attribute's word for the transport: `http` or `mcp`.
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Http => "http",
            Transport::Mcp => "mcp",
        }
    }
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every `vocabulary!` linked into the binary (linkme back end only;
/// [`linked_vocabularies`] reads it under every back end).
#[cfg(not(feature = "inventory-collector"))]
#[linkme::distributed_slice]
pub static VOCABULARIES: [Vocabulary];

#[cfg(feature = "inventory-collector")]
inventory::collect!(Vocabulary);

/// Every vocabulary linked into the binary, ordered by where it was
/// declared (a well-formed binary has exactly one).
pub fn linked_vocabularies() -> Vec<&'static Vocabulary> {
    #[cfg(not(feature = "inventory-collector"))]
    let mut all: Vec<&'static Vocabulary> = VOCABULARIES.iter().collect();
    #[cfg(feature = "inventory-collector")]
    let mut all: Vec<&'static Vocabulary> = inventory::iter::<Vocabulary>.into_iter().collect();
    all.sort_by_key(|vocabulary| {
        let at = vocabulary.location;
        (at.file, at.line, at.column)
    });
    all
}

/// A word of the linked vocabulary: a `u8` index into one of its lists,
/// named by the declaration (`as_str`, `Display`, serde), with the constant
/// constructor `vocabulary!` expands to. `Capability`, `Scope` and
/// `ContextScope` are each one of these over their own list.
macro_rules! vocabulary_word {
    (
        $(#[$doc:meta])*
        $word:ident, $term:ty, list: $list:ident, names: $names:ident, undeclared: $undeclared:literal
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $word(u8);

        impl $word {
            /// The word declared at `index` of the linked vocabulary: what
            /// the constants `vocabulary!` declares are made of.
            #[doc(hidden)]
            pub const fn declared(index: u8) -> $word {
                $word(index)
            }

            /// Its position in the vocabulary's list.
            pub fn index(self) -> usize {
                usize::from(self.0)
            }

            /// The declaration, if the linked vocabulary has it.
            pub fn term(self) -> Option<&'static $term> {
                $crate::contract::words::vocabulary().$list.get(self.index())
            }

            /// The declared name, as on the wire and in the attributes.
            pub fn as_str(self) -> &'static str {
                self.term().map_or($undeclared, |term| term.name)
            }

            /// The word named `name` in the linked vocabulary.
            pub fn from_name(name: &str) -> Option<$word> {
                $crate::contract::words::vocabulary()
                    .$list
                    .iter()
                    .position(|term| term.name == name)
                    .and_then(|index| u8::try_from(index).ok())
                    .map($word)
            }

            /// Every word of the list, in the vocabulary's order.
            pub fn all() -> impl Iterator<Item = $word> + Clone {
                (0..$crate::contract::words::vocabulary().$list.len())
                    .filter_map(|index| u8::try_from(index).ok())
                    .map($word)
            }
        }

        impl ::std::fmt::Debug for $word {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::fmt::Display for $word {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $word {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $word {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let name = <String as ::serde::Deserialize>::deserialize(deserializer)?;
                $word::from_name(&name).ok_or_else(|| {
                    <D::Error as ::serde::de::Error>::unknown_variant(
                        &name,
                        $crate::contract::words::words().$names.as_slice(),
                    )
                })
            }
        }
    };
}

pub(crate) use vocabulary_word;

/// The words in force: the linked vocabulary, or none at all.
pub(crate) struct Words {
    pub(crate) vocabulary: Vocabulary,
    /// The capability names, for "expected one of" messages.
    pub(crate) capability_names: Vec<&'static str>,
    /// The scope names, for the same.
    pub(crate) scope_names: Vec<&'static str>,
    /// `all`, then the scope names: the catalog's `scope` values.
    pub(crate) catalog_scopes: Vec<&'static str>,
    /// The context scope names, for messages and the settings' schema.
    pub(crate) context_names: Vec<&'static str>,
}

static EMPTY: Vocabulary = Vocabulary {
    capabilities: &[],
    scopes: &[],
    context: &[],
    location: SourceLocation {
        file: "<none>",
        line: 0,
        column: 0,
    },
};

static WORDS: LazyLock<Words> = LazyLock::new(|| {
    let vocabulary = linked_vocabularies().first().map_or(EMPTY, |v| **v);
    Words {
        capability_names: vocabulary.capabilities.iter().map(|c| c.name).collect(),
        scope_names: vocabulary.scopes.iter().map(|s| s.name).collect(),
        context_names: vocabulary.context.iter().map(|c| c.name).collect(),
        catalog_scopes: std::iter::once(ALL_SCOPES_WORD)
            .chain(vocabulary.scopes.iter().map(|s| s.name))
            .collect(),
        vocabulary,
    }
});

pub(crate) fn words() -> &'static Words {
    &WORDS
}

/// The vocabulary in force (empty when none is linked).
pub fn vocabulary() -> &'static Vocabulary {
    &words().vocabulary
}

/// What is wrong with the linked vocabulary, one line each: none or two
/// linked, and the rules `vocabulary!` checks at compile time, checked
/// again because a `Vocabulary` can also be written by hand.
pub fn vocabulary_problems() -> Vec<String> {
    let linked = linked_vocabularies();
    let mut problems = Vec::new();
    match linked.as_slice() {
        [] => problems.push(
            "no vocabulary is linked: declare the application's capabilities and scopes once \
             with `portos_core::vocabulary! { ... }` in a crate the binary links"
                .to_owned(),
        ),
        [one] => problems.extend(one.problems()),
        [first, rest @ ..] => {
            for other in rest {
                problems.push(format!(
                    "two vocabularies are linked ({} and {}): an application declares its \
                     capabilities and scopes once",
                    first.location, other.location
                ));
            }
        }
    }
    problems
}

impl Vocabulary {
    /// The rules of one declaration.
    pub fn problems(&self) -> Vec<String> {
        let at = self.location;
        let mut problems = Vec::new();
        if self.capabilities.len() > MAX_CAPABILITIES {
            problems.push(format!(
                "the vocabulary ({at}) declares {} capabilities (at most {MAX_CAPABILITIES})",
                self.capabilities.len()
            ));
        }
        if self.scopes.len() > MAX_SCOPES {
            problems.push(format!(
                "the vocabulary ({at}) declares {} scopes (at most {MAX_SCOPES})",
                self.scopes.len()
            ));
        }
        for (index, term) in self.capabilities.iter().enumerate() {
            if let Some(problem) = capability_name_problem(term.name) {
                problems.push(format!(
                    "capability `{}` ({at}) is not a valid name: {problem}",
                    term.name
                ));
            }
            if self.capabilities[..index]
                .iter()
                .any(|t| t.name == term.name)
            {
                problems.push(format!(
                    "capability `{}` is declared twice ({at})",
                    term.name
                ));
            }
        }
        for (index, term) in self.scopes.iter().enumerate() {
            if let Some(problem) = scope_name_problem(term.name) {
                problems.push(format!(
                    "scope `{}` ({at}) is not a valid name: {problem}",
                    term.name
                ));
            }
            if self.scopes[..index].iter().any(|t| t.name == term.name) {
                problems.push(format!("scope `{}` is declared twice ({at})", term.name));
            }
            if let Some(transport) = term.transport
                && self.scopes[..index]
                    .iter()
                    .any(|t| t.transport == Some(transport))
            {
                problems.push(format!(
                    "two scopes speak for the {transport} transport ({at}): choose one"
                ));
            }
            if let Guard::Grants(grantable) = term.guard {
                for capability in grantable {
                    if capability.index() >= self.capabilities.len() {
                        problems.push(format!(
                            "scope `{}` ({at}) can be granted capability #{}, which is not declared",
                            term.name,
                            capability.index()
                        ));
                    }
                }
            }
        }
        for (index, term) in self.context.iter().enumerate() {
            if let Some(problem) = scope_name_problem(term.name) {
                problems.push(format!(
                    "context scope `{}` ({at}) is not a valid name: {problem}",
                    term.name
                ));
            }
            if self.context[..index].iter().any(|t| t.name == term.name) {
                problems.push(format!(
                    "context scope `{}` is declared twice ({at})",
                    term.name
                ));
            }
        }
        if self.context.len() > MAX_SCOPES {
            problems.push(format!(
                "the vocabulary ({at}) declares {} context scopes (at most {MAX_SCOPES})",
                self.context.len()
            ));
        }
        problems
    }

    /// The scope whose callers `transport` speaks for.
    pub fn scope_of(&self, transport: Transport) -> Option<Scope> {
        self.scopes
            .iter()
            .position(|term| term.transport == Some(transport))
            .and_then(|index| u8::try_from(index).ok())
            .map(Scope::declared)
    }
}
