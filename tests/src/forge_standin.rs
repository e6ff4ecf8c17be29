//! Local stand-ins for the GitHub and GitLab REST APIs, on 127.0.0.1, for
//! the forge-issue tests. Each speaks its forge's wire format for exactly
//! the endpoints PortOS uses — the repository (project), its open issues
//! page by page, label creation, issue creation — checks the token the way
//! its forge does, and records every request. Faults make an endpoint
//! answer as a forge does when it fails (401, rate limits, 5xx).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// Which forge a stand-in plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// GitHub Enterprise style: the API under `/api/v3`.
    Github,
    /// Self-hosted GitLab style: the API under `/api/v4`.
    Gitlab,
}

impl Kind {
    pub fn prefix(self) -> &'static str {
        match self {
            Kind::Github => "/api/v3",
            Kind::Gitlab => "/api/v4",
        }
    }
}

/// How an endpoint fails.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fault {
    #[default]
    None,
    /// 401, as for a wrong token.
    Unauthorized,
    /// GitHub's primary rate limit: 403 with `x-ratelimit-remaining: 0`.
    RateLimitForbidden,
    /// 429 Too Many Requests.
    TooManyRequests,
    /// 502 Bad Gateway (a transient failure).
    BadGateway,
    /// 422 with a validation message.
    Unprocessable,
    /// 500 Internal Server Error.
    ServerError,
    /// A 302 to the URL given to [`StandIn::redirect_to`].
    Redirect,
}

/// The fault of each endpoint.
#[derive(Clone, Copy, Debug, Default)]
pub struct Faults {
    pub probe: Fault,
    pub list: Fault,
    pub labels: Fault,
    pub create: Fault,
}

/// An issue (or, on GitHub, a pull request) the stand-in holds.
#[derive(Clone, Debug)]
pub struct Seeded {
    pub number: u64,
    pub title: String,
    pub body: String,
    pub labels: Vec<String>,
    pub assignees: Vec<String>,
    pub updated_at: String,
    pub pull_request: bool,
}

impl Seeded {
    pub fn issue(number: u64, title: &str) -> Seeded {
        Seeded {
            number,
            title: title.to_owned(),
            body: format!("Body of {title}"),
            labels: Vec::new(),
            assignees: Vec::new(),
            // Higher numbers were updated later.
            updated_at: format!(
                "2026-01-01T00:{:02}:{:02}Z",
                (number / 60) % 60,
                number % 60
            ),
            pull_request: false,
        }
    }

    pub fn pull_request(number: u64, title: &str) -> Seeded {
        Seeded {
            pull_request: true,
            ..Seeded::issue(number, title)
        }
    }
}

/// One request the stand-in received.
#[derive(Clone, Debug)]
pub struct Received {
    pub method: Method,
    /// The raw path, percent-encoding kept (`/api/v4/projects/a%2Fb`).
    pub path: String,
    pub query: String,
    pub body: Value,
    /// `Authorization` (GitHub) or `PRIVATE-TOKEN` (GitLab), as sent.
    pub credential: Option<String>,
}

impl Received {
    /// `"GET issues"`, `"POST labels"`, `"GET repo"`: what was asked, by
    /// the last path segment.
    pub fn what(&self) -> String {
        let last = self.path.rsplit('/').next().unwrap_or_default();
        let what = match last {
            "issues" | "labels" => last,
            _ => "repo",
        };
        format!("{} {what}", self.method)
    }

    pub fn query_value(&self, key: &str) -> Option<String> {
        self.query.split('&').find_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            (k == key).then(|| v.to_owned())
        })
    }
}

#[derive(Debug)]
struct Inner {
    issues: Vec<Seeded>,
    labels: Vec<String>,
    faults: Faults,
    redirect: String,
    received: Vec<Received>,
}

/// A running stand-in.
#[derive(Clone, Debug)]
pub struct StandIn {
    pub kind: Kind,
    /// The API base to configure (`http://127.0.0.1:<port>/api/v3`).
    pub api_url: String,
    /// The repository it serves: `owner/name` or `group/sub/name`.
    pub full_name: String,
    token: String,
    inner: Arc<Mutex<Inner>>,
}

