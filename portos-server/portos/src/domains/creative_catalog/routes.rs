//! `/api/catalog/*`: the creative catalog that `catalog.search` reads —
//! entries (create, list, read, replace, delete) and user-defined types.

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use portos_core::portos_route;
use portos_server::app::App;
use portos_server::http::ApiError;
use portos_server::http::body::JsonBody;
use portos_server::http::query::invalid;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{CatalogError, CatalogType, Entry, EntryInput, TypeChange, TypeInput};
use super::ops;
use crate::shared::rest::query_error;

/// Which entries to list.
#[derive(Debug, Deserialize, JsonSchema)]
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

/// Every catalog entry, by name (optionally of one type).
#[portos_route(
    method = "GET",
    path = "/api/catalog/entries",
    summary = "Catalog entries",
    query = EntriesQuery,
    response = EntryList,
    errors = [(400, "VALIDATION_ERROR")],
)]
async fn list(
    State(app): State<App>,
    query: Result<Query<EntriesQuery>, QueryRejection>,
) -> Result<Json<EntryList>, ApiError> {
    let Query(EntriesQuery { kind }) = query.map_err(query_error)?;
    let entries = app
        .store
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
    summary = "Add a catalog entry",
    request = EntryInput,
    response = Entry,
    status = 201,
    errors = [(400, "VALIDATION_ERROR"), (415, "UNSUPPORTED_MEDIA_TYPE")],
)]
async fn create(
    State(app): State<App>,
    body: JsonBody,
) -> Result<(StatusCode, Json<Entry>), ApiError> {
    let input: EntryInput = body.into_typed()?;
    let entry = app
        .store
        .run(move |connection| Ok(ops::create_entry(connection, input)))
        .await?
        .map_err(catalog_error)?;
    Ok((StatusCode::CREATED, Json(entry)))
}

/// One entry.
#[portos_route(
    method = "GET",
    path = "/api/catalog/entries/{id}",
    summary = "Catalog entry",
    response = Entry,
    errors = [(404, "CATALOG_ENTRY_NOT_FOUND")],
)]
async fn read(State(app): State<App>, Path(id): Path<String>) -> Result<Json<Entry>, ApiError> {
    app.store
        .run(move |connection| Ok(ops::get_entry(connection, &id)))
        .await?
        .map(Json)
        .map_err(catalog_error)
}

/// Replaces an entry's name, type, body and refs.
#[portos_route(
    method = "PUT",
    path = "/api/catalog/entries/{id}",
    summary = "Replace a catalog entry",
    request = EntryInput,
    response = Entry,
    errors = [
        (400, "VALIDATION_ERROR"),
        (404, "CATALOG_ENTRY_NOT_FOUND"),
        (415, "UNSUPPORTED_MEDIA_TYPE"),
    ],
)]
async fn replace(
    State(app): State<App>,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<Json<Entry>, ApiError> {
    let input: EntryInput = body.into_typed()?;
    app.store
        .run(move |connection| Ok(ops::replace_entry(connection, &id, input)))
        .await?
        .map(Json)
        .map_err(catalog_error)
}

/// Deletes an entry.
#[portos_route(
    method = "DELETE",
    path = "/api/catalog/entries/{id}",
    summary = "Delete a catalog entry",
    status = 204,
    errors = [(404, "CATALOG_ENTRY_NOT_FOUND")],
)]
async fn delete(State(app): State<App>, Path(id): Path<String>) -> Result<StatusCode, ApiError> {
    app.store
        .run(move |connection| Ok(ops::delete_entry(connection, &id)))
        .await?
        .map_err(catalog_error)?;
    Ok(StatusCode::NO_CONTENT)
}

/// The built-in types and the user's own, active or not.
#[portos_route(
    method = "GET",
    path = "/api/catalog/types",
    summary = "Catalog types",
    response = TypeList,
)]
async fn types(State(app): State<App>) -> Result<Json<TypeList>, ApiError> {
    let types = app
        .store
        .run(|connection| ops::list_types(connection))
        .await?;
    Ok(Json(TypeList { types }))
}

/// Adds a user-defined type (active unless `active: false`).
#[portos_route(
    method = "POST",
    path = "/api/catalog/types",
    summary = "Add a catalog type",
    request = TypeInput,
    response = CatalogType,
    status = 201,
    errors = [(400, "VALIDATION_ERROR"), (409, "CONFLICT"), (415, "UNSUPPORTED_MEDIA_TYPE")],
)]
async fn create_type(
    State(app): State<App>,
    body: JsonBody,
) -> Result<(StatusCode, Json<CatalogType>), ApiError> {
    let input: TypeInput = body.into_typed()?;
    let created = app
        .store
        .run(move |connection| Ok(ops::create_type(connection, &input)))
        .await?
        .map_err(catalog_error)?;
    Ok((StatusCode::CREATED, Json(created)))
}

/// Changes a user-defined type's label or active flag.
#[portos_route(
    method = "PUT",
    path = "/api/catalog/types/{name}",
    summary = "Change a catalog type",
    request = TypeChange,
    response = CatalogType,
    errors = [
        (400, "VALIDATION_ERROR"),
        (404, "CATALOG_TYPE_NOT_FOUND"),
        (415, "UNSUPPORTED_MEDIA_TYPE"),
    ],
)]
async fn change_type(
    State(app): State<App>,
    Path(name): Path<String>,
    body: JsonBody,
) -> Result<Json<CatalogType>, ApiError> {
    let change: TypeChange = body.into_typed()?;
    app.store
        .run(move |connection| Ok(ops::change_type(connection, &name, &change)))
        .await?
        .map(Json)
        .map_err(catalog_error)
}

fn catalog_error(error: CatalogError) -> ApiError {
    match error {
        CatalogError::Invalid(message) => invalid(message),
        CatalogError::EntryNotFound(message) => {
            ApiError::new(StatusCode::NOT_FOUND, "CATALOG_ENTRY_NOT_FOUND", message)
        }
        CatalogError::TypeNotFound(message) => {
            ApiError::new(StatusCode::NOT_FOUND, "CATALOG_TYPE_NOT_FOUND", message)
        }
        CatalogError::Conflict(message) => ApiError::new(StatusCode::CONFLICT, "CONFLICT", message),
        CatalogError::Store(error) => ApiError::from(error),
    }
}
