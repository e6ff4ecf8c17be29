//! GitHub and GitLab over their REST APIs: probe a repository, read its open
//! issues, create labels and file an issue. The API base is configurable
//! (GitHub Enterprise, self-hosted GitLab, a local stand-in in tests); the
//! token comes from the environment or settings and is never put in an
//! error, a log line or a result.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use portos_server::outbound::{self, OutboundClient, OutboundPolicy};

use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderMap, HeaderValue, RETRY_AFTER};
use reqwest::{Method, StatusCode, Url};
use serde::Deserialize;
use serde_json::{Value, json};

use super::labels::IssueLabel;
use super::remote::{Forge, Repository};

const TIMEOUT: Duration = Duration::from_secs(15);
const PER_PAGE: usize = 100;
/// Open issues read for the duplicate guard and the list: 10 pages.
const MAX_PAGES: usize = 10;
/// The largest answer read: 100 issues with GitHub's longest bodies
/// (65,536 characters each) fit.
const ANSWER_MAX_BYTES: usize = 16 * 1024 * 1024;
/// The longest forge message carried into an error.
const MESSAGE_MAX_CHARS: usize = 200;

/// A token, shown as `[redacted]` by `Debug`.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(token: impl Into<String>) -> Option<Secret> {
        let token = token.into().trim().to_owned();
        (!token.is_empty()).then_some(Secret(token))
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Where the forges' APIs are and the tokens to use.
#[derive(Clone, Debug, Default)]
pub struct ForgeSettings {
    /// GitHub's API base; `None` → `https://api.github.com` for github.com
    /// and `https://<host>/api/v3` for GitHub Enterprise.
    pub github_api: Option<String>,
    pub github_token: Option<Secret>,
    /// GitLab's API base; `None` → `https://<host>/api/v4`.
    pub gitlab_api: Option<String>,
    pub gitlab_token: Option<Secret>,
}

impl ForgeSettings {
    /// `PORTOS_GITHUB_API_URL`, `GITHUB_TOKEN` (or `GH_TOKEN`),
    /// `PORTOS_GITLAB_API_URL`, `GITLAB_TOKEN`.
    pub fn from_env() -> ForgeSettings {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        ForgeSettings {
            github_api: var("PORTOS_GITHUB_API_URL"),
            github_token: var("GITHUB_TOKEN")
                .or_else(|| var("GH_TOKEN"))
                .and_then(Secret::new),
            gitlab_api: var("PORTOS_GITLAB_API_URL"),
            gitlab_token: var("GITLAB_TOKEN").and_then(Secret::new),
        }
    }
}

/// Why a forge did not answer as asked. The text never holds the token.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ForgeError {
    #[error("unreachable: {0}")]
    Unreachable(String),
    #[error("authentication failed (HTTP {0})")]
    Unauthorized(u16),
    #[error("rate limited")]
    RateLimited,
    #[error("repository not found or not visible to the token")]
    NotFound,
    #[error("HTTP {code}{}", detail(.message))]
    Status { code: u16, message: Option<String> },
    #[error("unexpected answer: {0}")]
    Malformed(String),
    /// The server's outbound policy refuses the forge's address: nothing
    /// was sent.
    #[error("{0}")]
    NotAllowed(String),
}

impl ForgeError {
    /// What the owner can do about it.
    pub fn remedy(&self, forge: Forge) -> String {
        let token = match forge {
            Forge::Github => "GITHUB_TOKEN",
            Forge::Gitlab => "GITLAB_TOKEN",
        };
        match self {
            ForgeError::Unreachable(_) => {
                let variable = match forge {
                    Forge::Github => "PORTOS_GITHUB_API_URL",
                    Forge::Gitlab => "PORTOS_GITLAB_API_URL",
                };
                format!(
                    "check the network and the {} API URL ({variable})",
                    forge.label()
                )
            }
            ForgeError::Unauthorized(_) => {
                format!("set {token} to a token with issue access to this repository")
            }
            ForgeError::RateLimited => {
                "wait for the rate limit to reset, then try again".to_owned()
            }
            ForgeError::NotFound => {
                format!("check the app's git remote and that {token} can see the repository")
            }
            ForgeError::Status { .. } | ForgeError::Malformed(_) => "try again later".to_owned(),
            ForgeError::NotAllowed(_) => {
                "allow the forge's host with --outbound-allow, or set its API URL (docs/security.md)"
                    .to_owned()
            }
        }
    }
}

