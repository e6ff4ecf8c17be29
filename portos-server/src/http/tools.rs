//! The governed registry over HTTP (contract "Endpoint map"; BEHAVIOUR §1.7,
//! §1.8, §2.2).

use axum::Extension;
use axum::extract::FromRequest;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use portos_core::contract::{FieldIssue, wire};
use portos_core::portos_route;
use portos_core::{Authority, CatalogQuery, ErrorCode, ToolCall, ToolError, ToolResult};
use serde_json::Value;

use super::ApiError;
use super::body::JsonBody;
use crate::app::App;
use crate::auth::AuthContext;

/// The tool catalog by scope, intent and format, with a strong ETag; an
/// exactly matching `If-None-Match` answers 304.
#[portos_route(
    method = "GET",
    path = "/api/cos/tools",
    summary = "Tool catalog",
    query = wire::CatalogQueryParams,
    response = wire::CatalogBody,
    errors = [(400, "VALIDATION_ERROR")],
)]
async fn catalog(State(app): State<App>, request: Request) -> Result<Response, ApiError> {
    // The request is read in place: the `HeaderMap` and `RawQuery`
    // extractors would copy the headers and the query on every read, and
    // this route is polled (a 304 is its common answer).
    let pairs: Vec<_> =
        form_urlencoded::parse(request.uri().query().unwrap_or("").as_bytes()).collect();
    let query = CatalogQuery::parse(pairs.iter().map(|(k, v)| (k.as_ref(), v.as_ref())))?;
    let headers = request.headers();
    let grants = app.grants.current().for_catalog(query.scope);
    let catalog = app.catalogs.catalog(&query, grants);
    let etag = HeaderValue::from_str(&catalog.etag)
        .map_err(|error| ApiError::internal(error.to_string()))?;

    let cache = HeaderValue::from_static("private, no-cache");
    let matches = headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|value| value == etag);
    if matches {
        return Ok((
            StatusCode::NOT_MODIFIED,
            [(header::ETAG, etag), (header::CACHE_CONTROL, cache)],
        )
            .into_response());
    }
    Ok((
        [
            (header::ETAG, etag),
            (header::CACHE_CONTROL, cache),
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
        ],
        // The memoized body, shared rather than copied.
        axum::body::Bytes::from_owner(catalog.shared_bytes()),
    )
        .into_response())
}

/// Calls a tool with a strict `portos_tool_call`. The server derives the
/// authority (`ui`, authenticated by the session); 200 when completed, 422
/// when failed, with the result envelope either way.
#[portos_route(
    method = "POST",
    path = "/api/cos/tools/call",
    summary = "Call a tool",
    request = wire::ToolCallBody,
    response = wire::ToolResultBody,
    errors = [
        (400, "VALIDATION_ERROR"),
        (400, "TOOL_VALIDATION_ERROR"),
        (400, "TOOL_IDEMPOTENCY_MISMATCH"),
        (403, "TOOL_SCOPE_DENIED"),
        (403, "TOOL_AUTH_REQUIRED"),
        (404, "TOOL_NOT_FOUND"),
        (409, "TOOL_UNAVAILABLE"),
        (409, "TOOL_IDEMPOTENCY_CONFLICT"),
        (409, "TOOL_IDEMPOTENCY_EXPIRED"),
        (413, "PAYLOAD_TOO_LARGE"),
        (415, "UNSUPPORTED_MEDIA_TYPE"),
    ],
)]
async fn call(
    State(app): State<App>,
    Extension(auth): Extension<AuthContext>,
    request: Request,
) -> Result<Response, ApiError> {
    // The one header this route reads, taken before the body consumes the
    // request (the `HeaderMap` extractor would copy them all).
    let idempotency_key = request.headers().get("idempotency-key").cloned();
    let JsonBody(body) = JsonBody::from_request(request, &()).await?;
    let call = ToolCall::parse(&body)?;
    if let Some(key) = idempotency_key
        && key.as_bytes() != call.request_id.as_bytes()
    {
        return Err(ToolError::new(
            ErrorCode::ToolIdempotencyMismatch,
            "Idempotency-Key must match requestId",
        )
        .into());
    }
    // The HTTP principal is always `ui`; only the gate can vouch for it. On a
    // passwordless install nobody is authenticated, so only reads pass.
    let authority = Authority::ui(auth.authenticated);
    let result = app.registry.call(&authority, call).await?;
    Ok(result_response(&result))
}

/// The retained result of a recent call (process-local, the last 500).
#[portos_route(
    method = "GET",
    path = "/api/cos/tools/calls/{requestId}",
    summary = "Retained call result",
    response = wire::ToolResultBody,
    errors = [(400, "VALIDATION_ERROR"), (404, "TOOL_CALL_NOT_FOUND")],
)]
async fn retained(
    State(app): State<App>,
    Path(request_id): Path<String>,
) -> Result<Response, ApiError> {
    let request_id = portos_core::contract::check_request_id(&Value::String(request_id)).map_err(
        |issue: FieldIssue| {
            ApiError::from(portos_core::contract::ValidationFailure {
                details: vec![issue],
            })
        },
    )?;
    let result = app.registry.retained(&request_id).await?;
    Ok(result_response(&result))
}

/// 200 when completed, 422 when failed; the envelope either way.
fn result_response(result: &ToolResult) -> Response {
    let status = if result.is_completed() {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    (status, axum::Json(result)).into_response()
}
