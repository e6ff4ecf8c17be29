//! The rules of the Mind's forge issues (docs/reference.md#forge-issues): the
//! limits, the refusals in the contract's words, the local search over a
//! listing, the body preview, the duplicate guard and the texts of every forge
//! failure.

use crate::domains::forge::{Forge, Repository, title_key};
use crate::domains::forge::{ForgeError, IssueSummary};

pub const APP_ID_MAX_CHARS: usize = 128;
pub const TITLE_MAX_CHARS: usize = 200;
pub const BODY_MAX_CHARS: usize = 12_000;
pub const LABEL_MAX_CHARS: usize = 60;
pub const CATEGORY_LABELS_MAX: usize = 4;
pub const LIST_LIMIT_DEFAULT: usize = 20;
pub const LIST_LIMIT_MAX: usize = 50;
pub const BODY_PREVIEW_CHARS: usize = 600;
pub const SEARCH_MAX_CHARS: usize = 200;

/// Why the Mind may not touch an app's issues, checked after inference in
/// this order (a grant revoked or an app removed mid-turn is seen here).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("Persistent mind issue access is disabled")]
    GrantOff,
    /// Unknown, archived, or without a repository path.
    #[error("App '{0}' has no configured repository")]
    NoRepository(String),
    #[error(
        "Managed app '{0}' is not authorized for Persistent Mind work; update Persistent Mind Tools permissions"
    )]
    NotAuthorized(String),
    /// The tracker is not a forge, or the git remote is not on it.
    #[error("App '{0}' has no GitHub or GitLab issue list; check its work tracker and git remote")]
    NoIssueList(String),
}

/// The local narrowing of a listing: `search` is a case-insensitive
/// substring of the title or the body, `label` an exact label name. Blank
/// values narrow nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    search: Option<String>,
    label: Option<String>,
}

impl Filter {
    pub fn new(search: Option<&str>, label: Option<&str>) -> Filter {
        let given = |value: Option<&str>| {
            value
                .map(str::trim)
                .filter(|value| !value.is_empty())
                .map(str::to_owned)
        };
        Filter {
            search: given(search).map(|search| search.to_lowercase()),
            label: given(label),
        }
    }

    pub fn matches(&self, issue: &IssueSummary) -> bool {
        let searched = self.search.as_deref().is_none_or(|needle| {
            issue.title.to_lowercase().contains(needle)
                || issue.body.to_lowercase().contains(needle)
        });
        let labelled = self
            .label
            .as_deref()
            .is_none_or(|label| issue.labels.iter().any(|name| name == label));
        searched && labelled
    }
}

/// The first 600 characters of a body, trimmed; a cut one ends with `…`
/// (within the 600).
pub fn body_preview(body: &str) -> String {
    let body = body.trim();
    if body.chars().count() <= BODY_PREVIEW_CHARS {
        return body.to_owned();
    }
    let mut preview: String = body.chars().take(BODY_PREVIEW_CHARS - 1).collect();
    preview.truncate(preview.trim_end().len());
    preview.push('…');
    preview
}

/// The open issue a new title would duplicate: the same non-empty title
/// key (a punctuation-only title has none and never duplicates).
pub fn duplicate_of<'a>(title: &str, open: &'a [IssueSummary]) -> Option<&'a IssueSummary> {
    let key = title_key(title);
    if key.is_empty() {
        return None;
    }
    open.iter().find(|issue| title_key(&issue.title) == key)
}

/// `issues.list` could not read the tracker: never an empty list.
pub fn unreadable(forge: Forge, error: &ForgeError) -> String {
    format!(
        "Could not read the {forge} issue list ({error}); {}",
        error.remedy(forge)
    )
}

/// The reachability probe before filing failed: nothing else was tried.
pub fn unreachable(repo: &Repository, error: &ForgeError) -> String {
    format!(
        "Could not reach the {} repository {} ({error}); {}",
        repo.forge,
        repo.full_name,
        error.remedy(repo.forge)
    )
}

/// The duplicate guard could not read the open issues: filing stops.
pub fn unchecked(forge: Forge, error: &ForgeError) -> String {
    format!(
        "Could not read the {forge} issue list to check for duplicates ({error}); nothing was filed"
    )
}

/// The forge refused the new issue.
pub fn not_filed(repo: &Repository, error: &ForgeError) -> String {
    format!(
        "Could not file the issue on {} ({error}); {}",
        repo.full_name,
        error.remedy(repo.forge)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issue(title: &str, body: &str, labels: &[&str]) -> IssueSummary {
        IssueSummary {
            number: 1,
            title: title.to_owned(),
            url: "https://github.com/a/b/issues/1".to_owned(),
            labels: labels.iter().map(|l| (*l).to_owned()).collect(),
            assignees: Vec::new(),
            updated_at: String::new(),
            body: body.to_owned(),
        }
    }

    #[test]
    fn refusal_texts() {
        assert_eq!(
            Refusal::GrantOff.to_string(),
            "Persistent mind issue access is disabled"
        );
        assert_eq!(
            Refusal::NoRepository("x".into()).to_string(),
            "App 'x' has no configured repository"
        );
        assert_eq!(
            Refusal::NotAuthorized("x".into()).to_string(),
            "Managed app 'x' is not authorized for Persistent Mind work; update Persistent Mind Tools permissions"
        );
        assert_eq!(
            Refusal::NoIssueList("x".into()).to_string(),
            "App 'x' has no GitHub or GitLab issue list; check its work tracker and git remote"
        );
    }

    #[test]
    fn filters() {
        let login = issue("Fix the LOGIN page", "users cannot sign in", &["bug"]);
        assert!(Filter::new(None, None).matches(&login));
        assert!(Filter::new(Some("  "), Some("")).matches(&login));
        assert!(Filter::new(Some("login"), None).matches(&login));
        assert!(Filter::new(Some("SIGN IN"), None).matches(&login));
        assert!(!Filter::new(Some("logout"), None).matches(&login));
        assert!(Filter::new(None, Some("bug")).matches(&login));
        assert!(!Filter::new(None, Some("Bug")).matches(&login), "exact");
        assert!(!Filter::new(Some("login"), Some("docs")).matches(&login));
    }

    #[test]
    fn previews() {
        assert_eq!(body_preview("  short  "), "short");
        let long = "é".repeat(700);
        let preview = body_preview(&long);
        assert_eq!(preview.chars().count(), BODY_PREVIEW_CHARS);
        assert!(preview.ends_with('…'));
        assert_eq!(body_preview(&"a".repeat(600)).chars().count(), 600);
    }

    #[test]
    fn duplicates() {
        let open = [issue("Fix: the login page!", "", &[]), issue("?!", "", &[])];
        assert_eq!(
            duplicate_of("fix the LOGIN-page", &open).map(|i| i.title.as_str()),
            Some("Fix: the login page!")
        );
        assert!(duplicate_of("Fix the logout page", &open).is_none());
        assert!(duplicate_of("?!", &open).is_none(), "punctuation only");
    }

    #[test]
    fn failure_texts() {
        let error = ForgeError::RateLimited;
        assert_eq!(
            unreadable(Forge::Gitlab, &error),
            "Could not read the GitLab issue list (rate limited); wait for the rate limit to reset, then try again"
        );
        assert_eq!(
            unchecked(Forge::Github, &ForgeError::Unauthorized(401)),
            "Could not read the GitHub issue list to check for duplicates (authentication failed (HTTP 401)); nothing was filed"
        );
    }
}
