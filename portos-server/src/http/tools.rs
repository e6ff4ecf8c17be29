//! The governed registry over HTTP (docs/reference.md#endpoints;
//! docs/reference.md#idempotency-key, docs/reference.md#http-authority,
//! docs/reference.md#etag).

use std::sync::Arc;

use crate::portos_route;
use axum::extract::{FromRequest, FromRequestParts, Path, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use portos_core::catalog::Catalog;
use portos_core::contract::{BodyRefusal, FieldIssue, ValidationFailure};
use portos_core::inventory::{OutcomeSpec, RouteIo};
use portos_core::{
    Authority, CallAnswer, CatalogQuery, ErrorCode, ToolCall, ToolError, ToolResult,
};
use serde_json::Value;

use super::body::{JsonBody, json_bytes};
use super::io::schema_of;
use super::remote_gate::RemoteClient;
use super::{ApiError, RouteErrors, RouteInput, RouteOutput};
use crate::app::App;
use crate::auth::AuthContext;
use crate::jobs::{Job, JobError};
use crate::remote::RemoteCaller;

/// The tool catalog by scope, intent and format, with a strong ETag; an
/// exactly matching `If-None-Match` answers 304.
#[portos_route(method = "GET", mount = "tools", path = "", summary = "Tool catalog")]
async fn catalog(
    State(app): State<App>,
    RemoteClient(caller): RemoteClient,
    request: CatalogRequest,
) -> Result<CatalogAnswer, CatalogFault> {
    let mut grants = app.grants.current().for_catalog(request.query.scope);
    // A remote caller's `granted` is what its principal is granted and its
    // token allows.
    if let Some(caller) = &caller {
        grants = grants.intersect(caller.capabilities);
    }
    let catalog = app.catalogs.catalog(&request.query, grants);
    // A matching `If-None-Match` is the ETag, byte for byte: answered with
    // the request's own header value (no copy, no validation of the text).
    let not_modified = request
        .if_none_match
        .as_ref()
        .is_some_and(|given| given.as_bytes() == catalog.etag.as_bytes());
    let query = &request.query;
    app.metrics
        .catalog
        .count(query.scope, query.format, not_modified);
    if not_modified && let Some(given) = request.if_none_match {
        return Ok(CatalogAnswer {
            etag: given,
            body: None,
        });
    }
    Ok(CatalogAnswer {
        etag: HeaderValue::from_str(&catalog.etag)?,
        body: Some(catalog),
    })
}

/// Calls a tool with a strict `portos_tool_call`. The server derives the
/// authority (`{principal.http}`, authenticated by the session); 200 when completed, 422
/// when failed, with the result envelope either way. A long-running tool
/// answers 202 with its durable job instead (follow it at
/// `{mount.path}/jobs/{jobId}`; the same `requestId` answers the same job).
#[portos_route(
    method = "POST",
    mount = "tools",
    path = "/call",
    summary = "Call a tool"
)]
async fn call(
    State(app): State<App>,
    Extension(auth): Extension<AuthContext>,
    RemoteClient(caller): RemoteClient,
    CallRequest(call): CallRequest,
) -> Result<ToolAnswer, CallRefusal> {
    // The caller speaks for the HTTP principal; only the gate can vouch for
    // whether it is signed in. On a
    // passwordless install nobody is authenticated, so only reads pass.
    let mut authority = Authority::of(app.principals.http).signed_in(auth.authenticated);
    // A remote caller's token narrows what it may call.
    if let Some(caller) = &caller {
        authority = authority
            .limited_to(caller.capabilities)
            .on_behalf_of(caller.subject.clone());
        tracing::info!(
            subject = %caller.subject,
            client_id = caller.client_id.as_deref().unwrap_or(""),
            tool = call.name,
            request_id = call.request_id,
            transport = "http",
            "remote tool call"
        );
    }
    // Kept only for a remote caller, whose capability refusal names scopes.
    let remote_call = caller.map(|caller| (caller, call.name.clone()));
    let refused = |error: ToolError| CallRefusal {
        challenge: remote_call
            .as_ref()
            .filter(|_| error.code == ErrorCode::ToolCapabilityDenied)
            .and_then(|(caller, name)| scope_challenge(&app, caller, name)),
        error,
    };
    if app.jobs.is_job(&call.name) {
        return match app.jobs.submit(authority, call).await {
            Ok(job) => Ok(ToolAnswer::Job(Box::new(job), app.mounts.tools().path)),
            Err(JobError::Refused(error)) => Err(refused(error)),
            Err(JobError::Store(error)) => Ok(ToolAnswer::Fault(ApiError::from(error))),
        };
    }
    match app.registry.answer(&authority, call, None).await {
        Ok(answer) => Ok(ToolAnswer::Result(answer)),
        Err(error) => Err(refused(error)),
    }
}