/// One open issue as the forge lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IssueSummary {
    pub number: u64,
    pub title: String,
    pub url: String,
    pub labels: Vec<String>,
    pub assignees: Vec<String>,
    pub updated_at: String,
    pub body: String,
}

/// The open issues read, newest first, and whether more exist than read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpenIssues {
    pub issues: Vec<IssueSummary>,
    /// The forge's own count when it gives one, else the number read.
    pub total_open: usize,
    pub truncated: bool,
}

/// A filed issue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreatedIssue {
    pub number: Option<u64>,
    pub url: String,
}

/// Talks to GitHub and GitLab.
#[derive(Clone, Debug)]
pub struct ForgeClient {
    http: OutboundClient,
    settings: ForgeSettings,
    /// `Authorization: Bearer <token>`, made once and marked sensitive
    /// (never printed by `Debug`).
    github_auth: Option<HeaderValue>,
    /// `PRIVATE-TOKEN: <token>`.
    gitlab_auth: Option<HeaderValue>,
}

impl ForgeClient {
    /// A client for these settings under the default outbound policy
    /// (public addresses, and the configured API URLs).
    pub fn new(settings: ForgeSettings) -> Result<ForgeClient, String> {
        ForgeClient::with_policy(settings, &OutboundPolicy::public_only())
    }

    /// A client for these settings under `policy`, widened by the API URLs
    /// the owner configured; an API URL that is not an `http(s)` URL is
    /// refused here, at start-up, rather than on the first call. A GitLab
    /// base derived from an app's remote is judged by the policy alone.
    pub fn with_policy(
        settings: ForgeSettings,
        policy: &OutboundPolicy,
    ) -> Result<ForgeClient, String> {
        for (forge, base) in [
            (Forge::Github, &settings.github_api),
            (Forge::Gitlab, &settings.gitlab_api),
        ] {
            if let Some(base) = base {
                check_api_base(forge, base)?;
            }
        }
        let policy = [&settings.github_api, &settings.gitlab_api]
            .into_iter()
            .flatten()
            .fold(policy.clone(), |policy, base| {
                policy.also_allowing_url(base)
            });
        let builder = crate::shared::outbound::client_builder()
            .timeout(TIMEOUT)
            .connect_timeout(TIMEOUT)
            .user_agent(concat!("portos/", env!("CARGO_PKG_VERSION")));
        // Moved repositories redirect within the API's origin.
        let http = OutboundClient::same_origin_redirects(builder, Arc::new(policy))
            .map_err(|error| format!("cannot build the forge HTTP client: {error}"))?;
        let github_auth = settings
            .github_token
            .as_ref()
            .map(|Secret(token)| credential("GITHUB_TOKEN", &format!("Bearer {token}")))
            .transpose()?;
        let gitlab_auth = settings
            .gitlab_token
            .as_ref()
            .map(|Secret(token)| credential("GITLAB_TOKEN", token))
            .transpose()?;
        Ok(ForgeClient {
            http,
            settings,
            github_auth,
            gitlab_auth,
        })
    }

    /// Whether the repository answers with these credentials.
    pub async fn probe(&self, repo: &Repository) -> Result<(), ForgeError> {
        let url = self.repo_url(repo, &[])?;
        self.send(repo.forge, Method::GET, url, None)
            .await
            .map(drop)
    }

