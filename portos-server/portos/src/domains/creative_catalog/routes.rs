//! `/api/catalog/*`: the creative catalog that `catalog.search` reads —
//! entries (create, list, read, replace, delete) and user-defined types.

use axum::Json;
use axum::extract::Path;
use portos_core::Shared;
use portos_server::http::{Body, Created, InputError, Invalid, NoContent, Query};
use portos_server::portos_route;
use portos_server::store::{Store, StoreError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{CatalogError, CatalogType, Entry, EntryInput, TypeChange, TypeInput};
use super::ops::{self, EntryMissing, EntryRefusal, TypeChangeRefusal, TypeRefusal};

/// Which entries to list.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntriesQuery {
    /// Only entries of this type.
    #[serde(rename = "type")]
    pub kind: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct EntryList {
    pub count: usize,
    pub entries: Vec<Entry>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TypeList {
    pub types: Vec<CatalogType>,
}

impl From<CatalogError> for InputError {
    fn from(error: CatalogError) -> InputError {
        match error {
            CatalogError::Invalid(message) => InputError::Invalid(Invalid(message)),
            CatalogError::Store(error) => InputError::Store(error),
        }
    }
}

/// Every catalog entry, by name (optionally of one type).
#[portos_route(
    method = "GET",
    path = "/api/catalog/entries",
    summary = "Catalog entries"
)]
async fn list(
    store: Shared<Store>,
    Query(EntriesQuery { kind }): Query<EntriesQuery>,
) -> Result<Json<EntryList>, StoreError> {
    let entries = store
        .run(move |connection| ops::list_entries(connection, kind.as_deref()))
        .await?;
    Ok(Json(EntryList {
        count: entries.len(),
        entries,
    }))
}

/// Adds an entry. Its type must be built in or an active user-defined type.
#[portos_route(
    method = "POST",
    path = "/api/catalog/entries",
    summary = "Add a catalog entry"
)]
async fn create(
    store: Shared<Store>,
    Body(input): Body<EntryInput>,
) -> Result<Created<Entry>, InputError> {
    let entry = store
        .run(move |connection| Ok(ops::create_entry(connection, input)))
        .await??;
    Ok(Created(entry))
}

/// One entry.
#[portos_route(
    method = "GET",
    path = "/api/catalog/entries/{id}",
    summary = "Catalog entry"
)]
async fn read(store: Shared<Store>, Path(id): Path<String>) -> Result<Json<Entry>, EntryMissing> {
    let entry = store
        .run(move |connection| Ok(ops::get_entry(connection, &id)))
        .await??;
    Ok(Json(entry))
}

/// Replaces an entry's name, type, body and refs.
#[portos_route(
    method = "PUT",
    path = "/api/catalog/entries/{id}",
    summary = "Replace a catalog entry"
)]
async fn replace(
    store: Shared<Store>,
    Path(id): Path<String>,
    Body(input): Body<EntryInput>,
) -> Result<Json<Entry>, EntryRefusal> {
    let entry = store
        .run(move |connection| Ok(ops::replace_entry(connection, &id, input)))
        .await??;
    Ok(Json(entry))
}

/// Deletes an entry.
#[portos_route(
    method = "DELETE",
    path = "/api/catalog/entries/{id}",
    summary = "Delete a catalog entry"
)]
async fn delete(store: Shared<Store>, Path(id): Path<String>) -> Result<NoContent, EntryMissing> {
    store
        .run(move |connection| Ok(ops::delete_entry(connection, &id)))
        .await??;
    Ok(NoContent)
}

/// The built-in types and the user's own, active or not.
#[portos_route(method = "GET", path = "/api/catalog/types", summary = "Catalog types")]
async fn types(store: Shared<Store>) -> Result<Json<TypeList>, StoreError> {
    let types = store.run(|connection| ops::list_types(connection)).await?;
    Ok(Json(TypeList { types }))
}

/// Adds a user-defined type (active unless `active: false`).
#[portos_route(
    method = "POST",
    path = "/api/catalog/types",
    summary = "Add a catalog type"
)]
async fn create_type(
    store: Shared<Store>,
    Body(input): Body<TypeInput>,
) -> Result<Created<CatalogType>, TypeRefusal> {
    let created = store
        .run(move |connection| Ok(ops::create_type(connection, &input)))
        .await??;
    Ok(Created(created))
}

/// Changes a user-defined type's label or active flag.
#[portos_route(
    method = "PUT",
    path = "/api/catalog/types/{name}",
    summary = "Change a catalog type"
)]
async fn change_type(
    store: Shared<Store>,
    Path(name): Path<String>,
    Body(change): Body<TypeChange>,
) -> Result<Json<CatalogType>, TypeChangeRefusal> {
    let changed = store
        .run(move |connection| Ok(ops::change_type(connection, &name, &change)))
        .await??;
    Ok(Json(changed))
}
