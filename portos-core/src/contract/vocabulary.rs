//! The framework's enums, generated from the one table of each vocabulary in
//! `portos-vocabulary` (the table the macros check attributes against), so
//! their string forms on the wire are those words and nothing else.

use std::fmt;

use serde::de::{self, Visitor};

/// Expands one vocabulary table into a `Copy` enum with `ALL`, `NAMES`,
/// `as_str`, `from_name`, `Display`, `Serialize` and `Deserialize`.
macro_rules! contract_enum {
    ($enum:ident { $($variant:ident = $name:literal),* $(,)? }) => {
        #[doc = $crate::contract::vocabulary::term_doc!($enum)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $enum {
            $(
                #[doc = $crate::contract::vocabulary::term_doc!($enum::$variant = $name)]
                $variant
            ),*
        }

        impl $enum {
            /// Every value, in the vocabulary's order.
            pub const ALL: [$enum; [$($name),*].len()] = [$($enum::$variant),*];
            /// Every string form, in the same order.
            pub const NAMES: [&'static str; [$($name),*].len()] = [$($name),*];

            /// The string form, as on the wire and in `#[portos_tool]`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($enum::$variant => $name),*
                }
            }

            /// The value whose string form is `name`, if any.
            pub fn from_name(name: &str) -> Option<$enum> {
                match name {
                    $($name => Some($enum::$variant),)*
                    _ => None,
                }
            }
        }

        impl ::std::fmt::Display for $enum {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $enum {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $enum {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_str($crate::contract::vocabulary::TermVisitor {
                    from_name: $enum::from_name,
                    names: &$enum::NAMES,
                })
            }
        }
    };
}

// Reached by path from the other modules whose enums come from a table.
pub(crate) use contract_enum;

/// The doc comments of the enums [`contract_enum!`] generates and of their
/// variants, looked up by name: the tables in `portos-vocabulary` hold only
/// the words. A word added to a table without a line here is documented by
/// its string form alone.
macro_rules! term_doc {
    (SideEffect) => {
        "What a tool does to the world (`side_effect`): everything but `read` counts as a write."
    };
    (SideEffect::Read = $name:literal) => {
        "`read`: changes nothing; the only side effect that is not a write."
    };
    (SideEffect::Write = $name:literal) => {
        "`write`: changes what the application keeps."
    };
    (SideEffect::SupervisedWrite = $name:literal) => {
        concat!(
            "`supervised-write`: a write whose work is queued for supervision ",
            "rather than done at once (a task handed to a supervised agent).",
        )
    };
    (SideEffect::Destructive = $name:literal) => {
        "`destructive`: deletes or overwrites what the application keeps (MCP `destructiveHint`)."
    };
    (Confirmation) => {
        "What a call needs before it runs (`confirmation`)."
    };
    (Confirmation::None = $name:literal) => {
        "`none`: nothing; the call runs once it is authorized. The default for reads."
    };
    (Confirmation::CapabilityGrant = $name:literal) => {
        concat!(
            "`capability-grant`: the principal's grant of the required capabilities; ",
            "a long-running call by a principal that holds grants also waits for a ",
            "person's approval. The default for writes.",
        )
    };
    (HttpMethod) => {
        "An HTTP method a `#[portos_route]` declares."
    };
    (HttpMethod::Get = $name:literal) => {
        "`GET`: reads."
    };
    (HttpMethod::Post = $name:literal) => {
        "`POST`: creates or runs."
    };
    (HttpMethod::Put = $name:literal) => {
        "`PUT`: replaces."
    };
    (HttpMethod::Patch = $name:literal) => {
        "`PATCH`: updates in part."
    };
    (HttpMethod::Delete = $name:literal) => {
        "`DELETE`: deletes."
    };
    (Access) => {
        "Who may reach an HTTP operation: the route catalog's `access`."
    };
    (Access::AlwaysPublic = $name:literal) => {
        "`always-public`: anyone, even when a password is set."
    };
    (Access::Loopback = $name:literal) => {
        "`loopback`: only callers on this machine (Agent Tools)."
    };
    (Access::ExternallyExposable = $name:literal) => {
        "`externally-exposable`: in an API group the owner may expose to other callers."
    };
    (Access::AuthenticatedUi = $name:literal) => {
        "`authenticated-ui`: the UI's own, behind the password gate when a password is set."
    };
    (RouteEffect) => {
        "What an HTTP operation does: the route catalog's `sideEffect`."
    };
    (RouteEffect::Read = $name:literal) => {
        "`read`: changes nothing."
    };
    (RouteEffect::Write = $name:literal) => {
        "`write`: changes what the server keeps."
    };
    (RouteEffect::Destructive = $name:literal) => {
        "`destructive`: deletes, clears or resets something."
    };
    (RouteEffect::ProcessControl = $name:literal) => {
        "`process-control`: starts, stops or otherwise drives a process."
    };
    (ToolPrivacy) => {
        "Whose data an HTTP tool handles: its `privacy`."
    };
    (ToolPrivacy::Personal = $name:literal) => {
        "`personal`: the user's own."
    };
    (ToolPrivacy::Internal = $name:literal) => {
        "`internal`: only data about the server itself."
    };
    (HttpToolEffect) => {
        "What an HTTP tool does: its `sideEffect`."
    };
    (HttpToolEffect::Read = $name:literal) => {
        "`read`: changes nothing."
    };
    (HttpToolEffect::LocalCompute = $name:literal) => {
        "`local-compute`: computes on this machine and changes nothing kept."
    };
    (HttpToolEffect::Write = $name:literal) => {
        "`write`: changes what the server keeps."
    };
    (HttpToolEffect::Destructive = $name:literal) => {
        "`destructive`: deletes or overwrites what the server keeps."
    };
    (Direction) => {
        "Which way a Socket.IO event travels."
    };
    (Direction::ClientToServer = $name:literal) => {
        "`client-to-server`: the client emits it."
    };
    (Direction::ServerToClient = $name:literal) => {
        "`server-to-client`: the server emits it."
    };
    ($enum:ident) => {
        concat!("A word of the `", stringify!($enum), "` table.")
    };
    ($enum:ident :: $variant:ident = $name:literal) => {
        concat!("`", $name, "`.")
    };
}

