//! What an MCP client puts on the wire and reads back, for [`TestServer`]'s
//! MCP helpers: each revision's headers (the 2026-07-28 mirrors of the
//! method and the named target, a 2025 session's id), and the event-stream
//! answers (a call's notifications ahead of its response, a listening
//! stream).
//!
//! [`TestServer`]: super::TestServer

use std::time::Duration;

use axum::body::{Body, BodyDataStream};
use axum::http::{HeaderMap, StatusCode};
use base64::Engine as _;
use futures::StreamExt as _;
use serde_json::{Map, Value, json};

use super::Mcp;

/// What a POST accepts: a JSON answer or an event stream.
pub(super) const ACCEPT_BOTH: &str = "application/json, text/event-stream";
/// What a listening GET accepts.
pub(super) const ACCEPT_STREAM: &str = "text/event-stream";

/// The headers every request at `revision` carries: what it accepts and
/// the protocol version.
pub(super) fn revision_headers(revision: Mcp, accept: &str) -> Vec<(&'static str, String)> {
    vec![
        ("accept", accept.to_owned()),
        ("mcp-protocol-version", revision.version().to_owned()),
    ]
}

/// The `Mcp-Method` / `Mcp-Name` headers a 2026-07-28 request carries:
/// the method, and the value of the params key that method names its
/// target by (a tool or prompt `name`, a resource `uri`, a task's
/// `taskId`).
pub(super) fn modern_headers(
    method: &str,
    params: &Map<String, Value>,
) -> Vec<(&'static str, String)> {
    let mut headers = vec![("mcp-method", method.to_owned())];
    let named = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    };
    if let Some(value) = named
        .and_then(|key| params.get(key))
        .and_then(Value::as_str)
    {
        headers.push(("mcp-name", header_text(value)));
    }
    headers
}

/// A header's value as the revision sends it: as written when it is
/// visible ASCII with no space at either end, else `=?base64?…?=`.
fn header_text(value: &str) -> String {
    let plain = value.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !value.starts_with("=?");
    if plain {
        value.to_owned()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        )
    }
}

/// The `_meta` a 2026-07-28 request carries in place of a session.
pub(super) fn modern_meta(revision: Mcp) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": revision.version(),
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "portos-testing", "version": "1" },
    })
}

/// The `initialize` request that opens a 2025 session.
pub(super) fn initialize(revision: Mcp) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": revision.version(),
            "capabilities": {},
            "clientInfo": { "name": "portos-testing", "version": "1" },
        },
    })
}

/// Whether an answer is an event stream.
pub(super) fn is_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"))
}

/// Every JSON-RPC message of a whole event stream, in order (one per
/// event's `data`; comments and other fields skipped).
pub(super) fn stream_messages(text: &str) -> Vec<Value> {
    let mut messages = Vec::new();
    let mut rest = text;
    while let Some((event, tail)) = next_event(rest) {
        messages.extend(event_message(event));
        rest = tail;
    }
    messages.extend(event_message(rest));
    messages
}

/// The first complete event of `text` (up to its blank line) and what
/// follows it.
fn next_event(text: &str) -> Option<(&str, &str)> {
    let at = text.find("\n\n")?;
    Some((&text[..at], &text[at + 2..]))
}

/// The JSON message an event's `data:` lines carry, if any.
fn event_message(event: &str) -> Option<Value> {
    let data: Vec<&str> = event
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| data.strip_prefix(' ').unwrap_or(data))
        .collect();
    if data.is_empty() {
        return None;
    }
    serde_json::from_str(&data.join("\n")).ok()
}

/// An MCP answer read as it arrives: a listening stream
/// (`subscriptions/listen` at 2026-07-28, a 2025 session's `GET`).
#[derive(Debug)]
pub struct McpStream {
    /// The answer's status: 200 for a stream, else a refusal whose body
    /// [`McpStream::next`] gives as one message.
    pub status: StatusCode,
    /// The answer's headers (`content-type: text/event-stream` for a
    /// stream).
    pub headers: HeaderMap,
    body: BodyDataStream,
    buffer: String,
}

impl McpStream {
    pub(super) fn new(status: StatusCode, headers: HeaderMap, body: Body) -> McpStream {
        McpStream {
            status,
            headers,
            body: body.into_data_stream(),
            buffer: String::new(),
        }
    }

    /// The next JSON-RPC message, waiting at most `within` for it; `None`
    /// when the stream ended or nothing came in time. Keep-alive comments
    /// are skipped.
    pub async fn next(&mut self, within: Duration) -> Option<Value> {
        tokio::time::timeout(within, self.next_message())
            .await
            .ok()
            .flatten()
    }

    async fn next_message(&mut self) -> Option<Value> {
        loop {
            while let Some((event, rest)) = next_event(&self.buffer) {
                let message = event_message(event);
                self.buffer = rest.to_owned();
                if message.is_some() {
                    return message;
                }
            }
            match self.body.next().await {
                Some(Ok(bytes)) => {
                    self.buffer
                        .push_str(&String::from_utf8_lossy(&bytes).replace("\r\n", "\n"));
                }
                // The end: what is left is the last event (or a plain
                // JSON body, a refusal).
                _ => {
                    let rest = std::mem::take(&mut self.buffer);
                    return event_message(&rest).or_else(|| serde_json::from_str(&rest).ok());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_named_target_is_mirrored_per_method() {
        let params = |value: Value| value.as_object().cloned().unwrap_or_default();
        let read = modern_headers(
            "resources/read",
            &params(json!({ "uri": "lab://hosts/nas" })),
        );
        assert_eq!(read[1], ("mcp-name", "lab://hosts/nas".to_owned()));
        let call = modern_headers("tools/call", &params(json!({ "name": "lab_hosts_list" })));
        assert_eq!(call[1], ("mcp-name", "lab_hosts_list".to_owned()));
        let listed = modern_headers("tools/list", &params(json!({ "name": "ignored" })));
        assert_eq!(listed.len(), 1);
        let wide = modern_headers("prompts/get", &params(json!({ "name": "grüße" })));
        assert_eq!(wide[1].1, "=?base64?Z3LDvMOfZQ==?=");
    }

    #[test]
    fn an_event_stream_is_read_message_by_message() {
        let text = ": keep-alive\n\nevent: message\ndata: {\"a\":1}\n\ndata: {\"b\":\ndata: 2}\n\n";
        assert_eq!(
            stream_messages(text),
            vec![json!({"a": 1}), json!({"b": 2})]
        );
    }
}
