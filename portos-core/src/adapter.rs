//! The traits that tie an adapter function to the registry. The generated
//! code checks them under the user's own tokens, so a type that does not fit
//! is reported where it is written, with a note saying what to write.

use std::fmt;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::{MissingState, ServerState, Shared, ToolContext};
use crate::contract::OutputJson;
use crate::descriptor::{AdapterOutcome, ArgumentError};
use crate::schema;

/// A type an adapter can take as its input.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the input of a portos tool",
    label = "this input type does not fit",
    note = "derive `serde::Deserialize`, `serde::Serialize` and `schemars::JsonSchema` on it (it must also be `Send + 'static`)"
)]
pub trait ToolInput: DeserializeOwned + Serialize + JsonSchema + Send + 'static {}
// `do_not_recommend`: report the type once, with the note above, instead of
// once per missing derive with serde's and schemars' generic hints.
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + Serialize + JsonSchema + Send + 'static> ToolInput for T {}

/// A type an adapter can return inside `Ok`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the output of a portos tool",
    label = "this output type does not fit",
    note = "derive `serde::Serialize` and `schemars::JsonSchema` on it"
)]
pub trait ToolOutput: Serialize + JsonSchema {}
#[diagnostic::do_not_recommend]
impl<T: Serialize + JsonSchema> ToolOutput for T {}

/// A type an adapter can return inside `Err`. Not public API: it exists so a
/// wrong error type is reported under its own token with a note.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the error type of a portos tool",
    label = "this error type does not implement `std::fmt::Display`",
    note = "implement `std::fmt::Display` for it, or return `portos_core::AdapterError` (any `std::error::Error` converts into it with `?`)"
)]
pub trait ToolErrorType: fmt::Display {}
#[diagnostic::do_not_recommend]
impl<E: fmt::Display> ToolErrorType for E {}

/// What an adapter may return: `Result<Output, Error>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid portos tool return type",
    label = "an adapter must return `Result<Output, Error>`",
    note = "write `-> Result<YourOutput, YourError>` where YourOutput derives Serialize and JsonSchema and YourError implements Display (e.g. `portos_core::AdapterError`)"
)]
pub trait AdapterReturn {
    /// The `Ok` type, whose JSON Schema is the tool's output schema.
    type Output: ToolOutput;
    /// The call's outcome: the `Ok` value as JSON, or the `Err` value's text
    /// (an output that cannot be serialized also fails the call).
    fn into_outcome(self) -> AdapterOutcome;
}

impl<O: ToolOutput, E: fmt::Display> AdapterReturn for Result<O, E> {
    type Output = O;

    fn into_outcome(self) -> AdapterOutcome {
        match self {
            Ok(output) => OutputJson::to_json(&output)
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
    /// An error whose text is `message`.
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

// The checks the generated code runs in `const` items, each spanned on the
// user's token: they are the only place a type that does not fit is reported.
/// Checks that `T` can be an adapter's input ([`ToolInput`]).
pub const fn assert_tool_input<T: ToolInput>() {}
/// Checks that `T` can be an adapter's `Ok` type ([`ToolOutput`]).
pub const fn assert_tool_output<T: ToolOutput>() {}
/// Checks that `E` can be an adapter's `Err` type (`Display`).
pub const fn assert_tool_error<E: ToolErrorType>() {}
/// Checks that `R` is a `Result` an adapter may return ([`AdapterReturn`]).
pub const fn assert_adapter_return<R: AdapterReturn>() {}

/// A type tag the generated code calls through instead of naming the bounds
/// itself. Autoref specialization picks the real behaviour when the type fits
/// and an inert fallback when it does not, so a wrong type is reported once,
/// by its `assert_*` check, and never again inside the expansion. The
/// fallbacks never run: the check has already failed the build.
pub struct Probe<T>(PhantomData<fn() -> T>);

impl<T> Probe<T> {
    /// The one value of the tag, the receiver the generated code calls through.
    pub const NEW: Probe<T> = Probe(PhantomData);
}

impl<T> fmt::Debug for Probe<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Probe")
    }
}

/// Chosen by `(&Probe::<T>::NEW).method()` when `T: ToolInput`.
pub trait InputProbe<T> {
    /// The input type's JSON Schema.
    fn input_schema(&self) -> Value;
    /// The typed input read from schema-valid `arguments`, with its
    /// re-serialized JSON for the call's fingerprint.
    fn parse_input(&self, arguments: Value) -> Result<(T, Value), ArgumentError>;
}

impl<T: ToolInput> InputProbe<T> for Probe<T> {
    fn input_schema(&self) -> Value {
        schema::generate::<T>()
    }

