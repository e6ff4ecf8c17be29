//! What REST routes and the Mind's tools do with managed apps, each rule
//! once: create and change under the runnable limit, and resolve an app's
//! tracker and forge repository from its git remote (cached 30 s).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use portos_server::store::{Store, StoreError};

use super::git;
use super::model::{self, App, AppChanges, AppView, MAX_RUNNABLE_APPS, NewApp, RepositoryView};
use super::store;
use crate::domains::forge::{self, Repository, Tracker};

/// How long a repository's remote is trusted before it is read again.
const REMOTE_TTL: Duration = Duration::from_secs(30);

/// Why an app was not created or changed.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The input does not fit; the message says what to change.
    #[error("{0}")]
    Invalid(String),
    #[error("An app with the id \"{0}\" exists already")]
    Exists(String),
    #[error(
        "At most {MAX_RUNNABLE_APPS} apps can be runnable; archive one or clear its repoPath first"
    )]
    Limit,
    #[error("No app has the id \"{0}\"")]
    NotFound(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// An app with its remote read and its tracker resolved.
#[derive(Clone, Debug)]
pub struct ResolvedApp {
    pub app: App,
    /// The `origin` URL as configured (may hold credentials: never shown).
    pub remote: Option<String>,
    pub tracker: Tracker,
    pub repository: Option<Repository>,
}

impl ResolvedApp {
    pub fn view(&self) -> AppView {
        AppView {
            runnable: self.app.is_runnable(),
            remote: self.remote.as_deref().map(git::without_credentials),
            resolved_tracker: self.tracker,
            repository: self.repository.as_ref().map(RepositoryView::from),
            app: self.app.clone(),
        }
    }
}

/// When a repository's remote was read, and what it was.
type RemoteReads = HashMap<PathBuf, (Instant, Option<String>)>;

/// The `origin` remote of each repository path, read at most every 30 s.
#[derive(Clone, Debug, Default)]
pub struct RemoteCache {
    read: Arc<Mutex<RemoteReads>>,
}

impl RemoteCache {
    pub async fn origin(&self, repo_path: &str) -> Option<String> {
        if repo_path.is_empty() {
            return None;
        }
        let path = PathBuf::from(repo_path);
        if let Some((at, url)) = self.lock().get(&path)
            && at.elapsed() < REMOTE_TTL
        {
            return url.clone();
        }
        let read_path = path.clone();
        let url = tokio::task::spawn_blocking(move || git::origin_url(&read_path))
            .await
            .ok()
            .flatten();
        self.lock().insert(path, (Instant::now(), url.clone()));
        url
    }

    /// Forgets every remote read (after an app's path or tracker changed).
    pub fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, RemoteReads> {
        self.read.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

pub async fn resolve_app(cache: &RemoteCache, app: App) -> ResolvedApp {
    let remote = cache.origin(&app.repo_path).await;
    let host = remote
        .as_deref()
        .and_then(forge::parse_remote)
        .map(|(host, _)| host);
    let tracker = app.tracker.resolve(host.as_deref());
    let repository = forge::repository(app.tracker, remote.as_deref());
    ResolvedApp {
        app,
        remote,
        tracker,
        repository,
    }
}

/// Every app, resolved.
pub async fn list(store: &Store, cache: &RemoteCache) -> Result<Vec<ResolvedApp>, StoreError> {
    let apps = store.run(|connection| store::all(connection)).await?;
    let mut resolved = Vec::with_capacity(apps.len());
    for app in apps {
        resolved.push(resolve_app(cache, app).await);
    }
    Ok(resolved)
}

/// The runnable apps (active, with a repository), at most 50.
pub async fn runnable(store: &Store) -> Result<Vec<App>, StoreError> {
    let apps = store.run(|connection| store::all(connection)).await?;
    Ok(apps
        .into_iter()
        .filter(App::is_runnable)
        .take(MAX_RUNNABLE_APPS)
        .collect())
}

/// One app, resolved.
pub async fn get(
    store: &Store,
    cache: &RemoteCache,
    id: String,
) -> Result<Option<ResolvedApp>, StoreError> {
    let app = store
        .run(move |connection| store::get(connection, &id))
        .await?;
    Ok(match app {
        Some(app) => Some(resolve_app(cache, app).await),
        None => None,
    })
}

pub async fn create(
    store: &Store,
    cache: &RemoteCache,
    new: NewApp,
) -> Result<ResolvedApp, AppError> {
    let name = model::name(&new.name).map_err(AppError::Invalid)?;
    let id = match new.id.as_deref() {
        Some(id) => model::app_id(id),
        None => model::id_from_name(&name),
    }
    .map_err(AppError::Invalid)?;
    let repo_path =
        model::repo_path(new.repo_path.as_deref().unwrap_or("")).map_err(AppError::Invalid)?;
    let now = jiff::Timestamp::now().to_string();
    let app = App {
        id,
        name,
        repo_path,
        tracker: new.tracker.unwrap_or_default(),
        archived: false,
        created_at: now.clone(),
        updated_at: now,
    };
    let stored = app.clone();
    store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            if store::get(&transaction, &stored.id)?.is_some() {
                return Ok(Err(AppError::Exists(stored.id.clone())));
            }
            if stored.is_runnable()
                && store::runnable_count(&transaction, None)? >= MAX_RUNNABLE_APPS
            {
                return Ok(Err(AppError::Limit));
            }
            store::insert(&transaction, &stored)?;
            transaction.commit()?;
            Ok(Ok(()))
        })
        .await??;
    Ok(resolve_app(cache, app).await)
}

pub async fn change(
    store: &Store,
    cache: &RemoteCache,
    id: String,
    changes: AppChanges,
) -> Result<ResolvedApp, AppError> {
    if changes.is_empty() {
        return Err(AppError::Invalid(
            "Nothing to change: give name, repoPath, tracker or archived".to_owned(),
        ));
    }
    let name = changes
        .name
        .as_deref()
        .map(model::name)
        .transpose()
        .map_err(AppError::Invalid)?;
    let repo_path = changes
        .repo_path
        .as_deref()
        .map(model::repo_path)
        .transpose()
        .map_err(AppError::Invalid)?;
    let changed = store
        .run(move |connection| {
            let transaction = connection.transaction()?;
            // Another server's change of it commits before or after this one.
            transaction.lock_rows("managed_apps", "id", &id)?;
            let Some(mut app) = store::get(&transaction, &id)? else {
                return Ok(Err(AppError::NotFound(id)));
            };
            let was_runnable = app.is_runnable();
            if let Some(name) = name {
                app.name = name;
            }
            if let Some(repo_path) = repo_path {
                app.repo_path = repo_path;
            }
            if let Some(tracker) = changes.tracker {
                app.tracker = tracker;
            }
            if let Some(archived) = changes.archived {
                app.archived = archived;
            }
            if app.is_runnable()
                && !was_runnable
                && store::runnable_count(&transaction, Some(&app.id))? >= MAX_RUNNABLE_APPS
            {
                return Ok(Err(AppError::Limit));
            }
            app.updated_at = jiff::Timestamp::now().to_string();
            store::update(&transaction, &app)?;
            transaction.commit()?;
            Ok(Ok(app))
        })
        .await??;
    cache.clear();
    Ok(resolve_app(cache, changed).await)
}

/// Whether an app was there to delete.
pub async fn delete(store: &Store, id: String) -> Result<bool, StoreError> {
    store
        .run(move |connection| store::delete(connection, &id))
        .await
}
