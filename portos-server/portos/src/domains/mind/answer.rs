//! What the Mind's self-management tools answer: the outcome, or a refusal
//! `{ok: false, error}` that changed nothing. A refusal is a result the
//! Mind reads (the registry reports it as a failed call with that error),
//! not an argument error: the arguments were valid, the request was not
//! allowed.

use schemars::JsonSchema;
use serde::Serialize;

/// A refused request; nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Refusal {
    /// Always `false`.
    pub ok: bool,
    pub error: String,
}

/// The outcome of a request, or why it was refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Answer<T> {
    Done(T),
    Refused(Refusal),
}

impl<T> Answer<T> {
    pub fn refused(error: impl Into<String>) -> Answer<T> {
        Answer::Refused(Refusal {
            ok: false,
            error: error.into(),
        })
    }

    /// The refusal's text, if refused.
    pub fn refusal(&self) -> Option<&str> {
        match self {
            Answer::Done(_) => None,
            Answer::Refused(refusal) => Some(&refusal.error),
        }
    }
}

/// `count` with the noun in the right number (`1 memory`, `2 memories`).
pub fn counted(count: usize, one: &str, many: &str) -> String {
    if count == 1 {
        format!("1 {one}")
    } else {
        format!("{count} {many}")
    }
}
