//! The normalized `portos_tool_result` envelope
//! (docs/reference.md#result-envelope).

use serde::{Deserialize, Serialize};
use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

use super::SCHEMA_VERSION;
use super::output::OutputJson;

/// The longest `error` string a result carries.
pub(super) const ERROR_MAX_CHARS: usize = 500;

/// A result's `state`: `completed` when the adapter ran and answered an
/// object that did not say it failed; `failed` when it returned an error,
/// panicked, was cancelled, or answered a non-object, `ok: false` or
/// `state: "failed"`.
// `description = ""` keeps this doc out of the derived JSON Schema (the
// event documents carry it), which stays as it was.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
#[schemars(description = "")]
pub enum ToolState {
    // Not doc comments: on a unit variant they would turn the derived JSON
    // Schema's `enum` into a `oneOf` of described constants. The enum's doc
    // says what each means.
    #[allow(missing_docs)]
    Completed,
    #[allow(missing_docs)]
    Failed,
}

/// The `portos_tool_result` envelope: what a call that ran answers, and what
/// a replay of it answers again.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// `type`: always `portos_tool_result`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// `requestId`: the call's.
    pub request_id: String,
    /// `name`: the tool's canonical name, whatever name the call used.
    pub name: String,
    /// `version`: the contract's schema version (1).
    pub version: u32,
    /// `state`: `completed` or `failed`.
    pub state: ToolState,
    /// `duplicate`: this answer replays a result retained under the `requestId`
    /// instead of running the adapter again.
    pub duplicate: bool,
    /// Shared, not copied: a replay hands out the retained output itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Arc<OutputJson>>,
    /// `error`: why the call failed, at most 500 characters;
    /// absent when it completed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ToolResult {
    /// Normalizes what an adapter returned: a non-object is an invalid result;
    /// `ok: false` or `state: "failed"` make the call failed (keeping `result`).
    pub fn from_adapter_output(request_id: String, name: String, output: OutputJson) -> ToolResult {
        let (state, result, error) = match verdict(output) {
            Verdict::Completed(output) => (ToolState::Completed, Some(Arc::new(output)), None),
            Verdict::Failed(output, message) => (
                ToolState::Failed,
                Some(Arc::new(output)),
                Some(bound(&message)),
            ),
            Verdict::NotObject => (
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

    /// [`ToolResult::from_adapter_output`] of a tree already built.
    pub fn from_adapter_value(request_id: String, name: String, value: Value) -> ToolResult {
        match OutputJson::from_value(value) {
            Ok(output) => ToolResult::from_adapter_output(request_id, name, output),
            Err(error) => ToolResult::from_adapter_error(
                request_id,
                name,
                &format!("Tool output could not be serialized: {error}"),
            ),
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

    /// Whether the state is `completed`.
    pub fn is_completed(&self) -> bool {
        self.state == ToolState::Completed
    }
}

/// A call's result as the registry retains it (shared with the store and
/// any concurrent duplicate), with whether this call was a replay: written
/// out as the envelope this call answers, without copying the result.
#[derive(Clone, Debug)]
pub struct CallAnswer {
    result: Arc<ToolResult>,
    duplicate: bool,
}

impl CallAnswer {
    /// The answer of `result`, marked as a replay when `duplicate`.
    pub fn new(result: Arc<ToolResult>, duplicate: bool) -> CallAnswer {
        CallAnswer { result, duplicate }
    }

    /// The retained result (its own `duplicate` is always false).
    pub fn retained(&self) -> &ToolResult {
        &self.result
    }

    /// Whether this call replayed a retained result (`duplicate: true`).
    pub fn duplicate(&self) -> bool {
        self.duplicate
    }

    /// Whether the result's state is `completed`.
    pub fn is_completed(&self) -> bool {
        self.result.is_completed()
    }

    /// The envelope as an owned value (copied unless nothing else holds it).
    pub fn into_result(self) -> ToolResult {
        let mut result = Arc::unwrap_or_clone(self.result);
        result.duplicate = self.duplicate;
        result
    }
}

/// The same JSON as `into_result()` would write.
impl Serialize for CallAnswer {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let result = &*self.result;
        let fields = 6 + usize::from(result.result.is_some()) + usize::from(result.error.is_some());
        let mut envelope = serializer.serialize_struct("ToolResult", fields)?;
        envelope.serialize_field("type", result.kind)?;
        envelope.serialize_field("requestId", &result.request_id)?;
        envelope.serialize_field("name", &result.name)?;
        envelope.serialize_field("version", &result.version)?;
        envelope.serialize_field("state", &result.state)?;
        envelope.serialize_field("duplicate", &self.duplicate)?;
        if let Some(output) = &result.result {
            envelope.serialize_field("result", output)?;
        }
        if let Some(error) = &result.error {
            envelope.serialize_field("error", error)?;
        }
        envelope.end()
    }
}

enum Verdict {
    Completed(OutputJson),
    Failed(OutputJson, String),
    NotObject,
}

fn verdict(output: OutputJson) -> Verdict {
    match judge(&output) {
        Judged::Completed => Verdict::Completed(output),
        Judged::Failed(message) => Verdict::Failed(output, message),
        Judged::NotObject => Verdict::NotObject,
        // Judged on the tree, where the last repeat wins as it does for every
        // JSON reader here; the text is rewritten from that tree so the
        // answer says what was judged.
        Judged::RepeatedKey => {
            let tree = output.into_value();
            let judged = judge_tree(&tree);
            match (judged, OutputJson::from_value(tree)) {
                (Judged::Failed(message), Ok(output)) => Verdict::Failed(output, message),
                (Judged::Completed, Ok(output)) => Verdict::Completed(output),
                _ => Verdict::NotObject,
            }
        }
    }
}

enum Judged {
    Completed,
    Failed(String),
    NotObject,
    /// The text names `ok`, `state`, `error` or `summary` twice.
    RepeatedKey,
}

/// Judged from what is at hand, cheapest first: the top-level fields noted
/// while a typed output was written, the tree when one was kept, else the
/// text.
fn judge(output: &OutputJson) -> Judged {
    if output.watched_failed() == Some(false) {
        return Judged::Completed;
    }
    if let Some(tree) = output.built_tree() {
        return judge_tree(tree);
    }
    let text = output.text();
    // Only an object: a derived struct would also read an array by position.
    if !text.trim_start().starts_with('{') {
        return Judged::NotObject;
    }
    if !may_name_a_verdict_key(text) {
        return Judged::Completed;
    }
    match serde_json::from_str::<Head<'_>>(text) {
        Ok(head) => head.judge(),
        Err(_) => Judged::RepeatedKey,
    }
}

/// The four keys normalization reads, borrowed from the output's text: the
/// other keys are skipped without building anything.
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(borrow, default)]
    ok: Option<&'a RawValue>,
    #[serde(borrow, default)]
    state: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    summary: Option<&'a RawValue>,
}

