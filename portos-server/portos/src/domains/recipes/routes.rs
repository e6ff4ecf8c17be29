//! `/api/cos/mind/recipes/*`: people review, write, archive and restore the
//! Persistent Mind's saved read recipes (docs/reference.md#recipe-storage),
//! through the same operations as the Mind's tools; what they write is authored
//! `user`. Like every PortOS route they sit behind the password gate (with a
//! password set, only an authenticated session reaches them).

use axum::Json;
use axum::extract::Path;
use axum::response::{IntoResponse, Response};
use portos_core::inventory::RouteIo;
use portos_core::{ErrorCode, Shared};
use portos_server::LiveRegistry;
use portos_server::events::Events;
use portos_server::http::{ApiError, Body, Created, Invalid, Query, RouteErrors};
use portos_server::portos_route;
use portos_server::store::{Store, StoreError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::RecipeError;
use super::events::{self, RecipeEvent};
use super::model::{Author, DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, RecipePage, RecipeRead, Written};
use super::ops;
use crate::shared::rest::{RegistryUnavailable, served_registry};

/// A page of a list.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PageQuery {
    /// 1 to 20 (default 10).
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    pub limit: Option<i64>,
    /// 0 to 100000 (default 0).
    #[schemars(range(min = 0, max = MAX_OFFSET))]
    pub offset: Option<i64>,
}

impl PageQuery {
    fn checked(&self) -> Result<(usize, usize), Invalid> {
        let limit = match self.limit {
            None => DEFAULT_LIMIT,
            Some(n) => usize::try_from(n)
                .ok()
                .filter(|n| (1..=MAX_LIMIT).contains(n))
                .ok_or_else(|| Invalid(format!("limit must be between 1 and {MAX_LIMIT}")))?,
        };
        let offset = match self.offset {
            None => 0,
            Some(n) => usize::try_from(n)
                .ok()
                .filter(|n| *n <= MAX_OFFSET)
                .ok_or_else(|| Invalid(format!("offset must be between 0 and {MAX_OFFSET}")))?,
        };
        Ok((limit, offset))
    }
}

/// A new recipe.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewRecipe {
    // Its rules: docs/reference.md#recipe-definition.
    /// The definition: a JSON object; anything else is
    /// 400 `RECIPE_VALIDATION_ERROR`, as every rule of a definition is.
    pub definition: Value,
}

/// A new definition for a recipe.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RecipeChange {
    // Its rules: docs/reference.md#recipe-definition.
    /// The new definition: a JSON object; anything else
    /// is 400 `RECIPE_VALIDATION_ERROR`.
    pub definition: Value,
    /// The active revision the change is made against.
    pub expected_revision: i64,
}

/// Archiving a recipe.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ArchiveRequest {
    #[schemars(range(min = 1))]
    pub expected_revision: i64,
}

/// Restoring an earlier revision.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RestoreRequest {
    /// The revision whose definition becomes active again.
    #[schemars(range(min = 1))]
    pub revision: i64,
    #[schemars(range(min = 1))]
    pub expected_revision: i64,
}

/// A page of recipes by name, archived ones included, each with whether
/// the Mind can call it now.
#[portos_route(
    method = "GET",
    path = "/api/cos/mind/recipes",
    summary = "Persistent Mind saved recipes"
)]
async fn list(
    store: Shared<Store>,
    live_registry: Shared<LiveRegistry>,
    Query(query): Query<PageQuery>,
) -> Result<Json<RecipePage>, ListRefusal> {
    let (limit, offset) = query.checked().map_err(RecipeRefusal::Invalid)?;
    let registry = served_registry(&live_registry)?;
    Ok(Json(
        ops::list(&store, &registry, limit, offset)
            .await
            .map_err(RecipeError::from)?,
    ))
}

/// How many capability events to read.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// 1 to 200 (default 50).
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<u16>,
}

/// The recipe capability events, newest first.
#[derive(Debug, serde::Serialize, JsonSchema)]
pub struct EventList {
    pub events: Vec<RecipeEvent>,
}

