use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

/// Every refusal code of the contract (docs/reference.md#call-pipeline) with
/// its HTTP status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    ToolNotFound,
    ToolUnavailable,
    ToolScopeDenied,
    ToolCapabilityDenied,
    ToolAuthRequired,
    ToolValidationError,
    ToolIdempotencyConflict,
    ToolIdempotencyExpired,
    ToolCallNotFound,
    ToolIdempotencyMismatch,
    // Durable jobs of long-running tools.
    ToolJobNotFound,
    ToolJobFinished,
    ToolJobNotAwaitingInput,
    ValidationError,
    AuthRequired,
    CrossOriginBlocked,
    // Saved read recipes (docs/reference.md#recipe-storage): the library's own
    // refusals.
    RecipeNotFound,
    RecipeRevisionConflict,
    RecipeNameConflict,
    RecipeVersionUnsupported,
    RecipeValidationError,
    RecipeArchived,
    /// The shared store (PostgreSQL) could not be reached, or another
    /// server still runs the call with this requestId: nothing ran here,
    /// and the same requestId may be sent again.
    ServiceUnavailable,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 23] = [
        ErrorCode::ToolNotFound,
        ErrorCode::ToolUnavailable,
        ErrorCode::ToolScopeDenied,
        ErrorCode::ToolCapabilityDenied,
        ErrorCode::ToolAuthRequired,
        ErrorCode::ToolValidationError,
        ErrorCode::ToolIdempotencyConflict,
        ErrorCode::ToolIdempotencyExpired,
        ErrorCode::ToolCallNotFound,
        ErrorCode::ToolIdempotencyMismatch,
        ErrorCode::ToolJobNotFound,
        ErrorCode::ToolJobFinished,
        ErrorCode::ToolJobNotAwaitingInput,
        ErrorCode::ValidationError,
        ErrorCode::AuthRequired,
        ErrorCode::CrossOriginBlocked,
        ErrorCode::RecipeNotFound,
        ErrorCode::RecipeRevisionConflict,
        ErrorCode::RecipeNameConflict,
        ErrorCode::RecipeVersionUnsupported,
        ErrorCode::RecipeValidationError,
        ErrorCode::RecipeArchived,
        ErrorCode::ServiceUnavailable,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::ToolNotFound => "TOOL_NOT_FOUND",
            ErrorCode::ToolUnavailable => "TOOL_UNAVAILABLE",
            ErrorCode::ToolScopeDenied => "TOOL_SCOPE_DENIED",
            ErrorCode::ToolCapabilityDenied => "TOOL_CAPABILITY_DENIED",
            ErrorCode::ToolAuthRequired => "TOOL_AUTH_REQUIRED",
            ErrorCode::ToolValidationError => "TOOL_VALIDATION_ERROR",
            ErrorCode::ToolIdempotencyConflict => "TOOL_IDEMPOTENCY_CONFLICT",
            ErrorCode::ToolIdempotencyExpired => "TOOL_IDEMPOTENCY_EXPIRED",
            ErrorCode::ToolCallNotFound => "TOOL_CALL_NOT_FOUND",
            ErrorCode::ToolIdempotencyMismatch => "TOOL_IDEMPOTENCY_MISMATCH",
            ErrorCode::ToolJobNotFound => "TOOL_JOB_NOT_FOUND",
            ErrorCode::ToolJobFinished => "TOOL_JOB_FINISHED",
            ErrorCode::ToolJobNotAwaitingInput => "TOOL_JOB_NOT_AWAITING_INPUT",
            ErrorCode::ValidationError => "VALIDATION_ERROR",
            ErrorCode::AuthRequired => "AUTH_REQUIRED",
            ErrorCode::CrossOriginBlocked => "CROSS_ORIGIN_BLOCKED",
            ErrorCode::RecipeNotFound => "RECIPE_NOT_FOUND",
            ErrorCode::RecipeRevisionConflict => "RECIPE_REVISION_CONFLICT",
            ErrorCode::RecipeNameConflict => "RECIPE_NAME_CONFLICT",
            ErrorCode::RecipeVersionUnsupported => "RECIPE_VERSION_UNSUPPORTED",
            ErrorCode::RecipeValidationError => "RECIPE_VALIDATION_ERROR",
            ErrorCode::RecipeArchived => "RECIPE_ARCHIVED",
            ErrorCode::ServiceUnavailable => "SERVICE_UNAVAILABLE",
        }
    }

    /// The HTTP status the contract pairs with the code.
    pub fn status(self) -> u16 {
        match self {
            ErrorCode::ToolNotFound
            | ErrorCode::ToolCallNotFound
            | ErrorCode::ToolJobNotFound
            | ErrorCode::RecipeNotFound => 404,
            ErrorCode::ToolUnavailable
            | ErrorCode::ToolJobFinished
            | ErrorCode::ToolJobNotAwaitingInput
            | ErrorCode::ToolIdempotencyConflict
            | ErrorCode::ToolIdempotencyExpired
            | ErrorCode::RecipeRevisionConflict
            | ErrorCode::RecipeNameConflict
            | ErrorCode::RecipeVersionUnsupported
            | ErrorCode::RecipeArchived => 409,
            ErrorCode::ToolScopeDenied
            | ErrorCode::ToolCapabilityDenied
            | ErrorCode::ToolAuthRequired
            | ErrorCode::CrossOriginBlocked => 403,
            ErrorCode::ToolValidationError
            | ErrorCode::ToolIdempotencyMismatch
            | ErrorCode::ValidationError
            | ErrorCode::RecipeValidationError => 400,
            ErrorCode::AuthRequired => 401,
            ErrorCode::ServiceUnavailable => 503,
        }
    }

    /// The retry hint of the contract's OpenAPI error table.
    pub fn retry_hint(self) -> Option<&'static str> {
        Some(match self {
            ErrorCode::ToolNotFound => "refresh_catalog",
            ErrorCode::ToolUnavailable => "report_setup",
            ErrorCode::ToolScopeDenied
            | ErrorCode::ToolCapabilityDenied
            | ErrorCode::ToolIdempotencyExpired => "do_not_retry",
            ErrorCode::ToolAuthRequired => "authenticate",
            ErrorCode::ToolValidationError | ErrorCode::ValidationError => "fix_arguments",
            ErrorCode::ToolIdempotencyConflict => "new_request_id",
            ErrorCode::ToolCallNotFound
            | ErrorCode::ToolJobNotFound
            | ErrorCode::ToolJobFinished
            | ErrorCode::ToolJobNotAwaitingInput => "refresh_state",
            ErrorCode::ToolIdempotencyMismatch => "fix_request_id",
            // Read the recipe again: its revision or state moved on.
            ErrorCode::RecipeNotFound
            | ErrorCode::RecipeRevisionConflict
            | ErrorCode::RecipeArchived => "refresh_state",
            ErrorCode::RecipeNameConflict
            | ErrorCode::RecipeVersionUnsupported
            | ErrorCode::RecipeValidationError => "fix_arguments",
            // The same requestId again, later: it replays or runs once.
            ErrorCode::ServiceUnavailable => "retry_later",
            ErrorCode::AuthRequired | ErrorCode::CrossOriginBlocked => return None,
        })
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refusal: the registry (or the route in front of it) did not run the tool.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
    /// Extra structured detail (e.g. `details` of a validation failure).
    pub context: Option<Map<String, Value>>,
}

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ToolError {
        ToolError {
            code,
            message: message.into(),
            context: None,
        }
    }

    pub fn with_context(mut self, key: &str, value: Value) -> ToolError {
        self.context
            .get_or_insert_with(Map::new)
            .insert(key.to_owned(), value);
        self
    }

    pub fn status(&self) -> u16 {
        self.code.status()
    }
}
