//! Following a step binding's path into the result schema a tool declares.
//! Result schemas are what schemars writes for the adapter's output type:
//! a struct's `properties` are every field it serializes, so an object
//! with properties and no `additionalProperties` (or `false`) is taken as
//! closed, and a key it does not declare is refused. Anything else (a map,
//! `serde_json::Value`, a `$ref` not found, keywords this does not model)
//! is open: the path is checked when the recipe runs.

use serde_json::Value;

use crate::domains::recipes::definition::Segment;

/// What a path leads to.
#[derive(Debug, PartialEq)]
pub enum Lookup<'s> {
    /// The schema of the value the path reads.
    Declared(&'s Value),
    /// Somewhere on the way the schema is open: checked at run time.
    Deferred,
    /// The schema is closed and does not have the path.
    Missing(String),
}

/// How many `$ref`s one lookup follows (recursive types loop).
const MAX_REFS: usize = 32;

pub fn lookup<'s>(root: &'s Value, path: &[Segment]) -> Lookup<'s> {
    let mut refs = 0;
    let mut here = root;
    for (position, segment) in path.iter().enumerate() {
        here = match resolve(root, here, &mut refs) {
            Some(schema) => schema,
            None => return Lookup::Deferred,
        };
        match step(root, here, segment, &mut refs) {
            Lookup::Declared(next) => here = next,
            Lookup::Deferred => return Lookup::Deferred,
            Lookup::Missing(why) => {
                let walked: Vec<String> =
                    path[..position].iter().map(ToString::to_string).collect();
                return Lookup::Missing(if walked.is_empty() {
                    why
                } else {
                    format!("{why} (after [{}])", walked.join(", "))
                });
            }
        }
    }
    match resolve(root, here, &mut refs) {
        Some(schema) => Lookup::Declared(schema),
        None => Lookup::Deferred,
    }
}

/// One segment into `schema`.
fn step<'s>(root: &'s Value, schema: &'s Value, segment: &Segment, refs: &mut usize) -> Lookup<'s> {
    let Value::Object(map) = schema else {
        // `true` (anything) or `false`: nothing declared.
        return Lookup::Deferred;
    };
    // A union: the path is declared if some branch declares it; missing
    // only if every branch is closed and none has it.
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(union) {
            let mut declared: Vec<&Value> = Vec::new();
            let mut missing = None;
            for branch in branches {
                let Some(branch) = resolve(root, branch, refs) else {
                    return Lookup::Deferred;
                };
                match step(root, branch, segment, refs) {
                    Lookup::Deferred => return Lookup::Deferred,
                    Lookup::Declared(next) => declared.push(next),
                    Lookup::Missing(why) => missing = Some(why),
                }
            }
            return match declared.split_first() {
                // Branches that declare it alike (often one: an answer or
                // a refusal) say what it is; unlike ones say nothing.
                Some((first, rest)) if rest.iter().all(|other| other == first) => {
                    Lookup::Declared(first)
                }
                Some(_) => Lookup::Deferred,
                None => missing.map_or(Lookup::Deferred, Lookup::Missing),
            };
        }
    }
    let types = super::compat::types_of(schema);
    match segment {
        Segment::Key(key) => {
            if types.as_ref().is_some_and(|t| !t.contains(&"object")) {
                return Lookup::Missing(format!(
                    "the result has no key {key:?}: it is not an object there"
                ));
            }
            let declared = map
                .get("properties")
                .and_then(Value::as_object)
                .and_then(|properties| properties.get(key));
            match declared {
                Some(next) => Lookup::Declared(next),
                None if is_closed(map) => {
                    Lookup::Missing(format!("the result declares no field {key:?}"))
                }
                None => Lookup::Deferred,
            }
        }
        Segment::Index(index) => {
            if types.as_ref().is_some_and(|t| !t.contains(&"array")) {
                return Lookup::Missing(format!(
                    "the result has no index {index}: it is not an array there"
                ));
            }
            match map.get("items") {
                Some(items) if items.is_object() => Lookup::Declared(items),
                _ => Lookup::Deferred,
            }
        }
    }
}

/// An object schema with declared properties and no room for more.
fn is_closed(map: &serde_json::Map<String, Value>) -> bool {
    map.get("properties").is_some_and(Value::is_object)
        && matches!(
            map.get("additionalProperties"),
            None | Some(Value::Bool(false))
        )
        && !map.contains_key("patternProperties")
        && !map.contains_key("allOf")
        && !map.contains_key("$ref")
}

/// Follows `$ref`s into the root's `$defs`; `None` when one cannot be
/// followed (the lookup is then deferred).
fn resolve<'s>(root: &'s Value, mut schema: &'s Value, refs: &mut usize) -> Option<&'s Value> {
    while let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        *refs += 1;
        if *refs > MAX_REFS {
            return None;
        }
        let name = reference.strip_prefix("#/$defs/")?;
        schema = root.get("$defs")?.get(name)?;
    }
    Some(schema)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn key(k: &str) -> Segment {
        Segment::Key(k.to_owned())
    }

    #[test]
    fn declared_fields_of_a_struct_are_followed_and_others_refused() {
        let schema = json!({
            "type": "object",
            "properties": {
                "items": { "type": "array", "items": {
                    "type": "object", "properties": { "title": { "type": "string" } }
                } },
                "extra": { "type": "object", "additionalProperties": true },
            },
        });
        assert_eq!(
            lookup(&schema, &[key("items"), Segment::Index(0), key("title")]),
            Lookup::Declared(&json!({ "type": "string" }))
        );
        assert!(matches!(
            lookup(&schema, &[key("nope")]),
            Lookup::Missing(_)
        ));
        assert!(matches!(
            lookup(&schema, &[key("items"), key("title")]),
            Lookup::Missing(_)
        ));
        assert_eq!(
            lookup(&schema, &[key("extra"), key("any")]),
            Lookup::Deferred
        );
        assert_eq!(lookup(&schema, &[]), Lookup::Declared(&schema));
    }

    #[test]
    fn unions_and_refs() {
        let schema = json!({
            "anyOf": [
                { "type": "object", "properties": { "a": { "type": "integer" } } },
                { "type": "object", "properties": { "ok": { "type": "boolean" } } },
            ],
            "$defs": { "Node": { "type": "object", "properties": { "next": { "$ref": "#/$defs/Node" } } } },
        });
        assert_eq!(
            lookup(&schema, &[key("a")]),
            Lookup::Declared(&json!({ "type": "integer" }))
        );
        assert!(matches!(lookup(&schema, &[key("zzz")]), Lookup::Missing(_)));
        let recursive = json!({ "$ref": "#/$defs/Node", "$defs": schema["$defs"].clone() });
        let long: Vec<Segment> = (0..8).map(|_| key("next")).collect();
        assert!(matches!(lookup(&recursive, &long), Lookup::Declared(_)));
        let looping = json!({ "$ref": "#", "$defs": {} });
        assert_eq!(lookup(&looping, &[key("a")]), Lookup::Deferred);
    }
}