// What is recorded: docs/reference.md#recipe-execution step 9.
/// What saved recipes did with the authority they were given: each child
/// call, each failed run, each change the Mind made.
#[portos_route(
    method = "GET",
    path = "/api/cos/mind/recipes/events",
    summary = "Saved recipe capability events"
)]
async fn capability_events(
    store: Shared<Store>,
    Query(query): Query<EventsQuery>,
) -> Result<Json<EventList>, ListRefusal> {
    let limit = usize::from(query.limit.unwrap_or(50));
    if !(1..=events::LIST_MAX).contains(&limit) {
        return Err(RecipeRefusal::Invalid(Invalid(format!(
            "limit must be 1 to {}",
            events::LIST_MAX
        )))
        .into());
    }
    let events = store
        .run(move |connection| events::recent(connection, limit))
        .await
        .map_err(RecipeError::from)?;
    Ok(Json(EventList { events }))
}

/// A recipe with a page of its revisions, newest first.
#[portos_route(
    method = "GET",
    path = "/api/cos/mind/recipes/{id}",
    summary = "A Persistent Mind saved recipe"
)]
async fn read(
    store: Shared<Store>,
    live_registry: Shared<LiveRegistry>,
    Path(id): Path<String>,
    Query(query): Query<PageQuery>,
) -> Result<Json<RecipeRead>, ReadRefusal> {
    let (limit, offset) = query.checked().map_err(RecipeRefusal::Invalid)?;
    let registry = served_registry(&live_registry)?;
    Ok(Json(ops::read(&store, &registry, id, limit, offset).await?))
}

/// Saves a new recipe at revision 1, checked against the live catalog.
#[portos_route(
    method = "POST",
    path = "/api/cos/mind/recipes",
    summary = "Save a Persistent Mind recipe"
)]
async fn create(
    store: Shared<Store>,
    live_registry: Shared<LiveRegistry>,
    events: Shared<Events>,
    Body(new): Body<NewRecipe>,
) -> Result<Created<Written>, CreateRefusal> {
    let registry = served_registry(&live_registry)?;
    Ok(Created(
        ops::create(&store, registry, new.definition, Author::User)
            .await
            .inspect(|written| announce(&events, written))?,
    ))
}

/// Replaces a recipe's definition as its next revision; an invalid
/// definition or a stale `expectedRevision` changes nothing.
#[portos_route(
    method = "PUT",
    path = "/api/cos/mind/recipes/{id}",
    summary = "Change a Persistent Mind recipe"
)]
async fn update(
    store: Shared<Store>,
    live_registry: Shared<LiveRegistry>,
    events: Shared<Events>,
    Path(id): Path<String>,
    Body(change): Body<RecipeChange>,
) -> Result<Json<Written>, UpdateRefusal> {
    let expected = revision_number("expectedRevision", change.expected_revision)?;
    let registry = served_registry(&live_registry)?;
    Ok(Json(
        ops::update(
            &store,
            registry,
            id,
            change.definition,
            expected,
            Author::User,
        )
        .await
        .inspect(|written| announce(&events, written))?,
    ))
}

/// Archives a recipe as its next revision (already archived: unchanged).
#[portos_route(
    method = "POST",
    path = "/api/cos/mind/recipes/{id}/archive",
    summary = "Archive a Persistent Mind recipe"
)]
async fn archive(
    store: Shared<Store>,
    live_registry: Shared<LiveRegistry>,
    events: Shared<Events>,
    Path(id): Path<String>,
    Body(request): Body<ArchiveRequest>,
) -> Result<Json<Written>, ArchiveRefusal> {
    let expected = revision_number("expectedRevision", request.expected_revision)?;
    let registry = served_registry(&live_registry)?;
    Ok(Json(
        ops::archive(&store, registry, id, expected, Author::User)
            .await
            .inspect(|written| announce(&events, written))?,
    ))
}

/// Makes an earlier revision's definition active again as the next
/// revision, checked against the live catalog.
#[portos_route(
    method = "POST",
    path = "/api/cos/mind/recipes/{id}/restore",
    summary = "Restore a Persistent Mind recipe revision"
)]
async fn restore(
    store: Shared<Store>,
    live_registry: Shared<LiveRegistry>,
    events: Shared<Events>,
    Path(id): Path<String>,
    Body(request): Body<RestoreRequest>,
) -> Result<Json<Written>, RestoreRefusal> {
    let revision = revision_number("revision", request.revision)?;
    let expected = revision_number("expectedRevision", request.expected_revision)?;
    let registry = served_registry(&live_registry)?;
    Ok(Json(
        ops::restore(&store, registry, id, revision, expected, Author::User)
            .await
            .inspect(|written| announce(&events, written))?,
    ))
}