    fn parse_input(&self, arguments: Value) -> Result<(T, Value), ArgumentError> {
        parse_input(&arguments)
    }
}

/// The fallback for an input type that does not fit.
pub trait InputFallback<T> {
    /// An empty closed object schema; never served, the build has failed.
    fn input_schema(&self) -> Value;
    /// Always an error; never runs, the build has failed.
    fn parse_input(&self, arguments: Value) -> Result<(T, Value), ArgumentError>;
}

impl<T> InputFallback<T> for &Probe<T> {
    fn input_schema(&self) -> Value {
        empty_input_schema()
    }

    fn parse_input(&self, _arguments: Value) -> Result<(T, Value), ArgumentError> {
        Err(ArgumentError(
            "the tool's input type does not fit".to_owned(),
        ))
    }
}

/// Chosen when `R: AdapterReturn`.
pub trait ReturnProbe<R> {
    /// The JSON Schema of the `Ok` type.
    fn output_schema(&self) -> Value;
    /// The adapter's return value as the call's outcome.
    fn outcome(&self, value: R) -> AdapterOutcome;
}

impl<R: AdapterReturn> ReturnProbe<R> for Probe<R> {
    fn output_schema(&self) -> Value {
        schema::generate::<R::Output>()
    }

    fn outcome(&self, value: R) -> AdapterOutcome {
        value.into_outcome()
    }
}

/// The fallback for a return type that does not fit.
pub trait ReturnFallback<R> {
    /// An empty schema; never served, the build has failed.
    fn output_schema(&self) -> Value;
    /// Always an error; never runs, the build has failed.
    fn outcome(&self, value: R) -> AdapterOutcome;
}

impl<R> ReturnFallback<R> for &Probe<R> {
    fn output_schema(&self) -> Value {
        Value::Object(serde_json::Map::new())
    }

    fn outcome(&self, _value: R) -> AdapterOutcome {
        Err("the tool's return type does not fit".to_owned())
    }
}

/// Chosen when `T: ServerState`: the adapter's `Shared<T>` argument.
pub trait StateProbe<T> {
    /// The server's value of `T` from the call's state.
    fn shared(&self, ctx: &ToolContext) -> Result<Shared<T>, MissingState>;
}

impl<T: ServerState> StateProbe<T> for Probe<T> {
    fn shared(&self, ctx: &ToolContext) -> Result<Shared<T>, MissingState> {
        crate::context::shared(ctx)
    }
}

/// The fallback for a state type that cannot be shared (its `StateNeed`
/// check reports it).
pub trait StateFallback<T> {
    /// Always [`MissingState`]; never runs, the build has failed.
    fn shared(&self, ctx: &ToolContext) -> Result<Shared<T>, MissingState>;
}

impl<T> StateFallback<T> for &Probe<T> {
    fn shared(&self, _ctx: &ToolContext) -> Result<Shared<T>, MissingState> {
        Err(MissingState(std::any::type_name::<T>()))
    }
}

/// The schema of a tool that takes no arguments.
pub fn empty_input_schema() -> Value {
    serde_json::json!({ "type": "object", "properties": {}, "additionalProperties": false })
}

/// Deserializes schema-valid arguments into `T` and re-serializes them: the
/// typed value goes to the adapter, the JSON to the fingerprint.
fn parse_input<T: ToolInput>(arguments: &Value) -> Result<(T, Value), ArgumentError> {
    let input = T::deserialize(arguments).map_err(|error| ArgumentError(error.to_string()))?;
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
