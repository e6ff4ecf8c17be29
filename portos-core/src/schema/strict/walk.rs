//! The walk every dialect shares: it recurses through the subschemas,
//! refuses what no strict subset can say, and hands every other keyword to
//! the dialect's [`Rules`], recording each change with its JSON Pointer.

use serde_json::{Map, Value};

use super::{Action, Change, Refusal};

/// What a walk found.
#[derive(Debug, Default)]
pub(super) struct Cx {
    pub changes: Vec<Change>,
    pub refusals: Vec<Refusal>,
}

impl Cx {
    pub(super) fn change(
        &mut self,
        path: &str,
        keyword: &str,
        action: Action,
        detail: impl Into<String>,
    ) {
        self.changes.push(Change {
            path: path.to_owned(),
            keyword: keyword.to_owned(),
            action,
            detail: detail.into(),
        });
    }

    pub(super) fn refuse(&mut self, path: &str, keyword: &str, reason: impl Into<String>) {
        self.refusals.push(Refusal {
            path: path.to_owned(),
            keyword: keyword.to_owned(),
            reason: reason.into(),
        });
    }
}

/// What a dialect does with one keyword of a subschema.
pub(super) enum Verdict {
    Keep,
    /// Not sent; the detail says what the model is no longer told.
    Drop(String),
    /// Sent as `key: value` instead.
    Rewrite {
        key: &'static str,
        value: Value,
        detail: String,
    },
    /// The keyword carries a rule that matters and cannot be said.
    Refuse(String),
}

/// A dialect's rules.
pub(super) trait Rules {
    /// Whether the dialect takes `allOf`.
    const ALL_OF: bool;

    /// The verdict on a non-structural keyword of `node` (the source
    /// subschema). `additionalProperties: false` comes here too.
    fn keyword(&self, key: &str, value: &Value, node: &Map<String, Value>) -> Verdict;

    /// Adjusts a projected subschema once its keywords and children are done.
    fn finish(&self, out: &mut Map<String, Value>, path: &str, cx: &mut Cx);
}

/// Keywords no strict subset can carry without losing what they mean.
const REFUSED: [(&str, &str); 15] = [
    (
        "patternProperties",
        "an open object: its keys carry meaning the strict subsets cannot list",
    ),
    (
        "propertyNames",
        "an open object: its keys carry meaning the strict subsets cannot list",
    ),
    ("unevaluatedProperties", "cannot be said in a strict subset"),
    ("unevaluatedItems", "cannot be said in a strict subset"),
    ("not", "a negated schema cannot be said in a strict subset"),
    (
        "if",
        "a conditional schema cannot be said in a strict subset",
    ),
    (
        "then",
        "a conditional schema cannot be said in a strict subset",
    ),
    (
        "else",
        "a conditional schema cannot be said in a strict subset",
    ),
    ("dependentRequired", "cannot be said in a strict subset"),
    ("dependentSchemas", "cannot be said in a strict subset"),
    ("dependencies", "cannot be said in a strict subset"),
    ("prefixItems", "a tuple cannot be said in a strict subset"),
    (
        "additionalItems",
        "a tuple cannot be said in a strict subset",
    ),
    ("contains", "cannot be said in a strict subset"),
    ("$ref", "a reference: tool projections are self-contained"),
];

/// Keywords that say what a value may be; a subschema with none of them
/// takes any JSON value, which no strict subset can declare.
const TYPING: [&str; 7] = ["type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref"];