impl StandIn {
    /// Starts a stand-in serving `full_name`, accepting `token` only.
    pub async fn start(kind: Kind, full_name: &str, token: &str) -> StandIn {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port");
        let address = listener.local_addr().expect("address");
        let stand_in = StandIn {
            kind,
            api_url: format!("http://{address}{}", kind.prefix()),
            full_name: full_name.to_owned(),
            token: token.to_owned(),
            inner: Arc::new(Mutex::new(Inner {
                issues: Vec::new(),
                labels: Vec::new(),
                faults: Faults::default(),
                redirect: String::new(),
                received: Vec::new(),
            })),
        };
        let app = Router::new().fallback(answer).with_state(stand_in.clone());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        stand_in
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn seed(&self, issues: impl IntoIterator<Item = Seeded>) {
        self.lock().issues.extend(issues);
    }

    /// Labels that exist already (creating them answers "already exists").
    pub fn existing_labels(&self, names: &[&str]) {
        self.lock()
            .labels
            .extend(names.iter().map(|name| (*name).to_owned()));
    }

    pub fn fail(&self, faults: Faults) {
        self.lock().faults = faults;
    }

    /// Where [`Fault::Redirect`] sends the client.
    pub fn redirect_to(&self, url: &str) {
        self.lock().redirect = url.to_owned();
    }

    pub fn received(&self) -> Vec<Received> {
        self.lock().received.clone()
    }

    /// `["GET repo", "GET issues", "POST labels", …]`.
    pub fn asked(&self) -> Vec<String> {
        self.received().iter().map(Received::what).collect()
    }

    /// The labels created, in order.
    pub fn labels(&self) -> Vec<String> {
        self.lock().labels.clone()
    }

    /// The issues it holds now (filed ones included).
    pub fn issues(&self) -> Vec<Seeded> {
        self.lock().issues.clone()
    }

    /// The web URL of issue `number`.
    pub fn web_url(&self, number: u64) -> String {
        match self.kind {
            Kind::Github => format!("https://github.com/{}/issues/{number}", self.full_name),
            Kind::Gitlab => format!("https://gitlab.com/{}/-/issues/{number}", self.full_name),
        }
    }

    fn authorized(&self, headers: &HeaderMap) -> bool {
        let sent = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        match self.kind {
            Kind::Github => {
                sent("authorization") == Some(format!("Bearer {}", self.token).as_str())
            }
            Kind::Gitlab => sent("private-token") == Some(self.token.as_str()),
        }
    }
}

/// A URL with no server behind it: a port bound, then released.
pub async fn closed_port_url(kind: Kind) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    drop(listener);
    format!("http://{address}{}", kind.prefix())
}

/// Which endpoint a request is for, if it is one of the stand-in's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Endpoint {
    Repo,
    Issues,
    Labels,
}

