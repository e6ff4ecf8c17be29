//! The creative catalog: characters, places, objects, ideas, scenes,
//! concepts and the user's own types, each entry with a body text and
//! references. `catalog.search` reads it; `/api/catalog/*` edits it.
//!
//! Every function here runs on the store's connection (inside `Store::run`).

use rusqlite::{Connection, OptionalExtension, params};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::store::StoreError;

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
    pub name: String,
    /// A built-in type or an active user-defined one (case-insensitive).
    #[serde(rename = "type")]
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
    pub name: String,
    /// How to show it (default: the name); up to 60 characters.
    #[serde(default)]
    pub label: Option<String>,
    /// Default true.
    #[serde(default)]
    pub active: Option<bool>,
}

/// A change to a user-defined type: keys left out keep their value.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeChange {
    #[serde(default)]
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

#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// The input is wrong; the message says how.
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    EntryNotFound(String),
    #[error("{0}")]
    TypeNotFound(String),
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<rusqlite::Error> for CatalogError {
    fn from(error: rusqlite::Error) -> CatalogError {
        CatalogError::Store(StoreError::Sqlite(error))
    }
}

/// The type `name` names, lowercased, if it is built in or an active user
/// type; `None` otherwise.
pub fn active_type(connection: &Connection, name: &str) -> Result<Option<String>, StoreError> {
    let folded = name.trim().to_lowercase();
    if BUILT_IN_TYPES.contains(&folded.as_str()) {
        return Ok(Some(folded));
    }
    let active: Option<bool> = connection
        .query_row(
            "SELECT active FROM catalog_types WHERE name = ?1",
            [&folded],
            |row| row.get(0),
        )
        .optional()?;
    Ok(active.filter(|active| *active).map(|_| folded))
}

pub fn list_types(connection: &Connection) -> Result<Vec<CatalogType>, StoreError> {
    let mut types: Vec<CatalogType> = BUILT_IN_TYPES
        .iter()
        .map(|name| CatalogType {
            name: (*name).to_owned(),
            label: capitalized(name),
            built_in: true,
            active: true,
        })
        .collect();
    let mut statement =
        connection.prepare_cached("SELECT name, label, active FROM catalog_types ORDER BY name")?;
    let rows = statement.query_map([], |row| {
        Ok(CatalogType {
            name: row.get(0)?,
            label: row.get(1)?,
            built_in: false,
            active: row.get(2)?,
        })
    })?;
    for row in rows {
        types.push(row?);
    }
    Ok(types)
}

pub fn create_type(
    connection: &Connection,
    input: &TypeInput,
) -> Result<CatalogType, CatalogError> {
    let name = input.name.trim().to_lowercase();
    check_type_name(&name)?;
    if BUILT_IN_TYPES.contains(&name.as_str()) {
        return Err(CatalogError::Conflict(format!(
            "'{name}' is a built-in type"
        )));
    }
    let label = checked_label(input.label.as_deref())?.unwrap_or_else(|| capitalized(&name));
    let active = input.active.unwrap_or(true);
    let inserted = connection.execute(
        "INSERT INTO catalog_types (name, label, active, created_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (name) DO NOTHING",
        params![name, label, active, jiff::Timestamp::now().to_string()],
    )?;
    if inserted == 0 {
        return Err(CatalogError::Conflict(format!(
            "the type '{name}' already exists; change it with PUT /api/catalog/types/{name}"
        )));
    }
    Ok(CatalogType {
        name,
        label,
        built_in: false,
        active,
    })
}

pub fn change_type(
    connection: &Connection,
    name: &str,
    change: &TypeChange,
) -> Result<CatalogType, CatalogError> {
    let name = name.trim().to_lowercase();
    if BUILT_IN_TYPES.contains(&name.as_str()) {
        return Err(CatalogError::Invalid(format!(
            "'{name}' is a built-in type and cannot be changed"
        )));
    }
    let label = checked_label(change.label.as_deref())?;
    let changed = connection.execute(
        "UPDATE catalog_types SET label = COALESCE(?2, label), active = COALESCE(?3, active)
         WHERE name = ?1",
        params![name, label, change.active],
    )?;
    if changed == 0 {
        return Err(CatalogError::TypeNotFound(format!(
            "no catalog type named '{name}'"
        )));
    }
    list_types(connection)?
        .into_iter()
        .find(|kind| kind.name == name)
        .ok_or_else(|| CatalogError::TypeNotFound(format!("no catalog type named '{name}'")))
}

pub fn create_entry(connection: &Connection, input: EntryInput) -> Result<Entry, CatalogError> {
    let checked = check_entry(connection, input)?;
    let now = jiff::Timestamp::now().to_string();
    let entry = Entry {
        id: uuid::Uuid::new_v4().to_string(),
        name: checked.name,
        kind: checked.kind,
        body: checked.body,
        refs: checked.refs,
        created_at: now.clone(),
        updated_at: now,
    };
    connection.execute(
        "INSERT INTO catalog_entries (id, name, type, body, refs, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            entry.id,
            entry.name,
            entry.kind,
            entry.body,
            refs_json(&entry.refs),
            entry.created_at,
            entry.updated_at
        ],
    )?;
    Ok(entry)
}