    /// The open issues (pull requests excluded), newest first.
    pub async fn open_issues(&self, repo: &Repository) -> Result<OpenIssues, ForgeError> {
        let mut read = Vec::new();
        let mut total = None;
        for page in 1..=MAX_PAGES {
            let (state, segment) = match repo.forge {
                Forge::Github => ("open", "issues"),
                Forge::Gitlab => ("opened", "issues"),
            };
            let mut url = self.repo_url(repo, &[segment])?;
            url.query_pairs_mut()
                .append_pair("state", state)
                .append_pair("per_page", &PER_PAGE.to_string())
                .append_pair("page", &page.to_string());
            if repo.forge == Forge::Github {
                url.query_pairs_mut()
                    .append_pair("sort", "updated")
                    .append_pair("direction", "desc");
            } else {
                url.query_pairs_mut()
                    .append_pair("order_by", "updated_at")
                    .append_pair("sort", "desc");
            }
            let (headers, body) = self.send(repo.forge, Method::GET, url, None).await?;
            if total.is_none() {
                total = headers
                    .get("x-total")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse::<usize>().ok());
            }
            let items = body.as_array().ok_or_else(|| {
                ForgeError::Malformed("the issue list is not an array".to_owned())
            })?;
            let count = items.len();
            for item in items {
                if let Some(issue) = issue_of(repo.forge, item)? {
                    read.push(issue);
                }
            }
            if count < PER_PAGE {
                let total_open = total.unwrap_or(read.len());
                return Ok(OpenIssues {
                    truncated: total_open > read.len(),
                    total_open,
                    issues: read,
                });
            }
        }
        let total_open = total.unwrap_or(read.len()).max(read.len());
        Ok(OpenIssues {
            issues: read,
            total_open,
            truncated: true,
        })
    }

    /// Creates a label; one that exists already (or cannot be made) is left
    /// as it is: filing goes on without it being new.
    pub async fn ensure_label(&self, repo: &Repository, label: &IssueLabel) {
        let Ok(url) = self.repo_url(repo, &["labels"]) else {
            return;
        };
        let body = match repo.forge {
            Forge::Github => json!({ "name": label.name, "color": label.color }),
            Forge::Gitlab => json!({ "name": label.name, "color": format!("#{}", label.color) }),
        };
        if let Err(error) = self.send(repo.forge, Method::POST, url, Some(body)).await {
            tracing::debug!(label = %label.name, %error, "label not created");
        }
    }

    /// Files an issue with these labels (created beforehand).
    pub async fn create_issue(
        &self,
        repo: &Repository,
        title: &str,
        body: &str,
        labels: &[IssueLabel],
    ) -> Result<CreatedIssue, ForgeError> {
        let url = self.repo_url(repo, &["issues"])?;
        let names: Vec<&str> = labels.iter().map(|l| l.name.as_str()).collect();
        let request = match repo.forge {
            Forge::Github => json!({ "title": title, "body": body, "labels": names }),
            Forge::Gitlab => {
                json!({ "title": title, "description": body, "labels": names.join(",") })
            }
        };
        let (_, created) = self
            .send(repo.forge, Method::POST, url, Some(request))
            .await?;
        let (number_key, url_key) = match repo.forge {
            Forge::Github => ("number", "html_url"),
            Forge::Gitlab => ("iid", "web_url"),
        };
        let url = created
            .get(url_key)
            .and_then(Value::as_str)
            .ok_or_else(|| ForgeError::Malformed(format!("no `{url_key}` in the created issue")))?
            .to_owned();
        let number = created
            .get(number_key)
            .and_then(Value::as_u64)
            .or_else(|| trailing_number(&url));
        Ok(CreatedIssue { number, url })
    }

    /// The API URL of the repository, with `segments` after it.
    fn repo_url(&self, repo: &Repository, segments: &[&str]) -> Result<Url, ForgeError> {
        let base = self.api_base(repo);
        let mut url = Url::parse(&base)
            .map_err(|error| ForgeError::Unreachable(format!("invalid API URL {base}: {error}")))?;
        {
            let mut path = url
                .path_segments_mut()
                .map_err(|()| ForgeError::Unreachable(format!("invalid API URL {base}")))?;
            path.pop_if_empty();
            match repo.forge {
                Forge::Github => {
                    path.push("repos");
                    for part in repo.full_name.split('/') {
                        path.push(part);
                    }
                }
                // GitLab names a project by its URL-encoded full path.
                Forge::Gitlab => {
                    path.push("projects").push(&repo.full_name);
                }
            }
            path.extend(segments);
        }
        Ok(url)
    }

    fn api_base(&self, repo: &Repository) -> String {
        match repo.forge {
            Forge::Github => self.settings.github_api.clone().unwrap_or_else(|| {
                if repo.host == "github.com" {
                    "https://api.github.com".to_owned()
                } else {
                    format!("https://{}/api/v3", repo.host)
                }
            }),
            Forge::Gitlab => self
                .settings
                .gitlab_api
                .clone()
                .unwrap_or_else(|| format!("https://{}/api/v4", repo.host)),
        }
    }

    async fn send(
        &self,
        forge: Forge,
        method: Method,
        url: Url,
        body: Option<Value>,
    ) -> Result<(HeaderMap, Value), ForgeError> {
        let mut request = self
            .http
            .request(method, url.as_str())
            .map_err(|error| ForgeError::NotAllowed(error.to_string()))?;
        match forge {
            Forge::Github => {
                request = request
                    .header(ACCEPT, "application/vnd.github+json")
                    .header("X-GitHub-Api-Version", "2022-11-28");
                if let Some(value) = &self.github_auth {
                    request = request.header(AUTHORIZATION, value.clone());
                }
            }
            Forge::Gitlab => {
                if let Some(value) = &self.gitlab_auth {
                    request = request.header("PRIVATE-TOKEN", value.clone());
                }
            }
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let mut response =
            self.http
                .send(request)
                .await
                .map_err(|error| match outbound::refusal(&error) {
                    Some(refused) => ForgeError::NotAllowed(refused.to_string()),
                    None => ForgeError::Unreachable(describe(error)),
                })?;
        let status = response.status();
        let headers = response.headers().clone();
        let mut bytes = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|error| ForgeError::Unreachable(describe(error)))?
        {
            if bytes.len() + chunk.len() > ANSWER_MAX_BYTES {
                return Err(ForgeError::Malformed(format!(
                    "the answer is larger than {} MiB",
                    ANSWER_MAX_BYTES / (1024 * 1024)
                )));
            }
            bytes.extend_from_slice(&chunk);
        }
        if let Some(error) = refusal(status, &headers, &bytes) {
            return Err(error);
        }
        let value = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .map_err(|error| ForgeError::Malformed(format!("not JSON: {error}")))?
        };
        Ok((headers, value))
    }
}