fn endpoint(stand_in: &StandIn, path: &str) -> Option<Endpoint> {
    let rest = path.strip_prefix(stand_in.kind.prefix())?;
    let segments: Vec<&str> = rest.trim_start_matches('/').split('/').collect();
    let (repo, tail) = match stand_in.kind {
        Kind::Github => match segments.as_slice() {
            ["repos", owner, name, tail @ ..] => (format!("{owner}/{name}"), tail),
            _ => return None,
        },
        // GitLab names a project by its full path, URL-encoded as one segment.
        Kind::Gitlab => match segments.as_slice() {
            ["projects", id, tail @ ..] => (percent_decode(id)?, tail),
            _ => return None,
        },
    };
    if repo != stand_in.full_name {
        return None;
    }
    match tail {
        [] => Some(Endpoint::Repo),
        ["issues"] => Some(Endpoint::Issues),
        ["labels"] => Some(Endpoint::Labels),
        _ => None,
    }
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

async fn answer(
    State(stand_in): State<StandIn>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let credential = match stand_in.kind {
        Kind::Github => headers.get("authorization"),
        Kind::Gitlab => headers.get("private-token"),
    }
    .and_then(|v| v.to_str().ok())
    .map(str::to_owned);
    let received = Received {
        method: method.clone(),
        path: uri.path().to_owned(),
        query: uri.query().unwrap_or_default().to_owned(),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        credential,
    };
    stand_in.lock().received.push(received.clone());

    let Some(endpoint) = endpoint(&stand_in, uri.path()) else {
        return not_found(stand_in.kind);
    };
    if !stand_in.authorized(&headers) {
        return fault(&stand_in, Fault::Unauthorized);
    }
    let faults = stand_in.lock().faults;
    let planned = match (endpoint, &method) {
        (Endpoint::Repo, &Method::GET) => faults.probe,
        (Endpoint::Issues, &Method::GET) => faults.list,
        (Endpoint::Issues, &Method::POST) => faults.create,
        (Endpoint::Labels, &Method::POST) => faults.labels,
        _ => return StatusCode::METHOD_NOT_ALLOWED.into_response(),
    };
    if planned != Fault::None {
        return fault(&stand_in, planned);
    }
    match (endpoint, method) {
        (Endpoint::Repo, _) => repo(&stand_in),
        (Endpoint::Issues, Method::GET) => list(&stand_in, &received),
        (Endpoint::Issues, _) => create(&stand_in, &received.body),
        (Endpoint::Labels, _) => label(&stand_in, &received.body),
    }
}

fn not_found(kind: Kind) -> Response {
    let message = match kind {
        Kind::Github => {
            json!({ "message": "Not Found", "documentation_url": "https://docs.github.com/rest", "status": "404" })
        }
        Kind::Gitlab => json!({ "message": "404 Project Not Found" }),
    };
    (StatusCode::NOT_FOUND, axum::Json(message)).into_response()
}

fn fault(stand_in: &StandIn, fault: Fault) -> Response {
    let kind = stand_in.kind;
    match fault {
        Fault::None => StatusCode::OK.into_response(),
        Fault::Unauthorized => {
            let message = match kind {
                Kind::Github => json!({ "message": "Bad credentials", "status": "401" }),
                Kind::Gitlab => json!({ "message": "401 Unauthorized" }),
            };
            (StatusCode::UNAUTHORIZED, axum::Json(message)).into_response()
        }
        Fault::RateLimitForbidden => {
            let mut response = (
                StatusCode::FORBIDDEN,
                axum::Json(json!({ "message": "API rate limit exceeded for user ID 1." })),
            )
                .into_response();
            let headers = response.headers_mut();
            headers.insert("x-ratelimit-limit", HeaderValue::from_static("5000"));
            headers.insert("x-ratelimit-remaining", HeaderValue::from_static("0"));
            headers.insert("x-ratelimit-reset", HeaderValue::from_static("1893456000"));
            response
        }
        Fault::TooManyRequests => {
            let mut response = (
                StatusCode::TOO_MANY_REQUESTS,
                axum::Json(json!({ "message": "Retry later" })),
            )
                .into_response();
            response
                .headers_mut()
                .insert("retry-after", HeaderValue::from_static("60"));
            response
        }
        Fault::BadGateway => (StatusCode::BAD_GATEWAY, "<html>502 Bad Gateway</html>").into_response(),
        Fault::Unprocessable => (
            StatusCode::UNPROCESSABLE_ENTITY,
            axum::Json(json!({ "message": "Validation Failed", "errors": [{ "resource": "Issue", "code": "invalid", "field": "title" }] })),
        )
            .into_response(),
        Fault::ServerError => (
            StatusCode::INTERNAL_SERVER_ERROR,
            axum::Json(json!({ "message": "500 Internal Server Error" })),
        )
            .into_response(),
        Fault::Redirect => {
            let to = stand_in.lock().redirect.clone();
            let mut response = StatusCode::FOUND.into_response();
            if let Ok(to) = HeaderValue::from_str(&to) {
                response.headers_mut().insert("location", to);
            }
            response
        }
    }
}

fn repo(stand_in: &StandIn) -> Response {
    let name = stand_in.full_name.rsplit('/').next().unwrap_or_default();
    let body = match stand_in.kind {
        Kind::Github => json!({
            "id": 1, "name": name, "full_name": stand_in.full_name, "private": true,
            "has_issues": true, "open_issues_count": stand_in.lock().issues.len(),
        }),
        Kind::Gitlab => json!({
            "id": 7, "name": name, "path_with_namespace": stand_in.full_name,
            "issues_enabled": true,
        }),
    };
    axum::Json(body).into_response()
}

fn list(stand_in: &StandIn, request: &Received) -> Response {
    let state = request.query_value("state").unwrap_or_default();
    let expected_state = match stand_in.kind {
        Kind::Github => "open",
        Kind::Gitlab => "opened",
    };
    if state != expected_state {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(
                json!({ "message": format!("this stand-in lists only state={expected_state}") }),
            ),
        )
            .into_response();
    }
    let per_page: usize = request
        .query_value("per_page")
        .and_then(|v| v.parse().ok())
        .unwrap_or(30)
        .clamp(1, 100);
    let page: usize = request
        .query_value("page")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1);
    let mut items: Vec<Seeded> = stand_in
        .issues()
        .into_iter()
        // GitLab's issues endpoint has no merge requests in it.
        .filter(|item| stand_in.kind == Kind::Github || !item.pull_request)
        .collect();
    items.sort_by(|a, b| {
        b.updated_at
            .cmp(&a.updated_at)
            .then(b.number.cmp(&a.number))
    });
    let total = items.len();
    let page_items: Vec<Value> = items
        .iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .map(|item| wire_issue(stand_in, item))
        .collect();
    let mut response = axum::Json(Value::Array(page_items)).into_response();
    if stand_in.kind == Kind::Gitlab {
        let headers = response.headers_mut();
        let pages = total.div_ceil(per_page).max(1);
        for (name, value) in [
            ("x-total", total.to_string()),
            ("x-total-pages", pages.to_string()),
            ("x-page", page.to_string()),
            ("x-per-page", per_page.to_string()),
        ] {
            if let Ok(value) = HeaderValue::from_str(&value) {
                headers.insert(name, value);
            }
        }
    }
    response
}

