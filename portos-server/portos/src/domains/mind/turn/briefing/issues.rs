//! The prompt's issue block (docs/reference.md#forge-issues, last bullet): OFF
//! without the `fileIssues` grant; "no authorized managed app" when no app the
//! Mind may work on has a GitHub or GitLab issue list; otherwise the guidance
//! and those apps as `{id, name, forge, fullName}`. An app is listed when
//! `issues.list` would accept it now: runnable, in `allowedAppIds`, its
//! tracker resolving to a forge its `origin` remote is on (read through
//! the apps' 30 s remote cache).

use portos_server::store::{Store, StoreError};
use serde::Serialize;

use super::bounded_list;
use crate::domains::apps::{self, RemoteCache};
use crate::domains::forge::Forge;
use crate::domains::mind::MindSettings;

pub const ISSUES_OFF: &str = "Forge issues are OFF: the fileIssues grant is not given, so you \
cannot list or file issues on any managed app.";
pub const ISSUES_NO_APP: &str = "Forge issues: no authorized managed app has a GitHub or GitLab \
issue list, so there is no tracker to list or file issues on.";
pub const ISSUES_GUIDANCE: &str = "Forge issues: you may read a managed app's open issues with \
issues_list and file a new one with issues_file. List before you file: an open issue with the \
same title is answered instead of filed again. Write a title and a body a coding agent can act \
on, and choose the model tier and effort the work needs. The authorized apps:";
/// The most the app list may take of the prompt.
const LIST_MAX_CHARS: usize = 3_000;

/// An app the Mind may list and file issues on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IssueApp {
    pub id: String,
    pub name: String,
    pub forge: Forge,
    /// `owner/repo` (GitLab: the project path).
    pub full_name: String,
}

/// What the prompt says about forge issues.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IssueBlock {
    Off,
    NoApp,
    Apps(Vec<IssueApp>),
}

impl IssueBlock {
    /// The block for `settings`, with the app roster as stored now.
    pub async fn resolve(
        settings: &MindSettings,
        store: &Store,
        cache: &RemoteCache,
    ) -> Result<IssueBlock, StoreError> {
        if !settings.file_issues {
            return Ok(IssueBlock::Off);
        }
        let mut listed = Vec::new();
        for app in apps::runnable(store).await? {
            if !settings.allows_app(&app.id) {
                continue;
            }
            let resolved = apps::resolve_app(cache, app).await;
            if let Some(repository) = resolved.repository {
                listed.push(IssueApp {
                    id: resolved.app.id,
                    name: resolved.app.name,
                    forge: repository.forge,
                    full_name: repository.full_name,
                });
            }
        }
        Ok(if listed.is_empty() {
            IssueBlock::NoApp
        } else {
            IssueBlock::Apps(listed)
        })
    }

    pub fn section(&self) -> String {
        match self {
            IssueBlock::Off => ISSUES_OFF.to_owned(),
            IssueBlock::NoApp => ISSUES_NO_APP.to_owned(),
            IssueBlock::Apps(apps) => {
                let lines: Vec<String> = apps
                    .iter()
                    .map(|app| serde_json::to_string(app).unwrap_or_default())
                    .collect();
                bounded_list(ISSUES_GUIDANCE, &lines, LIST_MAX_CHARS)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_cases() {
        assert_eq!(IssueBlock::Off.section(), ISSUES_OFF);
        assert_eq!(IssueBlock::NoApp.section(), ISSUES_NO_APP);
        let apps = IssueBlock::Apps(vec![IssueApp {
            id: "portos".to_owned(),
            name: "PortOS".to_owned(),
            forge: Forge::Github,
            full_name: "acme/portos".to_owned(),
        }]);
        assert_eq!(
            apps.section(),
            format!(
                "{ISSUES_GUIDANCE}\n- {{\"id\":\"portos\",\"name\":\"PortOS\",\"forge\":\"github\",\"fullName\":\"acme/portos\"}}"
            )
        );
    }
}
