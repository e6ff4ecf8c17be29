//! What the creative catalog holds (entries of a built-in or user-defined
//! type, each with a body text and references) and its rules: the limits of
//! each field, well-formed type names, and the snippet a search hit shows.

use crate::shared::doc_rules::NOT_BLANK;
use portos_server::store::StoreError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The types every catalog has.
pub const BUILT_IN_TYPES: [&str; 6] = ["character", "place", "object", "idea", "scene", "concept"];

const NAME_MAX_CHARS: usize = 200;
const BODY_MAX_CHARS: usize = 20_000;
const REFS_MAX: usize = 100;
const REF_MAX_CHARS: usize = 200;
const TYPE_NAME_MAX_CHARS: usize = 40;
const TYPE_LABEL_MAX_CHARS: usize = 60;
/// The longest snippet a search hit carries, ellipses included.
pub const SNIPPET_MAX_CHARS: usize = 200;
/// How much text before the match a snippet keeps.
const SNIPPET_LEAD_CHARS: usize = 60;

/// One catalog entry.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub body: String,
    /// References: ids of other entries, or names of things outside the catalog.
    pub refs: Vec<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// What a person writes to create or replace an entry.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntryInput {
    /// 1 to 200 characters (trimmed).
    #[schemars(length(max = 200), regex(pattern = NOT_BLANK))]
    pub name: String,
    /// A built-in type or an active user-defined one (case-insensitive).
    #[serde(rename = "type")]
    #[schemars(regex(pattern = NOT_BLANK))]
    pub kind: String,
    /// Up to 20,000 characters.
    #[serde(default)]
    pub body: String,
    /// Up to 100 references of 1 to 200 characters each.
    #[serde(default)]
    pub refs: Vec<String>,
}

/// A catalog type, built in or the user's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CatalogType {
    pub name: String,
    pub label: String,
    pub built_in: bool,
    /// Inactive user types can no longer be given to entries or searched by.
    pub active: bool,
}

/// A new user-defined type.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeInput {
    /// Lowercase letters, digits and `-`, starting with a letter; 1 to 40.
    #[schemars(regex(pattern = r"^\s*[a-z][a-z0-9-]{0,39}\s*$"))]
    pub name: String,
    /// How to show it (default: the name); up to 60 characters.
    #[serde(default)]
    #[schemars(length(max = 60), regex(pattern = NOT_BLANK))]
    pub label: Option<String>,
    /// Default true.
    #[serde(default)]
    pub active: Option<bool>,
}

/// A change to a user-defined type: keys left out keep their value.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeChange {
    /// Up to 60 characters.
    #[serde(default)]
    #[schemars(length(max = 60), regex(pattern = NOT_BLANK))]
    pub label: Option<String>,
    #[serde(default)]
    pub active: Option<bool>,
}

/// One search hit, as `catalog.search` returns it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// Body text around the first match (or its beginning), at most 200 characters.
    pub snippet: String,
    pub refs_count: usize,
}

/// Why input was refused: it breaks one of the catalog's rules, or the
/// store failed while checking it.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// The input is wrong; the message says how.
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<portos_server::store::sql::Error> for CatalogError {
    fn from(error: portos_server::store::sql::Error) -> CatalogError {
        CatalogError::Store(StoreError::Sql(error))
    }
}

/// The built-in types, active and labelled by their capitalized name.
pub fn built_in_types() -> Vec<CatalogType> {
    BUILT_IN_TYPES
        .iter()
        .map(|name| CatalogType {
            name: (*name).to_owned(),
            label: capitalized(name),
            built_in: true,
            active: true,
        })
        .collect()
}

/// Whether `name` (folded) is a built-in type.
pub fn is_built_in(name: &str) -> bool {
    BUILT_IN_TYPES.contains(&name)
}

/// A type name as entries and lookups use it: trimmed and lowercase.
pub fn folded_type(name: &str) -> String {
    name.trim().to_lowercase()
}

/// An entry's name: trimmed, 1 to 200 characters.
pub fn entry_name(raw: &str) -> Result<String, CatalogError> {
    let name = raw.trim().to_owned();
    if name.is_empty() {
        return Err(CatalogError::Invalid("name must not be empty".to_owned()));
    }
    if name.chars().count() > NAME_MAX_CHARS {
        return Err(CatalogError::Invalid(format!(
            "name must be at most {NAME_MAX_CHARS} characters"
        )));
    }
    Ok(name)
}

/// The refusal of a type that is neither built in nor an active user type.
pub fn inactive_type(raw: &str, active: &[CatalogType]) -> CatalogError {
    let known: Vec<&str> = active.iter().map(|kind| kind.name.as_str()).collect();
    CatalogError::Invalid(format!(
        "'{}' is not an active catalog type; use one of: {}",
        raw.trim(),
        known.join(", ")
    ))
}

/// An entry's body: at most 20,000 characters.
pub fn check_body(body: &str) -> Result<(), CatalogError> {
    if body.chars().count() > BODY_MAX_CHARS {
        return Err(CatalogError::Invalid(format!(
            "body must be at most {BODY_MAX_CHARS} characters"
        )));
    }
    Ok(())
}

