//! The framework's own words, written once.
//!
//! `portos-macros` checks an attribute's keys against it at compile time and
//! `portos-core` generates its enums (`SideEffect`, `Confirmation`, and the
//! route and event words: `HttpMethod`, `Access`,
//! `RouteEffect`, `ToolPrivacy`, `HttpToolEffect`, `Direction`) and their
//! string forms from the same tables, so the words
//! a tool is declared with and the words on the wire cannot drift apart.
//!
//! Each table is a `macro_rules!` that hands its rows to a callback macro:
//! `portos_vocabulary::side_effects!(my_macro)` expands to
//! `my_macro! { SideEffect { Read = "read", ... } }`. The constants below
//! ([`SIDE_EFFECTS`], [`CONFIRMATIONS`], ...) are the same tables as data.
//!
//! Capabilities and scopes are not here: they are each application's own
//! words (`portos_core::vocabulary!`). Only their spelling is a rule of the
//! framework ([`capability_name_problem`], [`scope_name_problem`]).

#![warn(missing_docs, unreachable_pub)]

mod names;
mod tables;

pub use names::{
    ALL_SCOPES_WORD, CAPABILITY_NAME_MAX_CHARS, INTENT_GROUP_MAX_CHARS, NAME_MAX_CHARS,
    PROVIDER_NAME_MAX_CHARS, SCOPE_NAME_MAX_CHARS, callable_name_problem, capability_name_problem,
    intent_group_problem, is_callable_name, is_provider_name, provider_name_for,
    provider_name_problem, scope_name_problem,
};

/// One word of a vocabulary: its string form (on the wire and in attributes)
/// and the name of the enum variant portos-core gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Term {
    /// As written on the wire and in attributes (`supervised-write`).
    pub name: &'static str,
    /// The portos-core enum variant it becomes (`SupervisedWrite`).
    pub variant: &'static str,
}

/// Finds the term whose string form is `name`.
pub fn find(terms: &[Term], name: &str) -> Option<Term> {
    terms.iter().copied().find(|term| term.name == name)
}

/// A table as data: `[Term { name, variant }, ...]`.
macro_rules! terms {
    ($enum:ident { $($variant:ident = $name:literal),* $(,)? }) => {
        &[$(Term { name: $name, variant: stringify!($variant) }),*]
    };
}

/// What a tool does to the world.
pub const SIDE_EFFECTS: &[Term] = side_effects!(terms);
/// What a call needs before it runs.
pub const CONFIRMATIONS: &[Term] = confirmations!(terms);
/// The HTTP methods of `#[portos_route]`.
pub const HTTP_METHODS: &[Term] = http_methods!(terms);
/// A route's declared `access`.
pub const ROUTE_ACCESS: &[Term] = route_access!(terms);
/// A route's declared `side_effect`.
pub const ROUTE_EFFECTS: &[Term] = route_effects!(terms);
/// An HTTP tool's `privacy`.
pub const TOOL_PRIVACY: &[Term] = tool_privacy!(terms);
/// An HTTP tool's `side_effect`.
pub const HTTP_TOOL_EFFECTS: &[Term] = http_tool_effects!(terms);
/// A Socket.IO event's directions.
pub const EVENT_DIRECTIONS: &[Term] = event_directions!(terms);

/// The string forms of a table, for messages.
pub fn names(terms: &[Term]) -> Vec<&'static str> {
    terms.iter().map(|term| term.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_as_data() {
        assert_eq!(
            find(SIDE_EFFECTS, "supervised-write").map(|t| t.variant),
            Some("SupervisedWrite")
        );
        assert_eq!(
            find(CONFIRMATIONS, "capability-grant").map(|t| t.variant),
            Some("CapabilityGrant")
        );
        assert_eq!(find(SIDE_EFFECTS, "root"), None);
    }

    #[test]
    fn names_are_unique() {
        for table in [
            SIDE_EFFECTS,
            CONFIRMATIONS,
            HTTP_METHODS,
            ROUTE_ACCESS,
            ROUTE_EFFECTS,
            TOOL_PRIVACY,
            HTTP_TOOL_EFFECTS,
            EVENT_DIRECTIONS,
        ] {
            for (index, term) in table.iter().enumerate() {
                assert!(
                    table[index + 1..]
                        .iter()
                        .all(|other| other.name != term.name)
                );
                assert!(
                    table[index + 1..]
                        .iter()
                        .all(|other| other.variant != term.variant)
                );
            }
        }
    }
}
