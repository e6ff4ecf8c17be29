//! `/api/public/*`: the API groups Settings → API Access can expose to other
//! devices (see `crate::api_access`). Each operation is also an HTTP tool
//! (tools.min.json). They run the registry's own tools as the owner — the
//! owner vouched for the caller by exposing the group — so the same checks,
//! limits and records apply as for any other caller.

use axum::Json;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use portos_core::{Authority, ToolCall, portos_route};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::ApiError;
use super::body::JsonBody;
use crate::adapters::brain::{Captured, RecentResult};
use crate::adapters::time::TimeNow;
use crate::app::App;

/// What to capture.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PublicCapture {
    /// The thought, as said (trimmed; must not be empty).
    pub text: String,
}

/// How many captures to list.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecentQuery {
    /// 1 to 10 (default 5).
    pub limit: Option<i64>,
}

/// Capture a thought into the brain inbox from another device.
#[portos_route(
    method = "POST",
    path = "/api/public/brain/captures",
    summary = "Capture into the brain inbox",
    request = PublicCapture,
    response = Captured,
    status = 201,
    errors = [
        (400, "VALIDATION_ERROR"),
        (401, "AUTH_REQUIRED"),
        (403, "FORBIDDEN"),
        (415, "UNSUPPORTED_MEDIA_TYPE"),
        (422, "VALIDATION_ERROR"),
    ],
    tool(name = "inbox.capture", privacy = "personal", side_effect = "write"),
)]
async fn capture(
    State(app): State<App>,
    body: JsonBody,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let PublicCapture { text } = body.into_typed()?;
    let mut arguments = Map::new();
    arguments.insert("text".to_owned(), Value::String(text));
    let result = run(&app, "brain.capture", arguments).await?;
    Ok((StatusCode::CREATED, Json(result)))
}

/// The latest captures of the brain inbox.
#[portos_route(
    method = "GET",
    path = "/api/public/brain/captures",
    summary = "Latest brain captures",
    query = RecentQuery,
    response = RecentResult,
    errors = [(400, "VALIDATION_ERROR"), (401, "AUTH_REQUIRED"), (403, "FORBIDDEN")],
    tool(name = "inbox.recent", privacy = "personal", side_effect = "read"),
)]
async fn recent(
    State(app): State<App>,
    query: Result<Query<RecentQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(RecentQuery { limit }) = query.map_err(|rejection| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "VALIDATION_ERROR",
            rejection.body_text(),
        )
    })?;
    let mut arguments = Map::new();
    if let Some(limit) = limit {
        arguments.insert("limit".to_owned(), Value::from(limit));
    }
    Ok(Json(run(&app, "brain.recent", arguments).await?))
}

/// The time and date in the user's timezone.
#[portos_route(
    method = "GET",
    path = "/api/public/clock/now",
    summary = "Current time",
    response = TimeNow,
    errors = [(401, "AUTH_REQUIRED"), (403, "FORBIDDEN")],
    tool(name = "clock.now", privacy = "internal", side_effect = "read"),
)]
async fn clock(State(app): State<App>) -> Result<Json<Value>, ApiError> {
    Ok(Json(run(&app, "time.now", Map::new()).await?))
}

/// Runs a registry tool as the owner; a failed result is a 422 whose
/// message is the tool's own.
async fn run(app: &App, name: &str, arguments: Map<String, Value>) -> Result<Value, ApiError> {
    let call = ToolCall {
        request_id: format!("public-api:{}", uuid::Uuid::new_v4()),
        name: name.to_owned(),
        version: 1,
        arguments,
    };
    let result = app.registry.call(&Authority::ui(true), call).await?;
    if result.is_completed() {
        Ok(result
            .result
            .as_deref()
            .cloned()
            .unwrap_or(Value::Object(Map::new())))
    } else {
        Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "VALIDATION_ERROR",
            result.error.unwrap_or_else(|| format!("{name} failed")),
        ))
    }
}
