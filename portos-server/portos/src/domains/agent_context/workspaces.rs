//! The workspaces scope: managed apps and how many tasks each has (the
//! source is the app roster, `roster`).

use std::future::Future;
use std::pin::Pin;

use portos_server::mcp::Profile;

use super::item::{Entry, Snapshot, hashed_ref};
use super::redact::redact;

/// One managed app as the workspaces scope sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workspace {
    pub app_id: String,
    pub name: String,
    pub task_count: u64,
}

/// What a workspace source returns: the apps (at most a little over the
/// source cap is enough) and whether the source knows its data is stale.
#[derive(Clone, Debug, Default)]
pub struct WorkspaceList {
    pub workspaces: Vec<Workspace>,
    pub stale: bool,
}

pub type WorkspaceFuture<'a> =
    Pin<Box<dyn Future<Output = Result<WorkspaceList, String>> + Send + 'a>>;

/// Where the managed apps and their task counts come from (a trait so the
/// scope's budget and redaction can be tested on any list).
pub trait WorkspaceSource: Send + Sync + std::fmt::Debug {
    fn list(&self) -> WorkspaceFuture<'_>;
}

/// Items for the profile: the metadata profile matches on the app's name
/// and id but shows neither.
pub fn snapshot(list: &WorkspaceList, profile: Profile) -> Snapshot {
    let entries = list
        .workspaces
        .iter()
        .map(|workspace| {
            let title = match profile {
                Profile::Summary => redact(&workspace.name),
                Profile::Metadata => "Workspace".to_owned(),
            };
            let plural = if workspace.task_count == 1 { "" } else { "s" };
            Entry::new(
                portos_words::WORKSPACES,
                &hashed_ref("workspaces:workspace:", &workspace.app_id),
                "workspace",
                &title,
                &format!(
                    "Active workspace with {} task{plural}.",
                    workspace.task_count
                ),
                Some("/apps"),
                &[
                    workspace.name.as_str(),
                    workspace.app_id.as_str(),
                    "workspace",
                ],
            )
        })
        .collect();
    Snapshot::capped(entries, list.stale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_matches_the_name_but_never_shows_it() {
        let list = WorkspaceList {
            workspaces: vec![Workspace {
                app_id: "secret-app".to_owned(),
                name: "Secret Project ada@example.com".to_owned(),
                task_count: 1,
            }],
            stale: false,
        };
        let meta = snapshot(&list, Profile::Metadata);
        let entry = &meta.entries[0];
        assert!(entry.matches("secret project"));
        let shown = serde_json::to_string(&entry.item).expect("json");
        assert!(!shown.to_lowercase().contains("secret"), "{shown}");
        assert_eq!(entry.item.summary, "Active workspace with 1 task.");
        let summary = snapshot(&list, Profile::Summary);
        assert_eq!(
            summary.entries[0].item.title,
            "Secret Project [REDACTED EMAIL]"
        );
    }
}
