//! Why a definition was refused: one message, where in the definition
//! (`field`, a JSON-pointer-ish path such as `steps[2].arguments.limit`)
//! and in which step. The same error serves the definition's own rules and
//! the checks against the live catalog.

use schemars::JsonSchema;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema, thiserror::Error)]
#[error("{message}")]
pub struct RecipeValidationError {
    pub message: String,
    /// Where: `name`, `steps[1].arguments.limit`, `outputs.total.path[2]`…
    /// (absent when the whole definition is at fault, e.g. its size).
    pub field: Option<String>,
    /// The id of the step at fault, when one is.
    pub step: Option<String>,
}

impl RecipeValidationError {
    pub fn new(message: impl Into<String>) -> RecipeValidationError {
        RecipeValidationError {
            message: message.into(),
            field: None,
            step: None,
        }
    }

    pub fn at(field: impl Into<String>, message: impl Into<String>) -> RecipeValidationError {
        RecipeValidationError {
            message: message.into(),
            field: Some(field.into()),
            step: None,
        }
    }

    #[must_use]
    pub fn in_step(mut self, step: Option<&str>) -> RecipeValidationError {
        self.step = step.map(str::to_owned);
        self
    }
}

/// Why a library operation was refused (docs/reference.md#recipe-storage), or
/// the store's fault.
#[derive(Debug, thiserror::Error)]
pub enum RecipeError {
    #[error("Recipe {0} not found")]
    NotFound(String),
    #[error("Recipe {id} has no revision {revision}")]
    NoSuchRevision { id: String, revision: i64 },
    #[error(
        "Recipe {id} is at revision {active}, not {expected}: read it again before changing it"
    )]
    RevisionConflict {
        id: String,
        expected: i64,
        active: i64,
    },
    #[error(
        "A recipe named {0} already exists (names are never reused, archived recipes keep theirs)"
    )]
    NameConflict(String),
    #[error("Recipe schemaVersion {0} is not supported; this server reads schemaVersion 1")]
    VersionUnsupported(serde_json::Value),
    #[error("{0}")]
    Invalid(RecipeValidationError),
    #[error("Recipe {0} is archived; restore it first")]
    Archived(String),
    /// The Mind's grant was revoked since its call was authorized.
    #[error("Persistent mind recipe access is disabled")]
    AccessOff,
    #[error(transparent)]
    Store(#[from] portos_server::store::StoreError),
}

impl From<RecipeValidationError> for RecipeError {
    fn from(error: RecipeValidationError) -> RecipeError {
        RecipeError::Invalid(error)
    }
}

impl From<super::definition::DefinitionError> for RecipeError {
    fn from(error: super::definition::DefinitionError) -> RecipeError {
        match error {
            super::definition::DefinitionError::Unsupported(version) => {
                RecipeError::VersionUnsupported(version)
            }
            super::definition::DefinitionError::Invalid(error) => RecipeError::Invalid(error),
        }
    }
}

impl RecipeError {
    /// The contract's code, for refusals that have one.
    pub fn code(&self) -> Option<portos_core::ErrorCode> {
        use portos_core::ErrorCode;
        Some(match self {
            RecipeError::NotFound(_) | RecipeError::NoSuchRevision { .. } => {
                ErrorCode::RecipeNotFound
            }
            RecipeError::RevisionConflict { .. } => ErrorCode::RecipeRevisionConflict,
            RecipeError::NameConflict(_) => ErrorCode::RecipeNameConflict,
            RecipeError::VersionUnsupported(_) => ErrorCode::RecipeVersionUnsupported,
            RecipeError::Invalid(_) => ErrorCode::RecipeValidationError,
            RecipeError::Archived(_) => ErrorCode::RecipeArchived,
            RecipeError::AccessOff | RecipeError::Store(_) => return None,
        })
    }

    /// As the registry and the routes answer it: the code, the message
    /// and, for a validation error, `context: {field, step}`. `None` for a
    /// store fault (the server's, answered 500) and a revoked grant (a
    /// tool's refusal only).
    pub fn to_tool_error(&self) -> Option<portos_core::ToolError> {
        let code = self.code()?;
        let error = portos_core::ToolError::new(code, self.to_string());
        Some(match self {
            RecipeError::Invalid(invalid) => error
                .with_context("field", serde_json::json!(invalid.field))
                .with_context("step", serde_json::json!(invalid.step)),
            _ => error,
        })
    }
}
