//! What `issues.list` and `issues.file` do, step by step: the post-inference
//! checks against the live grants and the app roster, then the forge
//! exchanges. A failure the Mind should read comes back as `Err(text)`;
//! only a store failure is an error of the call itself.

use portos_server::store::{Store, StoreError};

use super::model::{self, Filter, Refusal};
use crate::domains::apps::{self, RemoteCache};
use crate::domains::forge::{Category, Effort, ModelTier};
use crate::domains::forge::{ForgeClient, IssueSummary, Repository, issue_labels};

/// An app the Mind may list and file issues on, and its forge repository.
#[derive(Clone, Debug)]
pub struct Target {
    pub app_id: String,
    pub repository: Repository,
}

/// The checks of docs/reference.md#forge-issues, in its order, on what is
/// stored now: the `fileIssues` grant, the app (runnable, with a repository),
/// the Mind's `allowedAppIds`, and a forge tracker whose remote is on that
/// forge.
pub async fn authorize(
    store: &Store,
    cache: &RemoteCache,
    app_id: &str,
) -> Result<Result<Target, Refusal>, StoreError> {
    let mind = crate::domains::mind::load_grants(store).await?;
    if !mind.file_issues {
        return Ok(Err(Refusal::GrantOff));
    }
    let app = apps::get(store, cache, app_id.to_owned()).await?;
    let Some(app) = app.filter(|resolved| resolved.app.is_runnable()) else {
        return Ok(Err(Refusal::NoRepository(app_id.to_owned())));
    };
    if !mind.allows_app(&app.app.id) {
        return Ok(Err(Refusal::NotAuthorized(app_id.to_owned())));
    }
    let Some(repository) = app.repository else {
        return Ok(Err(Refusal::NoIssueList(app_id.to_owned())));
    };
    Ok(Ok(Target {
        app_id: app.app.id,
        repository,
    }))
}

/// One page of open issues, narrowed locally.
#[derive(Clone, Debug)]
pub struct Listing {
    /// At most the asked limit, newest update first.
    pub issues: Vec<IssueSummary>,
    /// Every open issue of the tracker, whatever the filter.
    pub total_open: usize,
    /// More issues match than are listed (past the limit, or past what
    /// was read from the forge).
    pub truncated: bool,
}

/// The open issues matching `filter`, at most `limit`.
pub async fn list(
    client: &ForgeClient,
    repo: &Repository,
    filter: &Filter,
    limit: usize,
) -> Result<Listing, String> {
    let open = client
        .open_issues(repo)
        .await
        .map_err(|error| model::unreadable(repo.forge, &error))?;
    let mut matching: Vec<IssueSummary> = open
        .issues
        .into_iter()
        .filter(|issue| filter.matches(issue))
        .collect();
    let truncated = matching.len() > limit || open.truncated;
    matching.truncate(limit);
    Ok(Listing {
        issues: matching,
        total_open: open.total_open,
        truncated,
    })
}

/// An issue to file.
#[derive(Clone, Debug)]
pub struct Draft {
    pub title: String,
    pub body: String,
    pub tier: ModelTier,
    pub effort: Effort,
    /// The Mind's own model or provider, for the `planner:` label.
    pub planner: Option<String>,
    pub categories: Vec<Category>,
}

/// What filing did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Filed {
    New {
        number: Option<u64>,
        url: String,
        labels: Vec<String>,
    },
    /// An open issue has the same title key; nothing was filed.
    Duplicate { number: u64, url: String },
}

/// Files `draft`: probe the repository (on failure, nothing else is tried),
/// read the open issues for the duplicate guard (unreadable: nothing is
/// filed), create every label (failures ignored), then the issue.
pub async fn file(client: &ForgeClient, target: &Target, draft: &Draft) -> Result<Filed, String> {
    let repo = &target.repository;
    client
        .probe(repo)
        .await
        .map_err(|error| model::unreachable(repo, &error))?;
    let open = client
        .open_issues(repo)
        .await
        .map_err(|error| model::unchecked(repo.forge, &error))?;
    if let Some(existing) = model::duplicate_of(&draft.title, &open.issues) {
        return Ok(Filed::Duplicate {
            number: existing.number,
            url: existing.url.clone(),
        });
    }
    let labels = issue_labels(
        draft.tier,
        draft.effort,
        draft.planner.as_deref(),
        &draft.categories,
    );
    for label in &labels {
        client.ensure_label(repo, label).await;
    }
    let created = client
        .create_issue(repo, &draft.title, &draft.body, &labels)
        .await
        .map_err(|error| model::not_filed(repo, &error))?;
    tracing::info!(
        app = %target.app_id,
        forge = repo.forge.as_str(),
        repository = %repo.full_name,
        number = ?created.number,
        "the Persistent Mind filed an issue"
    );
    Ok(Filed::New {
        number: created.number,
        url: created.url,
        labels: labels.into_iter().map(|label| label.name).collect(),
    })
}
