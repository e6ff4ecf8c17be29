//! Each MCP message as OpenTelemetry's MCP conventions describe it: a
//! server span named `{mcp.method.name} {target}` (`tools/call weather.get`)
//! whose parent is the W3C trace context the request's `_meta` carries,
//! and the `mcp.server.operation.duration` histogram by method, protocol
//! revision and error. Labels take only known values: a method or version a
//! client made up is `_OTHER`, so no client can grow the series.

use std::time::Instant;

use serde_json::{Map, Value};

use super::jsonrpc::Message;
use super::modern::MODERN_VERSIONS;
use super::request_meta::{PROTOCOL_VERSION_KEY, RequestMeta};
use super::server::SUPPORTED_VERSIONS;
use crate::telemetry::grid::{Dimension, HistogramGrid};
use crate::telemetry::histogram::OPERATION_SECONDS;
use crate::telemetry::traces;
use portos_core::telemetry::{SPAN_TARGET, TOOL_ERROR};

/// The value OpenTelemetry gives what is not a known value.
const OTHER: &str = "_OTHER";

/// The methods of every revision served, and the notifications clients send.
const METHODS: [&str; 12] = [
    "initialize",
    "notifications/initialized",
    "notifications/cancelled",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
    OTHER,
];

/// `tools/call`'s place in [`METHODS`]: a parsed call is not looked up.
const TOOLS_CALL: usize = 6;

/// The revisions served, then "not said" (a 2025 request without the header).
const VERSIONS: [&str; 5] = [
    SUPPORTED_VERSIONS[0],
    SUPPORTED_VERSIONS[1],
    SUPPORTED_VERSIONS[2],
    MODERN_VERSIONS[0],
    "",
];

/// `error.type`: none, a failed tool, then JSON-RPC's codes.
const ERRORS: [&str; 8] = [
    "", TOOL_ERROR, "-32700", "-32600", "-32601", "-32602", "-32603", OTHER,
];

/// The protocol revision `text` names, as a label value: a served one, or
/// `None`.
pub(crate) fn known_version(text: &str) -> Option<&'static str> {
    let text = text.trim();
    VERSIONS[..VERSIONS.len() - 1]
        .iter()
        .copied()
        .find(|known| *known == text)
}

/// The revision a message names in its own `_meta` (the 2026 way), if a
/// served one.
pub(crate) fn meta_version(message: &Message) -> Option<&'static str> {
    let named = match message {
        Message::ToolCall { call, .. } => call.meta.as_ref()?.protocol_version(),
        Message::Request { params, .. } => params
            .as_ref()?
            .get("_meta")?
            .get(PROTOCOL_VERSION_KEY)?
            .as_str(),
        Message::Notification { .. } | Message::Response { .. } => None,
    };
    named.and_then(known_version)
}

/// How a message reached the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Transport {
    /// Streamable HTTP.
    Http,
    /// Standard input and output.
    Stdio,
}

/// The labels of `mcp_server_operation_duration_seconds`.
const DIMENSIONS: &[Dimension] = &[
    Dimension {
        label: "mcp_method_name",
        values: &METHODS,
    },
    Dimension {
        label: "mcp_protocol_version",
        values: &VERSIONS,
    },
    Dimension {
        label: "error_type",
        values: &ERRORS,
    },
];

/// The family every MCP message is counted in, by method, protocol
/// revision and error.
pub(crate) fn operation_metrics() -> HistogramGrid {
    HistogramGrid::new(
        "mcp_server_operation_duration_seconds",
        "MCP messages answered, by method, protocol revision and error (OpenTelemetry's mcp.server.operation.duration); _count is the messages.",
        OPERATION_SECONDS,
        DIMENSIONS,
    )
}

/// One message being answered.
#[derive(Debug)]
pub(crate) struct McpObservation {
    started: Instant,
    method: usize,
    version: usize,
    span: tracing::Span,
}