pub(crate) use term_doc;

portos_vocabulary::side_effects!(contract_enum);
portos_vocabulary::confirmations!(contract_enum);

/// Reads one word of a vocabulary; anything else is an unknown variant.
pub(crate) struct TermVisitor<T: 'static> {
    pub(crate) from_name: fn(&str) -> Option<T>,
    pub(crate) names: &'static [&'static str],
}

impl<T> Visitor<'_> for TermVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "one of {}", self.names.join(", "))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<T, E> {
        (self.from_name)(value).ok_or_else(|| de::Error::unknown_variant(value, self.names))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The enums and the tables the macros check against are one list.
    #[test]
    fn enums_follow_the_tables() {
        fn same<T: Copy + fmt::Debug>(
            all: &[T],
            names: &[&str],
            terms: &[portos_vocabulary::Term],
        ) {
            assert_eq!(names.len(), terms.len());
            for ((value, name), term) in all.iter().zip(names).zip(terms) {
                assert_eq!(*name, term.name);
                assert_eq!(format!("{value:?}"), term.variant);
            }
        }
        same(
            &SideEffect::ALL,
            &SideEffect::NAMES,
            portos_vocabulary::SIDE_EFFECTS,
        );
        same(
            &Confirmation::ALL,
            &Confirmation::NAMES,
            portos_vocabulary::CONFIRMATIONS,
        );
    }

    #[test]
    fn wire_forms() {
        assert_eq!(
            serde_json::to_value(SideEffect::SupervisedWrite).ok(),
            Some("supervised-write".into())
        );
        assert_eq!(
            serde_json::from_str::<Confirmation>("\"none\"").ok(),
            Some(Confirmation::None)
        );
        assert!(serde_json::from_str::<SideEffect>("\"root\"").is_err());
    }
}
