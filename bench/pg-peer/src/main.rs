//! `pg-peer`: the simplest correct tool-call server on PostgreSQL, the peer
//! of portos on `--database-url` in `bench/cluster-load.sh`. It gives every
//! call the guarantee portos gives (a requestId runs once; a retry replays
//! the kept result; another call under the same id is a conflict) with the
//! least database work that keeps it:
//!
//! - parse the `portos_tool_call` envelope (as `bare` does), run the tool,
//!   SHA-256 the call's fingerprint (`{arguments, name, scope}`);
//! - a read (`time.now`): one statement, `INSERT … ON CONFLICT (request_id)
//!   DO NOTHING RETURNING`, with the result; on a conflict, read the row
//!   back and replay it (same fingerprint) or refuse it (409);
//! - a write (`brain.capture`): one transaction with the capture and the
//!   kept call, so both or neither are kept.
//!
//! Statements are prepared once per connection (deadpool's statement
//! cache), on tokio-postgres with a pool of 8 connections.
//!
//! ```sh
//! pg-peer 127.0.0.1:18190 postgres://postgres@127.0.0.1:18230/bench_peer
//! ```

use std::net::SocketAddr;
use std::process::ExitCode;

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use deadpool_postgres::{Config, Pool, PoolConfig, Runtime};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use tokio_postgres::NoTls;

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS peer_calls (
        request_id  TEXT PRIMARY KEY,
        fingerprint TEXT NOT NULL,
        result      TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS peer_captures (
        id   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        text TEXT NOT NULL
    );";
const KEEP: &str = "INSERT INTO peer_calls (request_id, fingerprint, result) VALUES ($1, $2, $3)
    ON CONFLICT (request_id) DO NOTHING RETURNING 1";
const KEPT: &str = "SELECT fingerprint, result FROM peer_calls WHERE request_id = $1";
const CAPTURE: &str = "INSERT INTO peer_captures (text) VALUES ($1) RETURNING id";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(bind), Some(url)) = (args.next(), args.next()) else {
        eprintln!("usage: pg-peer ADDRESS POSTGRES_URL");
        return ExitCode::from(2);
    };
    let Ok(bind) = bind.parse::<SocketAddr>() else {
        eprintln!("pg-peer: bad address {bind}");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("pg-peer: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        match serve(bind, &url).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("pg-peer: {error}");
                ExitCode::FAILURE
            }
        }
    })
}

async fn serve(bind: SocketAddr, url: &str) -> Result<(), Box<dyn std::error::Error>> {
    let mut config = Config::new();
    config.url = Some(url.to_owned());
    config.pool = Some(PoolConfig::new(8));
    let pool = config.create_pool(Some(Runtime::Tokio1), NoTls)?;
    pool.get().await?.batch_execute(SCHEMA).await?;
    let listener = tokio::net::TcpListener::bind(bind).await?;
    let app = Router::new()
        .route("/api/cos/tools/call", post(call))
        .route("/api/system/health", get(|| async { "ok" }))
        .with_state(pool);
    eprintln!("pg-peer listening on http://{bind}");
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}

/// The `portos_tool_call` envelope's shape, as `bare` reads it.
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

/// The result envelope, as portos writes it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Answer<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    request_id: &'a str,
    name: &'a str,
    version: u32,
    state: &'static str,
    duplicate: bool,
    result: Value,
}

type Refusal = (StatusCode, Json<Value>);

fn refused(status: StatusCode, code: &str) -> Refusal {
    (status, Json(json!({ "code": code })))
}

async fn call(State(pool): State<Pool>, Json(call): Json<Call>) -> Result<Json<Value>, Refusal> {
    if call
        .kind
        .as_deref()
        .is_some_and(|kind| kind != "portos_tool_call")
        || call.version.is_some_and(|version| version != 1)
    {
        return Err(refused(StatusCode::BAD_REQUEST, "VALIDATION_ERROR"));
    }
    let fingerprint = fingerprint(&call);
    let mut client = pool
        .get()
        .await
        .map_err(|_| refused(StatusCode::SERVICE_UNAVAILABLE, "SERVICE_UNAVAILABLE"))?;
    let unavailable = |_| refused(StatusCode::SERVICE_UNAVAILABLE, "SERVICE_UNAVAILABLE");
    let (output, kept) = match call.name.as_str() {
        "time.now" => {
            let output = time_now();
            let keep = client.prepare_cached(KEEP).await.map_err(unavailable)?;
            let text = output.to_string();
            let kept = client
                .query_opt(&keep, &[&call.request_id, &fingerprint, &text])
                .await
                .map_err(unavailable)?
                .is_some();
            (output, kept)
        }
        "brain.capture" => {
            let Some(text) = call.arguments.get("text").and_then(Value::as_str) else {
                return Err(refused(StatusCode::BAD_REQUEST, "TOOL_VALIDATION_ERROR"));
            };
            let transaction = client.transaction().await.map_err(unavailable)?;
            let capture = transaction
                .prepare_cached(CAPTURE)
                .await
                .map_err(unavailable)?;
            let keep = transaction
                .prepare_cached(KEEP)
                .await
                .map_err(unavailable)?;
            let id: i64 = transaction
                .query_one(&capture, &[&text])
                .await
                .map_err(unavailable)?
                .get(0);
            let output = json!({ "ok": true, "id": id.to_string(), "summary": format!("Captured \"{text}\"") });
            let kept = transaction
                .query_opt(
                    &keep,
                    &[&call.request_id, &fingerprint, &output.to_string()],
                )
                .await
                .map_err(unavailable)?
                .is_some();
            if kept {
                transaction.commit().await.map_err(unavailable)?;
            }
            // Not kept: another call has this requestId; the transaction
            // (and its capture) is rolled back when it is dropped.
            (output, kept)
        }
        _ => return Err(refused(StatusCode::NOT_FOUND, "TOOL_NOT_FOUND")),
    };
    let answer = |result: Value, duplicate: bool| {
        Json(json!(Answer {
            kind: "portos_tool_result",
            request_id: &call.request_id,
            name: &call.name,
            version: 1,
            state: "completed",
            duplicate,
            result,
        }))
    };
    if kept {
        return Ok(answer(output, false));
    }
    let kept = client.prepare_cached(KEPT).await.map_err(unavailable)?;
    let row = client
        .query_one(&kept, &[&call.request_id])
        .await
        .map_err(unavailable)?;
    if row.get::<_, &str>(0) != fingerprint {
        return Err(refused(StatusCode::CONFLICT, "TOOL_IDEMPOTENCY_CONFLICT"));
    }
    let result = serde_json::from_str(row.get::<_, &str>(1)).unwrap_or(Value::Null);
    Ok(answer(result, true))
}

/// SHA-256 of `{arguments, name, scope}` as JSON, in hex.
fn fingerprint(call: &Call) -> String {
    let text = json!({ "arguments": call.arguments, "name": call.name, "scope": "ui" }).to_string();
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// The same output as portos's `time.now` (the clock's formatting aside).
fn time_now() -> Value {
    json!({
        "ok": true,
        "iso": "2026-01-01T12:00:00+00:00",
        "timezone": "UTC",
        "date": "2026-01-01",
        "dayOfWeek": "Thursday",
        "time": "12:00 PM",
        "summary": "It is 12:00 PM on Thursday, January 1, 2026 (UTC).",
    })
}