/// The `insufficient_scope` challenge for a remote caller refused a tool
/// its token lacks the scopes of (RFC 6750 §3.1), beside the contract's 403.
fn scope_challenge(app: &App, caller: &RemoteCaller, name: &str) -> Option<HeaderValue> {
    let remote = app.remote.as_ref()?;
    let tool = app.registry.resolve(name)?;
    let refusal = remote.insufficient(caller, &tool.policy.required_capabilities)?;
    HeaderValue::from_str(&remote.challenge(&refusal)).ok()
}

// Which results are kept: docs/reference.md#idempotency.
/// The retained result of a recent call (process-local, the last 500): 200
/// with its envelope, failed or not.
#[portos_route(
    method = "GET",
    mount = "tools",
    path = "/calls/{requestId}",
    summary = "Retained call result"
)]
async fn retained(
    State(app): State<App>,
    Path(RequestIdText(request_id)): Path<RequestIdText>,
) -> Result<Json<ToolResult>, RetainedRefusal> {
    let request_id = portos_core::contract::check_request_id(&Value::String(request_id)).map_err(
        |issue: FieldIssue| ValidationFailure {
            details: vec![issue],
        },
    )?;
    let result = app.registry.retained(&request_id).await?;
    Ok(Json(result))
}

// The `{requestId}` of a retained result, documented with the envelope's
// rule (docs/reference.md#call-envelope) that `check_request_id` applies.
/// The call's `requestId`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
struct RequestIdText(
    /// 1–200 of letters, digits, `.`, `_`, `:` and `-`.
    #[schemars(
        length(min = 1, max = portos_core::contract::REQUEST_ID_MAX_CHARS),
        regex(pattern = r"^[A-Za-z0-9._:-]+$")
    )]
    String,
);

/// The catalog query (strict: unknown or repeated keys and values outside
/// the vocabulary are a 400 naming each) and the one header the route
/// reads. Read in place: the `HeaderMap` and `RawQuery` extractors would
/// copy the headers and the query on every read, and this route is polled
/// (a 304 is its common answer).
struct CatalogRequest {
    query: CatalogQuery,
    if_none_match: Option<HeaderValue>,
}

impl<S: Send + Sync> FromRequestParts<S> for CatalogRequest {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<CatalogRequest, ApiError> {
        let pairs: Vec<_> =
            form_urlencoded::parse(parts.uri.query().unwrap_or("").as_bytes()).collect();
        let query = CatalogQuery::parse(pairs.iter().map(|(k, v)| (k.as_ref(), v.as_ref())))?;
        Ok(CatalogRequest {
            query,
            if_none_match: parts.headers.get(header::IF_NONE_MATCH).cloned(),
        })
    }
}

impl RouteInput for CatalogRequest {
    fn describe(io: &mut RouteIo) {
        io.query = Some(schema_of::<CatalogQuery>());
        io.error(400, "VALIDATION_ERROR");
    }
}

/// The catalog's memoized body (shared, not copied) with its ETag, or 304
/// when the caller's `If-None-Match` is that ETag.
struct CatalogAnswer {
    etag: HeaderValue,
    /// `None` when unchanged.
    body: Option<Arc<Catalog>>,
}

impl IntoResponse for CatalogAnswer {
    fn into_response(self) -> Response {
        let cache = HeaderValue::from_static("private, no-cache");
        match self.body {
            None => (
                StatusCode::NOT_MODIFIED,
                [(header::ETAG, self.etag), (header::CACHE_CONTROL, cache)],
            )
                .into_response(),
            Some(catalog) => (
                [
                    (header::ETAG, self.etag),
                    (header::CACHE_CONTROL, cache),
                    (
                        header::CONTENT_TYPE,
                        HeaderValue::from_static("application/json"),
                    ),
                ],
                axum::body::Bytes::from_owner(catalog.shared_bytes()),
            )
                .into_response(),
        }
    }
}

impl RouteOutput for CatalogAnswer {
    fn describe(io: &mut RouteIo) {
        io.response = Some(schema_of::<Catalog>());
    }
}

/// A strict `portos_tool_call` body. An `Idempotency-Key` header, when
/// given, must equal its `requestId` (400 `TOOL_IDEMPOTENCY_MISMATCH`).
struct CallRequest(ToolCall);

impl<S: Send + Sync> FromRequest<S> for CallRequest {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<CallRequest, ApiError> {
        // The one header this route reads, taken before the body consumes
        // the request (the `HeaderMap` extractor would copy them all).
        let idempotency_key = request.headers().get("idempotency-key").cloned();
        // The envelope is read from the body's bytes (`ToolCall::parse_slice`),
        // not from a `JsonBody` tree: the same refusals, in the same order.
        let bytes = json_bytes(request, state).await?;
        let call = ToolCall::parse_slice(&bytes).map_err(|refusal| match refusal {
            BodyRefusal::Malformed(error) => ApiError::malformed_json(&error),
            BodyRefusal::Invalid(failure) => ApiError::from(failure),
        })?;
        if let Some(key) = idempotency_key
            && key.as_bytes() != call.request_id.as_bytes()
        {
            return Err(ToolError::new(
                ErrorCode::ToolIdempotencyMismatch,
                "Idempotency-Key must match requestId",
            )
            .into());
        }
        Ok(CallRequest(call))
    }
}