/// A write that changed the library changes the mind and agent catalogs:
/// their Socket.IO subscribers are told (in the background, so the answer
/// does not wait on them).
fn announce(events: &Events, written: &Written) {
    let (events, changed) = (events.clone(), written.changed);
    tokio::spawn(async move { super::tools::announce_if(&events, changed).await });
}

fn revision_number(field: &str, n: i64) -> Result<i64, RecipeRefusal> {
    if n >= 1 {
        Ok(n)
    } else {
        Err(RecipeRefusal::Invalid(Invalid(format!(
            "{field} must be a whole number of at least 1"
        ))))
    }
}

/// A refusal of the library or of the request, as the contract's error body.
#[derive(Debug)]
pub enum RecipeRefusal {
    Library(RecipeError),
    Invalid(Invalid),
    /// No registry to check against: the server's fault.
    Unavailable(RegistryUnavailable),
}

impl From<RecipeError> for RecipeRefusal {
    fn from(error: RecipeError) -> RecipeRefusal {
        RecipeRefusal::Library(error)
    }
}

impl From<RegistryUnavailable> for RecipeRefusal {
    fn from(error: RegistryUnavailable) -> RecipeRefusal {
        RecipeRefusal::Unavailable(error)
    }
}

impl From<RecipeRefusal> for ApiError {
    fn from(refusal: RecipeRefusal) -> ApiError {
        match refusal {
            RecipeRefusal::Invalid(invalid) => ApiError::from(invalid),
            RecipeRefusal::Unavailable(error) => ApiError::from(error),
            RecipeRefusal::Library(RecipeError::Store(error)) => ApiError::from(error),
            RecipeRefusal::Library(error) => match error.to_tool_error() {
                Some(error) => ApiError::from(error),
                // A person's write is never gated by the Mind's grant.
                None => ApiError::internal(error.to_string()),
            },
        }
    }
}

/// Each route's refusals: the library's codes it can answer (and the
/// request's own 400), declared from the contract's `ErrorCode`s so the
/// documents list exactly what the route answers. Written by hand because
/// a validation refusal carries `context: {field, step}`, which
/// `#[derive(RouteErrors)]` does not.
macro_rules! refusals {
    ($($(#[$doc:meta])* $name:ident => [$($code:ident),*];)*) => {$(
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name(RecipeRefusal);

        impl<E: Into<RecipeRefusal>> From<E> for $name {
            fn from(error: E) -> $name {
                $name(error.into())
            }
        }

        impl From<$name> for ApiError {
            fn from(refusal: $name) -> ApiError {
                ApiError::from(refusal.0)
            }
        }

        impl RouteErrors for $name {
            fn describe(io: &mut RouteIo) {
                io.error(400, "VALIDATION_ERROR");
                $(io.error(ErrorCode::$code.status(), ErrorCode::$code.as_str());)*
            }
        }

        impl IntoResponse for $name {
            fn into_response(self) -> Response {
                ApiError::from(self).into_response()
            }
        }
    )*};
}

impl From<StoreError> for RecipeRefusal {
    fn from(error: StoreError) -> RecipeRefusal {
        RecipeRefusal::Library(RecipeError::Store(error))
    }
}

refusals! {
    /// Listing: a bad page only.
    ListRefusal => [];
    /// Reading: the recipe may not be there.
    ReadRefusal => [RecipeNotFound];
    /// Creating: the definition's rules, its version, its name.
    CreateRefusal => [RecipeValidationError, RecipeNameConflict, RecipeVersionUnsupported];
    /// Updating: the recipe, its revision, the new definition.
    UpdateRefusal => [
        RecipeNotFound,
        RecipeRevisionConflict,
        RecipeValidationError,
        RecipeNameConflict,
        RecipeVersionUnsupported
    ];
    /// Archiving: the recipe and its revision.
    ArchiveRefusal => [RecipeNotFound, RecipeRevisionConflict];
    /// Restoring: the recipe, its revisions, the restored definition today.
    RestoreRefusal => [
        RecipeNotFound,
        RecipeRevisionConflict,
        RecipeValidationError,
        RecipeNameConflict,
        RecipeVersionUnsupported
    ];
}
