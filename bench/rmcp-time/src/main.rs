//! `rmcp-time`: the official Rust MCP SDK (rmcp 3.x) serving one tool,
//! `time_now`, over stateless Streamable HTTP with JSON responses — the
//! baseline portos's `POST /api/agent-context/mcp` is compared against.
//!
//! ```sh
//! rmcp-time 127.0.0.1:18082     # POST http://127.0.0.1:18082/mcp, GET /health
//! ```
//!
//! The tool does the work of portos's `time.now` over MCP: the same result
//! fields (ok, iso, timezone, date, dayOfWeek, time, summary) formatted with
//! jiff's strftime, in the same envelope (`portos_tool_result`, a fresh
//! `agent-mcp:` UUID requestId), so the two servers return the same
//! structured content (in UTC: the baseline has no user time zone to read).
//! What it does not do is portos's contract around the tool: checks,
//! fingerprint and idempotency.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;

#[derive(Clone, Debug)]
struct TimeServer;

impl ServerHandler for TimeServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({ "type": "object", "properties": {}, "additionalProperties": false });
        let schema = match schema {
            serde_json::Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "time_now",
            "The current time.",
            Arc::new(schema),
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "time_now" {
            return Err(ErrorData::invalid_params("unknown tool", None));
        }
        // The work of portos's `time.now` over MCP: the same result fields,
        // formatted the plain way, in the same envelope with a fresh id.
        let now = jiff::Timestamp::now().to_zoned_datetime(jiff::tz::TimeZone::UTC);
        let time = now.strftime("%-I:%M %p").to_string();
        let result = json!({
            "ok": true,
            "iso": now.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string(),
            "timezone": "Etc/UTC",
            "date": now.strftime("%Y-%m-%d").to_string(),
            "dayOfWeek": now.strftime("%A").to_string(),
            "summary": format!("It is {time} on {} (Etc/UTC).", now.strftime("%A, %B %-d, %Y")),
            "time": time,
        });
        let output = json!({
            "type": "portos_tool_result",
            "requestId": format!("agent-mcp:{}", uuid::Uuid::new_v4()),
            "name": "time.now",
            "version": 1,
            "state": "completed",
            "duplicate": false,
            "result": result,
        });
        Ok(CallToolResult::structured(output).into())
    }
}

fn main() -> ExitCode {
    let bind: SocketAddr = match std::env::args()
        .nth(1)
        .as_deref()
        .unwrap_or("127.0.0.1:18082")
        .parse()
    {
        Ok(bind) => bind,
        Err(error) => {
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                format!("rmcp-time: bad address: {error}\n").as_bytes(),
            );
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(_) => return ExitCode::FAILURE,
    };
    runtime.block_on(async move {
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_sse_keep_alive(None);
        let service: StreamableHttpService<TimeServer, LocalSessionManager> =
            StreamableHttpService::new(|| Ok(TimeServer), Default::default(), config);
        // `/health` only tells bench/http-load.sh the server is up.
        let router = axum::Router::new()
            .nest_service("/mcp", service)
            .route("/health", axum::routing::get(|| async { "ok" }));
        let Ok(listener) = tokio::net::TcpListener::bind(bind).await else {
            return ExitCode::FAILURE;
        };
        let local = listener.local_addr().map_or(bind, |a| a);
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!("rmcp-time listening on http://{local}/mcp\n").as_bytes(),
        );
        match axum::serve(listener, router).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::FAILURE,
        }
    })
}
