//! The parameter schema language: a closed subset of JSON Schema small
//! enough to check completely (type, description, properties, required,
//! additionalProperties: false, items, enum) and nothing else.

use serde_json::Value;

use super::keys::{is_key, key_problem, shorten};
use super::parse::{object, only_keys};
use super::{MAX_DESCRIPTION_CHARS, MAX_ENUM_VALUES, MAX_PROPERTIES, Parameter, ParameterType};
use crate::domains::recipes::error::RecipeValidationError;

type Checked<T> = Result<T, RecipeValidationError>;

const NODE_KEYS: [&str; 7] = [
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
];

/// The definition's `parameters`: an object node.
pub fn root(value: Option<&Value>) -> Checked<Parameter> {
    let Some(value) = value else {
        return Err(RecipeValidationError::at(
            "parameters",
            "parameters is required: an object schema (it may have no properties)",
        ));
    };
    let node = node(value, "parameters")?;
    if node.kind != ParameterType::Object {
        return Err(RecipeValidationError::at(
            "parameters.type",
            "parameters must be of type \"object\"",
        ));
    }
    Ok(node)
}

fn node(value: &Value, field: &str) -> Checked<Parameter> {
    let map = object(value, field, "a parameter schema is an object")?;
    only_keys(map, &NODE_KEYS, field)?;
    let type_field = format!("{field}.type");
    let kind = match map.get("type") {
        Some(Value::String(text)) => ParameterType::parse(text),
        _ => None,
    }
    .ok_or_else(|| {
        RecipeValidationError::at(
            &type_field,
            "type must be one of string, number, integer, boolean, object, array, null",
        )
    })?;
    let description = match map.get("description") {
        None => None,
        Some(Value::String(text)) if text.chars().count() <= MAX_DESCRIPTION_CHARS => {
            Some(text.clone())
        }
        Some(_) => {
            return Err(RecipeValidationError::at(
                format!("{field}.description"),
                format!(
                    "description must be a string of at most {MAX_DESCRIPTION_CHARS} characters"
                ),
            ));
        }
    };
    let is_object = kind == ParameterType::Object;
    let is_array = kind == ParameterType::Array;
    for (key, allowed) in [
        ("properties", is_object),
        ("required", is_object),
        ("additionalProperties", is_object),
        ("items", is_array),
        ("enum", !is_object && !is_array),
    ] {
        if !allowed && map.contains_key(key) {
            return Err(RecipeValidationError::at(
                format!("{field}.{key}"),
                format!(
                    "{key} is not allowed on a parameter of type {}",
                    kind.as_str()
                ),
            ));
        }
    }
    let mut parameter = Parameter {
        kind,
        description,
        properties: Vec::new(),
        required: Vec::new(),
        items: None,
        enum_values: None,
    };
    if is_object {
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            return Err(RecipeValidationError::at(
                format!("{field}.additionalProperties"),
                "an object parameter must set additionalProperties to false",
            ));
        }
        parameter.properties = properties(map.get("properties"), field)?;
        parameter.required = required(map.get("required"), field, &parameter)?;
    }
    if is_array {
        let items_field = format!("{field}.items");
        let items = map.get("items").ok_or_else(|| {
            RecipeValidationError::at(&items_field, "an array parameter needs items")
        })?;
        parameter.items = Some(Box::new(node(items, &items_field)?));
    }
    if let Some(values) = map.get("enum") {
        parameter.enum_values = Some(enum_values(values, field, kind)?);
    }
    Ok(parameter)
}

fn properties(value: Option<&Value>, field: &str) -> Checked<Vec<(String, Parameter)>> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let field = format!("{field}.properties");
    let map = object(
        value,
        &field,
        "properties is an object of parameter schemas",
    )?;
    if map.len() > MAX_PROPERTIES {
        return Err(RecipeValidationError::at(
            field,
            format!(
                "properties has {} keys; at most {MAX_PROPERTIES}",
                map.len()
            ),
        ));
    }
    let mut list = Vec::with_capacity(map.len());
    for (key, child) in map {
        let child_field = format!("{field}.{}", shorten(key));
        if !is_key(key) {
            return Err(RecipeValidationError::at(child_field, key_problem(key)));
        }
        list.push((key.clone(), node(child, &child_field)?));
    }
    Ok(list)
}

fn required(value: Option<&Value>, field: &str, parameter: &Parameter) -> Checked<Vec<String>> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let field = format!("{field}.required");
    let Value::Array(names) = value else {
        return Err(RecipeValidationError::at(
            field,
            "required is an array of property names",
        ));
    };
    if names.len() > MAX_PROPERTIES {
        return Err(RecipeValidationError::at(
            field,
            format!(
                "required lists {} names; at most {MAX_PROPERTIES}",
                names.len()
            ),
        ));
    }
    let mut list: Vec<String> = Vec::with_capacity(names.len());
    for (index, name) in names.iter().enumerate() {
        let at = format!("{field}[{index}]");
        let Value::String(name) = name else {
            return Err(RecipeValidationError::at(at, "a required name is a string"));
        };
        if parameter.property(name).is_none() {
            return Err(RecipeValidationError::at(
                at,
                format!(
                    "required names {:?}, which is not in properties",
                    shorten(name)
                ),
            ));
        }
        if list.contains(name) {
            return Err(RecipeValidationError::at(
                at,
                format!("required lists {name:?} twice"),
            ));
        }
        list.push(name.clone());
    }
    Ok(list)
}

fn enum_values(value: &Value, field: &str, kind: ParameterType) -> Checked<Vec<Value>> {
    let field = format!("{field}.enum");
    let Value::Array(values) = value else {
        return Err(RecipeValidationError::at(
            field,
            "enum is an array of values",
        ));
    };
    if values.is_empty() || values.len() > MAX_ENUM_VALUES {
        return Err(RecipeValidationError::at(
            field,
            format!(
                "enum must list 1 to {MAX_ENUM_VALUES} values (it lists {})",
                values.len()
            ),
        ));
    }
    for (index, item) in values.iter().enumerate() {
        if !matches_type(item, kind) {
            return Err(RecipeValidationError::at(
                format!("{field}[{index}]"),
                format!(
                    "enum values of a {} parameter must be {}s",
                    kind.as_str(),
                    kind.as_str()
                ),
            ));
        }
    }
    Ok(values.clone())
}

/// Whether a primitive value is of the parameter type (JSON Schema's
/// meaning: `2.0` is an integer).
pub fn matches_type(value: &Value, kind: ParameterType) -> bool {
    match (kind, value) {
        (ParameterType::String, Value::String(_))
        | (ParameterType::Number, Value::Number(_))
        | (ParameterType::Boolean, Value::Bool(_))
        | (ParameterType::Null, Value::Null) => true,
        (ParameterType::Integer, Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}
