//! Anthropic strict tool use (`strict: true` on the tool).
//!
//! The subset, as Anthropic documents it ("JSON Schema limitations" of the
//! Structured outputs page, platform.claude.com/docs/en/build-with-claude/
//! structured-outputs, shared by strict tool use; read 2026-12-03): every
//! basic type; `enum` of strings, numbers, booleans or nulls; `const`;
//! `anyOf` and `allOf`; `default`; `required`; `additionalProperties` set to
//! `false`; string formats date-time, time, date, duration, email, hostname,
//! uri, ipv4, ipv6, uuid; array `minItems` of 0 or 1 only; `pattern` with
//! simple regular expressions. Numerical constraints (`minimum`, `maximum`,
//! `multipleOf`), string lengths and other array constraints are not
//! supported and are dropped here. Optional properties stay optional: the
//! subset allows them (each one costs grammar size, and a `null` branch
//! would cost more as a union).

use serde_json::{Map, Value};

use super::pattern;
use super::walk::{self, Cx, Rules, Verdict};

/// The string formats Anthropic's strict subset takes.
const FORMATS: [&str; 10] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

pub(super) fn project(schema: &Value, cx: &mut Cx) -> Option<Value> {
    Some(walk::node(&AnthropicStrict, schema, "", cx))
}

struct AnthropicStrict;

impl Rules for AnthropicStrict {
    const ALL_OF: bool = true;

    fn keyword(&self, key: &str, value: &Value, _node: &Map<String, Value>) -> Verdict {
        match key {
            "type" | "description" | "required" | "additionalProperties" | "const"
            | "default" => Verdict::Keep,
            "enum" => walk::scalar_enum(value),
            "format" if value.as_str().is_some_and(|f| FORMATS.contains(&f)) => Verdict::Keep,
            "format" => Verdict::Drop(format!(
                "format {value} is not one Anthropic's strict subset takes"
            )),
            "pattern" if value.as_str().is_some_and(pattern::is_simple) => Verdict::Keep,
            "pattern" => Verdict::Drop(
                "the pattern uses regex features outside Anthropic's documented set; the server still enforces it"
                    .to_owned(),
            ),
            "minItems" => match value.as_u64() {
                Some(0 | 1) => Verdict::Keep,
                Some(n) => Verdict::Rewrite {
                    key: "minItems",
                    value: Value::from(1),
                    detail: format!(
                        "minItems {n} said as 1 (Anthropic takes only 0 and 1); the server still enforces {n}"
                    ),
                },
                None => Verdict::Drop("a non-integer minItems".to_owned()),
            },
            _ => walk::outside("Anthropic's strict subset", key),
        }
    }

    fn finish(&self, _out: &mut Map<String, Value>, _path: &str, _cx: &mut Cx) {}
}
