//! OpenAI strict function calling (`strict: true`, Structured Outputs).
//!
//! The subset, as OpenAI documents it ("Supported schemas" of the Structured
//! Outputs guide, developers.openai.com/api/docs/guides/structured-outputs,
//! read 2026-12-03): types string, number, boolean, integer, object, array,
//! enum and `anyOf`; for strings `pattern` and `format` (date-time, time,
//! date, duration, email, hostname, ipv4, ipv6, uuid); for numbers
//! `multipleOf`, `maximum`, `exclusiveMaximum`, `minimum`,
//! `exclusiveMinimum`; for arrays `minItems`, `maxItems`. Every object has
//! `additionalProperties: false` and lists every property in `required`; an
//! optional property is emulated with a `null` branch. `allOf`, `not`,
//! `if`/`then`/`else` and `dependent*` are not supported, and neither is any
//! keyword outside that list (`minLength`, `maxLength`, `uniqueItems`,
//! `default`, …): those are dropped here.

use serde_json::{Map, Value, json};

use super::Action;
use super::walk::{self, Cx, Rules, Verdict};

/// The string formats OpenAI strict mode takes.
const FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

pub(super) fn project(schema: &Value, cx: &mut Cx) -> Option<Value> {
    Some(walk::node(&OpenaiStrict, schema, "", cx))
}

struct OpenaiStrict;

impl Rules for OpenaiStrict {
    const ALL_OF: bool = false;

    fn keyword(&self, key: &str, value: &Value, _node: &Map<String, Value>) -> Verdict {
        match key {
            "type"
            | "description"
            | "required"
            | "additionalProperties"
            | "pattern"
            | "multipleOf"
            | "maximum"
            | "exclusiveMaximum"
            | "minimum"
            | "exclusiveMinimum"
            | "minItems"
            | "maxItems" => Verdict::Keep,
            "enum" => walk::scalar_enum(value),
            // `enum` is the documented way to say a fixed set.
            "const" => walk::const_as_enum(value),
            "format" if value.as_str().is_some_and(|f| FORMATS.contains(&f)) => Verdict::Keep,
            "format" => Verdict::Drop(format!(
                "format {value} is not one OpenAI strict mode takes"
            )),
            _ => walk::outside("OpenAI's strict subset", key),
        }
    }

    /// Every property required; an optional one gets a `null` branch.
    fn finish(&self, out: &mut Map<String, Value>, path: &str, cx: &mut Cx) {
        let required = walk::required_names(out);
        let Some(Value::Object(properties)) = out.get_mut("properties") else {
            return;
        };
        let at = walk::pointer(path, "properties");
        for (name, property) in properties.iter_mut() {
            if !required.contains(name) {
                add_null_branch(property, &walk::pointer(&at, name), cx);
            }
        }
        let all: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
        out.insert("required".to_owned(), Value::Array(all));
    }
}

/// Makes an optional property "required, and `null` when absent": a `null`
/// type where the property names one plain type, else an `anyOf` with a
/// `null` branch (an `enum` must list `null` to take it, so it is wrapped).
fn add_null_branch(property: &mut Value, path: &str, cx: &mut Cx) {
    let Value::Object(map) = property else { return };
    let plain = !map.contains_key("enum") && !map.contains_key("anyOf");
    match map.get_mut("type") {
        Some(Value::String(single)) if plain => {
            let single = std::mem::take(single);
            map.insert("type".to_owned(), json!([single, "null"]));
            cx.change(
                path,
                "type",
                Action::NullableAdded,
                "optional: sent as required with a `null` type for absent",
            );
        }
        Some(Value::Array(types)) if plain => {
            if !types.iter().any(|t| t == "null") {
                types.push(Value::from("null"));
            }
            cx.change(
                path,
                "type",
                Action::NullableAdded,
                "optional: sent as required with a `null` type for absent",
            );
        }
        _ => {
            let description = map.remove("description");
            let inner = Value::Object(std::mem::take(map));
            if let Some(description) = description {
                map.insert("description".to_owned(), description);
            }
            map.insert(
                "anyOf".to_owned(),
                Value::Array(vec![inner, json!({ "type": "null" })]),
            );
            cx.change(
                path,
                "anyOf",
                Action::NullableAdded,
                "optional: sent as required, any of the value or `null` for absent",
            );
        }
    }
}