impl McpObservation {
    /// Starts observing `message` (`None` for a client's response, which
    /// is only acknowledged), served at `version` over `transport`.
    pub(crate) fn start(
        message: &Message,
        version: Option<&'static str>,
        transport: Transport,
    ) -> Option<McpObservation> {
        let (method, id, params, tool) = match message {
            Message::ToolCall { id, call } => {
                ("tools/call", Some(id), None, Some(call.name.as_str()))
            }
            Message::Request { id, method, params } => {
                let tool = (method == "tools/call")
                    .then(|| params.as_ref()?.get("name")?.as_str())
                    .flatten();
                (method.as_str(), Some(id), params.as_ref(), tool)
            }
            Message::Notification { method } => (method.as_str(), None, None, None),
            Message::Response { .. } => return None,
        };
        let method = match message {
            Message::ToolCall { .. } => TOOLS_CALL,
            _ => METHODS
                .iter()
                .position(|known| *known == method)
                .unwrap_or(METHODS.len() - 1),
        };
        let version = version
            .and_then(|version| VERSIONS.iter().position(|known| *known == version))
            .unwrap_or(VERSIONS.len() - 1);
        let span = message_span(METHODS[method], VERSIONS[version], transport);
        if !span.is_disabled() {
            describe(&span, METHODS[method], id, tool);
            if let Some((traceparent, tracestate)) = trace_context(message, params) {
                // The conventions: the context the client sent is the
                // parent; the HTTP request's span is linked.
                let request = traces::context_of(&tracing::Span::current());
                if traces::adopt_parent(&span, traceparent, tracestate)
                    && let Some(request) = request
                {
                    traces::link(&span, request);
                }
            }
        }
        Some(McpObservation {
            started: Instant::now(),
            method,
            version,
            span,
        })
    }

    /// The message's span, to answer it in.
    pub(crate) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// Ends the observation with the JSON-RPC response written (`None`
    /// for a notification).
    pub(crate) fn finish(self, operations: &HistogramGrid, response: Option<&str>) {
        let error = response.map_or(0, error_of);
        operations.observe(&[self.method, self.version, error], self.started.elapsed());
        if error != 0 && !self.span.is_disabled() {
            self.span.record("error.type", ERRORS[error]);
            self.span.record("otel.status_code", "ERROR");
        }
    }
}

fn message_span(method: &str, version: &str, transport: Transport) -> tracing::Span {
    tracing::info_span!(
        target: SPAN_TARGET,
        "mcp message",
        otel.name = tracing::field::Empty,
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        mcp.method.name = method,
        mcp.protocol.version = version,
        jsonrpc.request.id = tracing::field::Empty,
        gen_ai.tool.name = tracing::field::Empty,
        gen_ai.operation.name = tracing::field::Empty,
        network.transport = match transport {
            Transport::Http => "tcp",
            Transport::Stdio => "pipe",
        },
        network.protocol.name = match transport {
            Transport::Http => "http",
            Transport::Stdio => "",
        },
        "error.type" = tracing::field::Empty,
    )
}

/// The span's name and the attributes only known from the message.
fn describe(span: &tracing::Span, method: &str, id: Option<&Value>, tool: Option<&str>) {
    match id {
        Some(Value::String(id)) => {
            span.record("jsonrpc.request.id", capped(id));
        }
        Some(Value::Number(id)) => {
            span.record("jsonrpc.request.id", id.to_string());
        }
        _ => {}
    }
    match tool {
        Some(tool) => {
            let tool = capped(tool);
            span.record("gen_ai.tool.name", tool);
            span.record("gen_ai.operation.name", "execute_tool");
            span.record("otel.name", format!("{method} {tool}"));
        }
        None => {
            span.record("otel.name", method);
        }
    }
}

/// A client's id or tool name, cut to a tool name's longest.
fn capped(text: &str) -> &str {
    match text.char_indices().nth(100) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// The W3C trace context a request's `params._meta` carries.
fn trace_context<'a>(
    message: &'a Message,
    params: Option<&'a Map<String, Value>>,
) -> Option<(&'a str, Option<&'a str>)> {
    let meta = match message {
        Message::ToolCall { call, .. } => match call.meta.as_ref()? {
            RequestMeta::Other(map) => map,
            RequestMeta::Revision { .. } => return None,
        },
        _ => params?.get("_meta")?.as_object()?,
    };
    let traceparent = meta.get("traceparent")?.as_str()?;
    Some((traceparent, meta.get("tracestate").and_then(Value::as_str)))
}

/// The `error.type` slot of a written response: a JSON-RPC error's code,
/// or a tool result with `isError`. Read from the place the writers of
/// this crate put them (`{"jsonrpc":"2.0","id":…,` then `"error":{"code":`
/// or `"result":{` with `isError` first), so only the id is walked, never
/// the result; anything laid out otherwise is parsed.
fn error_of(response: &str) -> usize {
    match laid_out_error(response) {
        Some(slot) => slot,
        None => parsed_error(response),
    }
}

