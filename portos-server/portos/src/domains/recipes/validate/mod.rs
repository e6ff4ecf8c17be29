//! A definition checked against the live catalog
//! (docs/reference.md#recipe-definition), for the scope the recipe is called
//! in: every step calls a current canonical read tool of that scope, binds
//! every required argument and no unknown one, with literals that fit the
//! argument's schema, inputs and earlier steps' fields whose types can fit, and
//! the recipe's name collides with no tool. Run when a recipe is written, and
//! again whenever it is listed or run, since the catalog can change under a
//! stored definition.

mod compat;
mod result_path;

use portos_core::registry::RegisteredTool;
use portos_core::{Capability, Registry, Scope};
use serde_json::{Map, Value};

use super::definition::{Binding, RecipeDefinition, Step, keys::shorten};
use super::error::RecipeValidationError;
pub use compat::compatible;
pub use result_path::{Lookup, lookup};

/// The longest provider name OpenAI, Anthropic and MCP all accept.
const MAX_PROVIDER_NAME: usize = 64;

/// What a valid definition needs of the catalog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The tools the steps call, each once, in step order.
    pub underlying_tools: Vec<String>,
    /// The union of their required capabilities, in order of appearance.
    pub required_capabilities: Vec<Capability>,
}

/// A recipe's provider name: `recipe_` and its slug with `-` → `_`.
pub fn provider_name(name: &str) -> String {
    let slug = name.strip_prefix("recipe.").unwrap_or(name);
    format!("recipe_{}", slug.replace('-', "_"))
}

/// Checks `definition` against `registry`'s tools for a recipe called in
/// `scope` (`Mind` or `Agent`).
pub fn validate(
    definition: &RecipeDefinition,
    scope: Scope,
    registry: &Registry,
) -> Result<Checked, RecipeValidationError> {
    check_name(&definition.name, registry)?;
    let mut step_tools: Vec<(&str, &RegisteredTool)> = Vec::with_capacity(definition.steps.len());
    let mut required_capabilities: Vec<Capability> = Vec::new();
    for (index, step) in definition.steps.iter().enumerate() {
        let tool = step_tool(step, index, scope, registry)?;
        check_arguments(definition, step, index, tool, &step_tools)?;
        for capability in &tool.policy.required_capabilities {
            if !required_capabilities.contains(capability) {
                required_capabilities.push(*capability);
            }
        }
        step_tools.push((step.id.as_str(), tool));
    }
    for (name, binding) in &definition.outputs {
        if let Binding::Step { step, path } = binding {
            let field = format!("outputs.{name}.path");
            if let Lookup::Missing(why) = read_path(&step_tools, step, path) {
                return Err(RecipeValidationError::at(
                    field,
                    format!("output {name:?} reads step \"{step}\": {why}"),
                ));
            }
        }
    }
    Ok(Checked {
        underlying_tools: definition.underlying_tools(),
        required_capabilities,
    })
}

/// The recipe's name and provider name must be no tool's name, provider
/// name or alias, and its provider name must fit the providers' limit.
fn check_name(name: &str, registry: &Registry) -> Result<(), RecipeValidationError> {
    let provider = provider_name(name);
    if provider.len() > MAX_PROVIDER_NAME {
        return Err(RecipeValidationError::at(
            "name",
            format!(
                "name {name:?} is too long: its provider name {provider} would be {} characters, and providers accept at most {MAX_PROVIDER_NAME} (keep the part after \"recipe.\" to 57 characters)",
                provider.len()
            ),
        ));
    }
    for tool in registry.tools() {
        let d = tool.descriptor;
        let taken = [d.name, d.provider_name]
            .into_iter()
            .chain(d.aliases.iter().copied())
            .find(|taken| *taken == name || *taken == provider);
        if let Some(taken) = taken {
            return Err(RecipeValidationError::at(
                "name",
                format!(
                    "name {name:?} collides with the tool {} (its name, provider name or alias {taken})",
                    d.name
                ),
            ));
        }
    }
    Ok(())
}

