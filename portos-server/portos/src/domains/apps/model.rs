//! What a managed app is and the rules every change to one follows.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::domains::forge::{Forge, Repository, Tracker};
use crate::shared::doc_rules::NOT_BLANK;

pub const APP_ID_MAX_CHARS: usize = 128;
pub const NAME_MAX_CHARS: usize = 200;
pub const REPO_PATH_MAX_CHARS: usize = 1024;
/// At most this many apps are runnable (active, with a repository).
pub const MAX_RUNNABLE_APPS: usize = 50;

/// A managed app as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct App {
    /// 1–128 of letters, digits, `.`, `_` and `-`.
    pub id: String,
    pub name: String,
    /// The repository's absolute path on this machine (empty: none yet).
    pub repo_path: String,
    pub tracker: Tracker,
    /// Archived apps are kept but never offered to the Mind.
    pub archived: bool,
    pub created_at: String,
    pub updated_at: String,
}

impl App {
    /// Active and with a repository: what the Mind may work on.
    pub fn is_runnable(&self) -> bool {
        !self.archived && !self.repo_path.is_empty()
    }
}

/// An app with what its repository says: the origin remote (credentials
/// removed), the tracker `auto` resolves to, and the forge repository.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppView {
    #[serde(flatten)]
    pub app: App,
    pub runnable: bool,
    /// The `origin` remote's URL, without any user or token in it.
    pub remote: Option<String>,
    pub resolved_tracker: Tracker,
    /// The forge repository whose issues the Mind can list and file.
    pub repository: Option<RepositoryView>,
}

/// A forge repository, as shown.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepositoryView {
    pub forge: Forge,
    pub host: String,
    pub full_name: String,
}

impl From<&Repository> for RepositoryView {
    fn from(repo: &Repository) -> RepositoryView {
        RepositoryView {
            forge: repo.forge,
            host: repo.host.clone(),
            full_name: repo.full_name.clone(),
        }
    }
}

/// A repository path as documented: blank (none) or absolute.
const REPO_PATH: &str = r"^\s*(/[\s\S]*)?$";

/// A new app. Without an `id`, one is made from the name.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NewApp {
    /// 1–128 of letters, digits, `.`, `_` and `-` (default: from the name).
    #[schemars(regex(pattern = r"^\s*[A-Za-z0-9._-]{1,128}\s*$"))]
    pub id: Option<String>,
    /// 1–200 characters, trimmed.
    #[schemars(length(max = NAME_MAX_CHARS), regex(pattern = NOT_BLANK))]
    pub name: String,
    /// An absolute path, at most 1024 characters (default: none).
    #[schemars(length(max = REPO_PATH_MAX_CHARS), regex(pattern = REPO_PATH))]
    pub repo_path: Option<String>,
    /// Default `auto`.
    pub tracker: Option<Tracker>,
}

/// A change to an app: only the fields given change.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AppChanges {
    /// 1–200 characters, trimmed.
    #[schemars(length(max = NAME_MAX_CHARS), regex(pattern = NOT_BLANK))]
    pub name: Option<String>,
    /// An absolute path, or `""` for none.
    #[schemars(length(max = REPO_PATH_MAX_CHARS), regex(pattern = REPO_PATH))]
    pub repo_path: Option<String>,
    pub tracker: Option<Tracker>,
    pub archived: Option<bool>,
}

impl AppChanges {
    pub fn is_empty(&self) -> bool {
        self.name.is_none()
            && self.repo_path.is_none()
            && self.tracker.is_none()
            && self.archived.is_none()
    }
}

/// A checked app id.
pub fn app_id(raw: &str) -> Result<String, String> {
    let id = raw.trim();
    let count = id.chars().count();
    if count == 0 || count > APP_ID_MAX_CHARS {
        return Err(format!(
            "id must be 1 to {APP_ID_MAX_CHARS} characters (got {count})"
        ));
    }
    if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    {
        return Err("id may hold only letters, digits, '.', '_' and '-'".to_owned());
    }
    Ok(id.to_owned())
}

/// An id made from a name: lowercase, every other character run one `-`.
pub fn id_from_name(name: &str) -> Result<String, String> {
    let mut id = String::new();
    for c in name.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() {
            id.push(c);
        } else if !id.is_empty() && !id.ends_with('-') {
            id.push('-');
        }
    }
    let id: String = id
        .trim_end_matches('-')
        .chars()
        .take(APP_ID_MAX_CHARS)
        .collect();
    if id.is_empty() {
        return Err("name has no letters or digits to make an id from: give an id".to_owned());
    }
    app_id(id.trim_end_matches('-'))
}

/// A checked name.
pub fn name(raw: &str) -> Result<String, String> {
    let name = raw.trim();
    let count = name.chars().count();
    if count == 0 || count > NAME_MAX_CHARS {
        return Err(format!(
            "name must be 1 to {NAME_MAX_CHARS} characters (got {count})"
        ));
    }
    Ok(name.to_owned())
}

/// A checked repository path: empty (none), or absolute.
pub fn repo_path(raw: &str) -> Result<String, String> {
    let path = raw.trim();
    if path.is_empty() {
        return Ok(String::new());
    }
    if path.chars().count() > REPO_PATH_MAX_CHARS {
        return Err(format!(
            "repoPath must be at most {REPO_PATH_MAX_CHARS} characters"
        ));
    }
    if !std::path::Path::new(path).is_absolute() {
        return Err(format!(
            "repoPath must be an absolute path (got \"{path}\")"
        ));
    }
    Ok(path.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids() {
        assert_eq!(app_id(" portos ").as_deref(), Ok("portos"));
        assert!(app_id("").is_err());
        assert!(app_id("a b").is_err());
        assert!(app_id(&"a".repeat(129)).is_err());
        assert_eq!(id_from_name("My App (v2)!").as_deref(), Ok("my-app-v2"));
        assert!(id_from_name("…").is_err());
    }

    #[test]
    fn paths_and_names() {
        assert_eq!(repo_path("  ").as_deref(), Ok(""));
        assert!(repo_path("relative/dir").is_err());
        assert_eq!(repo_path("/srv/app").as_deref(), Ok("/srv/app"));
        assert!(name(" ").is_err());
        assert_eq!(name(" App ").as_deref(), Ok("App"));
    }
}
