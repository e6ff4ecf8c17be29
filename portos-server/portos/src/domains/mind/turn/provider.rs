//! One round with an OpenAI-compatible chat-completions endpoint (a hosted
//! provider, or a local llama.cpp server, Ollama or vLLM): the messages so
//! far and the Mind's catalog as `tools` go out; the model's text and tool
//! calls come back. Every way a provider can fail is a [`ProviderError`]
//! with a clear text, never a hang (a timeout bounds each round) or a panic.

use std::fmt;
use std::time::Duration;

use serde_json::{Map, Value, json};

/// Where the Mind's model is and how to reach it.
#[derive(Clone, PartialEq, Eq)]
pub struct ProviderConfig {
    /// The API base, e.g. `https://api.openai.com/v1` or
    /// `http://127.0.0.1:8080/v1` (`/chat/completions` is appended).
    pub base_url: String,
    pub model: String,
    /// Sent as `Authorization: Bearer`; local servers need none.
    pub api_key: Option<String>,
    pub timeout: Duration,
}

impl fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// Why a round did not produce an answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    #[error("the model provider is unreachable: {0}")]
    Unreachable(String),
    #[error("the model provider did not answer within {0} s")]
    Timeout(u64),
    #[error("the model provider answered HTTP {status}: {message}")]
    Status { status: u16, message: String },
    #[error("the model provider's answer is not a chat completion: {0}")]
    Malformed(String),
}

/// A tool call the model asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestedCall {
    /// The provider's id for the call (answered in the `tool` message).
    pub id: Option<String>,
    pub name: String,
    /// The parsed arguments, or why they are not a JSON object.
    pub arguments: Result<Map<String, Value>, String>,
}

/// What the model answered in one round.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    pub content: Option<String>,
    pub calls: Vec<RequestedCall>,
    /// The assistant message as the provider sent it, to send back next
    /// round (providers want their own tool-call ids echoed).
    pub message: Value,
    /// What the provider says of the round, when it says it (for the
    /// round's span and the token metrics).
    pub report: RoundReport,
}

/// What an OpenAI-compatible answer tells of itself besides the message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoundReport {
    /// `model`: the model that answered.
    pub model: Option<String>,
    /// `id` of the completion.
    pub id: Option<String>,
    /// `choices[0].finish_reason`.
    pub finish_reason: Option<String>,
    /// `usage.prompt_tokens`.
    pub input_tokens: Option<u64>,
    /// `usage.completion_tokens`.
    pub output_tokens: Option<u64>,
}

impl RoundReport {
    fn of(answer: &Value) -> RoundReport {
        let text = |pointer: &str| {
            answer
                .pointer(pointer)
                .and_then(Value::as_str)
                .map(|text| text.chars().take(200).collect())
        };
        RoundReport {
            model: text("/model"),
            id: text("/id"),
            finish_reason: text("/choices/0/finish_reason"),
            input_tokens: answer
                .pointer("/usage/prompt_tokens")
                .and_then(Value::as_u64),
            output_tokens: answer
                .pointer("/usage/completion_tokens")
                .and_then(Value::as_u64),
        }
    }
}

/// What a turn asks of the model beyond its messages and tools; each is
/// left out of the request when `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extras {
    /// Sent as `reasoning_effort` (OpenAI's chat-completions field, which
    /// Ollama, vLLM and llama.cpp's server also read): `low`, `medium` or
    /// `high`, the values all of them accept.
    pub reasoning_effort: Option<&'static str>,
    /// Sent as `options.num_ctx`, Ollama's name for the context window.
    pub num_ctx: Option<i64>,
}

/// The request body of one round.
pub fn request_body(
    config: &ProviderConfig,
    messages: &[Value],
    tools: &[Value],
    extras: &Extras,
) -> Value {
    let mut body = json!({ "model": config.model, "messages": messages });
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools.to_vec());
        body["tool_choice"] = json!("auto");
    }
    if let Some(effort) = extras.reasoning_effort {
        body["reasoning_effort"] = json!(effort);
    }
    if let Some(num_ctx) = extras.num_ctx {
        body["options"] = json!({ "num_ctx": num_ctx });
    }
    body
}

/// Runs one round.
pub async fn chat(
    client: &portos_server::outbound::OutboundClient,
    config: &ProviderConfig,
    messages: &[Value],
    tools: &[Value],
    extras: &Extras,
) -> Result<Reply, ProviderError> {
    let url = format!("{}/chat/completions", config.base_url.trim_end_matches('/'));
    let body = request_body(config, messages, tools, extras);
    let mut request = client
        .post(&url)
        .map_err(|error| ProviderError::Unreachable(error.to_string()))?
        .timeout(config.timeout)
        .json(&body);
    if let Some(key) = &config.api_key {
        request = request.bearer_auth(key);
    }
    let timeout = || ProviderError::Timeout(config.timeout.as_secs());
    let response = client.send(request).await.map_err(|error| {
        if error.is_timeout() {
            timeout()
        } else {
            ProviderError::Unreachable(cause(&error))
        }
    })?;
    let status = response.status();
    let bytes = response.bytes().await.map_err(|error| {
        if error.is_timeout() {
            timeout()
        } else {
            ProviderError::Unreachable(cause(&error))
        }
    })?;
    if !status.is_success() {
        return Err(ProviderError::Status {
            status: status.as_u16(),
            message: error_message(&bytes),
        });
    }
    let answer: Value = serde_json::from_slice(&bytes)
        .map_err(|error| ProviderError::Malformed(format!("not JSON ({error})")))?;
    parse_reply(&answer)
}