impl Head<'_> {
    fn judge(&self) -> Judged {
        // `null` reads as an absent key (serde's `Option`), as in the tree.
        let failed = self.ok.is_some_and(|ok| ok.get() == "false")
            || self
                .state
                .is_some_and(|state| string_of(state).as_deref() == Some("failed"));
        if !failed {
            return Judged::Completed;
        }
        let message = [self.error, self.summary]
            .into_iter()
            .flatten()
            .find(|raw| raw.get() != r#""""#)
            .map_or_else(
                || FAILED_WITHOUT_MESSAGE.to_owned(),
                |raw| string_of(raw).unwrap_or_else(|| raw.get().to_owned()),
            );
        Judged::Failed(message)
    }
}

fn judge_tree(value: &Value) -> Judged {
    let Value::Object(object) = value else {
        return Judged::NotObject;
    };
    let failed = object.get("ok") == Some(&Value::Bool(false))
        || object.get("state").and_then(Value::as_str) == Some("failed");
    if !failed {
        return Judged::Completed;
    }
    let message = ["error", "summary"]
        .into_iter()
        .filter_map(|key| object.get(key))
        .find(|v| !v.is_null() && *v != &Value::String(String::new()))
        .map_or_else(|| FAILED_WITHOUT_MESSAGE.to_owned(), stringify);
    Judged::Failed(message)
}

/// Whether the text can have a top-level `ok` or `state` key at all: a
/// substring search (a few hundred bytes, vectorized) spares the parse for
/// the outputs that have neither. A key can only be spelled `"ok"` or
/// `"state"`, or with a `\u` escape; false positives (a nested key, a
/// string value) just take the parse.
fn may_name_a_verdict_key(text: &str) -> bool {
    text.contains("\"ok\"") || text.contains("\"state\"") || text.contains("\\u")
}

const FAILED_WITHOUT_MESSAGE: &str = "Tool adapter reported failure";