/// A token as a header value; one an HTTP header cannot carry (a control
/// character, a line break) is refused at start-up, without showing it.
fn credential(variable: &str, value: &str) -> Result<HeaderValue, String> {
    let mut header = HeaderValue::from_str(value)
        .map_err(|_| format!("{variable} holds characters an HTTP header cannot carry"))?;
    header.set_sensitive(true);
    Ok(header)
}

/// A configured API base must be an absolute `http(s)` URL.
fn check_api_base(forge: Forge, base: &str) -> Result<(), String> {
    let url = Url::parse(base.trim()).map_err(|error| {
        format!(
            "the {} API URL \"{base}\" is not a URL: {error}",
            forge.label()
        )
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.cannot_be_a_base() {
        return Err(format!(
            "the {} API URL \"{base}\" must be an http or https URL",
            forge.label()
        ));
    }
    Ok(())
}

/// The error a status stands for, `None` on success. GitHub's primary
/// rate limit is a 403 with `x-ratelimit-remaining: 0`, its secondary one a
/// 403 with `retry-after`; both forges also answer 429.
fn refusal(status: StatusCode, headers: &HeaderMap, body: &[u8]) -> Option<ForgeError> {
    if status.is_success() {
        return None;
    }
    let exhausted = headers
        .get("x-ratelimit-remaining")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim() == "0");
    let told_to_wait = headers.contains_key(RETRY_AFTER);
    Some(match status.as_u16() {
        429 => ForgeError::RateLimited,
        403 if exhausted || told_to_wait => ForgeError::RateLimited,
        code @ (401 | 403) => ForgeError::Unauthorized(code),
        404 => ForgeError::NotFound,
        code => ForgeError::Status {
            code,
            message: message_of(body),
        },
    })
}

/// The `message` (GitHub, GitLab) or `error` (GitLab) of an error answer,
/// on one line and bounded.
fn message_of(body: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let message = ["message", "error"]
        .iter()
        .find_map(|key| value.get(key))
        .map(|message| match message {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })?;
    let line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut bounded: String = line.chars().take(MESSAGE_MAX_CHARS).collect();
    if bounded.len() < line.len() {
        bounded.push('…');
    }
    (!bounded.is_empty()).then_some(bounded)
}

fn detail(message: &Option<String>) -> String {
    message
        .as_deref()
        .map(|message| format!(": {message}"))
        .unwrap_or_default()
}

/// An issue of either forge; `None` for a GitHub pull request (which the
/// issues endpoint lists too).
fn issue_of(forge: Forge, item: &Value) -> Result<Option<IssueSummary>, ForgeError> {
    #[derive(Deserialize)]
    struct GithubIssue {
        number: u64,
        title: String,
        html_url: String,
        #[serde(default)]
        body: Option<String>,
        #[serde(default)]
        labels: Vec<Value>,
        #[serde(default)]
        assignees: Vec<Value>,
        #[serde(default)]
        updated_at: Option<String>,
        #[serde(default)]
        pull_request: Option<Value>,
    }
    #[derive(Deserialize)]
    struct GitlabIssue {
        iid: u64,
        title: String,
        web_url: String,
        #[serde(default)]
        description: Option<String>,
        #[serde(default)]
        labels: Vec<String>,
        #[serde(default)]
        assignees: Vec<Value>,
        #[serde(default)]
        updated_at: Option<String>,
    }
    let malformed = |error: serde_json::Error| ForgeError::Malformed(format!("an issue: {error}"));
    let names = |values: &[Value], key: &str| -> Vec<String> {
        values
            .iter()
            .filter_map(|v| v.get(key).and_then(Value::as_str).or_else(|| v.as_str()))
            .map(str::to_owned)
            .collect()
    };
    Ok(match forge {
        Forge::Github => {
            let issue: GithubIssue = serde_json::from_value(item.clone()).map_err(malformed)?;
            if issue.pull_request.is_some() {
                return Ok(None);
            }
            Some(IssueSummary {
                number: issue.number,
                title: issue.title,
                url: issue.html_url,
                labels: names(&issue.labels, "name"),
                assignees: names(&issue.assignees, "login"),
                updated_at: issue.updated_at.unwrap_or_default(),
                body: issue.body.unwrap_or_default(),
            })
        }
        Forge::Gitlab => {
            let issue: GitlabIssue = serde_json::from_value(item.clone()).map_err(malformed)?;
            Some(IssueSummary {
                number: issue.iid,
                title: issue.title,
                url: issue.web_url,
                labels: issue.labels,
                assignees: names(&issue.assignees, "username"),
                updated_at: issue.updated_at.unwrap_or_default(),
                body: issue.description.unwrap_or_default(),
            })
        }
    })
}

/// `…/issues/42` → 42.
fn trailing_number(url: &str) -> Option<u64> {
    let digits: String = url
        .trim_end_matches('/')
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.chars().rev().collect::<String>().parse().ok()
}

/// The cause reqwest wraps (refused, timed out, DNS): the deepest one
/// ("Connection refused"), and never the URL, which may carry credentials.
fn describe(error: reqwest::Error) -> String {
    if error.is_timeout() {
        return format!("timed out after {} s", TIMEOUT.as_secs());
    }
    let error = error.without_url();
    let mut message = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        message = cause.to_string();
        source = cause.source();
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(forge: Forge, host: &str, full: &str) -> Repository {
        Repository {
            forge,
            host: host.to_owned(),
            full_name: full.to_owned(),
        }
    }

    #[test]
    fn api_urls() {
        let client = ForgeClient::new(ForgeSettings::default()).expect("client");
        let url = |r: &Repository, s: &[&str]| client.repo_url(r, s).expect("url").to_string();
        assert_eq!(
            url(&repo(Forge::Github, "github.com", "acme/app"), &["issues"]),
            "https://api.github.com/repos/acme/app/issues"
        );
        assert_eq!(
            url(&repo(Forge::Github, "github.acme.corp", "acme/app"), &[]),
            "https://github.acme.corp/api/v3/repos/acme/app"
        );
        assert_eq!(
            url(
                &repo(Forge::Gitlab, "gitlab.com", "group/sub/app"),
                &["labels"]
            ),
            "https://gitlab.com/api/v4/projects/group%2Fsub%2Fapp/labels"
        );
        let local = ForgeClient::new(ForgeSettings {
            github_api: Some("http://127.0.0.1:9/api/".to_owned()),
            ..ForgeSettings::default()
        })
        .expect("client");
        assert_eq!(
            local
                .repo_url(&repo(Forge::Github, "github.com", "a/b"), &["issues"])
                .expect("url")
                .as_str(),
            "http://127.0.0.1:9/api/repos/a/b/issues"
        );
    }

    #[test]
    fn statuses() {
        let mut headers = HeaderMap::new();
        let refused = |status: StatusCode, headers: &HeaderMap| refusal(status, headers, b"");
        assert_eq!(refused(StatusCode::OK, &headers), None);
        assert_eq!(
            refused(StatusCode::UNAUTHORIZED, &headers),
            Some(ForgeError::Unauthorized(401))
        );
        assert_eq!(
            refused(StatusCode::FORBIDDEN, &headers),
            Some(ForgeError::Unauthorized(403))
        );
        assert_eq!(
            refused(StatusCode::TOO_MANY_REQUESTS, &headers),
            Some(ForgeError::RateLimited)
        );
        headers.insert(RETRY_AFTER, HeaderValue::from_static("60"));
        assert_eq!(
            refused(StatusCode::FORBIDDEN, &headers),
            Some(ForgeError::RateLimited),
            "GitHub's secondary rate limit"
        );
        headers.clear();
        headers.insert("x-ratelimit-remaining", HeaderValue::from_static("0"));
        assert_eq!(
            refused(StatusCode::FORBIDDEN, &headers),
            Some(ForgeError::RateLimited)
        );
        assert_eq!(
            refused(StatusCode::NOT_FOUND, &headers),
            Some(ForgeError::NotFound)
        );
        assert_eq!(
            refused(StatusCode::BAD_GATEWAY, &headers),
            Some(ForgeError::Status {
                code: 502,
                message: None
            })
        );
        let error = refusal(
            StatusCode::UNPROCESSABLE_ENTITY,
            &headers,
            br#"{"message":"Validation Failed\n  twice","errors":[]}"#,
        )
        .expect("an error");
        assert_eq!(error.to_string(), "HTTP 422: Validation Failed twice");
        let long = format!(r#"{{"error":"{}"}}"#, "x".repeat(500));
        let error = refusal(StatusCode::BAD_REQUEST, &headers, long.as_bytes()).expect("error");
        assert!(error.to_string().chars().count() <= "HTTP 400: ".len() + 201);
    }

    #[test]
    fn api_urls_are_checked_at_start() {
        for bad in ["api.github.com", "ftp://example.com/api", "mailto:a@b"] {
            let settings = ForgeSettings {
                github_api: Some(bad.to_owned()),
                ..ForgeSettings::default()
            };
            let error = ForgeClient::new(settings).expect_err(bad);
            assert!(error.contains("GitHub API URL"), "{error}");
        }
        let settings = ForgeSettings {
            gitlab_api: Some("https://git.acme.corp/api/v4".to_owned()),
            ..ForgeSettings::default()
        };
        assert!(ForgeClient::new(settings).is_ok());
        let settings = ForgeSettings {
            gitlab_token: Secret::new("glpat-a\nb"),
            ..ForgeSettings::default()
        };
        let error = ForgeClient::new(settings).expect_err("a line break");
        assert_eq!(
            error,
            "GITLAB_TOKEN holds characters an HTTP header cannot carry"
        );
        let client = ForgeClient::new(ForgeSettings {
            github_token: Secret::new("ghp_secret"),
            ..ForgeSettings::default()
        })
        .expect("client");
        assert!(!format!("{client:?}").contains("ghp_secret"));
    }

    #[tokio::test]
    async fn a_forge_the_outbound_policy_refuses_is_never_contacted() {
        // A GitLab base derived from an app's remote on a private address:
        // judged by the policy, refused before anything is sent.
        let client =
            ForgeClient::with_policy(ForgeSettings::default(), &OutboundPolicy::public_only())
                .expect("client");
        let gitlab = repo(Forge::Gitlab, "10.0.0.7", "group/app");
        let url = client.repo_url(&gitlab, &["issues"]).expect("url");
        let error = client
            .send(Forge::Gitlab, Method::GET, url, None)
            .await
            .expect_err("refused");
        assert!(
            matches!(&error, ForgeError::NotAllowed(reason) if reason.contains("10.0.0.0/8: private (RFC 1918)")),
            "{error}"
        );
        assert!(error.remedy(Forge::Gitlab).contains("--outbound-allow"));

        // The API URL the owner configured is allowed by that configuration.
        let configured = ForgeClient::with_policy(
            ForgeSettings {
                gitlab_api: Some("http://10.0.0.7/api/v4".to_owned()),
                ..ForgeSettings::default()
            },
            &OutboundPolicy::public_only(),
        )
        .expect("client");
        assert_eq!(configured.http.policy().check_host("10.0.0.7"), Ok(()));
        assert!(configured.http.policy().check_host("10.0.0.8").is_err());
    }

    #[test]
    fn tokens_never_show() {
        let settings = ForgeSettings {
            github_token: Secret::new("ghp_secret"),
            ..ForgeSettings::default()
        };
        assert!(!format!("{settings:?}").contains("ghp_secret"));
        assert_eq!(Secret::new("  "), None);
        assert_eq!(
            trailing_number("https://github.com/a/b/issues/42"),
            Some(42)
        );
        assert_eq!(trailing_number("https://x/y"), None);
    }
}
