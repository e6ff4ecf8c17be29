//! JSON Schema generation for tool projections (DESIGN "Schemas"): schemars
//! draft 2020-12 with subschemas inlined, then every object closed, no
//! `$schema`/`$ref`/`$defs`, and optional fields without a `null` branch.
//!
//! A schema written by hand as a JSON Schema 2020-12 document (its root
//! names the dialect with `$schema`, which the generator never emits) is
//! taken as written instead: its `$defs`, local `$ref`s, anchors and
//! conditionals travel unchanged, because rewriting an author's
//! composition changes what it accepts.

mod issue;
pub mod mcp_header;
pub mod strict;

pub use issue::{NOT_BLANK, issue_message, issue_path};

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The raw generated schema of `T` (transformed later by [`project_input`] or [`project_output`]).
pub fn generate<T: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings.meta_schema = None;
    let schema = settings.into_generator().into_root_schema_for::<T>();
    schema.to_value()
}

/// Why a schema cannot be projected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// The type refers to itself, so its schema needs `$ref`, which projections
    /// do not carry.
    #[error(
        "its input type is recursive (the schema needs `$ref`), which tool projections cannot carry"
    )]
    Recursive,
    /// The schema does not describe a JSON object.
    #[error("its input schema is not an object schema")]
    NotAnObject,
    /// The schema does not compile; the compiler's message.
    #[error("its input schema does not compile: {0}")]
    Invalid(String),
    /// A schema written as a document names another dialect than 2020-12 (the
    /// `$schema` it names).
    #[error(
        "its input schema names the dialect `{0}`; a schema written as a document must be JSON Schema 2020-12 (`{DRAFT_2020_12}`)"
    )]
    Dialect(String),
    /// A schema written as a document refers outside itself (the `$ref`).
    #[error(
        "its input schema refers to `{0}`; a schema written as a document may refer only inside itself (`#...`)"
    )]
    ExternalRef(String),
}

/// The dialect URI a schema written as a document names.
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Turns a generated input schema into the closed, self-contained form every
/// projection uses.
pub fn project_input(raw: &Value) -> Result<Value, SchemaError> {
    if let Some(dialect) = raw.get("$schema") {
        return as_written(raw, dialect);
    }
    let mut schema = raw.clone();
    if contains_ref(&schema) {
        return Err(SchemaError::Recursive);
    }
    if let Value::Object(root) = &mut schema {
        root.remove("$schema");
        root.remove("$defs");
        root.remove("definitions");
        // The Rust type name is not part of the contract.
        root.remove("title");
    }
    close(&mut schema);
    let is_object = schema.get("type").and_then(Value::as_str) == Some("object");
    if !is_object {
        return Err(SchemaError::NotAnObject);
    }
    if let Value::Object(root) = &mut schema
        && !root.contains_key("properties")
    {
        root.insert("properties".to_owned(), Value::Object(Map::new()));
    }
    Ok(schema)
}

/// A schema its author wrote as a 2020-12 document: checked, not rewritten.
fn as_written(raw: &Value, dialect: &Value) -> Result<Value, SchemaError> {
    if dialect.as_str() != Some(DRAFT_2020_12) {
        return Err(SchemaError::Dialect(dialect.to_string()));
    }
    if raw.get("type").and_then(Value::as_str) != Some("object") {
        return Err(SchemaError::NotAnObject);
    }
    if let Some(target) = external_ref(raw) {
        return Err(SchemaError::ExternalRef(target.to_owned()));
    }
    Ok(raw.clone())
}

/// The first reference that leaves the document (it would be fetched, or
/// fail, at validation).
fn external_ref(value: &Value) -> Option<&str> {
    match value {
        Value::Object(map) => ["$ref", "$dynamicRef"]
            .iter()
            .filter_map(|key| map.get(*key).and_then(Value::as_str))
            .find(|target| !target.starts_with('#'))
            .or_else(|| map.values().find_map(external_ref)),
        Value::Array(items) => items.iter().find_map(external_ref),
        _ => None,
    }
}

/// An output schema as documents carry it: self-contained (no `$schema`,
/// no Rust type name) and without Rust integer formats, but not closed — a
/// result may grow fields.
pub fn project_output(raw: &Value) -> Value {
    let mut schema = raw.clone();
    if let Value::Object(root) = &mut schema {
        root.remove("$schema");
        root.remove("title");
    }
    strip_formats_deep(&mut schema);
    schema
}

fn strip_formats_deep(value: &mut Value) {
    match value {
        Value::Object(map) => {
            strip_rust_formats(map);
            map.values_mut().for_each(strip_formats_deep);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_formats_deep),
        _ => {}
    }
}

fn contains_ref(value: &Value) -> bool {
    match value {
        Value::Object(map) => {
            map.contains_key("$ref")
                || map.contains_key("$dynamicRef")
                || map.values().any(contains_ref)
        }
        Value::Array(items) => items.iter().any(contains_ref),
        _ => false,
    }
}