/// The first choice's message: its text and tool calls.
pub fn parse_reply(answer: &Value) -> Result<Reply, ProviderError> {
    let message = answer
        .pointer("/choices/0/message")
        .and_then(Value::as_object)
        .ok_or_else(|| ProviderError::Malformed("no choices[0].message".to_owned()))?;
    let content = message
        .get("content")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut calls = Vec::new();
    if let Some(raw_calls) = message.get("tool_calls").filter(|v| !v.is_null()) {
        let raw_calls = raw_calls
            .as_array()
            .ok_or_else(|| ProviderError::Malformed("tool_calls is not an array".to_owned()))?;
        for raw in raw_calls {
            let function = raw.get("function").ok_or_else(|| {
                ProviderError::Malformed("a tool call has no function".to_owned())
            })?;
            let name = function
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| ProviderError::Malformed("a tool call has no name".to_owned()))?;
            calls.push(RequestedCall {
                id: raw.get("id").and_then(Value::as_str).map(str::to_owned),
                name: name.to_owned(),
                arguments: arguments_of(function.get("arguments")),
            });
        }
    }
    Ok(Reply {
        content,
        calls,
        message: Value::Object(message.clone()),
        report: RoundReport::of(answer),
    })
}

/// OpenAI sends arguments as a JSON text; some servers send the object.
fn arguments_of(raw: Option<&Value>) -> Result<Map<String, Value>, String> {
    match raw {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(object)) => Ok(object.clone()),
        Some(Value::String(text)) if text.trim().is_empty() => Ok(Map::new()),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => Ok(object),
            Ok(_) => Err("the arguments are not a JSON object".to_owned()),
            Err(error) => Err(format!("the arguments are not JSON ({error})")),
        },
        Some(_) => Err("the arguments are not a JSON object".to_owned()),
    }
}

/// The provider's own error text when it gives one (`error.message`), else
/// the start of the body.
fn error_message(bytes: &[u8]) -> String {
    let parsed: Option<Value> = serde_json::from_slice(bytes).ok();
    let message = parsed
        .as_ref()
        .and_then(|v| v.pointer("/error/message").or_else(|| v.get("error")))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| String::from_utf8_lossy(bytes).into_owned());
    message.chars().take(300).collect()
}

fn cause(error: &reqwest::Error) -> String {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        message = inner.to_string();
        source = inner.source();
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_with_and_without_calls() {
        let text =
            json!({ "choices": [{ "message": { "role": "assistant", "content": "Done." } }] });
        let reply = parse_reply(&text).expect("reply");
        assert_eq!(reply.content.as_deref(), Some("Done."));
        assert!(reply.calls.is_empty());

        let calls = json!({ "choices": [{ "message": { "role": "assistant", "content": null, "tool_calls": [
            { "id": "c1", "type": "function", "function": { "name": "goals_list", "arguments": "{\"limit\":3}" } },
            { "id": "c2", "type": "function", "function": { "name": "time_now", "arguments": "" } },
            { "id": "c3", "type": "function", "function": { "name": "x", "arguments": "[1]" } },
            { "id": "c4", "type": "function", "function": { "name": "y", "arguments": "{oops" } }
        ] } }] });
        let reply = parse_reply(&calls).expect("reply");
        assert_eq!(reply.calls.len(), 4);
        assert_eq!(
            reply.calls[0]
                .arguments
                .as_ref()
                .ok()
                .and_then(|a| a.get("limit")),
            Some(&json!(3))
        );
        assert_eq!(reply.calls[1].arguments, Ok(Map::new()));
        assert!(reply.calls[2].arguments.is_err() && reply.calls[3].arguments.is_err());
    }

    #[test]
    fn malformed_answers() {
        assert!(parse_reply(&json!({})).is_err());
        assert!(parse_reply(&json!({ "choices": [] })).is_err());
        let bad = json!({ "choices": [{ "message": { "tool_calls": [{ "id": "c1" }] } }] });
        assert!(parse_reply(&bad).is_err());
        assert_eq!(
            error_message(br#"{"error":{"message":"model not found"}}"#),
            "model not found"
        );
    }

    #[test]
    fn extras_are_sent_only_when_set() {
        let config = ProviderConfig {
            base_url: "http://127.0.0.1:11434/v1".to_owned(),
            model: "qwen3:8b".to_owned(),
            api_key: None,
            timeout: Duration::from_secs(5),
        };
        let messages = [json!({ "role": "user", "content": "hi" })];
        let plain = request_body(&config, &messages, &[], &Extras::default());
        assert_eq!(
            plain,
            json!({ "model": "qwen3:8b", "messages": [{ "role": "user", "content": "hi" }] })
        );
        let tuned = request_body(
            &config,
            &messages,
            &[],
            &Extras {
                reasoning_effort: Some("high"),
                num_ctx: Some(8192),
            },
        );
        assert_eq!(tuned["reasoning_effort"], "high");
        assert_eq!(tuned["options"], json!({ "num_ctx": 8192 }));
    }

    #[test]
    fn the_key_never_shows() {
        let config = ProviderConfig {
            base_url: "http://127.0.0.1:8080/v1".to_owned(),
            model: "local".to_owned(),
            api_key: Some("sk-secret".to_owned()),
            timeout: Duration::from_secs(5),
        };
        assert!(!format!("{config:?}").contains("sk-secret"));
    }
}