fn laid_out_error(response: &str) -> Option<usize> {
    let rest = response.strip_prefix(r#"{"jsonrpc":"2.0","id":"#)?;
    let rest = &rest[id_length(rest)?..];
    if let Some(result) = rest.strip_prefix(r#","result":{"#) {
        let result = result
            .strip_prefix(r#""resultType":"complete","#)
            .unwrap_or(result);
        return Some(usize::from(result.starts_with(r#""isError":true"#)));
    }
    let code = rest.strip_prefix(r#","error":{"code":"#)?;
    let end = code.find([',', '}'])?;
    Some(code_slot(&code[..end]))
}

/// The length of the JSON id (a number, `null` or a string) `text` starts with.
fn id_length(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'"') {
        return text.find([',', '}']);
    }
    let mut index = 1;
    while index < bytes.len() {
        match bytes[index] {
            b'\\' => index += 2,
            b'"' => return Some(index + 1),
            _ => index += 1,
        }
    }
    None
}

fn code_slot(code: &str) -> usize {
    ERRORS
        .iter()
        .position(|known| *known == code)
        .unwrap_or(ERRORS.len() - 1)
}

fn parsed_error(response: &str) -> usize {
    #[derive(serde::Deserialize)]
    struct Response {
        error: Option<JsonRpcError>,
        result: Option<ToolResult>,
    }
    #[derive(serde::Deserialize)]
    struct JsonRpcError {
        code: i64,
    }
    #[derive(serde::Deserialize)]
    struct ToolResult {
        #[serde(rename = "isError", default)]
        is_error: bool,
    }
    match serde_json::from_str::<Response>(response) {
        Ok(Response {
            error: Some(JsonRpcError { code }),
            ..
        }) => code_slot(&code.to_string()),
        Ok(Response {
            result: Some(ToolResult { is_error: true }),
            ..
        }) => 1,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_served_revision_is_a_label_value_of_its_own() {
        for served in SUPPORTED_VERSIONS.iter().chain(MODERN_VERSIONS.iter()) {
            assert_eq!(known_version(served), Some(*served));
        }
        assert_eq!(known_version("1999-01-01"), None);
    }

    #[test]
    fn a_parsed_call_is_counted_as_tools_call() {
        assert_eq!(METHODS[TOOLS_CALL], "tools/call");
    }

    #[test]
    fn an_error_is_read_from_the_response_itself_not_from_text_inside_it() {
        assert_eq!(error_of(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), 0);
        assert_eq!(
            error_of(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}"#),
            4
        );
        assert_eq!(
            error_of(r#"{"jsonrpc":"2.0","id":1,"error":{"code":7,"message":"x"}}"#),
            ERRORS.len() - 1
        );
        assert_eq!(
            error_of(r#"{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[]}}"#),
            1
        );
        // A tool's output that mentions errors is not one.
        assert_eq!(
            error_of(
                r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"error\":{\"isError\":true}}"}],"structuredContent":{"x":{"isError":true}}}}"#
            ),
            0
        );
    }

    #[test]
    fn the_laid_out_path_and_the_parse_agree() {
        for response in [
            r#"{"jsonrpc":"2.0","id":"a\\\"b","result":{"isError":true,"content":[]}}"#,
            r#"{"jsonrpc":"2.0","id":"x\",\"error\":{","result":{"resultType":"complete","isError":true}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":12,"result":{"content":[],"structuredContent":{"isError":true}}}"#,
            r#"{"id":1,"jsonrpc":"2.0","error":{"code":-32602,"message":"x"}}"#,
        ] {
            assert_eq!(error_of(response), parsed_error(response), "{response}");
        }
        assert_eq!(
            error_of(r#"{"jsonrpc":"2.0","id":"a\\\"b","result":{"isError":true}}"#),
            1
        );
        assert_eq!(
            error_of(r#"{"id":1,"jsonrpc":"2.0","error":{"code":-32602}}"#),
            5
        );
    }

    #[test]
    fn only_served_revisions_are_label_values() {
        assert_eq!(known_version(" 2025-06-18"), Some("2025-06-18"));
        assert_eq!(known_version("2026-07-28"), Some("2026-07-28"));
        assert_eq!(known_version("1999-01-01"), None);
        assert_eq!(known_version(""), None);
    }
}
