//! `bare`: the smallest honest axum JSON server, the baseline for
//! `bench/http-load.sh`. It does what any JSON endpoint must (parse the body,
//! answer a small JSON object; compare an ETag and answer 304) and nothing
//! else: no registry, no auth gate, no tracing layer.
//!
//! ```sh
//! bare 127.0.0.1:18081
//! ```
//!
//! - `POST /call`: parses the JSON body and answers a small object shaped like
//!   a `time.now` tool result, echoing the `requestId`.
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
use serde_json::{Value, json};

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

async fn call(Json(body): Json<Value>) -> Json<Value> {
    let request_id = body.get("requestId").cloned().unwrap_or(Value::Null);
    Json(json!({
        "ok": true,
        "requestId": request_id,
        "tool": "time.now",
        "status": "completed",
        "output": {
            "iso": "2026-01-01T12:00:00+00:00",
            "timezone": "UTC",
            "display": "Thursday, 1 January 2026, 12:00"
        }
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