/// Projects the subschema `schema` at `path`.
pub(super) fn node<R: Rules>(rules: &R, schema: &Value, path: &str, cx: &mut Cx) -> Value {
    let Value::Object(map) = schema else {
        cx.refuse(
            path,
            "",
            "a boolean schema (any value, or none) cannot be declared",
        );
        return schema.clone();
    };
    if !TYPING.iter().any(|key| map.contains_key(*key)) {
        cx.refuse(
            path,
            "type",
            "no `type`: a value of any JSON type cannot be declared",
        );
    }
    let mut out = Map::new();
    for (key, value) in map {
        match key.as_str() {
            "properties" => {
                let Value::Object(properties) = value else {
                    continue;
                };
                let at = pointer(path, "properties");
                let projected = properties
                    .iter()
                    .map(|(name, sub)| (name.clone(), node(rules, sub, &pointer(&at, name), cx)))
                    .collect();
                out.insert(key.clone(), Value::Object(projected));
            }
            "items" => match value {
                Value::Object(_) => {
                    let sub = node(rules, value, &pointer(path, "items"), cx);
                    out.insert(key.clone(), sub);
                }
                _ => cx.refuse(path, key, "a tuple cannot be said in a strict subset"),
            },
            "anyOf" | "oneOf" | "allOf" => {
                if key == "allOf" && !R::ALL_OF {
                    cx.refuse(path, key, "this provider's subset has no `allOf`");
                    continue;
                }
                let Value::Array(branches) = value else {
                    continue;
                };
                let at = pointer(path, key);
                let projected: Vec<Value> = branches
                    .iter()
                    .enumerate()
                    .map(|(index, sub)| node(rules, sub, &pointer(&at, &index.to_string()), cx))
                    .collect();
                if key == "oneOf" {
                    // The branches schemars writes are disjoint (tagged), so
                    // "any of" accepts what "exactly one of" does.
                    cx.change(
                        path,
                        key,
                        Action::Rewritten,
                        "said as `anyOf` (the strict subsets have no `oneOf`)",
                    );
                    out.insert("anyOf".to_owned(), Value::Array(projected));
                } else {
                    out.insert(key.clone(), Value::Array(projected));
                }
            }
            "additionalProperties" if value != &Value::Bool(false) => cx.refuse(
                path,
                key,
                "an open object: its keys carry meaning the strict subsets cannot list",
            ),
            "$defs" | "definitions" => {}
            other => {
                if let Some((_, reason)) = REFUSED.iter().find(|(name, _)| *name == other) {
                    cx.refuse(path, key, *reason);
                    continue;
                }
                match rules.keyword(other, value, map) {
                    Verdict::Keep => {
                        out.insert(key.clone(), value.clone());
                    }
                    Verdict::Drop(detail) => cx.change(path, key, Action::Dropped, detail),
                    Verdict::Rewrite {
                        key: new_key,
                        value,
                        detail,
                    } => {
                        cx.change(path, key, Action::Rewritten, detail);
                        out.insert(new_key.to_owned(), value);
                    }
                    Verdict::Refuse(reason) => cx.refuse(path, key, reason),
                }
            }
        }
    }
    rules.finish(&mut out, path, cx);
    Value::Object(out)
}

/// `path` followed by one more reference token, escaped (RFC 6901).
pub(super) fn pointer(path: &str, token: &str) -> String {
    format!("{path}/{}", token.replace('~', "~0").replace('/', "~1"))
}

/// The verdict on an `enum` whose values must be scalars (no provider
/// takes objects or arrays as enum values).
pub(super) fn scalar_enum(value: &Value) -> Verdict {
    match value {
        Value::Array(values) if values.iter().all(|v| !v.is_object() && !v.is_array()) => {
            Verdict::Keep
        }
        _ => Verdict::Refuse("an `enum` of objects or arrays cannot be said".to_owned()),
    }
}

/// A `const` as the one-value `enum` it means.
pub(super) fn const_as_enum(value: &Value) -> Verdict {
    if value.is_object() || value.is_array() {
        return Verdict::Refuse("a `const` object or array cannot be said".to_owned());
    }
    Verdict::Rewrite {
        key: "enum",
        value: Value::Array(vec![value.clone()]),
        detail: "said as a one-value `enum`".to_owned(),
    }
}

/// The `type` of a source subschema, when it names exactly one besides
/// `null`.
pub(super) fn single_type(node: &Map<String, Value>) -> Option<&str> {
    match node.get("type")? {
        Value::String(single) => Some(single),
        Value::Array(types) => {
            let mut non_null = types
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null");
            match (non_null.next(), non_null.next()) {
                (Some(single), None) => Some(single),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The property names listed in `required` of a projected object.
pub(super) fn required_names(out: &Map<String, Value>) -> Vec<String> {
    out.get("required")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// A keyword outside `subset` (the provider's name for it), and what the
/// model loses: a bound the server still enforces, or a default the server
/// still applies.
pub(super) fn outside(subset: &str, key: &str) -> Verdict {
    Verdict::Drop(match key {
        "default" => format!(
            "`default` is not in {subset}; the server still applies it when the argument is absent"
        ),
        "title" | "examples" | "deprecated" | "readOnly" | "writeOnly" | "$comment"
        | "x-mcp-header" => {
            format!("`{key}` is not in {subset} (an annotation, no rule)")
        }
        _ => format!("`{key}` is not in {subset}; the server still enforces it"),
    })
}