/// Recursively closes objects and cleans each subschema.
fn close(value: &mut Value) {
    let Value::Object(map) = value else { return };
    strip_rust_formats(map);

    let describes_object = match map.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => map.contains_key("properties"),
    };
    if describes_object && !map.contains_key("additionalProperties") {
        map.insert("additionalProperties".to_owned(), Value::Bool(false));
    }

    let required: Vec<String> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if !required.contains(name) {
                drop_null_branch(property);
            }
        }
    }

    for (key, child) in map.iter_mut() {
        match key.as_str() {
            // Keyword maps whose values are schemas.
            "properties" | "patternProperties" | "$defs" => {
                if let Value::Object(children) = child {
                    children.values_mut().for_each(close);
                }
            }
            // Keywords holding one schema or a list of them. `if`, `then`,
            // `else` and `not` are tests applied to the same instance, not
            // descriptions of it: closing them would change what passes.
            "items"
            | "additionalProperties"
            | "contains"
            | "propertyNames"
            | "unevaluatedProperties"
            | "unevaluatedItems"
            | "anyOf"
            | "oneOf"
            | "allOf"
            | "prefixItems" => match child {
                Value::Array(children) => children.iter_mut().for_each(close),
                other => close(other),
            },
            _ => {}
        }
    }
}

/// schemars marks integer widths with formats such as `int64` and `uint8`,
/// which are not JSON Schema formats and which strict provider validators
/// reject. The width's range stays expressed by `minimum`/`maximum`.
fn strip_rust_formats(map: &mut Map<String, Value>) {
    const RUST_FORMATS: [&str; 14] = [
        "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
        "uint64", "uint128", "float", "double",
    ];
    if map
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| RUST_FORMATS.contains(&f))
    {
        map.remove("format");
    }
}

/// An optional field is "absent or a value", as in the contract's schemas,
/// not "null or a value".
fn drop_null_branch(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let single = types.remove(0);
            map.insert("type".to_owned(), single);
        }
    }
    // An optional enum (`Option<Kind>`) lists `null` among its values too.
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    if let Some(Value::Array(branches)) = map.get("anyOf") {
        let non_null: Vec<Value> = branches
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
            .cloned()
            .collect();
        if non_null.len() == 1 && non_null.len() < branches.len() {
            map.remove("anyOf");
            if let Value::Object(inner) = &non_null[0] {
                for (k, v) in inner {
                    map.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn closes_nested_objects_and_drops_meta() {
        let raw = json!({
            "title": "Args",
            "type": "object",
            "properties": {
                "limit": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
                "inner": {"type": "object", "properties": {"deep": {"type": "object", "properties": {}}}},
                "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string"}}}}
            },
            "required": ["inner", "list"]
        });
        let projected = project_input(&raw).expect("projects");
        assert_eq!(
            projected,
            json!({
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "limit": {"type": "integer", "minimum": 0},
                    "inner": {"type": "object", "additionalProperties": false, "properties": {
                        "deep": {"type": "object", "additionalProperties": false, "properties": {}}
                    }},
                    "list": {"type": "array", "items": {"type": "object", "additionalProperties": false,
                        "properties": {"x": {"type": "string"}}}}
                },
                "required": ["inner", "list"]
            })
        );
    }

    #[test]
    fn an_optional_enum_loses_its_null_value() {
        let raw = json!({
            "type": "object",
            "properties": {"kind": {"type": ["string", "null"], "enum": ["a", "b", null]}}
        });
        let projected = project_input(&raw).expect("projects");
        assert_eq!(
            projected["properties"]["kind"],
            json!({"type": "string", "enum": ["a", "b"]})
        );
    }

    #[test]
    fn a_schema_written_as_a_document_travels_as_written() {
        let raw = json!({
            "$schema": DRAFT_2020_12,
            "type": "object",
            "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"city": {"type": "string"}}}},
            "properties": {"address": {"$ref": "#/$defs/address"}, "kind": {"type": "string"}},
            "if": {"properties": {"kind": {"const": "a"}}, "required": ["kind"]},
            "then": {"required": ["address"]},
            "additionalProperties": false
        });
        assert_eq!(project_input(&raw), Ok(raw));
    }

    #[test]
    fn a_document_names_2020_12_refers_inside_itself_and_describes_an_object() {
        let draft7 =
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"});
        assert!(matches!(
            project_input(&draft7),
            Err(SchemaError::Dialect(_))
        ));
        let remote = json!({"$schema": DRAFT_2020_12, "type": "object",
            "properties": {"a": {"$ref": "https://example.com/a.json"}}});
        assert_eq!(
            project_input(&remote),
            Err(SchemaError::ExternalRef(
                "https://example.com/a.json".to_owned()
            ))
        );
        let list = json!({"$schema": DRAFT_2020_12, "type": "array"});
        assert_eq!(project_input(&list), Err(SchemaError::NotAnObject));
    }

    #[test]
    fn conditionals_are_not_closed() {
        let raw = json!({"type": "object",
            "properties": {"kind": {"type": "string"}, "phone": {"type": "string"}},
            "if": {"properties": {"kind": {"const": "phone"}}},
            "then": {"required": ["phone"]}});
        let projected = project_input(&raw).expect("projects");
        assert_eq!(projected["if"], raw["if"]);
    }

    #[test]
    fn refuses_refs() {
        let raw = json!({"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}, "$defs": {"Node": {}}});
        assert_eq!(project_input(&raw), Err(SchemaError::Recursive));
    }

    #[test]
    fn keeps_open_maps_open() {
        let raw = json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}});
        let projected = project_input(&raw).expect("projects");
        assert_eq!(
            projected["properties"]["m"]["additionalProperties"],
            json!({"type": "string"})
        );
    }
}