impl RouteInput for CallRequest {
    fn describe(io: &mut RouteIo) {
        io.request = Some(schema_of::<ToolCall>());
        JsonBody::describe(io);
        describe_code(io, ErrorCode::ToolIdempotencyMismatch);
    }
}

/// A tool's result envelope (200 when completed, 422 when failed), or a
/// long-running tool's job (202).
enum ToolAnswer {
    Result(CallAnswer),
    /// The job, and where the tool endpoints are (its `Location` is there).
    Job(Box<Job>, &'static str),
    /// The job could not be recorded: the server's fault (500).
    Fault(ApiError),
}

impl IntoResponse for ToolAnswer {
    fn into_response(self) -> Response {
        let answer = match self {
            ToolAnswer::Result(answer) => answer,
            ToolAnswer::Job(job, tools) => {
                let location = HeaderValue::from_str(&format!("{tools}/jobs/{}", job.job_id));
                let mut response = (StatusCode::ACCEPTED, Json(job)).into_response();
                if let Ok(location) = location {
                    response.headers_mut().insert(header::LOCATION, location);
                }
                return response;
            }
            ToolAnswer::Fault(error) => return error.into_response(),
        };
        let status = if answer.is_completed() {
            StatusCode::OK
        } else {
            StatusCode::UNPROCESSABLE_ENTITY
        };
        // Written into one buffer of about its size (`Json` starts at 128
        // bytes and grows, copying, two or three times for a typical result).
        let mut body = Vec::with_capacity(RESULT_BUFFER_BYTES);
        match serde_json::to_writer(&mut body, &answer) {
            Ok(()) => (
                status,
                [(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                )],
                body,
            )
                .into_response(),
            Err(error) => {
                ApiError::internal(format!("the result did not serialize: {error}")).into_response()
            }
        }
    }
}

/// The first allocation for a result's JSON: a `time.now` result is about
/// 350 bytes.
const RESULT_BUFFER_BYTES: usize = 512;

impl RouteOutput for ToolAnswer {
    fn describe(io: &mut RouteIo) {
        io.response = Some(schema_of::<ToolResult>());
        io.outcomes.push(OutcomeSpec {
            status: 422,
            description: "The tool ran and failed: the result envelope, `state: failed`",
            schema: Some(schema_of::<ToolResult>()),
        });
        io.outcomes.push(OutcomeSpec {
            status: 202,
            description: "A long-running tool: its durable job (`Location` names it)",
            schema: Some(schema_of::<Job>()),
        });
    }
}

/// What the registry refuses a call with, before any adapter runs.
struct CallRefusal {
    error: ToolError,
    /// Remote mode: the `WWW-Authenticate` of a capability refusal.
    challenge: Option<HeaderValue>,
}

/// The codes an HTTP call can be refused with (docs/reference.md#call-pipeline
/// check order). Not `TOOL_CAPABILITY_DENIED`: the HTTP principal holds no
/// grants and is never checked for them; its writes need authentication
/// instead.
const CALL_REFUSALS: [ErrorCode; 7] = [
    ErrorCode::ToolValidationError,
    ErrorCode::ToolScopeDenied,
    ErrorCode::ToolAuthRequired,
    ErrorCode::ToolNotFound,
    ErrorCode::ToolUnavailable,
    ErrorCode::ToolIdempotencyConflict,
    ErrorCode::ToolIdempotencyExpired,
];

impl From<CallRefusal> for ApiError {
    fn from(refusal: CallRefusal) -> ApiError {
        ApiError::from(refusal.error)
    }
}

impl IntoResponse for CallRefusal {
    fn into_response(self) -> Response {
        let mut response = ApiError::from(self.error).into_response();
        if let Some(challenge) = self.challenge {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, challenge);
        }
        response
    }
}

impl RouteErrors for CallRefusal {
    fn describe(io: &mut RouteIo) {
        for code in CALL_REFUSALS {
            describe_code(io, code);
        }
    }
}

fn describe_code(io: &mut RouteIo, code: ErrorCode) {
    io.error(code.status(), code.as_str());
}

/// The catalog's only failure is the server's own.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum CatalogFault {
    #[error("the catalog's ETag is not a header value: {0}")]
    #[route_error(internal)]
    Etag(#[from] axum::http::header::InvalidHeaderValue),
}

/// Why a retained result was not found.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum RetainedRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] ValidationFailure),
    /// The registry's own message ("Tool call not found").
    #[error("{}", .0.message)]
    #[route_error(status = 404, code = "TOOL_CALL_NOT_FOUND")]
    NotRetained(ToolError),
}

impl From<ToolError> for RetainedRefusal {
    fn from(error: ToolError) -> RetainedRefusal {
        RetainedRefusal::NotRetained(error)
    }
}
