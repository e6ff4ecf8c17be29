//! Canonical JSON for fingerprints and ETags: object keys sorted recursively
//! (by UTF-16 code units, as JavaScript sorts them), compact separators,
//! array order kept, strings escaped as `JSON.stringify` does.

use std::fmt::Write as _;

use serde_json::Value;

pub fn to_string(value: &Value) -> String {
    let mut out = String::with_capacity(256);
    write(&mut out, value);
    out
}

/// Appends the canonical form of `value` to `out`.
pub fn write_to(out: &mut String, value: &Value) {
    write(out, value);
}

fn write(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => write_number(out, number),
        Value::String(text) => write_string(out, text),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (index, (key, item)) in entries.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_string(out, key);
                out.push(':');
                write(out, item);
            }
            out.push('}');
        }
    }
}

/// JavaScript has one number type: `1.0` prints as `1`, so an integral float
/// must fingerprint like the integer.
fn write_number(out: &mut String, number: &serde_json::Number) {
    if let Some(float) = number.as_f64().filter(|_| number.is_f64())
        && float.fract() == 0.0
        && float.abs() < 9_007_199_254_740_992.0
    {
        // Integral and exactly representable: print without the fraction.
        let _ = write!(out, "{}", float as i64);
        return;
    }
    let _ = write!(out, "{number}");
}

fn write_string(out: &mut String, text: &str) {
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sorts_keys_recursively_and_keeps_arrays() {
        let value = json!({"b": 1, "a": {"d": [3, 1], "c": null}});
        assert_eq!(to_string(&value), r#"{"a":{"c":null,"d":[3,1]},"b":1}"#);
    }

    #[test]
    fn escapes_like_json_stringify() {
        let value = json!({"s": "q\"\\\n\u{1}é/"});
        assert_eq!(to_string(&value), "{\"s\":\"q\\\"\\\\\\n\\u0001é/\"}");
    }

    #[test]
    fn integral_floats_print_as_integers() {
        assert_eq!(to_string(&json!(1.0)), "1");
        assert_eq!(to_string(&json!(1.5)), "1.5");
        assert_eq!(to_string(&json!(-3)), "-3");
    }
}
