//! `issues.list` and `issues.file` (docs/reference.md#tool-families,
//! docs/reference.md#forge-issues): the Persistent Mind reads and files issues
//! on a managed app's GitHub or GitLab tracker. Arguments that break the schema
//! are a 400 `TOOL_VALIDATION_ERROR`; every refusal after that is a result
//! `{ ok: false, error }` the Mind can read.

use crate::domains::mind::MindModel;
use portos_core::{AdapterError, Shared, portos_tool};
use portos_server::store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{Filter, LIST_LIMIT_DEFAULT};
use super::ops::{self, Draft, Filed, Target};
use crate::domains::apps::RemoteCache;
use crate::domains::forge::{Category, Effort, ModelTier};
use crate::domains::forge::{Forge, ForgeClient, IssueSummary};

/// A refusal or a forge failure, in words the Mind can act on.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Refused {
    /// Always `false`.
    pub ok: bool,
    pub error: String,
}

impl Refused {
    fn new(error: impl Into<String>) -> Refused {
        Refused {
            ok: false,
            error: error.into(),
        }
    }
}

/// The post-inference checks, or the refusal to answer with.
async fn target(
    store: &Store,
    cache: &RemoteCache,
    app_id: &str,
) -> Result<Result<Target, Refused>, AdapterError> {
    Ok(ops::authorize(store, cache, app_id.trim())
        .await?
        .map_err(|refusal| Refused::new(refusal.to_string())))
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ListArgs {
    /// The managed app whose tracker to read (1–128 characters).
    #[schemars(length(min = 1, max = 128), regex(pattern = r"\S"))]
    pub app_id: String,
    /// How many issues to return (1–50, default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<u32>,
    /// Only issues whose title or body contains this text (any case; at most 200 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 200))]
    pub search: Option<String>,
    /// Only issues carrying this exact label (at most 60 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 60))]
    pub label: Option<String>,
}

/// One open issue, as listed.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssueItem {
    pub number: u64,
    pub title: String,
    pub url: String,
    pub labels: Vec<String>,
    /// Login names (GitHub) or usernames (GitLab).
    pub assignees: Vec<String>,
    pub updated_at: String,
    /// The body's first 600 characters.
    pub body_preview: String,
}

