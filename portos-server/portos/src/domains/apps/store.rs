//! The managed apps' table and every SQL statement on it.

use portos_server::store::sql::{Connection, OptionalExtension, Row, params};
use portos_server::store::{Schema, StoreError};

use super::model::App;
use crate::domains::forge::Tracker;

portos_server::store_schema!(
    /// The apps the Persistent Mind may work on.
    APPS = Schema {
        component: "apps",
        migrations: &["CREATE TABLE managed_apps (
            id         TEXT PRIMARY KEY,
            name       TEXT NOT NULL,
            repo_path  TEXT NOT NULL,
            tracker    TEXT NOT NULL CHECK (tracker IN ('auto', 'plan', 'github', 'gitlab', 'jira')),
            archived   INTEGER NOT NULL CHECK (archived IN (0, 1)),
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );"],
    }
);

const COLUMNS: &str = "id, name, repo_path, tracker, archived, created_at, updated_at";

fn app_from(row: &Row<'_>) -> portos_server::store::sql::Result<App> {
    let tracker: String = row.get(3)?;
    Ok(App {
        id: row.get(0)?,
        name: row.get(1)?,
        repo_path: row.get(2)?,
        tracker: tracker_of(&tracker),
        archived: row.get(4)?,
        created_at: row.get(5)?,
        updated_at: row.get(6)?,
    })
}

/// The CHECK constraint keeps the column to these five words.
fn tracker_of(text: &str) -> Tracker {
    match text {
        "plan" => Tracker::Plan,
        "github" => Tracker::Github,
        "gitlab" => Tracker::Gitlab,
        "jira" => Tracker::Jira,
        _ => Tracker::Auto,
    }
}

/// Every app, by name then id.
pub fn all(connection: &Connection) -> Result<Vec<App>, StoreError> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM managed_apps ORDER BY portos_fold(name), id"
    ))?;
    let apps = statement
        .query_map([], app_from)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(apps)
}

pub fn get(connection: &Connection, id: &str) -> Result<Option<App>, StoreError> {
    Ok(connection
        .query_row(
            &format!("SELECT {COLUMNS} FROM managed_apps WHERE id = ?1"),
            [id],
            app_from,
        )
        .optional()?)
}

/// How many apps are runnable (active with a repository), `except` one.
pub fn runnable_count(connection: &Connection, except: Option<&str>) -> Result<usize, StoreError> {
    let count: i64 = connection.query_row(
        "SELECT COUNT(*) FROM managed_apps
         WHERE archived = 0 AND repo_path <> '' AND id IS DISTINCT FROM ?1",
        [except],
        |row| row.get(0),
    )?;
    Ok(usize::try_from(count).unwrap_or(usize::MAX))
}

pub fn insert(connection: &Connection, app: &App) -> Result<(), StoreError> {
    connection.execute(
        &format!("INSERT INTO managed_apps ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
        params![
            app.id,
            app.name,
            app.repo_path,
            app.tracker.as_str(),
            app.archived,
            app.created_at,
            app.updated_at
        ],
    )?;
    Ok(())
}

pub fn update(connection: &Connection, app: &App) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE managed_apps SET name = ?2, repo_path = ?3, tracker = ?4, archived = ?5,
         updated_at = ?6 WHERE id = ?1",
        params![
            app.id,
            app.name,
            app.repo_path,
            app.tracker.as_str(),
            app.archived,
            app.updated_at
        ],
    )?;
    Ok(())
}

/// Whether an app was there to delete.
pub fn delete(connection: &Connection, id: &str) -> Result<bool, StoreError> {
    Ok(connection.execute("DELETE FROM managed_apps WHERE id = ?1", [id])? > 0)
}