/// Replaces every field of entry `id` (its id and creation time stay).
pub fn replace_entry(
    connection: &Connection,
    id: &str,
    input: EntryInput,
) -> Result<Entry, CatalogError> {
    let existing = get_entry(connection, id)?;
    let checked = check_entry(connection, input)?;
    let entry = Entry {
        name: checked.name,
        kind: checked.kind,
        body: checked.body,
        refs: checked.refs,
        updated_at: jiff::Timestamp::now().to_string(),
        ..existing
    };
    connection.execute(
        "UPDATE catalog_entries SET name = ?2, type = ?3, body = ?4, refs = ?5, updated_at = ?6
         WHERE id = ?1",
        params![
            entry.id,
            entry.name,
            entry.kind,
            entry.body,
            refs_json(&entry.refs),
            entry.updated_at
        ],
    )?;
    Ok(entry)
}

pub fn delete_entry(connection: &Connection, id: &str) -> Result<(), CatalogError> {
    let deleted = connection.execute("DELETE FROM catalog_entries WHERE id = ?1", [id])?;
    if deleted == 0 {
        return Err(not_found(id));
    }
    Ok(())
}

pub fn get_entry(connection: &Connection, id: &str) -> Result<Entry, CatalogError> {
    connection
        .query_row(
            "SELECT id, name, type, body, refs, created_at, updated_at
             FROM catalog_entries WHERE id = ?1",
            [id],
            entry_from_row,
        )
        .optional()?
        .ok_or_else(|| not_found(id))
}

/// Every entry, by name; only those of `kind` when given.
pub fn list_entries(connection: &Connection, kind: Option<&str>) -> Result<Vec<Entry>, StoreError> {
    let mut statement = connection.prepare_cached(
        "SELECT id, name, type, body, refs, created_at, updated_at FROM catalog_entries
         WHERE ?1 IS NULL OR type = ?1
         ORDER BY portos_fold(name), id",
    )?;
    let rows = statement.query_map([kind], entry_from_row)?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// Entries whose name or body contains `query` (case-insensitive), name
/// matches first, then by name; only those of `kind` when given.
pub fn search(
    connection: &Connection,
    query: &str,
    kind: Option<&str>,
    limit: usize,
) -> Result<Vec<Hit>, StoreError> {
    let needle = query.to_lowercase();
    let mut statement = connection.prepare_cached(
        "SELECT id, name, type, body, json_array_length(refs) FROM catalog_entries
         WHERE (instr(portos_fold(name), ?1) > 0 OR instr(portos_fold(body), ?1) > 0)
           AND (?2 IS NULL OR type = ?2)
         ORDER BY instr(portos_fold(name), ?1) = 0, portos_fold(name), id
         LIMIT ?3",
    )?;
    let rows = statement.query_map(
        params![needle, kind, i64::try_from(limit).unwrap_or(i64::MAX)],
        |row| {
            let body: String = row.get(3)?;
            let refs_count: i64 = row.get(4)?;
            Ok(Hit {
                id: row.get(0)?,
                name: row.get(1)?,
                kind: row.get(2)?,
                snippet: snippet(&body, &needle),
                refs_count: usize::try_from(refs_count).unwrap_or(0),
            })
        },
    )?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
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

struct CheckedEntry {
    name: String,
    kind: String,
    body: String,
    refs: Vec<String>,
}

fn check_entry(connection: &Connection, input: EntryInput) -> Result<CheckedEntry, CatalogError> {
    let name = input.name.trim().to_owned();
    if name.is_empty() {
        return Err(CatalogError::Invalid("name must not be empty".to_owned()));
    }
    if name.chars().count() > NAME_MAX_CHARS {
        return Err(CatalogError::Invalid(format!(
            "name must be at most {NAME_MAX_CHARS} characters"
        )));
    }
    let Some(kind) = active_type(connection, &input.kind)? else {
        let known: Vec<String> = list_types(connection)?
            .into_iter()
            .filter(|kind| kind.active)
            .map(|kind| kind.name)
            .collect();
        return Err(CatalogError::Invalid(format!(
            "'{}' is not an active catalog type; use one of: {}",
            input.kind.trim(),
            known.join(", ")
        )));
    };
    if input.body.chars().count() > BODY_MAX_CHARS {
        return Err(CatalogError::Invalid(format!(
            "body must be at most {BODY_MAX_CHARS} characters"
        )));
    }
    if input.refs.len() > REFS_MAX {
        return Err(CatalogError::Invalid(format!(
            "at most {REFS_MAX} refs per entry"
        )));
    }
    let mut refs = Vec::with_capacity(input.refs.len());
    for reference in &input.refs {
        let reference = reference.trim();
        if reference.is_empty() || reference.chars().count() > REF_MAX_CHARS {
            return Err(CatalogError::Invalid(format!(
                "each ref must be 1 to {REF_MAX_CHARS} characters"
            )));
        }
        refs.push(reference.to_owned());
    }
    Ok(CheckedEntry {
        name,
        kind,
        body: input.body,
        refs,
    })
}

fn check_type_name(name: &str) -> Result<(), CatalogError> {
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

fn checked_label(label: Option<&str>) -> Result<Option<String>, CatalogError> {
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

fn capitalized(name: &str) -> String {
    let mut chars = name.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn refs_json(refs: &[String]) -> String {
    serde_json::Value::from(refs.to_vec()).to_string()
}

fn entry_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Entry> {
    let refs: String = row.get(4)?;
    Ok(Entry {
        id: row.get(0)?,
        name: row.get(1)?,
        kind: row.get(2)?,
        body: row.get(3)?,
        // Written by `refs_json` only; an unreadable value reads as none.
        refs: serde_json::from_str(&refs).unwrap_or_default(),
        created_at: row.get(5)?,
        updated_at: row.get(6)?,
    })
}

fn not_found(id: &str) -> CatalogError {
    CatalogError::EntryNotFound(format!("no catalog entry with id '{id}'"))
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
