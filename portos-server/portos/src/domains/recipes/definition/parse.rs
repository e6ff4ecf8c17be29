//! Reads a definition from JSON, strictly: the size guard first, then the
//! version, then every key and rule, and the first rule broken is the
//! answer, with where it was broken. Written over `serde_json::Value`
//! rather than derived so every refusal names its field.

use serde_json::{Map, Value};

use super::keys::{is_key, is_recipe_name, key_problem, shorten};
use super::{
    DefinitionError, MAX_ARGUMENTS, MAX_OUTPUTS, MAX_PURPOSE_CHARS, MAX_STEPS, MAX_TOOL_NAME_CHARS,
    RecipeDefinition, SCHEMA_VERSION, Step, binding, parameter, size,
};
use crate::domains::recipes::error::RecipeValidationError;

type Checked<T> = Result<T, RecipeValidationError>;

const TOP_KEYS: [&str; 6] = [
    "schemaVersion",
    "name",
    "purpose",
    "parameters",
    "steps",
    "outputs",
];
const STEP_KEYS: [&str; 3] = ["id", "tool", "arguments"];

/// Reads and checks a definition against its own rules.
pub fn parse(raw: &Value) -> Result<RecipeDefinition, DefinitionError> {
    size::check(raw)?;
    let Value::Object(map) = raw else {
        return Err(RecipeValidationError::new("A recipe definition is a JSON object").into());
    };
    check_version(map.get("schemaVersion"))?;
    only_keys(map, &TOP_KEYS, "")?;
    let name = recipe_name(map.get("name"))?;
    let purpose = purpose(map.get("purpose"))?;
    let parameters = parameter::root(map.get("parameters"))?;
    let steps = steps(map.get("steps"), &parameters)?;
    let outputs = outputs(map.get("outputs"), &parameters, &steps)?;
    Ok(RecipeDefinition {
        name,
        purpose,
        parameters,
        steps,
        outputs,
    })
}

fn check_version(version: Option<&Value>) -> Result<(), DefinitionError> {
    match version {
        None => Err(RecipeValidationError::at(
            "schemaVersion",
            format!("schemaVersion is required (it is {SCHEMA_VERSION})"),
        )
        .into()),
        Some(Value::Number(n)) if n.as_u64() == Some(SCHEMA_VERSION) => Ok(()),
        // Any other whole number is a version: one this server cannot read.
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => {
            Err(DefinitionError::Unsupported(Value::Number(n.clone())))
        }
        Some(_) => Err(RecipeValidationError::at(
            "schemaVersion",
            format!("schemaVersion must be the integer {SCHEMA_VERSION}"),
        )
        .into()),
    }
}

fn recipe_name(value: Option<&Value>) -> Checked<String> {
    let name = required_string(value, "name")?;
    if !is_recipe_name(name) {
        return Err(RecipeValidationError::at(
            "name",
            format!(
                "name {:?} must be \"recipe.\" then a lowercase letter and up to 63 lowercase letters, digits or '-'",
                shorten(name)
            ),
        ));
    }
    Ok(name.to_owned())
}

fn purpose(value: Option<&Value>) -> Checked<String> {
    let purpose = required_string(value, "purpose")?.trim();
    let chars = purpose.chars().count();
    if chars == 0 || chars > MAX_PURPOSE_CHARS {
        return Err(RecipeValidationError::at(
            "purpose",
            format!(
                "purpose must be 1 to {MAX_PURPOSE_CHARS} characters once trimmed (it is {chars})"
            ),
        ));
    }
    Ok(purpose.to_owned())
}

fn steps(value: Option<&Value>, parameters: &super::Parameter) -> Checked<Vec<Step>> {
    let Some(Value::Array(items)) = value else {
        return Err(RecipeValidationError::at(
            "steps",
            format!("steps must be an array of 1 to {MAX_STEPS} steps"),
        ));
    };
    if items.is_empty() || items.len() > MAX_STEPS {
        return Err(RecipeValidationError::at(
            "steps",
            format!(
                "steps must hold 1 to {MAX_STEPS} steps (it holds {})",
                items.len()
            ),
        ));
    }
    let mut steps: Vec<Step> = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let field = format!("steps[{index}]");
        let step = one_step(item, &field, parameters, &steps)?;
        steps.push(step);
    }
    Ok(steps)
}

