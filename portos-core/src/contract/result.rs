//! The normalized `portos_tool_result` envelope (BEHAVIOUR §1.4).

use serde::Serialize;
use std::sync::Arc;

use serde_json::Value;

use super::SCHEMA_VERSION;

/// The longest `error` string a result carries.
pub const ERROR_MAX_CHARS: usize = 500;

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ToolState {
    Completed,
    Failed,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub request_id: String,
    pub name: String,
    pub version: u32,
    pub state: ToolState,
    pub duplicate: bool,
    /// Shared, not copied: a replay hands out the retained value itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Arc<Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ToolResult {
    /// Normalizes what an adapter returned: a non-object is an invalid result;
    /// `ok: false` or `state: "failed"` make the call failed (keeping `result`).
    pub fn from_adapter_value(request_id: String, name: String, value: Value) -> ToolResult {
        let (state, result, error) = match value {
            Value::Object(object) => {
                let failed = object.get("ok") == Some(&Value::Bool(false))
                    || object.get("state").and_then(Value::as_str) == Some("failed");
                if failed {
                    let message = ["error", "summary"]
                        .into_iter()
                        .filter_map(|key| object.get(key))
                        .find(|v| !v.is_null() && *v != &Value::String(String::new()))
                        .map(stringify)
                        .unwrap_or_else(|| "Tool adapter reported failure".to_owned());
                    (
                        ToolState::Failed,
                        Some(Arc::new(Value::Object(object))),
                        Some(bound(&message)),
                    )
                } else {
                    (
                        ToolState::Completed,
                        Some(Arc::new(Value::Object(object))),
                        None,
                    )
                }
            }
            _ => (
                ToolState::Failed,
                None,
                Some("Tool adapter returned an invalid result".to_owned()),
            ),
        };
        ToolResult {
            kind: "portos_tool_result",
            request_id,
            name,
            version: SCHEMA_VERSION,
            state,
            duplicate: false,
            result,
            error,
        }
    }

    /// The adapter failed outright (an `Err`, a panic or a cancellation).
    pub fn from_adapter_error(request_id: String, name: String, message: &str) -> ToolResult {
        let message = if message.trim().is_empty() {
            "Tool execution failed"
        } else {
            message
        };
        ToolResult {
            kind: "portos_tool_result",
            request_id,
            name,
            version: SCHEMA_VERSION,
            state: ToolState::Failed,
            duplicate: false,
            result: None,
            error: Some(bound(message)),
        }
    }

    pub fn is_completed(&self) -> bool {
        self.state == ToolState::Completed
    }
}

fn stringify(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Cuts to at most 500 characters (not bytes), on a character boundary.
pub(crate) fn bound(text: &str) -> String {
    match text.char_indices().nth(ERROR_MAX_CHARS) {
        Some((index, _)) => text[..index].to_owned(),
        None => text.to_owned(),
    }
}

/// The normalized envelope as it is serialized, for the documents.
impl schemars::JsonSchema for ToolResult {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ToolResult".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "The normalized `portos_tool_result` envelope.",
            "type": "object",
            "required": ["type", "requestId", "name", "version", "state", "duplicate"],
            "properties": {
                "type": { "type": "string", "enum": ["portos_tool_result"] },
                "requestId": { "type": "string" },
                "name": { "description": "Always the canonical name.", "type": "string" },
                "version": { "type": "integer" },
                "state": { "type": "string", "enum": ["completed", "failed"] },
                "duplicate": { "description": "A replay of a retained result.", "type": "boolean" },
                "result": {
                    "description": "What the adapter returned (absent when it failed outright).",
                    "type": "object",
                    "additionalProperties": true,
                },
                "error": { "description": "At most 500 characters, when failed.", "type": "string" },
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn normalize(value: Value) -> ToolResult {
        ToolResult::from_adapter_value("r".into(), "t".into(), value)
    }

    #[test]
    fn ok_false_fails_with_error_then_summary() {
        let r = normalize(json!({"ok": false, "summary": "No goal matched."}));
        assert_eq!(r.state, ToolState::Failed);
        assert_eq!(r.error.as_deref(), Some("No goal matched."));
        assert!(r.result.is_some());
        let r = normalize(json!({"ok": true, "state": "failed", "error": "boom", "summary": "s"}));
        assert_eq!(r.error.as_deref(), Some("boom"));
        let r = normalize(json!({"ok": false}));
        assert_eq!(r.error.as_deref(), Some("Tool adapter reported failure"));
    }

    #[test]
    fn non_object_is_invalid() {
        let r = normalize(json!([1, 2]));
        assert_eq!(r.state, ToolState::Failed);
        assert_eq!(
            r.error.as_deref(),
            Some("Tool adapter returned an invalid result")
        );
        assert!(r.result.is_none());
    }

    #[test]
    fn errors_are_bounded_in_characters() {
        let long = "é".repeat(600);
        let r = ToolResult::from_adapter_error("r".into(), "t".into(), &long);
        assert_eq!(r.error.as_deref().map(|e| e.chars().count()), Some(500));
        let r = ToolResult::from_adapter_error("r".into(), "t".into(), "  ");
        assert_eq!(r.error.as_deref(), Some("Tool execution failed"));
    }
}
