//! Strict reading of one augment operation's free-form `args` object: the
//! schema bounds its shape (keys ≤ 80 characters), each verb names the keys
//! and types it takes here, and a number out of range is clamped with a note
//! (the operation is then "rewritten", not refused).

use serde_json::{Map, Value};

/// Why an operation is refused; shown to the caller as is.
pub type Refusal = String;

/// One operation's arguments, and the notes of what was rewritten.
#[derive(Debug)]
pub struct OpArgs<'a> {
    map: &'a Map<String, Value>,
    pub rewrites: Vec<String>,
}

impl<'a> OpArgs<'a> {
    /// Refuses keys the verb does not take.
    pub fn new(map: &'a Map<String, Value>, allowed: &[&str]) -> Result<OpArgs<'a>, Refusal> {
        if let Some(unknown) = map.keys().find(|key| !allowed.contains(&key.as_str())) {
            return Err(format!(
                "unknown argument '{unknown}' (this verb takes: {})",
                allowed.join(", ")
            ));
        }
        Ok(OpArgs {
            map,
            rewrites: Vec::new(),
        })
    }

    pub fn has(&self, key: &str) -> bool {
        self.map.get(key).is_some_and(|value| !value.is_null())
    }

    pub fn raw(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    /// A trimmed, non-empty string of at most `max` characters.
    pub fn string(&self, key: &str, max: usize) -> Result<Option<String>, Refusal> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => {
                let text = text.trim();
                if text.is_empty() {
                    return Err(format!("'{key}' must not be empty"));
                }
                if text.chars().count() > max {
                    return Err(format!("'{key}' is longer than {max} characters"));
                }
                Ok(Some(text.to_owned()))
            }
            Some(_) => Err(format!("'{key}' must be a string")),
        }
    }

    pub fn required_string(&self, key: &str, max: usize) -> Result<String, Refusal> {
        self.string(key, max)?
            .ok_or_else(|| format!("'{key}' is required"))
    }

    /// A string that must be one of `choices`.
    pub fn choice(&self, key: &str, choices: &[&str]) -> Result<Option<String>, Refusal> {
        let Some(value) = self.string(key, 80)? else {
            return Ok(None);
        };
        if choices.contains(&value.as_str()) {
            Ok(Some(value))
        } else {
            Err(format!("'{key}' must be one of {}", choices.join(", ")))
        }
    }

    /// An id: 1..64 of letters, digits, `_` and `-`.
    pub fn id(&self, key: &str) -> Result<Option<String>, Refusal> {
        let Some(id) = self.string(key, 64)? else {
            return Ok(None);
        };
        if id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            Ok(Some(id))
        } else {
            Err(format!(
                "'{key}' may hold only letters, digits, '_' and '-'"
            ))
        }
    }

    /// A `#rrggbb` colour.
    pub fn color(&self, key: &str) -> Result<Option<String>, Refusal> {
        let Some(color) = self.string(key, 7)? else {
            return Ok(None);
        };
        let hex = color.strip_prefix('#').unwrap_or("");
        if hex.len() == 6 && hex.chars().all(|c| c.is_ascii_hexdigit()) {
            Ok(Some(color.to_ascii_lowercase()))
        } else {
            Err(format!("'{key}' must be a colour like #4a7c3a"))
        }
    }

    /// A finite number clamped into `min..=max` (a clamp is noted).
    pub fn number(&mut self, key: &str, min: f64, max: f64) -> Result<Option<f64>, Refusal> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(number)) => {
                let Some(value) = number.as_f64().filter(|v| v.is_finite()) else {
                    return Err(format!("'{key}' must be a finite number"));
                };
                let clamped = value.clamp(min, max);
                if clamped != value {
                    self.rewrites
                        .push(format!("{key} {value} clamped to {clamped}"));
                }
                Ok(Some(clamped))
            }
            Some(_) => Err(format!("'{key}' must be a number")),
        }
    }

    /// A whole number (no clamping).
    pub fn integer(&self, key: &str) -> Result<Option<i64>, Refusal> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value
                .as_i64()
                .map(Some)
                .ok_or_else(|| format!("'{key}' must be a whole number")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn unknown_keys_are_refused() {
        let args = map(json!({"kind": "tree", "colour": "red"}));
        let error = OpArgs::new(&args, &["kind"]).expect_err("refused");
        assert!(error.contains("'colour'"), "{error}");
    }

    #[test]
    fn numbers_clamp_with_a_note() {
        let args = map(json!({"x": 900, "y": 3}));
        let mut reader = OpArgs::new(&args, &["x", "y"]).expect("keys fit");
        assert_eq!(reader.number("x", -500.0, 500.0), Ok(Some(500.0)));
        assert_eq!(reader.number("y", 0.0, 10.0), Ok(Some(3.0)));
        assert_eq!(reader.rewrites, vec!["x 900 clamped to 500".to_owned()]);
    }

    #[test]
    fn ids_and_colours() {
        let args = map(json!({"id": "a b", "color": "#ABCDEF", "bad": "red"}));
        let reader = OpArgs::new(&args, &["id", "color", "bad"]).expect("keys fit");
        assert!(reader.id("id").is_err());
        assert_eq!(reader.color("color"), Ok(Some("#abcdef".to_owned())));
        assert!(reader.color("bad").is_err());
    }
}