impl From<IssueSummary> for IssueItem {
    fn from(issue: IssueSummary) -> IssueItem {
        IssueItem {
            body_preview: super::model::body_preview(&issue.body),
            number: issue.number,
            title: issue.title,
            url: issue.url,
            labels: issue.labels,
            assignees: issue.assignees,
            updated_at: issue.updated_at,
        }
    }
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssueList {
    pub ok: bool,
    pub app_id: String,
    pub forge: Forge,
    /// The repository's full name (`owner/name`, or `group/…/name`).
    pub repository: String,
    pub issues: Vec<IssueItem>,
    /// Every open issue of the tracker, whatever the filter.
    pub total_open: usize,
    /// More issues match than are listed.
    pub truncated: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum ListOutcome {
    Listed(IssueList),
    Refused(Refused),
}

/// List the open issues of a managed app's GitHub or GitLab tracker, newest update first.
#[portos_tool(
    name = "issues.list",
    aliases = [],
    scopes = ["mind"],
    capabilities = ["fileIssues"],
    side_effect = "read",
    confirmation = "capability-grant",
)]
pub async fn list(
    args: ListArgs,
    store: Shared<Store>,
    remotes: Shared<RemoteCache>,
    client: Shared<ForgeClient>,
) -> Result<ListOutcome, AdapterError> {
    let target = match target(&store, &remotes, &args.app_id).await? {
        Ok(target) => target,
        Err(refused) => return Ok(ListOutcome::Refused(refused)),
    };
    let limit = args
        .limit
        .and_then(|limit| usize::try_from(limit).ok())
        .unwrap_or(LIST_LIMIT_DEFAULT);
    let filter = Filter::new(args.search.as_deref(), args.label.as_deref());
    let repo = &target.repository;
    Ok(match ops::list(&client, repo, &filter, limit).await {
        Ok(listing) => ListOutcome::Listed(IssueList {
            ok: true,
            forge: repo.forge,
            repository: repo.full_name.clone(),
            issues: listing.issues.into_iter().map(IssueItem::from).collect(),
            total_open: listing.total_open,
            truncated: listing.truncated,
            app_id: target.app_id,
        }),
        Err(error) => ListOutcome::Refused(Refused::new(error)),
    })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FileArgs {
    /// The managed app whose tracker gets the issue (1–128 characters).
    #[schemars(length(min = 1, max = 128), regex(pattern = r"\S"))]
    pub app_id: String,
    /// The issue's title (1–200 characters, trimmed).
    #[schemars(length(min = 1, max = 200), regex(pattern = r"\S"))]
    pub title: String,
    /// The issue's body, Markdown (1–12000 characters).
    #[schemars(length(min = 1, max = 12000), regex(pattern = r"\S"))]
    pub body: String,
    /// The model tier the work needs.
    pub model: ModelTier,
    /// The reasoning effort the work needs.
    pub effort: Effort,
    /// Up to four category labels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 4))]
    pub labels: Option<Vec<Category>>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssueFiled {
    pub ok: bool,
    /// Always `false`: a new issue.
    pub duplicate: bool,
    pub app_id: String,
    pub forge: Forge,
    pub repository: String,
    /// The issue's number (`null` when the forge's answer had none).
    pub number: Option<u64>,
    pub url: String,
    /// Every label the issue was filed with.
    pub labels: Vec<String>,
    pub summary: String,
}

/// An open issue has the same title; nothing was filed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DuplicateIssue {
    pub ok: bool,
    /// Always `true`.
    pub duplicate: bool,
    pub number: u64,
    pub url: String,
    pub summary: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum FileOutcome {
    Filed(IssueFiled),
    Duplicate(DuplicateIssue),
    Refused(Refused),
}

/// File a new issue on a managed app's GitHub or GitLab tracker, labelled with the model tier and effort it needs; an open issue with the same title is answered instead of a duplicate.
#[portos_tool(
    name = "issues.file",
    aliases = [],
    scopes = ["mind"],
    capabilities = ["fileIssues"],
    side_effect = "write",
    idempotent = false,
    confirmation = "capability-grant",
)]
pub async fn file(
    args: FileArgs,
    store: Shared<Store>,
    remotes: Shared<RemoteCache>,
    client: Shared<ForgeClient>,
    mind_model: Shared<MindModel>,
) -> Result<FileOutcome, AdapterError> {
    let target = match target(&store, &remotes, &args.app_id).await? {
        Ok(target) => target,
        Err(refused) => return Ok(FileOutcome::Refused(refused)),
    };
    let draft = Draft {
        title: args.title.trim().to_owned(),
        body: args.body.trim().to_owned(),
        tier: args.model,
        effort: args.effort,
        // The Mind's own model, when one is configured
        // (docs/reference.md#forge-issues: the `planner:` label only when it
        // resolves).
        planner: mind_model.provider().map(|provider| provider.model.clone()),
        categories: args.labels.unwrap_or_default(),
    };
    let repo = &target.repository;
    Ok(match ops::file(&client, &target, &draft).await {
        Ok(Filed::New {
            number,
            url,
            labels,
        }) => {
            let summary = match number {
                Some(number) => format!("Filed #{number} on {}", repo.full_name),
                None => format!("Filed {url} on {}", repo.full_name),
            };
            FileOutcome::Filed(IssueFiled {
                ok: true,
                duplicate: false,
                app_id: target.app_id.clone(),
                forge: repo.forge,
                repository: repo.full_name.clone(),
                number,
                url,
                labels,
                summary,
            })
        }
        Ok(Filed::Duplicate { number, url }) => FileOutcome::Duplicate(DuplicateIssue {
            ok: true,
            duplicate: true,
            summary: format!(
                "#{number} on {} already has this title; nothing was filed",
                repo.full_name
            ),
            number,
            url,
        }),
        Err(error) => FileOutcome::Refused(Refused::new(error)),
    })
}
