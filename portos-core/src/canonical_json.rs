//! Canonical JSON for fingerprints and ETags: object keys sorted recursively
//! (by UTF-16 code units, as JavaScript sorts them), compact separators,
//! array order kept, strings escaped as `JSON.stringify` does.

use std::fmt::Write as _;

use serde_json::Value;

/// The canonical form of `value`: the bytes a fingerprint or an ETag hashes.
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
            entries.sort_unstable_by(|(a, _), (b, _)| key_order(a, b));
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

/// JavaScript compares strings by UTF-16 code units. For ASCII (nearly every
/// key) that is plain byte order, which is much cheaper to compute.
pub fn key_order(a: &str, b: &str) -> std::cmp::Ordering {
    if a.is_ascii() && b.is_ascii() {
        a.cmp(b)
    } else {
        a.encode_utf16().cmp(b.encode_utf16())
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
    // Copy runs of characters that need no escape in one go.
    let mut run_start = 0;
    // Every byte that needs escaping is ASCII, and ASCII bytes never occur
    // inside a multi-byte UTF-8 sequence, so scanning bytes is exact.
    for (index, byte) in text.bytes().enumerate() {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(&text[run_start..index]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{byte:04x}");
        } else {
            out.push_str(escape);
        }
        run_start = index + 1;
    }
    out.push_str(&text[run_start..]);
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
