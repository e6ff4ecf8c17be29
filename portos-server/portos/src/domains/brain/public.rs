//! `/api/public/brain/*`: the brain inbox as the API group `brain` that
//! Settings → API Access can expose to other devices. Each operation is also
//! an HTTP tool (tools.min.json) and runs the brain's own tool as the owner
//! (see `crate::shared::public_api`).

use axum::Json;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use portos_core::portos_route;
use portos_server::app::App;
use portos_server::http::ApiError;
use portos_server::http::body::JsonBody;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::tools::{Captured, RecentResult};
use crate::shared::public_api::run_as_owner;

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
    let result = run_as_owner(&app, "brain.capture", arguments).await?;
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
    Ok(Json(run_as_owner(&app, "brain.recent", arguments).await?))
}
