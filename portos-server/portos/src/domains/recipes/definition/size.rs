//! The size guard (docs/reference.md#recipe-definition), run on the raw JSON
//! before any typed parsing so a hostile definition costs a bounded walk and
//! nothing more: at most 4000 JSON nodes, 16 levels deep, 64,000 characters of
//! strings in all and 12,000 in any one.
//!
//! Counting, decided here: every JSON value is a node (objects and arrays
//! included, keys not); the root is at depth 1; object keys are strings
//! like any other, so they count toward both string limits (a definition
//! can hide text in keys as well as in values). Characters are Unicode
//! scalar values.

use serde_json::Value;

use crate::domains::recipes::error::RecipeValidationError;

pub const MAX_NODES: usize = 4000;
pub const MAX_DEPTH: usize = 16;
pub const MAX_TOTAL_STRING_CHARS: usize = 64_000;
pub const MAX_STRING_CHARS: usize = 12_000;

/// Refuses a definition past any of the limits. Iterative, and it stops at
/// the first limit passed, so neither depth nor size can make it costly.
pub fn check(definition: &Value) -> Result<(), RecipeValidationError> {
    let mut nodes = 0usize;
    let mut total_chars = 0usize;
    let mut pending: Vec<(&Value, usize)> = vec![(definition, 1)];
    let mut count_string = |text: &str| -> Result<(), RecipeValidationError> {
        let chars = text.chars().count();
        if chars > MAX_STRING_CHARS {
            return Err(RecipeValidationError::new(format!(
                "The definition has a string of {chars} characters; at most {MAX_STRING_CHARS}"
            )));
        }
        total_chars += chars;
        if total_chars > MAX_TOTAL_STRING_CHARS {
            return Err(RecipeValidationError::new(format!(
                "The definition's strings add up to more than {MAX_TOTAL_STRING_CHARS} characters"
            )));
        }
        Ok(())
    };
    while let Some((value, depth)) = pending.pop() {
        nodes += 1;
        if nodes > MAX_NODES {
            return Err(RecipeValidationError::new(format!(
                "The definition has more than {MAX_NODES} JSON values"
            )));
        }
        if depth > MAX_DEPTH {
            return Err(RecipeValidationError::new(format!(
                "The definition nests deeper than {MAX_DEPTH} levels"
            )));
        }
        match value {
            Value::String(text) => count_string(text)?,
            Value::Array(items) => pending.extend(items.iter().map(|item| (item, depth + 1))),
            Value::Object(map) => {
                for (key, item) in map {
                    count_string(key)?;
                    pending.push((item, depth + 1));
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::*;

    fn nested(depth: usize) -> Value {
        let mut value = json!(0);
        for _ in 1..depth {
            value = json!([value]);
        }
        value
    }

    #[test]
    fn depth_at_the_limit_passes_and_one_more_is_refused() {
        assert!(check(&nested(MAX_DEPTH)).is_ok());
        let error = check(&nested(MAX_DEPTH + 1)).expect_err("too deep");
        assert!(error.message.contains("deeper than 16"), "{error:?}");
    }

    #[test]
    fn nodes_at_the_limit_pass_and_one_more_is_refused() {
        // The array itself is one node.
        assert!(check(&Value::Array(vec![json!(1); MAX_NODES - 1])).is_ok());
        let error = check(&Value::Array(vec![json!(1); MAX_NODES])).expect_err("too many");
        assert!(error.message.contains("4000"), "{error:?}");
    }

    #[test]
    fn one_string_at_the_limit_passes_and_one_more_character_is_refused() {
        assert!(check(&json!("é".repeat(MAX_STRING_CHARS))).is_ok());
        let error = check(&json!("x".repeat(MAX_STRING_CHARS + 1))).expect_err("too long");
        assert!(error.message.contains("12001"), "{error:?}");
    }

    #[test]
    fn keys_count_as_strings() {
        let mut map = Map::new();
        map.insert("k".repeat(MAX_STRING_CHARS + 1), json!(1));
        assert!(check(&Value::Object(map)).is_err());
    }

    #[test]
    fn the_total_of_strings_is_bounded() {
        let at_limit: Vec<Value> = (0..8).map(|_| json!("x".repeat(8000))).collect();
        assert!(check(&Value::Array(at_limit)).is_ok());
        let past: Vec<Value> = (0..8)
            .map(|i| json!("x".repeat(if i == 0 { 8001 } else { 8000 })))
            .collect();
        let error = check(&Value::Array(past)).expect_err("too much text");
        assert!(error.message.contains("64000"), "{error:?}");
    }
}
