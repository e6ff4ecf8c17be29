//! What the `mind.recipes.*` tools answer: `{ok: true, …}`, or a refusal
//! `{ok: false, state: "failed", code, error, field?, step?}` that changed
//! nothing. A refusal is a result the Mind reads (the registry reports the
//! call as failed with that error), with the library's code and, for an
//! invalid definition, where to repair it.

use schemars::JsonSchema;
use serde::Serialize;

use super::error::RecipeError;

/// The outcome, flattened beside `ok: true`.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Done<T> {
    /// Always `true`.
    pub ok: bool,
    #[serde(flatten)]
    pub body: T,
}

/// A refused request; nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Refusal {
    /// Always `false`.
    pub ok: bool,
    /// Always `failed`.
    pub state: String,
    /// `RECIPE_NOT_FOUND`, `RECIPE_REVISION_CONFLICT`, `RECIPE_NAME_CONFLICT`,
    /// `RECIPE_VERSION_UNSUPPORTED`, `RECIPE_VALIDATION_ERROR` (absent when
    /// the grant was revoked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    pub error: String,
    /// Where in the definition (validation errors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Which step (validation errors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Answer<T> {
    Done(Done<T>),
    Refused(Refusal),
}

impl<T> Answer<T> {
    pub fn done(body: T) -> Answer<T> {
        Answer::Done(Done { ok: true, body })
    }
}

/// A refusal becomes an answer; a store fault stays an error (the
/// registry reports it as the tool's failure, and nothing was written).
pub fn answer<T>(
    outcome: Result<T, RecipeError>,
) -> Result<Answer<T>, portos_server::store::StoreError> {
    match outcome {
        Ok(body) => Ok(Answer::done(body)),
        Err(RecipeError::Store(error)) => Err(error),
        Err(refusal) => {
            let (field, step) = match &refusal {
                RecipeError::Invalid(invalid) => (invalid.field.clone(), invalid.step.clone()),
                _ => (None, None),
            };
            Ok(Answer::Refused(Refusal {
                ok: false,
                state: "failed".to_owned(),
                code: refusal.code().map(|code| code.as_str().to_owned()),
                error: refusal.to_string(),
                field,
                step,
            }))
        }
    }
}
