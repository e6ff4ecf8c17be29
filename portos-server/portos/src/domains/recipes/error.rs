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
