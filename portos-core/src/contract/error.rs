use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

/// Every refusal code of the contract (docs/reference.md#call-pipeline) with
/// its HTTP status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// `TOOL_NOT_FOUND` (404): no tool has the name.
    ToolNotFound,
    /// `TOOL_UNAVAILABLE` (409): the tool exists but cannot run now.
    ToolUnavailable,
    /// `TOOL_SCOPE_DENIED` (403): the caller's scope is not in the tool's policy.
    ToolScopeDenied,
    /// `TOOL_CAPABILITY_DENIED` (403): a capability the tool requires is not
    /// granted (or the caller's credential does not carry it).
    ToolCapabilityDenied,
    /// `TOOL_AUTH_REQUIRED` (403): a write needs a signed-in caller (a
    /// `#[signed_in]` scope's) and has none.
    ToolAuthRequired,
    /// `TOOL_VALIDATION_ERROR` (400): the arguments fail the tool's input schema.
    ToolValidationError,
    /// `TOOL_IDEMPOTENCY_CONFLICT` (409): the `requestId` was used for a
    /// different call.
    ToolIdempotencyConflict,
    /// `TOOL_IDEMPOTENCY_EXPIRED` (409): the same call again, but its result is
    /// no longer retained.
    ToolIdempotencyExpired,
    /// `TOOL_CALL_NOT_FOUND` (404): no retained result under the `requestId`.
    ToolCallNotFound,
    /// `TOOL_IDEMPOTENCY_MISMATCH` (400): the `Idempotency-Key` header differs
    /// from the `requestId`.
    ToolIdempotencyMismatch,
    // Durable jobs of long-running tools.
    /// `TOOL_JOB_NOT_FOUND` (404): no job has the id (unknown or expired).
    ToolJobNotFound,
    /// `TOOL_JOB_FINISHED` (409): the job has already ended.
    ToolJobFinished,
    /// `TOOL_JOB_NOT_AWAITING_INPUT` (409): the job is not waiting for a
    /// confirmation.
    ToolJobNotAwaitingInput,
    /// `VALIDATION_ERROR` (400): the envelope, a query or a path parameter is
    /// malformed.
    ValidationError,
    /// `AUTH_REQUIRED` (401): a password is set and the request has no
    /// credentials.
    AuthRequired,
    /// `CROSS_ORIGIN_BLOCKED` (403): a password is set and a browser sent a
    /// cross-origin request.
    CrossOriginBlocked,
    // Saved read recipes (docs/reference.md#recipe-storage): the library's own
    // refusals.
    /// `RECIPE_NOT_FOUND` (404): no such recipe, or no such revision of it.
    RecipeNotFound,
    /// `RECIPE_REVISION_CONFLICT` (409): the `expectedRevision` is stale.
    RecipeRevisionConflict,
    /// `RECIPE_NAME_CONFLICT` (409): another recipe has the name.
    RecipeNameConflict,
    /// `RECIPE_VERSION_UNSUPPORTED` (409): a definition's `schemaVersion` is
    /// not one this server reads.
    RecipeVersionUnsupported,
    /// `RECIPE_VALIDATION_ERROR` (400): a definition breaks a recipe rule.
    RecipeValidationError,
    /// `RECIPE_ARCHIVED` (409): the recipe is archived, so it does not run.
    RecipeArchived,
    /// The shared store (PostgreSQL) could not be reached, or another
    /// server still runs the call with this requestId: nothing ran here,
    /// and the same requestId may be sent again.
    ServiceUnavailable,
}

impl ErrorCode {
    /// Every code, in declaration order.
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

    /// The wire form, `SCREAMING_SNAKE_CASE` (`TOOL_NOT_FOUND`).
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
    /// The refusal's code; it decides the HTTP status.
    pub code: ErrorCode,
    /// The human-readable reason, answered as the error body's `error`.
    pub message: String,
    /// Extra structured detail (e.g. `details` of a validation failure).
    pub context: Option<Map<String, Value>>,
}

impl ToolError {
    /// A refusal with `code` and `message` and no context.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ToolError {
        ToolError {
            code,
            message: message.into(),
            context: None,
        }
    }

    /// The refusal with `key` set to `value` in its context.
    pub fn with_context(mut self, key: &str, value: Value) -> ToolError {
        self.context
            .get_or_insert_with(Map::new)
            .insert(key.to_owned(), value);
        self
    }

    /// The HTTP status of the refusal's code.
    pub fn status(&self) -> u16 {
        self.code.status()
    }
}
