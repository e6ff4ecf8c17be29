//! The documented schema of a body or query, enforced: what the OpenAPI
//! document says a request may hold is checked against the request before
//! the handler runs, with the same compiled JSON Schema for every request
//! of a type. A rule the document states is therefore never one the server
//! forgets to apply; the handler's own checks (after trimming, across
//! fields, against the store) come after and say what the schema cannot.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use portos_core::contract::{FieldIssue, ValidationFailure};
use schemars::JsonSchema;
use serde_json::Value;

use super::ApiError;

/// The compiled schemas, one per request type, built on first use.
type Gates = RwLock<HashMap<TypeId, Arc<Gate>>>;

struct Gate {
    /// `None` when the type's schema does not compile: a programming error
    /// the first request reports (500) rather than a check silently skipped.
    validator: Result<jsonschema::Validator, String>,
}

fn gate_for<T: JsonSchema + 'static>() -> Arc<Gate> {
    static GATES: OnceLock<Gates> = OnceLock::new();
    let gates = GATES.get_or_init(Default::default);
    if let Some(gate) = gates
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&TypeId::of::<T>())
    {
        return Arc::clone(gate);
    }
    let schema = schemars::SchemaGenerator::default().into_root_schema_for::<T>();
    let gate = Arc::new(Gate {
        validator: jsonschema::validator_for(schema.as_value()).map_err(|error| error.to_string()),
    });
    gates
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(TypeId::of::<T>())
        .or_insert(gate)
        .clone()
}

/// Why a request did not pass its documented schema.
#[derive(Debug)]
pub enum Refusal {
    /// 400 `VALIDATION_ERROR`, one issue per broken rule with its path.
    Invalid(ValidationFailure),
    /// The type's own schema does not compile: the server's fault.
    Broken(String),
}

/// Checks `value` against `T`'s documented schema. `root` names the whole
/// value in an issue's path (`""` for a body).
pub(super) fn check<T: JsonSchema + 'static>(value: &Value, root: &str) -> Result<(), Refusal> {
    let gate = gate_for::<T>();
    let validator = gate.validator.as_ref().map_err(|why| {
        Refusal::Broken(format!(
            "the request schema of {} does not compile: {why}",
            std::any::type_name::<T>()
        ))
    })?;
    if validator.is_valid(value) {
        return Ok(());
    }
    let details = validator
        .iter_errors(value)
        .map(|error| FieldIssue {
            path: portos_core::schema::issue_path(&error, root),
            message: portos_core::schema::issue_message(&error),
        })
        .collect();
    Err(Refusal::Invalid(ValidationFailure { details }))
}

/// The 400 `VALIDATION_ERROR` for a refused request: its message says every
/// broken rule with its field (`"text must not be empty"`), as the handlers'
/// own checks do, and `context.details` lists them one by one.
pub(super) fn refusal(failure: ValidationFailure) -> ApiError {
    let message = failure
        .details
        .iter()
        .map(|issue| {
            if issue.path.is_empty() {
                issue.message.clone()
            } else {
                format!("{} {}", issue.path, issue.message)
            }
        })
        .collect::<Vec<_>>()
        .join("; ");
    let mut error = ApiError::from(failure);
    error.message = message;
    error
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> ApiError {
        match refusal {
            Refusal::Invalid(failure) => self::refusal(failure),
            Refusal::Broken(why) => ApiError::internal(why),
        }
    }
}