fn wire_issue(stand_in: &StandIn, item: &Seeded) -> Value {
    match stand_in.kind {
        Kind::Github => {
            let mut issue = json!({
                "id": 1000 + item.number,
                "number": item.number,
                "title": item.title,
                "body": item.body,
                "state": "open",
                "html_url": stand_in.web_url(item.number),
                "labels": item.labels.iter().map(|name| json!({ "id": 1, "name": name, "color": "ededed" })).collect::<Vec<_>>(),
                "assignees": item.assignees.iter().map(|login| json!({ "login": login, "id": 9 })).collect::<Vec<_>>(),
                "updated_at": item.updated_at,
                "user": { "login": "someone" },
            });
            if item.pull_request {
                issue["pull_request"] = json!({ "url": "https://api.github.com/pulls/1" });
                issue["html_url"] = json!(format!(
                    "https://github.com/{}/pull/{}",
                    stand_in.full_name, item.number
                ));
            }
            issue
        }
        Kind::Gitlab => json!({
            "id": 5000 + item.number,
            "iid": item.number,
            "project_id": 7,
            "title": item.title,
            "description": item.body,
            "state": "opened",
            "web_url": stand_in.web_url(item.number),
            "labels": item.labels,
            "assignees": item.assignees.iter().map(|name| json!({ "username": name, "id": 9 })).collect::<Vec<_>>(),
            "updated_at": item.updated_at,
        }),
    }
}

fn label(stand_in: &StandIn, body: &Value) -> Response {
    let name = body.get("name").and_then(Value::as_str).unwrap_or_default();
    let color = body
        .get("color")
        .and_then(Value::as_str)
        .unwrap_or_default();
    // GitHub wants six hex digits, GitLab `#` and six hex digits.
    let hex = match stand_in.kind {
        Kind::Github => Some(color),
        Kind::Gitlab => color.strip_prefix('#'),
    };
    let color_ok =
        hex.is_some_and(|hex| hex.len() == 6 && hex.chars().all(|c| c.is_ascii_hexdigit()));
    if name.is_empty() || !color_ok {
        return (
            StatusCode::UNPROCESSABLE_ENTITY,
            axum::Json(json!({ "message": "Validation Failed" })),
        )
            .into_response();
    }
    let mut inner = stand_in.lock();
    if inner
        .labels
        .iter()
        .any(|known| known.eq_ignore_ascii_case(name))
    {
        return match stand_in.kind {
            Kind::Github => (
                StatusCode::UNPROCESSABLE_ENTITY,
                axum::Json(json!({
                    "message": "Validation Failed",
                    "errors": [{ "resource": "Label", "code": "already_exists", "field": "name" }],
                })),
            )
                .into_response(),
            Kind::Gitlab => (
                StatusCode::CONFLICT,
                axum::Json(json!({ "message": "Label already exists" })),
            )
                .into_response(),
        };
    }
    inner.labels.push(name.to_owned());
    (
        StatusCode::CREATED,
        axum::Json(json!({ "id": inner.labels.len(), "name": name, "color": color })),
    )
        .into_response()
}

fn create(stand_in: &StandIn, body: &Value) -> Response {
    let text = |key: &str| body.get(key).and_then(Value::as_str).map(str::to_owned);
    let Some(title) = text("title").filter(|title| !title.trim().is_empty()) else {
        return fault(stand_in, Fault::Unprocessable);
    };
    let (description, labels) = match stand_in.kind {
        Kind::Github => (
            text("body").unwrap_or_default(),
            body.get("labels")
                .and_then(Value::as_array)
                .map(|labels| {
                    labels
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
        ),
        Kind::Gitlab => (
            text("description").unwrap_or_default(),
            text("labels")
                .map(|labels| labels.split(',').map(str::to_owned).collect())
                .unwrap_or_default(),
        ),
    };
    let mut inner = stand_in.lock();
    let number = inner.issues.iter().map(|i| i.number).max().unwrap_or(0) + 1;
    let issue = Seeded {
        number,
        title,
        body: description,
        labels,
        assignees: Vec::new(),
        updated_at: "2026-02-01T00:00:00Z".to_owned(),
        pull_request: false,
    };
    inner.issues.push(issue.clone());
    drop(inner);
    (
        StatusCode::CREATED,
        axum::Json(wire_issue(stand_in, &issue)),
    )
        .into_response()
}
