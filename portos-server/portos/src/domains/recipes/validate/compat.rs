//! Whether a value described by one schema (a recipe parameter, a field of
//! a step's result) can fill a tool argument described by another.
//! Conservative by design: it refuses only what can never fit (no type in
//! common, enums with no value in common, a required field the value never
//! has, a field a closed argument never accepts) and accepts whatever it
//! cannot judge — the registry validates every child call's arguments when
//! the recipe runs, so a miss here fails closed there.

use serde_json::{Map, Value};

/// How deep nested arrays and objects are compared.
const MAX_DEPTH: usize = 16;

/// `Err` says why `source` can never fill `target`.
pub fn compatible(source: &Value, target: &Value) -> Result<(), String> {
    check(source, target, "", 0)
}

fn check(source: &Value, target: &Value, at: &str, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let (Value::Object(s), Value::Object(t)) = (source, target) else {
        return Ok(());
    };
    // Unions: some branch of the value fits some branch of the argument.
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = t.get(union) {
            let mut first_error = None;
            for branch in branches {
                match check(source, branch, at, depth + 1) {
                    Ok(()) => return Ok(()),
                    Err(why) => {
                        first_error.get_or_insert(why);
                    }
                }
            }
            return first_error.map_or(Ok(()), Err);
        }
        if let Some(Value::Array(branches)) = s.get(union) {
            let mut first_error = None;
            for branch in branches {
                match check(branch, target, at, depth + 1) {
                    Ok(()) => return Ok(()),
                    Err(why) => {
                        first_error.get_or_insert(why);
                    }
                }
            }
            return first_error.map_or(Ok(()), Err);
        }
    }
    let source_types = types_of(source);
    let target_types = types_of(target);
    if let (Some(st), Some(tt)) = (&source_types, &target_types)
        && !st.iter().any(|s| accepts(tt, s))
    {
        return Err(format!(
            "{}a {} value cannot fill a {} argument",
            here(at),
            st.join("/"),
            tt.join("/")
        ));
    }
    check_enums(s, t, target_types.as_deref(), at)?;
    let both = |kind: &str| {
        source_types.as_ref().is_some_and(|st| st.contains(&kind))
            && target_types.as_ref().is_some_and(|tt| tt.contains(&kind))
    };
    if both("array")
        && let (Some(si), Some(ti)) = (s.get("items"), t.get("items"))
    {
        check(si, ti, &format!("{at}[]"), depth + 1)?;
    }
    if both("object") {
        check_objects(s, t, at, depth)?;
    }
    Ok(())
}

fn check_enums(
    s: &Map<String, Value>,
    t: &Map<String, Value>,
    target_types: Option<&[&'static str]>,
    at: &str,
) -> Result<(), String> {
    let source_values = listed_values(s);
    match (source_values, listed_values(t)) {
        (Some(sv), Some(tv)) if !sv.iter().any(|v| tv.iter().any(|w| same(v, w))) => Err(format!(
            "{}none of the values {} is one the argument accepts ({})",
            here(at),
            Value::Array(sv.to_vec()),
            Value::Array(tv.to_vec())
        )),
        (Some(sv), None) => match target_types {
            Some(tt) if !sv.iter().any(|v| accepts(tt, json_type(v))) => Err(format!(
                "{}none of the values {} is a {}",
                here(at),
                Value::Array(sv.to_vec()),
                tt.join("/")
            )),
            _ => Ok(()),
        },
        _ => Ok(()),
    }
}

fn check_objects(
    s: &Map<String, Value>,
    t: &Map<String, Value>,
    at: &str,
    depth: usize,
) -> Result<(), String> {
    let empty = Map::new();
    let s_props = s
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let t_props = t
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let source_closed = s.get("additionalProperties") == Some(&Value::Bool(false));
    let target_closed = t.get("additionalProperties") == Some(&Value::Bool(false));
    for name in names(t.get("required")) {
        if source_closed && !s_props.contains_key(name) {
            return Err(format!(
                "{}the argument needs the field {name:?}, which the value never has",
                here(at)
            ));
        }
    }
    for name in names(s.get("required")) {
        if target_closed && !t_props.contains_key(name) {
            return Err(format!(
                "{}the argument does not accept the field {name:?}, which the value always has",
                here(at)
            ));
        }
    }
    for (name, t_prop) in t_props {
        if let Some(s_prop) = s_props.get(name) {
            check(s_prop, t_prop, &format!("{at}.{name}"), depth + 1)?;
        }
    }
    Ok(())
}

fn here(at: &str) -> String {
    if at.is_empty() {
        String::new()
    } else {
        format!("at {}: ", at.trim_start_matches('.'))
    }
}

/// The JSON types a schema allows, when it says (`type` as a string or a
/// list); `None`: it does not say.
pub fn types_of(schema: &Value) -> Option<Vec<&'static str>> {
    const TYPES: [&str; 7] = [
        "string", "number", "integer", "boolean", "object", "array", "null",
    ];
    let known = |name: &str| TYPES.iter().copied().find(|t| *t == name);
    match schema.get("type")? {
        Value::String(name) => known(name).map(|t| vec![t]),
        Value::Array(names) => {
            let list: Vec<&'static str> = names
                .iter()
                .filter_map(Value::as_str)
                .filter_map(known)
                .collect();
            (!list.is_empty()).then_some(list)
        }
        _ => None,
    }
}