fn step_tool<'r>(
    step: &Step,
    index: usize,
    scope: Scope,
    registry: &'r Registry,
) -> Result<&'r RegisteredTool, RecipeValidationError> {
    let field = format!("steps[{index}].tool");
    let fail =
        |message: String| Err(RecipeValidationError::at(&field, message).in_step(Some(&step.id)));
    let name = shorten(&step.tool);
    if step.tool.starts_with("recipe.") || step.tool.starts_with("recipe_") {
        return fail(format!(
            "step \"{}\" calls {name}: a recipe cannot call a recipe",
            step.id
        ));
    }
    let Some(tool) = registry.resolve(&step.tool) else {
        return fail(format!("tool {name:?} is not in the catalog"));
    };
    if tool.name() != step.tool {
        return fail(format!(
            "{name:?} is a provider name or alias of {}; steps name the canonical tool: write \"{}\"",
            tool.name(),
            tool.name()
        ));
    }
    if !tool.policy.side_effect.is_read() {
        return fail(format!(
            "{} is a {} tool; a recipe calls read tools only",
            tool.name(),
            tool.policy.side_effect.as_str()
        ));
    }
    if !tool.policy.scopes.contains(&scope) {
        return fail(format!(
            "{} is not available in the {} scope",
            tool.name(),
            scope.as_str()
        ));
    }
    Ok(tool)
}

fn check_arguments(
    definition: &RecipeDefinition,
    step: &Step,
    index: usize,
    tool: &RegisteredTool,
    earlier: &[(&str, &RegisteredTool)],
) -> Result<(), RecipeValidationError> {
    let empty = Map::new();
    let properties = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let fail = |argument: &str, message: String| {
        Err(
            RecipeValidationError::at(format!("steps[{index}].arguments.{argument}"), message)
                .in_step(Some(&step.id)),
        )
    };
    for (argument, binding) in &step.arguments {
        let Some(target) = properties.get(argument) else {
            let known: Vec<&str> = properties.keys().map(String::as_str).collect();
            return fail(
                argument,
                format!(
                    "{} takes no argument {argument:?} (it takes: {})",
                    tool.name(),
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ),
            );
        };
        let required = is_required(&tool.input_schema, argument);
        if let Err(why) = check_binding(definition, binding, target, required, earlier) {
            return fail(
                argument,
                format!("argument {argument:?} of {}: {why}", tool.name()),
            );
        }
    }
    let required = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    for argument in required {
        if !step.arguments.iter().any(|(bound, _)| bound == argument) {
            return fail(
                argument,
                format!(
                    "{} needs the argument {argument:?}, which the step does not bind",
                    tool.name()
                ),
            );
        }
    }
    Ok(())
}

fn check_binding(
    definition: &RecipeDefinition,
    binding: &Binding,
    target: &Value,
    required: bool,
    earlier: &[(&str, &RegisteredTool)],
) -> Result<(), String> {
    match binding {
        Binding::Literal(value) => check_literal(value, target),
        Binding::Input(name) => {
            let Some(parameter) = definition.parameters.property(name) else {
                return Err(format!("input {name:?} is not a declared parameter"));
            };
            if required && !definition.parameters.is_required(name) {
                return Err(format!(
                    "it is required, but the parameter {name:?} it is bound to is optional (list it in parameters.required)"
                ));
            }
            compatible(&parameter.to_json(), target)
                .map_err(|why| format!("the parameter {name:?} cannot fill it: {why}"))
        }
        Binding::Step { step, path } => match read_path(earlier, step, path) {
            Lookup::Declared(schema) => compatible(schema, target).map_err(|why| {
                format!("the value read from step \"{step}\" cannot fill it: {why}")
            }),
            Lookup::Deferred => Ok(()),
            Lookup::Missing(why) => Err(format!("step \"{step}\": {why}")),
        },
    }
}

/// A literal must pass the argument's own schema, as the registry will
/// check it on every run.
fn check_literal(value: &Value, target: &Value) -> Result<(), String> {
    // An argument schema that does not compile on its own is not judged
    // here; the registry's compiled input schema checks the call.
    let Ok(validator) = jsonschema::validator_for(target) else {
        return Ok(());
    };
    match validator.iter_errors(value).next() {
        None => Ok(()),
        Some(error) => Err(format!(
            "the literal does not fit: {}",
            shorten(&error.to_string())
        )),
    }
}

fn read_path<'s>(
    earlier: &[(&str, &'s RegisteredTool)],
    step: &str,
    path: &[super::definition::Segment],
) -> Lookup<'s> {
    match earlier.iter().find(|(id, _)| *id == step) {
        Some((_, tool)) => lookup(&tool.result_schema, path),
        // The definition's own rules guarantee an earlier step.
        None => Lookup::Deferred,
    }
}

fn is_required(schema: &Value, argument: &str) -> bool {
    schema
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|names| names.iter().any(|n| n == argument))
}
