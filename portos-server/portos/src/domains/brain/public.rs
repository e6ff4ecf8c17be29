//! `/api/public/brain/*`: the brain inbox as the API group `brain` that
//! Settings → API Access can expose to other devices. Each operation is also
//! an HTTP tool (tools.min.json) and runs the brain's own tool as the owner
//! (see `crate::shared::public_api`).

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use portos_core::inventory::RouteIo;
use portos_core::portos_route;
use portos_server::app::App;
use portos_server::http::{ApiError, Body, Created, Query, RouteErrors};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
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

/// Why a tool run as the owner gave no answer: `run_as_owner`'s refusal (a
/// failed result is a 422 with the tool's message), or an answer that is not
/// the tool's output type (the server's fault).
#[derive(Debug)]
enum OwnerCallError {
    Call(ApiError),
    Answer {
        tool: &'static str,
        error: serde_json::Error,
    },
}

impl From<ApiError> for OwnerCallError {
    fn from(error: ApiError) -> OwnerCallError {
        OwnerCallError::Call(error)
    }
}

impl From<OwnerCallError> for ApiError {
    fn from(error: OwnerCallError) -> ApiError {
        match error {
            OwnerCallError::Call(error) => error,
            OwnerCallError::Answer { tool, error } => {
                ApiError::internal(format!("{tool} answered an unexpected result: {error}"))
            }
        }
    }
}

/// Runs `tool` as the owner and reads its answer as `T`, its output type.
async fn run_typed<T: DeserializeOwned>(
    app: &App,
    tool: &'static str,
    arguments: Map<String, Value>,
) -> Result<T, OwnerCallError> {
    let answer = run_as_owner(app, tool, arguments).await?;
    serde_json::from_value(answer).map_err(|error| OwnerCallError::Answer { tool, error })
}

/// A capture that failed (an empty text) is a 422 with the tool's message.
#[derive(Debug)]
struct CaptureFailed(OwnerCallError);

impl From<OwnerCallError> for CaptureFailed {
    fn from(error: OwnerCallError) -> CaptureFailed {
        CaptureFailed(error)
    }
}

impl From<CaptureFailed> for ApiError {
    fn from(CaptureFailed(error): CaptureFailed) -> ApiError {
        ApiError::from(error)
    }
}

impl IntoResponse for CaptureFailed {
    fn into_response(self) -> Response {
        ApiError::from(self).into_response()
    }
}

impl RouteErrors for CaptureFailed {
    fn describe(io: &mut RouteIo) {
        io.error(422, "VALIDATION_ERROR");
    }
}

/// Reading the latest captures fails only by the server's fault (the store),
/// which is not a documented answer.
#[derive(Debug)]
struct RecentFault(OwnerCallError);

impl From<OwnerCallError> for RecentFault {
    fn from(error: OwnerCallError) -> RecentFault {
        RecentFault(error)
    }
}

impl From<RecentFault> for ApiError {
    fn from(RecentFault(error): RecentFault) -> ApiError {
        ApiError::from(error)
    }
}

impl IntoResponse for RecentFault {
    fn into_response(self) -> Response {
        ApiError::from(self).into_response()
    }
}

impl RouteErrors for RecentFault {
    fn describe(_: &mut RouteIo) {}
}

/// Capture a thought into the brain inbox from another device.
#[portos_route(
    method = "POST",
    path = "/api/public/brain/captures",
    summary = "Capture into the brain inbox",
    tool(name = "inbox.capture", privacy = "personal", side_effect = "write")
)]
async fn capture(
    State(app): State<App>,
    Body(PublicCapture { text }): Body<PublicCapture>,
) -> Result<Created<Captured>, CaptureFailed> {
    let mut arguments = Map::new();
    arguments.insert("text".to_owned(), Value::String(text));
    let captured = run_typed(&app, "brain.capture", arguments).await?;
    Ok(Created(captured))
}

/// The latest captures of the brain inbox.
#[portos_route(
    method = "GET",
    path = "/api/public/brain/captures",
    summary = "Latest brain captures",
    tool(name = "inbox.recent", privacy = "personal", side_effect = "read")
)]
async fn recent(
    State(app): State<App>,
    Query(RecentQuery { limit }): Query<RecentQuery>,
) -> Result<Json<RecentResult>, RecentFault> {
    let mut arguments = Map::new();
    if let Some(limit) = limit {
        arguments.insert("limit".to_owned(), Value::from(limit));
    }
    Ok(Json(run_typed(&app, "brain.recent", arguments).await?))
}