/// Whether some value of JSON type `kind` satisfies `types` (an integer is
/// a number; a number may be an integer).
fn accepts(types: &[&str], kind: &str) -> bool {
    types.iter().any(|t| {
        *t == kind || (*t == "number" && kind == "integer") || (*t == "integer" && kind == "number")
    })
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `enum`, or `const` as a list of one.
fn listed_values(map: &Map<String, Value>) -> Option<&[Value]> {
    match (map.get("enum"), map.get("const")) {
        (Some(Value::Array(values)), _) => Some(values),
        (_, Some(value)) => Some(std::slice::from_ref(value)),
        _ => None,
    }
}

/// JSON equality with numbers compared by value (`1` is `1.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn names(value: Option<&Value>) -> impl Iterator<Item = &str> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::compatible;

    #[test]
    fn types_must_overlap_and_integer_satisfies_number() {
        assert!(compatible(&json!({"type": "integer"}), &json!({"type": "number"})).is_ok());
        assert!(compatible(&json!({"type": "number"}), &json!({"type": "integer"})).is_ok());
        assert!(
            compatible(
                &json!({"type": ["string", "null"]}),
                &json!({"type": "string"})
            )
            .is_ok()
        );
        let error = compatible(&json!({"type": "string"}), &json!({"type": "integer"}))
            .expect_err("no overlap");
        assert!(
            error.contains("string value cannot fill a integer"),
            "{error}"
        );
        assert!(
            compatible(&json!({}), &json!({"type": "integer"})).is_ok(),
            "unknown: accepted"
        );
    }

    #[test]
    fn enums_must_overlap() {
        let target = json!({"type": "string", "enum": ["a", "b"]});
        assert!(compatible(&json!({"type": "string", "enum": ["b", "c"]}), &target).is_ok());
        assert!(compatible(&json!({"type": "string", "enum": ["c"]}), &target).is_err());
        assert!(compatible(&json!({"type": "string"}), &target).is_ok());
        assert!(
            compatible(
                &json!({"type": "integer", "enum": [1]}),
                &json!({"type": "number", "enum": [1.0]})
            )
            .is_ok()
        );
        assert!(compatible(&json!({"enum": ["x"]}), &json!({"type": "integer"})).is_err());
    }

    #[test]
    fn arrays_and_objects_are_compared_inside() {
        let target = json!({"type": "array", "items": {"type": "integer"}});
        assert!(
            compatible(
                &json!({"type": "array", "items": {"type": "number"}}),
                &target
            )
            .is_ok()
        );
        assert!(
            compatible(
                &json!({"type": "array", "items": {"type": "string"}}),
                &target
            )
            .is_err()
        );
        let target = json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
            "required": ["a"],
            "additionalProperties": false,
        });
        let fits = json!({
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "required": ["a"],
            "additionalProperties": false,
        });
        assert!(compatible(&fits, &target).is_ok());
        let lacks = json!({"type": "object", "properties": {}, "additionalProperties": false});
        assert!(
            compatible(&lacks, &target)
                .expect_err("needs a")
                .contains("\"a\"")
        );
        let extra = json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "c": {"type": "string"}},
            "required": ["a", "c"],
            "additionalProperties": false,
        });
        assert!(
            compatible(&extra, &target)
                .expect_err("c")
                .contains("\"c\"")
        );
        let wrong = json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "required": ["a"],
            "additionalProperties": false,
        });
        assert!(compatible(&wrong, &target).expect_err("b").contains("at b"));
    }

    #[test]
    fn unions_fit_when_a_branch_fits() {
        let target = json!({"anyOf": [{"type": "string"}, {"type": "integer"}]});
        assert!(compatible(&json!({"type": "integer"}), &target).is_ok());
        assert!(compatible(&json!({"type": "boolean"}), &target).is_err());
    }
}
