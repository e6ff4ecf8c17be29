//! The API groups Settings → API Access can expose to other devices (see
//! `portos_server::api_access`) run the registry's own tools as the owner:
//! the owner vouched for the caller by exposing the group, so the same
//! checks, limits and records apply as for any other caller.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use portos_core::inventory::RouteIo;
use portos_core::{ToolCall, ToolError};
use portos_server::LiveRegistry;
use portos_server::http::{ApiError, RouteErrors};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::rest::{RegistryUnavailable, served_registry};

/// Why a tool run as the owner gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum OwnerCallError {
    /// The registry refused the call (answered with its code and context).
    #[error(transparent)]
    Refused(#[from] ToolError),
    /// The tool ran and failed on what the caller sent: 400
    /// `VALIDATION_ERROR` with its message (one status for validation
    /// failures across the API).
    #[error("{0}")]
    Failed(String),
    /// The tool's result is not its declared output (the server's fault).
    #[error("{tool} answered an unexpected result: {error}")]
    Answer {
        tool: &'static str,
        error: serde_json::Error,
    },
    /// No registry to run it in (the server's fault).
    #[error(transparent)]
    Unavailable(#[from] RegistryUnavailable),
}

impl From<OwnerCallError> for ApiError {
    fn from(error: OwnerCallError) -> ApiError {
        match error {
            OwnerCallError::Refused(error) => ApiError::from(error),
            OwnerCallError::Failed(message) => {
                ApiError::new(StatusCode::BAD_REQUEST, "VALIDATION_ERROR", message)
            }
            answer @ OwnerCallError::Answer { .. } => ApiError::internal(answer.to_string()),
            OwnerCallError::Unavailable(error) => ApiError::from(error),
        }
    }
}

impl IntoResponse for OwnerCallError {
    fn into_response(self) -> Response {
        ApiError::from(self).into_response()
    }
}

/// For a read whose tool cannot be refused nor fail on the caller's input
/// (the owner may call it; only a server fault stops it): nothing to
/// document.
impl RouteErrors for OwnerCallError {
    fn describe(_: &mut RouteIo) {}
}

/// For a write whose tool fails on what the caller sent: its 400.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct OwnerWriteError(#[from] pub OwnerCallError);

impl From<OwnerWriteError> for ApiError {
    fn from(OwnerWriteError(error): OwnerWriteError) -> ApiError {
        ApiError::from(error)
    }
}

impl IntoResponse for OwnerWriteError {
    fn into_response(self) -> Response {
        ApiError::from(self).into_response()
    }
}

impl RouteErrors for OwnerWriteError {
    fn describe(io: &mut RouteIo) {
        io.error(400, "VALIDATION_ERROR");
    }
}

/// Runs the registry tool `name` as the owner and reads its result as `T`;
/// a failed result is a 400 whose message is the tool's own.
pub async fn run_as_owner<T: DeserializeOwned>(
    live_registry: &LiveRegistry,
    tool: &'static str,
    arguments: Map<String, Value>,
) -> Result<T, OwnerCallError> {
    let call = ToolCall {
        request_id: format!("public-api:{}", uuid::Uuid::new_v4()),
        name: tool.to_owned(),
        version: 1,
        arguments,
    };
    let result = served_registry(live_registry)?
        .call(&portos_words::principal::ui(true), call)
        .await?;
    if !result.is_completed() {
        return Err(OwnerCallError::Failed(
            result.error.unwrap_or_else(|| format!("{tool} failed")),
        ));
    }
    match result.result.as_deref() {
        Some(output) => output.parse(),
        None => serde_json::from_value(Value::Object(Map::new())),
    }
    .map_err(|error| OwnerCallError::Answer { tool, error })
}
