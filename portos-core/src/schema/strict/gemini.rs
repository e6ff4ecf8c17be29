//! Gemini function declarations: `parameters` in the OpenAPI 3.0 subset the
//! Gemini API documents (its `Schema` object, ai.google.dev/api/caching#Schema,
//! which the function-calling guide links as "a select subset of the OpenAPI
//! schema"; read 2026-12-03): `type` (the upper-case `Type` enum: STRING,
//! NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT, NULL), `format` (NUMBER float or
//! double, INTEGER int32 or int64, STRING enum or date-time), `title`,
//! `description`, `nullable`, `enum` (strings), `items`, `minItems`,
//! `maxItems`, `properties`, `required`, `minProperties`, `maxProperties`,
//! `minLength`, `maxLength`, `pattern`, `minimum`, `maximum`, `anyOf`.
//! There is no `additionalProperties`, `const`, exclusive bound,
//! `multipleOf`, `uniqueItems` or `default` there: those are dropped or
//! rewritten here. A parameter name starts with a letter or `_` and holds
//! only letters, digits and `_` (at most 64).

use serde_json::{Map, Value};

use super::Action;
use super::walk::{self, Cx, Rules, Verdict};

pub(super) fn project(schema: &Value, cx: &mut Cx) -> Option<Value> {
    let projected = walk::node(&Gemini, schema, "", cx);
    let no_arguments = projected
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    if no_arguments {
        // Gemini refuses an OBJECT without properties, and documents that a
        // function without parameters leaves `parameters` unset.
        cx.change(
            "",
            "properties",
            Action::Dropped,
            "the tool takes no arguments: declared without `parameters`",
        );
        return None;
    }
    Some(projected)
}

struct Gemini;

impl Rules for Gemini {
    const ALL_OF: bool = false;

    fn keyword(&self, key: &str, value: &Value, node: &Map<String, Value>) -> Verdict {
        match key {
            "type" | "description" | "title" | "required" | "nullable" | "pattern"
            | "minLength" | "maxLength" | "minItems" | "maxItems" | "minimum" | "maximum"
            | "minProperties" | "maxProperties" => Verdict::Keep,
            "additionalProperties" => Verdict::Drop(
                "Gemini's schema cannot say an object is closed; the server refuses unknown keys"
                    .to_owned(),
            ),
            "enum" => match value {
                Value::Array(values) if values.iter().all(Value::is_string) => Verdict::Keep,
                _ => Verdict::Refuse("Gemini's `enum` holds strings only".to_owned()),
            },
            "const" => match value {
                Value::String(_) => walk::const_as_enum(value),
                _ => Verdict::Refuse("Gemini's `enum` holds strings only".to_owned()),
            },
            "format" => {
                let allowed: &[&str] = match walk::single_type(node) {
                    Some("number") => &["float", "double"],
                    Some("integer") => &["int32", "int64"],
                    Some("string") => &["enum", "date-time"],
                    _ => &[],
                };
                if value.as_str().is_some_and(|f| allowed.contains(&f)) {
                    Verdict::Keep
                } else {
                    Verdict::Drop(format!("format {value} is not one Gemini documents here"))
                }
            }
            "exclusiveMinimum" | "exclusiveMaximum" => exclusive_bound(key, value, node),
            _ => walk::outside("Gemini's schema subset", key),
        }
    }

    fn finish(&self, out: &mut Map<String, Value>, path: &str, cx: &mut Cx) {
        null_branch_as_nullable(out, path, cx);
        match out.get("type").cloned() {
            Some(Value::String(single)) => {
                out.insert("type".to_owned(), Value::from(single.to_ascii_uppercase()));
            }
            Some(Value::Array(types)) => {
                let named: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
                let non_null: Vec<&str> = named.iter().copied().filter(|t| *t != "null").collect();
                if let [single] = non_null.as_slice() {
                    out.insert("type".to_owned(), Value::from(single.to_ascii_uppercase()));
                    if non_null.len() < named.len() {
                        out.insert("nullable".to_owned(), Value::Bool(true));
                        cx.change(
                            path,
                            "type",
                            Action::Rewritten,
                            "a `null` type said as `nullable: true`",
                        );
                    }
                } else {
                    cx.refuse(path, "type", "Gemini's `type` names one type");
                }
            }
            _ => {}
        }
        if let Some(Value::Object(properties)) = out.get("properties") {
            for name in properties.keys().filter(|name| !is_parameter_name(name)) {
                cx.refuse(
                    &walk::pointer(&walk::pointer(path, "properties"), name),
                    "properties",
                    "a Gemini parameter name starts with a letter or `_` and holds only letters, digits and `_` (at most 64)",
                );
            }
        }
    }
}

/// An exclusive bound on integers is the inclusive bound one step in;
/// on other numbers Gemini cannot say it.
fn exclusive_bound(key: &str, value: &Value, node: &Map<String, Value>) -> Verdict {
    let integer = walk::single_type(node) == Some("integer");
    match (integer, value.as_i64()) {
        (true, Some(bound)) => {
            let (inclusive, moved) = if key == "exclusiveMinimum" {
                ("minimum", bound.saturating_add(1))
            } else {
                ("maximum", bound.saturating_sub(1))
            };
            Verdict::Rewrite {
                key: inclusive,
                value: Value::from(moved),
                detail: format!("said as {inclusive} {moved} (the same integers)"),
            }
        }
        _ => Verdict::Drop(format!(
            "`{key}` on a non-integer is not in Gemini's subset; the server still enforces it"
        )),
    }
}

/// An `anyOf` with a `null` branch is the other branches, `nullable`.
fn null_branch_as_nullable(out: &mut Map<String, Value>, path: &str, cx: &mut Cx) {
    let Some(Value::Array(branches)) = out.get_mut("anyOf") else {
        return;
    };
    let before = branches.len();
    branches.retain(|branch| {
        branch
            .get("type")
            .and_then(Value::as_str)
            .is_none_or(|t| !t.eq_ignore_ascii_case("null"))
    });
    if branches.len() == before {
        return;
    }
    if branches.len() == 1
        && let Some(Value::Object(only)) = branches.pop()
    {
        out.remove("anyOf");
        for (key, value) in only {
            out.entry(key).or_insert(value);
        }
    }
    out.insert("nullable".to_owned(), Value::Bool(true));
    cx.change(
        path,
        "anyOf",
        Action::Rewritten,
        "a `null` branch said as `nullable: true`",
    );
}

/// Gemini's parameter-name rule: `[A-Za-z_][A-Za-z0-9_]{0,63}`.
fn is_parameter_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 64
}
