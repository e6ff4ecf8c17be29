//! The creative catalog's operations, on the store's connection (inside
//! `Store::run`): each checks its input with the model's rules, then reads
//! or writes through `store`. `catalog.search` and `/api/catalog/*` both
//! resolve types here, so they agree on which types are active.

use portos_server::http::{Invalid, RouteErrors};
use portos_server::store::StoreError;
use portos_server::store::sql::Connection;

use super::model::{
    self, CatalogError, CatalogType, Entry, EntryInput, Hit, TypeChange, TypeInput,
};
use super::store;

/// An entry id that names no entry.
#[derive(Debug, thiserror::Error, RouteErrors)]
pub enum EntryMissing {
    #[error("no catalog entry with id '{0}'")]
    #[route_error(status = 404, code = "CATALOG_ENTRY_NOT_FOUND")]
    NotFound(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// Why an entry was not replaced: it is not there, or the new fields break a
/// rule.
#[derive(Debug, thiserror::Error, RouteErrors)]
pub enum EntryRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error("no catalog entry with id '{0}'")]
    #[route_error(status = 404, code = "CATALOG_ENTRY_NOT_FOUND")]
    NotFound(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// Why a type was not added: it breaks a rule, or the name is built in or
/// taken.
#[derive(Debug, thiserror::Error, RouteErrors)]
pub enum TypeRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error("{0}")]
    #[route_error(status = 409, code = "CONFLICT")]
    Conflict(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// Why a type was not changed: it is built in, the change breaks a rule, or
/// no user type has that name (folded).
#[derive(Debug, thiserror::Error, RouteErrors)]
pub enum TypeChangeRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error("no catalog type named '{0}'")]
    #[route_error(status = 404, code = "CATALOG_TYPE_NOT_FOUND")]
    NotFound(String),
    /// The built-in types are fixed: as adding one with their name is.
    #[error("'{0}' is a built-in type and cannot be changed")]
    #[route_error(status = 409, code = "CONFLICT")]
    BuiltIn(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

impl From<EntryMissing> for EntryRefusal {
    fn from(missing: EntryMissing) -> EntryRefusal {
        match missing {
            EntryMissing::NotFound(id) => EntryRefusal::NotFound(id),
            EntryMissing::Store(error) => EntryRefusal::Store(error),
        }
    }
}

impl From<CatalogError> for EntryRefusal {
    fn from(error: CatalogError) -> EntryRefusal {
        match error {
            CatalogError::Invalid(message) => EntryRefusal::Invalid(Invalid(message)),
            CatalogError::Store(error) => EntryRefusal::Store(error),
        }
    }
}

impl From<CatalogError> for TypeRefusal {
    fn from(error: CatalogError) -> TypeRefusal {
        match error {
            CatalogError::Invalid(message) => TypeRefusal::Invalid(Invalid(message)),
            CatalogError::Store(error) => TypeRefusal::Store(error),
        }
    }
}

impl From<CatalogError> for TypeChangeRefusal {
    fn from(error: CatalogError) -> TypeChangeRefusal {
        match error {
            CatalogError::Invalid(message) => TypeChangeRefusal::Invalid(Invalid(message)),
            CatalogError::Store(error) => TypeChangeRefusal::Store(error),
        }
    }
}

/// The type `name` names, lowercased, if it is built in or an active user
/// type; `None` otherwise.
pub fn active_type(connection: &Connection, name: &str) -> Result<Option<String>, StoreError> {
    let folded = model::folded_type(name);
    if model::is_built_in(&folded) {
        return Ok(Some(folded));
    }
    let active = store::user_type_active(connection, &folded)?;
    Ok(active.filter(|active| *active).map(|_| folded))
}

/// The built-in types, then the user's own by name, active or not.
pub fn list_types(connection: &Connection) -> Result<Vec<CatalogType>, StoreError> {
    let mut types = model::built_in_types();
    types.extend(store::user_types(connection)?);
    Ok(types)
}

/// Adds a user-defined type (active unless said otherwise).
pub fn create_type(connection: &Connection, input: &TypeInput) -> Result<CatalogType, TypeRefusal> {
    let name = model::folded_type(&input.name);
    model::check_type_name(&name)?;
    if model::is_built_in(&name) {
        return Err(TypeRefusal::Conflict(format!(
            "'{name}' is a built-in type"
        )));
    }
    let label =
        model::checked_label(input.label.as_deref())?.unwrap_or_else(|| model::capitalized(&name));
    let kind = CatalogType {
        name,
        label,
        built_in: false,
        active: input.active.unwrap_or(true),
    };
    if !store::insert_type(connection, &kind)? {
        return Err(TypeRefusal::Conflict(format!(
            "the type '{name}' already exists; change it with PUT /api/catalog/types/{name}",
            name = kind.name
        )));
    }
    Ok(kind)
}

/// Changes a user-defined type's label or active flag.
pub fn change_type(
    connection: &Connection,
    name: &str,
    change: &TypeChange,
) -> Result<CatalogType, TypeChangeRefusal> {
    let name = model::folded_type(name);
    if model::is_built_in(&name) {
        return Err(TypeChangeRefusal::BuiltIn(name));
    }
    let label = model::checked_label(change.label.as_deref())?;
    if !store::update_type(connection, &name, label.as_deref(), change.active)? {
        return Err(TypeChangeRefusal::NotFound(name));
    }
    let changed = list_types(connection)?
        .into_iter()
        .find(|kind| kind.name == name);
    changed.ok_or(TypeChangeRefusal::NotFound(name))
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
    store::insert_entry(connection, &entry)?;
    Ok(entry)
}

/// Replaces every field of entry `id` (its id and creation time stay).
pub fn replace_entry(
    connection: &Connection,
    id: &str,
    input: EntryInput,
) -> Result<Entry, EntryRefusal> {
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
    store::update_entry(connection, &entry)?;
    Ok(entry)
}

pub fn delete_entry(connection: &Connection, id: &str) -> Result<(), EntryMissing> {
    if !store::delete_entry(connection, id)? {
        return Err(EntryMissing::NotFound(id.to_owned()));
    }
    Ok(())
}

pub fn get_entry(connection: &Connection, id: &str) -> Result<Entry, EntryMissing> {
    store::entry(connection, id)?.ok_or_else(|| EntryMissing::NotFound(id.to_owned()))
}

/// Every entry, by name; only those of the type `kind` names when given.
pub fn list_entries(connection: &Connection, kind: Option<&str>) -> Result<Vec<Entry>, StoreError> {
    let kind = kind.map(model::folded_type);
    store::list_entries(connection, kind.as_deref())
}

/// At most `limit` entries matching `query`, within the type `requested`
/// names if it is an active one, and that type. An unknown (or inactive)
/// type widens the search instead of failing it: a spoken type name is
/// often not a catalog type.
pub fn search(
    connection: &Connection,
    query: &str,
    requested: Option<&str>,
    limit: usize,
) -> Result<(Option<String>, Vec<Hit>), StoreError> {
    let kind = match requested {
        Some(name) => active_type(connection, name)?,
        None => None,
    };
    let hits = store::search(connection, query, kind.as_deref(), limit)?;
    Ok((kind, hits))
}

/// An entry whose every field passed the rules.
struct CheckedEntry {
    name: String,
    kind: String,
    body: String,
    refs: Vec<String>,
}

/// Checks `input` field by field, in the order a person reads the form.
fn check_entry(connection: &Connection, input: EntryInput) -> Result<CheckedEntry, CatalogError> {
    let name = model::entry_name(&input.name)?;
    let Some(kind) = active_type(connection, &input.kind)? else {
        let active: Vec<CatalogType> = list_types(connection)?
            .into_iter()
            .filter(|kind| kind.active)
            .collect();
        return Err(model::inactive_type(&input.kind, &active));
    };
    model::check_body(&input.body)?;
    let refs = model::entry_refs(&input.refs)?;
    Ok(CheckedEntry {
        name,
        kind,
        body: input.body,
        refs,
    })
}
