//! The one error body every PortOS refusal uses:
//! `{ error, code, timestamp, context? }`, with secret-looking context keys
//! removed (see [`crate::redact`]).

use std::borrow::Cow;

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use portos_core::ToolError;
use portos_core::contract::ValidationFailure;
use serde_json::{Map, Value, json};

#[derive(Clone, Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: Cow<'static, str>,
    pub message: String,
    /// Boxed: it is rare, and a small error keeps `Result`s small.
    pub context: Option<Box<Map<String, Value>>>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code: Cow::Borrowed(code),
            message: message.into(),
            context: None,
        }
    }

    pub fn not_found() -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "NOT_FOUND", "Route not found")
    }

    pub fn method_not_allowed() -> ApiError {
        ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "METHOD_NOT_ALLOWED",
            "Method not allowed on this route",
        )
    }

    /// A fault of the server, not of the request: logged where it happens,
    /// since request tracing is off unless asked for.
    pub fn internal(message: impl Into<String>) -> ApiError {
        let message = message.into();
        tracing::error!(%message, "internal error");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL_ERROR", message)
    }

    /// Malformed JSON: the generic validation error, with where it broke.
    pub fn malformed_json(error: &serde_json::Error) -> ApiError {
        ApiError::from(ValidationFailure {
            details: vec![portos_core::contract::FieldIssue {
                path: String::new(),
                message: format!("Malformed JSON: {error}"),
            }],
        })
    }
}

impl From<ToolError> for ApiError {
    fn from(error: ToolError) -> ApiError {
        ApiError {
            status: StatusCode::from_u16(error.status()).unwrap_or(StatusCode::BAD_REQUEST),
            code: Cow::Borrowed(error.code.as_str()),
            message: error.message,
            context: error.context.map(Box::new),
        }
    }
}

/// A store fault is the server's, not the request's: 500, logged; a
/// database that cannot be reached (the shared store's server gone) is
/// 503: the caller may try again. Text PostgreSQL cannot hold (NUL) is the
/// request's: 400, like any other refused field.
impl From<crate::store::StoreError> for ApiError {
    fn from(error: crate::store::StoreError) -> ApiError {
        if matches!(error, crate::store::StoreError::NulInText) {
            return ApiError::from(ValidationFailure {
                details: vec![portos_core::contract::FieldIssue {
                    path: String::new(),
                    message: error.to_string(),
                }],
            });
        }
        if error.is_unavailable() {
            tracing::warn!(%error, "the database is unavailable");
            return ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "SERVICE_UNAVAILABLE",
                crate::store::StoreError::UNAVAILABLE_MESSAGE,
            );
        }
        ApiError::internal(error.to_string())
    }
}

impl From<ValidationFailure> for ApiError {
    fn from(failure: ValidationFailure) -> ApiError {
        ApiError::from(ToolError::from(failure))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({
            "error": self.message,
            "code": self.code,
            "timestamp": jiff::Timestamp::now().as_millisecond(),
        });
        if let Some(context) = self
            .context
            .map(|context| crate::redact::drop_secret_keys(*context))
            .filter(|c| !c.is_empty())
            && let Some(object) = body.as_object_mut()
        {
            object.insert("context".to_owned(), Value::Object(context));
        }
        (self.status, Json(body)).into_response()
    }
}
