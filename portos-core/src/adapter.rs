//! The traits that tie an adapter function to the registry. The generated
//! code checks them under the user's own tokens, so a type that does not fit
//! is reported where it is written, with a note saying what to write.

use std::fmt;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::MissingState;
use crate::descriptor::{AdapterOutcome, ArgumentError};
use crate::schema;

/// A type an adapter can take as its input.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the input of a portos tool",
    label = "this input type does not fit",
    note = "derive `serde::Deserialize`, `serde::Serialize` and `schemars::JsonSchema` on it (it must also be `Send + 'static`)"
)]
pub trait ToolInput: DeserializeOwned + Serialize + JsonSchema + Send + 'static {}
impl<T: DeserializeOwned + Serialize + JsonSchema + Send + 'static> ToolInput for T {}

/// A type an adapter can return inside `Ok`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the output of a portos tool",
    label = "this output type does not fit",
    note = "derive `serde::Serialize` and `schemars::JsonSchema` on it"
)]
pub trait ToolOutput: Serialize + JsonSchema {}
impl<T: Serialize + JsonSchema> ToolOutput for T {}

/// What an adapter may return: `Result<Output, Error>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid portos tool return type",
    label = "an adapter must return `Result<Output, Error>`",
    note = "write `-> Result<YourOutput, YourError>` where YourOutput derives Serialize and JsonSchema and YourError implements Display (e.g. `portos_core::AdapterError`)"
)]
pub trait AdapterReturn {
    type Output: ToolOutput;
    fn into_outcome(self) -> AdapterOutcome;
}

impl<O: ToolOutput, E: fmt::Display> AdapterReturn for Result<O, E> {
    type Output = O;

    fn into_outcome(self) -> AdapterOutcome {
        match self {
            Ok(output) => serde_json::to_value(&output)
                .map_err(|error| format!("Tool output could not be serialized: {error}")),
            Err(error) => Err(error.to_string()),
        }
    }
}

/// A ready-made adapter error: any `std::error::Error` converts into it with
/// `?`, and [`AdapterError::new`] takes a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterError(String);

impl AdapterError {
    pub fn new(message: impl Into<String>) -> AdapterError {
        AdapterError(message.into())
    }
}

impl fmt::Display for AdapterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for AdapterError {
    fn from(error: E) -> AdapterError {
        AdapterError(error.to_string())
    }
}

impl AdapterError {
    /// `ctx.state::<T>()?` inside an adapter returning `AdapterError`.
    pub fn missing_state(error: MissingState) -> AdapterError {
        AdapterError(error.to_string())
    }
}

pub const fn assert_tool_input<T: ToolInput>() {}
pub const fn assert_adapter_return<R: AdapterReturn>() {}

pub fn into_outcome<R: AdapterReturn>(value: R) -> AdapterOutcome {
    value.into_outcome()
}

pub fn input_schema<T: ToolInput>() -> Value {
    schema::generate::<T>()
}

pub fn output_schema<T: ToolOutput>() -> Value {
    schema::generate::<T>()
}

/// The schema of a tool that takes no arguments.
pub fn empty_input_schema() -> Value {
    serde_json::json!({ "type": "object", "properties": {}, "additionalProperties": false })
}

/// Deserializes schema-valid arguments into `T` and re-serializes them: the
/// typed value goes to the adapter, the JSON to the fingerprint.
pub fn parse_input<T: ToolInput>(arguments: Value) -> Result<(T, Value), ArgumentError> {
    let input = T::deserialize(&arguments).map_err(|error| ArgumentError(error.to_string()))?;
    let normalized =
        serde_json::to_value(&input).map_err(|error| ArgumentError(error.to_string()))?;
    Ok((input, normalized))
}

/// A tool with no input accepts only `{}` (the schema already closed it).
pub fn parse_empty_input(arguments: Value) -> Result<Value, ArgumentError> {
    match arguments {
        Value::Object(map) if map.is_empty() => Ok(Value::Object(map)),
        _ => Err(ArgumentError("this tool takes no arguments".to_owned())),
    }
}
