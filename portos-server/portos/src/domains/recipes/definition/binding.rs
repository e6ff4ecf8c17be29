//! A binding: where a step argument or an output comes from. Exactly one of
//! `{literal}`, `{input}` or `{step, path}`; an input names a declared
//! parameter, a step an earlier step (so a definition can hold no cycle),
//! and a path is at most 8 keys or indexes.

use serde_json::Value;

use super::keys::{is_key, key_problem, shorten};
use super::parse::{object, required_string};
use super::{Binding, MAX_PATH_INDEX, MAX_PATH_SEGMENTS, Parameter, Segment, Step};
use crate::domains::recipes::error::RecipeValidationError;

type Checked<T> = Result<T, RecipeValidationError>;

/// What a binding may refer to where it is written.
pub struct Context<'a> {
    pub parameters: &'a Parameter,
    /// The steps before this one (every step, for the outputs).
    pub earlier: &'a [Step],
    /// The step the binding belongs to (`None` for the outputs).
    pub step: Option<&'a str>,
}

const SHAPES: &str = "a binding is exactly one of {\"literal\": value}, {\"input\": parameter} or {\"step\": id, \"path\": [...]}";

pub fn parse(value: &Value, field: &str, context: &Context<'_>) -> Checked<Binding> {
    shaped(value, field, context).map_err(|error| error.in_step(context.step))
}

fn shaped(value: &Value, field: &str, context: &Context<'_>) -> Checked<Binding> {
    let map = object(value, field, SHAPES)?;
    let keys: Vec<&str> = map.keys().map(String::as_str).collect();
    match keys.as_slice() {
        ["literal"] => Ok(Binding::Literal(map["literal"].clone())),
        ["input"] => input(map.get("input"), field, context),
        ["step", "path"] | ["path", "step"] => {
            step(map.get("step"), map.get("path"), field, context)
        }
        _ => Err(RecipeValidationError::at(field, SHAPES)),
    }
}

fn input(value: Option<&Value>, field: &str, context: &Context<'_>) -> Checked<Binding> {
    let at = format!("{field}.input");
    let name = required_string(value, &at)?;
    if context.parameters.property(name).is_none() {
        return Err(RecipeValidationError::at(
            at,
            format!("input {:?} is not a declared parameter", shorten(name)),
        ));
    }
    Ok(Binding::Input(name.to_owned()))
}

fn step(
    step: Option<&Value>,
    path: Option<&Value>,
    field: &str,
    context: &Context<'_>,
) -> Checked<Binding> {
    let at = format!("{field}.step");
    let id = required_string(step, &at)?;
    if !context.earlier.iter().any(|earlier| earlier.id == id) {
        let message = if context.step == Some(id) {
            format!("step \"{id}\" cannot read its own result")
        } else if context.step.is_some() {
            format!(
                "step {:?} is not an earlier step: a step reads only the steps before it",
                shorten(id)
            )
        } else {
            format!("step {:?} is not a step of this recipe", shorten(id))
        };
        return Err(RecipeValidationError::at(at, message));
    }
    let at = format!("{field}.path");
    let Some(Value::Array(items)) = path else {
        return Err(RecipeValidationError::at(
            at,
            format!(
                "path is an array of up to {MAX_PATH_SEGMENTS} keys or indexes ([] for the whole result)"
            ),
        ));
    };
    if items.len() > MAX_PATH_SEGMENTS {
        return Err(RecipeValidationError::at(
            at,
            format!(
                "path has {} segments; at most {MAX_PATH_SEGMENTS}",
                items.len()
            ),
        ));
    }
    let mut segments = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        segments.push(segment(item, &format!("{at}[{index}]"))?);
    }
    Ok(Binding::Step {
        step: id.to_owned(),
        path: segments,
    })
}

fn segment(value: &Value, field: &str) -> Checked<Segment> {
    match value {
        Value::String(key) if is_key(key) => Ok(Segment::Key(key.clone())),
        Value::String(key) => Err(RecipeValidationError::at(field, key_problem(key))),
        Value::Number(n) => match n.as_u64().filter(|i| *i <= MAX_PATH_INDEX) {
            Some(index) => Ok(Segment::Index(u32::try_from(index).unwrap_or(u32::MAX))),
            None => Err(RecipeValidationError::at(
                field,
                format!("an index is a whole number from 0 to {MAX_PATH_INDEX}"),
            )),
        },
        _ => Err(RecipeValidationError::at(
            field,
            "a path segment is a key or an array index",
        )),
    }
}