/// An entry's refs, trimmed: at most 100, each 1 to 200 characters.
pub fn entry_refs(raw: &[String]) -> Result<Vec<String>, CatalogError> {
    if raw.len() > REFS_MAX {
        return Err(CatalogError::Invalid(format!(
            "at most {REFS_MAX} refs per entry"
        )));
    }
    let mut refs = Vec::with_capacity(raw.len());
    for reference in raw {
        let reference = reference.trim();
        if reference.is_empty() || reference.chars().count() > REF_MAX_CHARS {
            return Err(CatalogError::Invalid(format!(
                "each ref must be 1 to {REF_MAX_CHARS} characters"
            )));
        }
        refs.push(reference.to_owned());
    }
    Ok(refs)
}

/// At most 200 characters of `body` (whitespace collapsed): around the first
/// match of the lowercase `needle`, or from the beginning when the body does
/// not contain it. An ellipsis marks each cut end.
pub fn snippet(body: &str, needle: &str) -> String {
    let text: Vec<char> = body
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .collect();
    if text.len() <= SNIPPET_MAX_CHARS {
        return text.into_iter().collect();
    }
    let mut start =
        match_position(&text, needle).map_or(0, |at| at.saturating_sub(SNIPPET_LEAD_CHARS));
    // Near the end, start earlier so the snippet still fills its room.
    if start > 0 && start + SNIPPET_MAX_CHARS > text.len() {
        start = text.len() - (SNIPPET_MAX_CHARS - 1);
    }
    let leading = start > 0;
    let room = SNIPPET_MAX_CHARS - usize::from(leading);
    let trailing = start + room < text.len();
    let end = if trailing {
        start + room - 1
    } else {
        text.len()
    };
    let mut out = String::new();
    if leading {
        out.push('…');
    }
    out.extend(&text[start..end]);
    if trailing {
        out.push('…');
    }
    out
}

/// The index (in chars of `text`) where the lowercase `needle` first occurs,
/// folding `text` one character at a time.
fn match_position(text: &[char], needle: &str) -> Option<usize> {
    let mut folded = String::new();
    // For each byte of `folded`, the index of the char of `text` it came from.
    let mut origin = Vec::new();
    for (index, c) in text.iter().enumerate() {
        let before = folded.len();
        folded.extend(c.to_lowercase());
        origin.resize(origin.len() + (folded.len() - before), index);
    }
    folded.find(needle).map(|byte| origin[byte])
}

/// A user type name: 1 to 40 lowercase letters, digits or `-`, starting
/// with a letter.
pub fn check_type_name(name: &str) -> Result<(), CatalogError> {
    let well_formed = name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && name.chars().count() <= TYPE_NAME_MAX_CHARS
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if well_formed {
        Ok(())
    } else {
        Err(CatalogError::Invalid(format!(
            "type name must be 1 to {TYPE_NAME_MAX_CHARS} lowercase letters, digits or '-', starting with a letter"
        )))
    }
}

/// A type label, trimmed: 1 to 60 characters (`None` when not given).
pub fn checked_label(label: Option<&str>) -> Result<Option<String>, CatalogError> {
    match label.map(str::trim) {
        None => Ok(None),
        Some(label) if label.is_empty() || label.chars().count() > TYPE_LABEL_MAX_CHARS => {
            Err(CatalogError::Invalid(format!(
                "label must be 1 to {TYPE_LABEL_MAX_CHARS} characters"
            )))
        }
        Some(label) => Ok(Some(label.to_owned())),
    }
}

/// `name` with its first letter in upper case (a type's default label).
pub fn capitalized(name: &str) -> String {
    let mut chars = name.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_bodies_are_whole_snippets() {
        assert_eq!(snippet("a  short\n body", "short"), "a short body");
    }

    #[test]
    fn long_bodies_are_cut_around_the_match() {
        let body = format!("{} NEEDLE {}", "x".repeat(300), "y".repeat(300));
        let cut = snippet(&body, "needle");
        assert_eq!(cut.chars().count(), SNIPPET_MAX_CHARS);
        assert!(cut.starts_with('…') && cut.ends_with('…'));
        assert!(cut.contains("NEEDLE"));

        let at_end = format!("{} tail", "z".repeat(400));
        let cut = snippet(&at_end, "tail");
        assert_eq!(cut.chars().count(), SNIPPET_MAX_CHARS);
        assert!(cut.starts_with('…') && cut.ends_with("tail"));

        let no_match = "w".repeat(500);
        let cut = snippet(&no_match, "name-only");
        assert_eq!(cut.chars().count(), SNIPPET_MAX_CHARS);
        assert!(!cut.starts_with('…') && cut.ends_with('…'));
    }

    #[test]
    fn match_position_counts_chars_not_bytes() {
        let text: Vec<char> = "ÉÉÉ İstanbul".chars().collect();
        assert_eq!(match_position(&text, "stanbul"), Some(5));
    }
}
