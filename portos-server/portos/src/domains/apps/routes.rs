//! `/api/apps`: the managed-app roster, created, read, changed and deleted
//! by people; the Persistent Mind only reads it.

use axum::Json;
use axum::extract::Path;
use portos_core::Shared;
use portos_server::http::{Body, Created, Invalid, RouteErrors};
use portos_server::portos_route;
use portos_server::store::{Store, StoreError};
use schemars::JsonSchema;
use serde::Serialize;

use super::model::{AppChanges, AppView, NewApp};
use super::ops::{self, AppError, RemoteCache};
use crate::shared::rest::Deleted;

/// Every managed app, by name.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AppList {
    pub apps: Vec<AppView>,
}

/// An app that is not there.
#[derive(Debug, thiserror::Error, RouteErrors)]
pub enum AppMissing {
    #[error("No app has the id \"{0}\"")]
    #[route_error(status = 404, code = "APP_NOT_FOUND")]
    NotFound(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// Why a new app was refused.
#[derive(Debug, thiserror::Error, RouteErrors)]
pub enum CreateRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error("An app with the id \"{0}\" exists already")]
    #[route_error(status = 409, code = "APP_EXISTS")]
    Exists(String),
    #[error("{0}")]
    #[route_error(status = 409, code = "APP_LIMIT_REACHED")]
    Limit(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// Why a change was refused.
#[derive(Debug, thiserror::Error, RouteErrors)]
pub enum ChangeRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error("No app has the id \"{0}\"")]
    #[route_error(status = 404, code = "APP_NOT_FOUND")]
    NotFound(String),
    #[error("{0}")]
    #[route_error(status = 409, code = "APP_LIMIT_REACHED")]
    Limit(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

impl From<AppError> for CreateRefusal {
    fn from(error: AppError) -> CreateRefusal {
        match error {
            AppError::Invalid(message) => CreateRefusal::Invalid(Invalid(message)),
            AppError::Exists(id) => CreateRefusal::Exists(id),
            AppError::Store(error) => CreateRefusal::Store(error),
            limit @ (AppError::Limit | AppError::NotFound(_)) => {
                CreateRefusal::Limit(limit.to_string())
            }
        }
    }
}

impl From<AppError> for ChangeRefusal {
    fn from(error: AppError) -> ChangeRefusal {
        match error {
            AppError::Invalid(message) => ChangeRefusal::Invalid(Invalid(message)),
            AppError::NotFound(id) => ChangeRefusal::NotFound(id),
            AppError::Store(error) => ChangeRefusal::Store(error),
            limit @ (AppError::Limit | AppError::Exists(_)) => {
                ChangeRefusal::Limit(limit.to_string())
            }
        }
    }
}

/// Every managed app with its remote, resolved tracker and forge
/// repository.
#[portos_route(method = "GET", path = "/api/apps", summary = "Managed apps")]
async fn list(
    store: Shared<Store>,
    remotes: Shared<RemoteCache>,
) -> Result<Json<AppList>, StoreError> {
    let apps = ops::list(&store, &remotes).await?;
    Ok(Json(AppList {
        apps: apps.iter().map(ops::ResolvedApp::view).collect(),
    }))
}

/// Adds an app (runnable when it has a repository; at most 50 are).
#[portos_route(method = "POST", path = "/api/apps", summary = "Add a managed app")]
async fn create(
    store: Shared<Store>,
    remotes: Shared<RemoteCache>,
    Body(new): Body<NewApp>,
) -> Result<Created<AppView>, CreateRefusal> {
    let created = ops::create(&store, &remotes, new).await?;
    Ok(Created(created.view()))
}

/// One app.
#[portos_route(method = "GET", path = "/api/apps/{id}", summary = "A managed app")]
async fn read(
    store: Shared<Store>,
    remotes: Shared<RemoteCache>,
    Path(id): Path<String>,
) -> Result<Json<AppView>, AppMissing> {
    let found = ops::get(&store, &remotes, id.clone()).await?;
    found
        .map(|resolved| Json(resolved.view()))
        .ok_or(AppMissing::NotFound(id))
}

/// Changes the fields given; the others keep their value.
#[portos_route(
    method = "PUT",
    path = "/api/apps/{id}",
    summary = "Change a managed app"
)]
async fn change(
    store: Shared<Store>,
    remotes: Shared<RemoteCache>,
    Path(id): Path<String>,
    Body(changes): Body<AppChanges>,
) -> Result<Json<AppView>, ChangeRefusal> {
    let changed = ops::change(&store, &remotes, id, changes).await?;
    Ok(Json(changed.view()))
}

/// Removes an app from the roster (its repository is left alone).
#[portos_route(
    method = "DELETE",
    path = "/api/apps/{id}",
    summary = "Remove a managed app"
)]
async fn delete(store: Shared<Store>, Path(id): Path<String>) -> Result<Json<Deleted>, AppMissing> {
    if !ops::delete(&store, id.clone()).await? {
        return Err(AppMissing::NotFound(id));
    }
    Ok(Json(Deleted { ok: true, id }))
}
