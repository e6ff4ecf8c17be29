//! The API groups Settings → API Access can expose to other devices (see
//! `portos_server::api_access`) run the registry's own tools as the owner:
//! the owner vouched for the caller by exposing the group, so the same
//! checks, limits and records apply as for any other caller.

use axum::http::StatusCode;
use portos_core::{Authority, ToolCall};
use portos_server::app::App;
use portos_server::http::ApiError;
use serde_json::{Map, Value};

/// Runs the registry tool `name` as the owner; a failed result is a 422
/// whose message is the tool's own.
pub async fn run_as_owner(
    app: &App,
    name: &str,
    arguments: Map<String, Value>,
) -> Result<Value, ApiError> {
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
