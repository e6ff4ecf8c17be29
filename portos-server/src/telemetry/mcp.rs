//! Each MCP message as OpenTelemetry's MCP conventions describe it: a
//! server span named `{mcp.method.name} {target}` (`tools/call weather.get`)
//! whose parent is the W3C trace context the request's `_meta` carries,
//! and the `mcp.server.operation.duration` histogram by method, protocol
//! revision and error. Labels take only known values: a method or version a
//! client made up is `_OTHER`, so no client can grow the series.

use std::sync::OnceLock;
use std::time::Instant;

use serde_json::{Map, Value};

use super::exposition::{Exposition, Kind};
use super::histogram::{Histogram, OPERATION_SECONDS, SECONDS};
use super::traces;
use crate::mcp::jsonrpc::Message;
use crate::mcp::modern::MODERN_VERSIONS;
use crate::mcp::server::SUPPORTED_VERSIONS;
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
pub fn known_version(text: &str) -> Option<&'static str> {
    let text = text.trim();
    VERSIONS[..VERSIONS.len() - 1]
        .iter()
        .copied()
        .find(|known| *known == text)
}

/// The revision a message names in its own `_meta` (the 2026 way), if a
/// served one.
pub fn meta_version(message: &Message) -> Option<&'static str> {
    let named = match message {
        Message::ToolCall { call, .. } => call.meta.as_ref()?.protocol_version(),
        Message::Request { params, .. } => params
            .as_ref()?
            .get("_meta")?
            .get(crate::mcp::request_meta::PROTOCOL_VERSION_KEY)?
            .as_str(),
        Message::Notification { .. } | Message::Response => None,
    };
    named.and_then(known_version)
}

/// How a message reached the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// Streamable HTTP.
    Http,
    /// Standard input and output.
    Stdio,
}

/// Every method × version × error's histogram, made on first use.
#[derive(Debug)]
pub struct McpMetrics {
    cells: Box<[OnceLock<Histogram>]>,
}

impl Default for McpMetrics {
    fn default() -> McpMetrics {
        McpMetrics {
            cells: (0..METHODS.len() * VERSIONS.len() * ERRORS.len())
                .map(|_| OnceLock::new())
                .collect(),
        }
    }
}

impl McpMetrics {
    fn cell(&self, method: usize, version: usize, error: usize) -> &Histogram {
        let index = (method * VERSIONS.len() + version) * ERRORS.len() + error;
        self.cells[index].get_or_init(|| Histogram::new(OPERATION_SECONDS, SECONDS))
    }

    pub fn write(&self, out: &mut Exposition) {
        const NAME: &str = "mcp_server_operation_duration_seconds";
        out.family(
            NAME,
            Kind::Histogram,
            "MCP messages answered, by method, protocol revision and error (OpenTelemetry's mcp.server.operation.duration); _count is the messages.",
        );
        for (index, cell) in self.cells.iter().enumerate() {
            let Some(histogram) = cell.get() else {
                continue;
            };
            let error = index % ERRORS.len();
            let version = (index / ERRORS.len()) % VERSIONS.len();
            let method = index / (ERRORS.len() * VERSIONS.len());
            out.histogram(
                NAME,
                &[
                    ("mcp_method_name", METHODS[method]),
                    ("mcp_protocol_version", VERSIONS[version]),
                    ("error_type", ERRORS[error]),
                ],
                histogram,
            );
        }
    }
}

/// One message being answered.
#[derive(Debug)]
pub struct McpObservation {
    started: Instant,
    method: usize,
    version: usize,
    span: tracing::Span,
}

impl McpObservation {
    /// Starts observing `message` (`None` for a client's response, which
    /// is only acknowledged), served at `version` over `transport`.
    pub fn start(
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
            Message::Response => return None,
        };
        let method = METHODS
            .iter()
            .position(|known| *known == method)
            .unwrap_or(METHODS.len() - 1);
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
    pub fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// Ends the observation with the JSON-RPC response written (`None`
    /// for a notification).
    pub fn finish(self, metrics: &McpMetrics, response: Option<&str>) {
        let error = response.map_or(0, error_of);
        metrics
            .cell(self.method, self.version, error)
            .observe(self.started.elapsed());
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
            crate::mcp::request_meta::RequestMeta::Other(map) => map,
            crate::mcp::request_meta::RequestMeta::Revision { .. } => return None,
        },
        _ => params?.get("_meta")?.as_object()?,
    };
    let traceparent = meta.get("traceparent")?.as_str()?;
    Some((traceparent, meta.get("tracestate").and_then(Value::as_str)))
}

/// The `error.type` slot of a written response: a JSON-RPC error's code,
/// or a tool result with `isError`. Read only when the text could be one
/// (a quick search), then from the JSON itself.
fn error_of(response: &str) -> usize {
    if !response.contains("\"error\":{") && !response.contains("\"isError\":true") {
        return 0;
    }
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
        }) => {
            let code = code.to_string();
            ERRORS
                .iter()
                .position(|known| *known == code)
                .unwrap_or(ERRORS.len() - 1)
        }
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
    fn only_served_revisions_are_label_values() {
        assert_eq!(known_version(" 2025-06-18"), Some("2025-06-18"));
        assert_eq!(known_version("2026-07-28"), Some("2026-07-28"));
        assert_eq!(known_version("1999-01-01"), None);
        assert_eq!(known_version(""), None);
    }
}
