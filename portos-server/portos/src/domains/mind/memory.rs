//! The Mind's memories and its chosen name: what a memory is, the
//! protection levels (which only ever rise), and the rule a chosen name
//! follows. Every memory in the Mind's store is the Mind's own; people add
//! some for it over REST, the Mind protects and cleans them up with its
//! tools (docs/reference.md#tool-families, the Mind-only family).

use crate::shared::doc_rules::NOT_BLANK;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A memory id is at most this long (the tools' `memoryId` limit).
pub const MEMORY_ID_MAX_CHARS: usize = 128;
/// A memory's text, trimmed, is at most this long.
pub const TEXT_MAX_CHARS: usize = 2000;
/// A chosen name, trimmed, is 1 to 64 characters.
pub const NAME_MAX_CHARS: usize = 64;
/// A chosen name: a letter or number first, then letters, combining marks,
/// numbers, spaces and name punctuation (`. _ ' ’ · -`), so `"Bad\nName"`
/// is refused. The surrounding `\s*` admits what trimming removes: the
/// contract trims before it checks, and the trimmed name is what is kept.
pub const NAME_PATTERN: &str = r"^\s*[\p{L}\p{N}][\p{L}\p{M}\p{N} ._'’·-]*\s*$";

/// How well a memory is protected from cleanup. Ordered: a level can be
/// raised, never lowered or removed.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Protection {
    /// Cleanup may archive it.
    #[default]
    Standard,
    /// Knowledge cleanup keeps.
    Important,
    /// Who the Mind is; cleanup keeps it.
    CoreIdentity,
}

impl Protection {
    pub fn as_str(self) -> &'static str {
        match self {
            Protection::Standard => "standard",
            Protection::Important => "important",
            Protection::CoreIdentity => "core-identity",
        }
    }

    /// The level stored as `text`; anything else reads as `standard`.
    pub fn from_stored(text: &str) -> Protection {
        match text {
            "core-identity" => Protection::CoreIdentity,
            "important" => Protection::Important,
            _ => Protection::Standard,
        }
    }

    /// The level after asking for `wanted`: the higher of the two, so a
    /// protection is never removed and core identity is never demoted.
    pub fn raised_to(self, wanted: Protection) -> Protection {
        self.max(wanted)
    }
}

/// What kind of memory: an ordinary note, or the Mind's chosen name (one at
/// most, always core identity).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MemoryKind {
    Note,
    Identity,
}

impl MemoryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryKind::Note => "note",
            MemoryKind::Identity => "identity",
        }
    }

    pub fn from_stored(text: &str) -> MemoryKind {
        if text == "identity" {
            MemoryKind::Identity
        } else {
            MemoryKind::Note
        }
    }
}

/// One memory of the Mind.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Memory {
    pub id: String,
    pub text: String,
    pub kind: MemoryKind,
    pub protection: Protection,
    /// Archived by cleanup: kept, but no longer part of the Mind's context.
    pub archived: bool,
    pub archived_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// A memory a person adds for the Mind.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMemory {
    /// 1 to 2000 characters (trimmed).
    #[schemars(length(max = 2000), regex(pattern = NOT_BLANK))]
    pub text: String,
    /// `standard` (default), `important` or `core-identity`.
    pub protection: Option<Protection>,
}

impl NewMemory {
    /// The trimmed text and the protection, or what to fix.
    pub fn checked(self) -> Result<(String, Protection), String> {
        let text = self.text.trim();
        match text.chars().count() {
            0 => Err("text must not be empty".to_owned()),
            n if n > TEXT_MAX_CHARS => Err(format!(
                "text must be at most {TEXT_MAX_CHARS} characters (got {n})"
            )),
            _ => Ok((text.to_owned(), self.protection.unwrap_or_default())),
        }
    }
}

/// The Mind's chosen name and the memory that holds it.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MindIdentity {
    /// `null` until the Mind chooses one.
    pub name: Option<String>,
    pub memory_id: Option<String>,
    pub chosen_at: Option<String>,
}

/// The text of the identity memory that holds `name`.
pub fn identity_text(name: &str) -> String {
    format!("My chosen name is {name}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protection_only_rises() {
        use Protection::*;
        assert_eq!(Standard.raised_to(Important), Important);
        assert_eq!(Important.raised_to(CoreIdentity), CoreIdentity);
        assert_eq!(CoreIdentity.raised_to(Important), CoreIdentity);
        assert_eq!(Important.raised_to(Standard), Important);
        for level in [Standard, Important, CoreIdentity] {
            assert_eq!(Protection::from_stored(level.as_str()), level);
        }
    }

    #[test]
    fn names_follow_the_rule() {
        let rule = regex::Regex::new(NAME_PATTERN).expect("pattern");
        for good in [
            "Ada",
            "Ada Lovelace",
            "Zoë",
            "O’Neill",
            "J.R.R.",
            "李小龙",
            "n·x",
            "7of9",
            " Ada ",
        ] {
            assert!(rule.is_match(good), "{good:?}");
        }
        for bad in ["", " ", "Bad\nName", "-Ada", "Ada!", "'quoted'", "a/b"] {
            assert!(!rule.is_match(bad), "{bad:?}");
        }
    }

    #[test]
    fn a_new_memory_is_trimmed_and_bounded() {
        let new = |text: &str| NewMemory {
            text: text.to_owned(),
            protection: None,
        };
        assert_eq!(
            new("  keep this ").checked(),
            Ok(("keep this".to_owned(), Protection::Standard))
        );
        assert!(new("   ").checked().is_err());
        assert!(new(&"x".repeat(TEXT_MAX_CHARS + 1)).checked().is_err());
    }
}
