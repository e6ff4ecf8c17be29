//! `bare`: the smallest honest axum JSON server, the baseline for
//! `bench/http-load.sh`. It does what any JSON endpoint must (parse the body,
//! answer a small JSON object; compare an ETag and answer 304) and nothing
//! else: no registry, no auth gate, no tracing layer.
//!
//! ```sh
//! bare 127.0.0.1:18081
//! ```
//!
//! - `POST /call`: parses the body into a typed struct with the shape of the
//!   `portos_tool_call` envelope (the same five keys, unknown keys refused,
//!   `arguments` an object) and answers a typed struct with the shape and
//!   size of portos's `time.now` result envelope, echoing `requestId` and
//!   `name`. So both servers parse the same bytes into typed values and
//!   write an answer of the same size; what portos does beyond that (the
//!   registry: validation, idempotency, the adapter) is what is measured.
//! - `POST /mcp`: the same for an MCP `tools/call` (stateless Streamable
//!   HTTP, JSON response): parses the JSON-RPC request into typed values
//!   (`jsonrpc`, `id`, `method`, `params` with `name`, `arguments` and the
//!   2026-07-28 revision's `_meta`), checks the version and the method, and
//!   answers the JSON-RPC result portos answers for `time_now`: the result
//!   envelope written once as the text content and once as
//!   `structuredContent` (and `resultType` and the server's `_meta` when
//!   the request carried the 2026-07-28 revision's `_meta`). It reads no MCP header and keeps no session: the framing and
//!   nothing else.
//! - `GET /tools`: `304` when `If-None-Match` equals [`ETAG`], else `200`
//!   with a small JSON body; both carry `ETag` and `Cache-Control` as portos's
//!   catalog does.
//!
//! The runtime is built like portos's (`serve.rs`): tokio multi-thread with
//! the default worker count (the cores the process may run on).

use std::net::SocketAddr;
use std::process::ExitCode;

use axum::Json;
use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The constant entity tag of `GET /tools`.
pub const ETAG: &str = "\"bare-0123456789abcdef\"";

fn main() -> ExitCode {
    let bind: SocketAddr = match std::env::args()
        .nth(1)
        .as_deref()
        .unwrap_or("127.0.0.1:18081")
        .parse()
    {
        Ok(bind) => bind,
        Err(error) => {
            eprintln!("bare: bad address: {error}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("bare: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(bind).await {
            Ok(listener) => listener,
            Err(error) => {
                eprintln!("bare: cannot listen on {bind}: {error}");
                return ExitCode::FAILURE;
            }
        };
        let app = Router::new()
            .route("/call", post(call))
            .route("/mcp", post(mcp))
            .route("/tools", get(tools));
        eprintln!("bare listening on http://{bind}");
        match axum::serve(listener, app)
            .with_graceful_shutdown(shutdown())
            .await
        {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("bare: {error}");
                ExitCode::FAILURE
            }
        }
    })
}

/// The `portos_tool_call` envelope's shape: what portos's strict parse reads.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Call {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    request_id: String,
    name: String,
    #[serde(default)]
    version: Option<u32>,
    #[serde(default)]
    arguments: Map<String, Value>,
}

/// The shape of portos's `portos_tool_result` for `time.now`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    #[serde(rename = "type")]
    kind: &'static str,
    request_id: String,
    name: String,
    version: u32,
    state: &'static str,
    duplicate: bool,
    result: Output,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Output {
    ok: bool,
    iso: &'static str,
    timezone: &'static str,
    date: &'static str,
    day_of_week: &'static str,
    time: &'static str,
    summary: &'static str,
}

async fn call(Json(call): Json<Call>) -> Result<Json<Answer>, StatusCode> {
    // The envelope's literal checks, as portos makes them.
    if call
        .kind
        .as_deref()
        .is_some_and(|kind| kind != "portos_tool_call")
        || call.version.is_some_and(|version| version != 1)
    {
        return Err(StatusCode::BAD_REQUEST);
    }
    let duplicate = call.arguments.contains_key("duplicate");
    Ok(Json(Answer {
        kind: "portos_tool_result",
        request_id: call.request_id,
        name: call.name,
        version: 1,
        state: "completed",
        duplicate,
        result: TIME_NOW,
    }))
}

/// A `time.now` output of the size portos answers.
const TIME_NOW: Output = Output {
    ok: true,
    iso: "2026-01-01T12:00:00+00:00",
    timezone: "UTC",
    date: "2026-01-01",
    day_of_week: "Thursday",
    time: "12:00 PM",
    summary: "It is 12:00 PM on Thursday, January 1, 2026 (UTC).",
};

/// An MCP `tools/call` request: what a JSON-RPC server must read of it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    jsonrpc: String,
    id: Value,
    method: String,
    params: CallParams,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallParams {
    name: String,
    #[serde(default)]
    arguments: Map<String, Value>,
    /// The 2026-07-28 revision's per-request protocol version and
    /// capabilities.
    #[serde(rename = "_meta", default)]
    meta: Option<Map<String, Value>>,
}

#[derive(Serialize)]
struct Reply {
    jsonrpc: &'static str,
    id: Value,
    result: CallResult,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallResult {
    content: [TextContent; 1],
    structured_content: Answer,
    is_error: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<&'static str>,
    /// The 2026-07-28 revision's server identity on every result.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<ResultMeta>,
}

#[derive(Serialize)]
struct ResultMeta {
    #[serde(rename = "io.modelcontextprotocol/serverInfo")]
    server_info: ServerInfo,
}

#[derive(Serialize)]
struct ServerInfo {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
struct TextContent {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}

async fn mcp(Json(request): Json<Request>) -> Result<Json<Reply>, StatusCode> {
    if request.jsonrpc != "2.0" || request.method != "tools/call" {
        return Err(StatusCode::BAD_REQUEST);
    }
    let params = request.params;
    let modern = params.meta.is_some();
    let answer = Answer {
        kind: "portos_tool_result",
        // As long as portos's `agent-mcp:<uuid>` requestId.
        request_id: "agent-mcp:00000000-0000-4000-8000-000000000000".to_owned(),
        name: params.name,
        version: 1,
        state: "completed",
        duplicate: params.arguments.contains_key("duplicate"),
        result: TIME_NOW,
    };
    let text = serde_json::to_string(&answer).map_err(|_| StatusCode::INTERNAL_SERVER_ERROR)?;
    Ok(Json(Reply {
        jsonrpc: "2.0",
        id: request.id,
        result: CallResult {
            content: [TextContent { kind: "text", text }],
            structured_content: answer,
            is_error: false,
            result_type: modern.then_some("complete"),
            meta: modern.then_some(ResultMeta {
                server_info: ServerInfo {
                    name: "bare",
                    version: "0.0.0",
                },
            }),
        },
    }))
}

async fn tools(headers: HeaderMap) -> Response {
    let etag = HeaderValue::from_static(ETAG);
    let cache = HeaderValue::from_static("private, no-cache");
    if headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|value| value.as_bytes() == ETAG.as_bytes())
    {
        return (
            StatusCode::NOT_MODIFIED,
            [(header::ETAG, etag), (header::CACHE_CONTROL, cache)],
        )
            .into_response();
    }
    (
        [(header::ETAG, etag), (header::CACHE_CONTROL, cache)],
        Json(json!({ "tools": [] })),
    )
        .into_response()
}

/// Stops on SIGINT or SIGTERM, as portos does (the benchmark sends SIGTERM).
async fn shutdown() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
}