fn one_step(
    value: &Value,
    field: &str,
    parameters: &super::Parameter,
    earlier: &[Step],
) -> Checked<Step> {
    let map = object(value, field, "a step is an object {id, tool, arguments}")?;
    only_keys(map, &STEP_KEYS, field)?;
    let id_field = format!("{field}.id");
    let id = required_string(map.get("id"), &id_field)?;
    if !is_key(id) {
        return Err(RecipeValidationError::at(
            id_field,
            format!("step id {}", key_problem(id)),
        ));
    }
    let step = Some(id);
    if earlier.iter().any(|other| other.id == id) {
        return Err(
            RecipeValidationError::at(id_field, format!("step id \"{id}\" is used twice"))
                .in_step(step),
        );
    }
    let tool_field = format!("{field}.tool");
    let tool = required_string(map.get("tool"), &tool_field).map_err(|e| e.in_step(step))?;
    let tool_chars = tool.chars().count();
    if tool_chars == 0 || tool_chars > MAX_TOOL_NAME_CHARS {
        return Err(RecipeValidationError::at(
            tool_field,
            format!("tool must be 1 to {MAX_TOOL_NAME_CHARS} characters (it is {tool_chars})"),
        )
        .in_step(step));
    }
    let arguments_field = format!("{field}.arguments");
    let arguments = match map.get("arguments") {
        // A tool that takes nothing needs no `arguments`.
        None => Vec::new(),
        Some(value) => bindings(
            value,
            &arguments_field,
            MAX_ARGUMENTS,
            "arguments",
            &binding::Context {
                parameters,
                earlier,
                step,
            },
        )?,
    };
    Ok(Step {
        id: id.to_owned(),
        tool: tool.to_owned(),
        arguments,
    })
}

fn outputs(
    value: Option<&Value>,
    parameters: &super::Parameter,
    steps: &[Step],
) -> Checked<Vec<(String, super::Binding)>> {
    let Some(value) = value else {
        return Err(RecipeValidationError::at(
            "outputs",
            "outputs is required: at least one named binding",
        ));
    };
    let outputs = bindings(
        value,
        "outputs",
        MAX_OUTPUTS,
        "outputs",
        &binding::Context {
            parameters,
            earlier: steps,
            step: None,
        },
    )?;
    if outputs.is_empty() {
        return Err(RecipeValidationError::at(
            "outputs",
            "outputs must name at least one binding",
        ));
    }
    Ok(outputs)
}

/// A map of names to bindings (a step's arguments, the outputs).
fn bindings(
    value: &Value,
    field: &str,
    max: usize,
    what: &str,
    context: &binding::Context<'_>,
) -> Checked<Vec<(String, super::Binding)>> {
    let map = object(
        value,
        field,
        &format!("{what} is an object of named bindings"),
    )
    .map_err(|e| e.in_step(context.step))?;
    if map.len() > max {
        return Err(RecipeValidationError::at(
            field,
            format!("{what} has {} entries; at most {max}", map.len()),
        )
        .in_step(context.step));
    }
    let mut list = Vec::with_capacity(map.len());
    for (key, value) in map {
        let entry_field = format!("{field}.{}", shorten(key));
        if !is_key(key) {
            return Err(
                RecipeValidationError::at(&entry_field, key_problem(key)).in_step(context.step)
            );
        }
        list.push((key.clone(), binding::parse(value, &entry_field, context)?));
    }
    Ok(list)
}

/// The value as an object, or `message` at `field`.
pub(super) fn object<'v>(
    value: &'v Value,
    field: &str,
    message: &str,
) -> Checked<&'v Map<String, Value>> {
    value
        .as_object()
        .ok_or_else(|| RecipeValidationError::at(field, message))
}

/// Refuses any key but `allowed`.
pub(super) fn only_keys(map: &Map<String, Value>, allowed: &[&str], field: &str) -> Checked<()> {
    match map.keys().find(|key| !allowed.contains(&key.as_str())) {
        None => Ok(()),
        Some(key) => {
            let at = if field.is_empty() {
                shorten(key)
            } else {
                format!("{field}.{}", shorten(key))
            };
            Err(RecipeValidationError::at(
                at,
                format!(
                    "unknown key {:?}; expected {}",
                    shorten(key),
                    allowed.join(", ")
                ),
            ))
        }
    }
}

pub(super) fn required_string<'v>(value: Option<&'v Value>, field: &str) -> Checked<&'v str> {
    match value {
        Some(Value::String(text)) => Ok(text),
        Some(_) => Err(RecipeValidationError::at(
            field,
            format!("{field} must be a string"),
        )),
        None => Err(RecipeValidationError::at(
            field,
            format!("{field} is required"),
        )),
    }
}
