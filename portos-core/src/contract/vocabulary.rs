//! The framework's enums, generated from the one table of each vocabulary in
//! `portos-vocabulary` (the table the macros check attributes against), so
//! their string forms on the wire are those words and nothing else.

use std::fmt;

use serde::de::{self, Visitor};

/// Expands one vocabulary table into a `Copy` enum with `ALL`, `NAMES`,
/// `as_str`, `from_name`, `Display`, `Serialize` and `Deserialize`.
macro_rules! contract_enum {
    ($enum:ident { $($variant:ident = $name:literal),* $(,)? }) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $enum {
            $($variant),*
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