/// A JSON string's contents (escapes decoded); `None` for any other value.
fn string_of(raw: &RawValue) -> Option<String> {
    let text = raw.get();
    if !text.starts_with('"') {
        return None;
    }
    serde_json::from_str(text).ok()
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

    /// The text path (a typed output) and the tree path judge alike.
    #[test]
    fn typed_output_is_judged_from_its_text() {
        let by_text = |text: &str| {
            let raw: Box<RawValue> = serde_json::from_str(text).expect("valid JSON");
            let output = OutputJson::to_json(&raw).expect("serializes");
            ToolResult::from_adapter_output("r".into(), "t".into(), output)
        };
        let by_tree = |text: &str| normalize(serde_json::from_str(text).expect("valid JSON"));
        for text in [
            r#"{"ok":false,"summary":"No goal matched."}"#,
            r#"{"ok":"false","state":"done"}"#,
            r#"{"state":"fail\u0065d","error":"","summary":42}"#,
            r#"{"ok":null,"state":null,"error":"x"}"#,
            r#"{"ok":false,"error":null,"summary":{"why":[1,"two"]}}"#,
            r#"{"ok":false,"error":"caf\u00e9 \"quoted\""}"#,
            r#"{"nested":{"ok":false}}"#,
            "[1,2]",
            r#""text""#,
        ] {
            assert_eq!(by_text(text), by_tree(text), "{text}");
        }
        let failed = by_text(r#"{"state":"fail\u0065d","error":"","summary":42}"#);
        assert_eq!(failed.state, ToolState::Failed);
        assert_eq!(failed.error.as_deref(), Some("42"));
        let quoted = by_text(r#"{"ok":false,"error":"caf\u00e9 \"quoted\""}"#);
        assert_eq!(quoted.error.as_deref(), Some("café \"quoted\""));
        assert_eq!(
            by_text(r#"{"ok":"false","state":"done"}"#).state,
            ToolState::Completed
        );
    }

    /// Typed outputs are judged while serde writes them (no parse), exactly
    /// as their trees would be.
    #[test]
    fn typed_structs_are_judged_as_written() {
        #[derive(Serialize)]
        struct Plain {
            ok: bool,
            summary: String,
        }
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Stated {
            state: &'static str,
            #[serde(skip_serializing_if = "Option::is_none")]
            ok: Option<bool>,
            error_code: u8,
            error: Option<&'static str>,
        }
        #[derive(Serialize)]
        struct Flattened {
            #[serde(flatten)]
            inner: Plain,
            extra: u8,
        }
        #[derive(Serialize)]
        struct Newtype(Plain);
        #[derive(Serialize)]
        enum Tagged {
            Done { ok: bool },
        }
        fn both<T: Serialize>(value: &T) -> (ToolResult, ToolResult) {
            let output = OutputJson::to_json(value).expect("serializes");
            let by_tree = normalize(serde_json::to_value(value).expect("serializes"));
            (
                ToolResult::from_adapter_output("r".into(), "t".into(), output),
                by_tree,
            )
        }
        let plain = |ok| Plain {
            ok,
            summary: "said so".to_owned(),
        };
        let cases = [
            both(&plain(true)),
            both(&plain(false)),
            both(&Stated {
                state: "failed",
                ok: None,
                error_code: 3,
                error: None,
            }),
            both(&Stated {
                state: "failed",
                ok: Some(true),
                error_code: 3,
                error: Some("boom"),
            }),
            both(&Stated {
                state: "done",
                ok: Some(true),
                error_code: 0,
                error: None,
            }),
            both(&Flattened {
                inner: plain(false),
                extra: 1,
            }),
            both(&Newtype(plain(false))),
            both(&Tagged::Done { ok: false }),
            both(&Some(plain(false))),
        ];
        for (by_text, by_tree) in &cases {
            assert_eq!(by_text, by_tree);
        }
        let states: Vec<ToolState> = cases.iter().map(|(r, _)| r.state).collect();
        use ToolState::{Completed, Failed};
        assert_eq!(
            states,
            [
                Completed, Failed, Failed, Failed, Completed, Failed, Failed, Completed, Failed
            ]
        );
        assert_eq!(cases[1].0.error.as_deref(), Some("said so"));
        assert_eq!(
            cases[2].0.error.as_deref(),
            Some("Tool adapter reported failure")
        );
        assert_eq!(cases[3].0.error.as_deref(), Some("boom"));
    }

    /// A shared answer writes exactly the envelope its owned copy would.
    #[test]
    fn a_call_answer_writes_the_owned_envelope() {
        for (value, duplicate) in [
            (json!({"ok": true, "n": 1}), false),
            (json!({"ok": false, "error": "no"}), true),
            (json!([1]), true),
        ] {
            let answer = CallAnswer::new(Arc::new(normalize(value)), duplicate);
            let shared = serde_json::to_string(&answer).expect("serializes");
            let owned = serde_json::to_string(&answer.clone().into_result()).expect("serializes");
            assert_eq!(shared, owned);
            assert!(shared.contains(&format!(r#""duplicate":{duplicate}"#)));
        }
    }

    /// Repeated keys: the last one counts, and the answer is the text judged.
    #[test]
    fn a_repeated_key_is_judged_by_its_last_value() {
        let output = OutputJson::to_json(
            &serde_json::from_str::<Box<RawValue>>(r#"{"ok":false,"ok":true,"n":1}"#)
                .expect("valid JSON"),
        )
        .expect("serializes");
        let r = ToolResult::from_adapter_output("r".into(), "t".into(), output);
        assert_eq!(r.state, ToolState::Completed);
        assert_eq!(r.result.expect("an object").text(), r#"{"ok":true,"n":1}"#);
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
