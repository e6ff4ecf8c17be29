//! Testing an application in process: [`TestServer`] builds it over a
//! private in-memory store and answers requests through the very service
//! the server mounts (the password gate, the routes, the documents), with
//! no socket and no port, from a loopback peer. Helpers call tools over the
//! HTTP route and over MCP at both protocol eras, read catalogs, set a
//! password and sign in, and grant the MCP principal.
//!
//! ```no_run
//! use portos_server::testing::{Mcp, TestServer};
//! use portos_server::{Config, ServerBuilder};
//! use serde_json::json;
//!
//! # async fn run() {
//! let server = TestServer::start(ServerBuilder::new("Shelf", "1.0.0", Config::new("shelf")))
//!     .expect("the application builds");
//! // A write needs a signed-in person: `TestServer::start_locked` and
//! // `sign_in` give one.
//! let listed = server.catalog("all", "portos").await;
//! assert_eq!(listed.status, 200);
//! server.grant_mcp(&json!({ "readBooks": true })).await;
//! let called = server.mcp(Mcp::Modern, "tools/call", json!({ "name": "shelf_list" })).await;
//! assert_eq!(called.body["result"]["structuredContent"]["state"], "completed");
//! # }
//! ```

pub mod issuer;
mod loopback;
mod mcp_wire;
pub mod otlp;

pub use loopback::serve_on_loopback;
pub use mcp_wire::McpStream;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, HeaderValue, Method, Request, StatusCode, header};
use serde_json::{Value, json};
use tower::ServiceExt;

use std::convert::Infallible;

use crate::app::{App, StartError};
use crate::builder::ServerBuilder;
use crate::mounts;
use crate::store::Store;

/// The MCP revision a request is made at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mcp {
    /// 2026-07-28: each request carries its protocol version, client
    /// capabilities and client info in `_meta`, mirrored in headers.
    Modern,
    /// 2025-11-25: the `MCP-Protocol-Version` header, no `_meta`.
    Legacy,
}

impl Mcp {
    pub fn version(self) -> &'static str {
        match self {
            Mcp::Modern => "2026-07-28",
            Mcp::Legacy => "2025-11-25",
        }
    }
}

/// An answer: status, headers and the body as JSON (`null` when empty,
/// a string when it is not JSON). An MCP answer that came as an event
/// stream has its JSON-RPC response as `body` and the notifications and
/// requests the server sent ahead of it in `notifications`, in order.
#[derive(Clone, Debug)]
pub struct TestResponse {
    /// The answer's status.
    pub status: StatusCode,
    /// The answer's headers.
    pub headers: HeaderMap,
    /// The body as JSON (the JSON-RPC response of an event-stream answer).
    pub body: Value,
    /// What an event-stream answer carried ahead of its response.
    pub notifications: Vec<Value>,
}

/// The mounted service, type-erased so the server can keep it.
type Service =
    tower::util::BoxCloneSyncService<Request<Body>, axum::response::Response, Infallible>;

/// An application built for a test, answering in process.
pub struct TestServer {
    app: App,
    service: Service,
    /// Credentials every request carries (after [`TestServer::sign_in`]).
    token: std::sync::Mutex<Option<String>>,
    /// The 2025 session the server issued this client, once asked.
    mcp_session: std::sync::Mutex<Option<String>>,
    request_ids: AtomicU64,
}

/// The peer every request comes from: this machine.
const PEER: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 50_000);

impl TestServer {
    /// Builds `builder` over a fresh in-memory store (its schemas
    /// migrated); the application's state, vocabulary and mounts are the
    /// ones it serves with.
    pub fn start(builder: ServerBuilder) -> Result<TestServer, StartError> {
        let store = Store::open_in_memory(builder.schemas())?;
        TestServer::over(builder.with_store(store).build()?)
    }

    /// As [`TestServer::start`], with an instance password set (the gate
    /// then asks every request but the public ones for credentials; see
    /// [`TestServer::sign_in`]).
    pub fn start_locked(builder: ServerBuilder, password: &str) -> Result<TestServer, StartError> {
        let store = Store::open_in_memory(builder.schemas())?;
        crate::auth::store_password(&store, Some(password))
            .map_err(|error| StartError::Application(error.to_string()))?;
        TestServer::over(builder.with_store(store).build()?)
    }

    /// A built application, served in process.
    pub fn over(app: App) -> Result<TestServer, StartError> {
        let service = crate::http::service(app.clone())?;
        Ok(TestServer {
            app,
            service: Service::new(service),
            token: std::sync::Mutex::new(None),
            mcp_session: std::sync::Mutex::new(None),
            request_ids: AtomicU64::new(0),
        })
    }

    /// The application, as its routes see it.
    pub fn app(&self) -> &App {
        &self.app
    }

    /// Any request; `body` is sent as JSON.
    pub async fn request(&self, method: Method, path: &str, body: Option<&Value>) -> TestResponse {
        self.send(method, path, body, &[]).await
    }

    pub async fn get(&self, path: &str) -> TestResponse {
        self.request(Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> TestResponse {
        self.request(Method::POST, path, Some(body)).await
    }

    pub async fn put(&self, path: &str, body: &Value) -> TestResponse {
        self.request(Method::PUT, path, Some(body)).await
    }

    /// The catalog of `scope` in `format`, as an HTTP client reads it.
    pub async fn catalog(&self, scope: &str, format: &str) -> TestResponse {
        let path = format!(
            "{}?scope={scope}&format={format}",
            self.app.mounts.tools().path
        );
        self.get(&path).await
    }

    /// Calls `name` through the tool-call route with a fresh requestId (as
    /// the HTTP principal, signed in after [`TestServer::sign_in`]).
    pub async fn call_tool(&self, name: &str, arguments: Value) -> TestResponse {
        let request_id = format!(
            "test-{}",
            self.request_ids.fetch_add(1, Ordering::Relaxed) + 1
        );
        self.call_tool_as(&request_id, name, arguments).await
    }

    /// Calls `name` with the given requestId (replays, conflicts).
    pub async fn call_tool_as(
        &self,
        request_id: &str,
        name: &str,
        arguments: Value,
    ) -> TestResponse {
        let path = format!("{}/call", self.app.mounts.tools().path);
        let call = json!({ "requestId": request_id, "name": name, "arguments": arguments });
        self.post(&path, &call).await
    }

    /// Where the server mounts its MCP endpoint.
    fn mcp_path(&self) -> &'static str {
        self.app.mounts.path_of(mounts::MCP)
    }

    /// Signs in with `password`: every request after this carries the
    /// session (a server started with [`TestServer::start_locked`]).
    pub async fn sign_in(&self, password: &str) -> TestResponse {
        let answer = self
            .post(
                &format!("{}/login", self.app.mounts.path_of(mounts::AUTH)),
                &json!({ "password": password }),
            )
            .await;
        if let Some(token) = answer.body["token"].as_str() {
            *self
                .token
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(token.to_owned());
        }
        answer
    }

    /// Turns the MCP transport on and grants its principal `actions` (the
    /// Agent Tools settings' object of booleans, in the application's
    /// capabilities).
    pub async fn grant_mcp(&self, actions: &Value) -> TestResponse {
        self.put(
            self.app.mounts.path_of(mounts::MCP_SETTINGS),
            &json!({ "enabled": true, "actions": actions }),
        )
        .await
    }

    /// One MCP request (JSON-RPC id 1) at `revision`, with the headers
    /// the revision asks for: at 2026-07-28 `_meta`, `Mcp-Method` and
    /// `Mcp-Name` (from the params' `name`, `uri` or `taskId`, as the
    /// method names its target); at 2025-11-25 the session the server
    /// issued this client, opened with `initialize` on the first request
    /// (none when the server issues none). An answer sent as an event
    /// stream is read whole: its response in `body`, what came ahead of it
    /// in `notifications`.
    pub async fn mcp(&self, revision: Mcp, method: &str, params: Value) -> TestResponse {
        let (message, headers) = self.mcp_message(revision, method, params).await;
        let answer = self
            .send(Method::POST, self.mcp_path(), Some(&message), &headers)
            .await;
        if method == "initialize"
            && let Some(session) = answer.headers.get("mcp-session-id")
        {
            // A session asked for by hand is the one later requests use.
            *self.session() = session.to_str().ok().map(str::to_owned);
        }
        answer
    }

    /// Listens at `revision` until the returned stream is dropped: at
    /// 2026-07-28 `subscriptions/listen` with `params` (its `filter`), whose
    /// first message is the acknowledgement; at 2025-11-25 the session's
    /// `GET` stream (`params` unused), opening a session first.
    pub async fn mcp_listen(&self, revision: Mcp, params: Value) -> McpStream {
        let response = if revision == Mcp::Modern {
            let (message, headers) = self
                .mcp_message(revision, "subscriptions/listen", params)
                .await;
            self.dispatch(Method::POST, self.mcp_path(), Some(&message), &headers)
                .await
        } else {
            let mut headers = mcp_wire::revision_headers(revision, mcp_wire::ACCEPT_STREAM);
            if let Some(session) = self.legacy_session(revision).await {
                headers.push(("mcp-session-id", session));
            }
            self.dispatch(Method::GET, self.mcp_path(), None, &headers)
                .await
        };
        match response {
            Ok(response) => {
                let (parts, body) = response.into_parts();
                McpStream::new(parts.status, parts.headers, body)
            }
            Err(failed) => McpStream::new(
                failed.status,
                failed.headers,
                Body::from(failed.body.to_string()),
            ),
        }
    }

    /// Ends the 2025 session this client holds (`DELETE`), if any; the
    /// next 2025 request opens another.
    pub async fn mcp_end_session(&self) -> Option<TestResponse> {
        let session = self.session().take()?;
        let headers = [
            ("mcp-protocol-version", Mcp::Legacy.version().to_owned()),
            ("mcp-session-id", session),
        ];
        Some(
            self.send(Method::DELETE, self.mcp_path(), None, &headers)
                .await,
        )
    }

    /// The 2025 session this client holds, if any.
    fn session(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        self.mcp_session
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A request's JSON-RPC message and headers at `revision`.
    async fn mcp_message(
        &self,
        revision: Mcp,
        method: &str,
        params: Value,
    ) -> (Value, Vec<(&'static str, String)>) {
        let mut params = match params {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        let mut headers = mcp_wire::revision_headers(revision, mcp_wire::ACCEPT_BOTH);
        if revision == Mcp::Modern {
            // The revision's keys join any `_meta` the caller wrote (a
            // `progressToken`, a log level).
            let meta = params
                .entry("_meta")
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
            if let (Value::Object(meta), Value::Object(revision_keys)) =
                (meta, mcp_wire::modern_meta(revision))
            {
                for (key, value) in revision_keys {
                    meta.entry(key).or_insert(value);
                }
            }
            headers.extend(mcp_wire::modern_headers(method, &params));
        } else if method != "initialize"
            && let Some(session) = self.legacy_session(revision).await
        {
            headers.push(("mcp-session-id", session));
        }
        let message = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        (message, headers)
    }

    /// The 2025 session this client holds, opened with `initialize` (and
    /// `notifications/initialized`) the first time; `None` when the server
    /// issues none.
    async fn legacy_session(&self, revision: Mcp) -> Option<String> {
        let held = self.session().clone();
        if held.is_some() {
            return held;
        }
        let mut headers = mcp_wire::revision_headers(revision, mcp_wire::ACCEPT_BOTH);
        let opened = self
            .send(
                Method::POST,
                self.mcp_path(),
                Some(&mcp_wire::initialize(revision)),
                &headers,
            )
            .await;
        let session = opened
            .headers
            .get("mcp-session-id")
            .and_then(|id| id.to_str().ok())
            .map(str::to_owned)?;
        let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        headers.push(("mcp-session-id", session.clone()));
        self.send(Method::POST, self.mcp_path(), Some(&initialized), &headers)
            .await;
        *self.session() = Some(session.clone());
        Some(session)
    }

    async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        extra: &[(&str, String)],
    ) -> TestResponse {
        match self.dispatch(method, path, body, extra).await {
            Ok(response) => read_whole(response).await,
            Err(failed) => failed,
        }
    }

    /// The service's answer to one request, its body not read yet.
    async fn dispatch(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        extra: &[(&str, String)],
    ) -> Result<axum::response::Response, TestResponse> {
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header(header::HOST, "localhost");
        if body.is_some() {
            request = request.header(header::CONTENT_TYPE, "application/json");
        }
        let token = self
            .token
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        if let Some(token) = token {
            request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
        }
        for (name, value) in extra {
            if let Ok(value) = HeaderValue::from_str(value) {
                request = request.header(*name, value);
            }
        }
        let body = body.map_or_else(Body::empty, |body| Body::from(body.to_string()));
        let mut request = match request.body(body) {
            Ok(request) => request,
            Err(error) => return Err(failed(&error.to_string())),
        };
        request.extensions_mut().insert(ConnectInfo(PEER));
        let Ok(response) = self.service.clone().oneshot(request).await;
        Ok(response)
    }
}

/// An answer read to its end: JSON, or an event stream's messages (the
/// last one the response, the others what came ahead of it).
async fn read_whole(response: axum::response::Response) -> TestResponse {
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let (body, notifications) = if mcp_wire::is_event_stream(&parts.headers) {
        let mut messages = mcp_wire::stream_messages(&text.replace("\r\n", "\n"));
        let last = messages.pop().unwrap_or(Value::Null);
        (last, messages)
    } else if bytes.is_empty() {
        (Value::Null, Vec::new())
    } else {
        let body =
            serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(text.into_owned()));
        (body, Vec::new())
    };
    TestResponse {
        status: parts.status,
        headers: parts.headers,
        body,
        notifications,
    }
}

/// A request that could not be made (a path that is not a URI).
fn failed(why: &str) -> TestResponse {
    TestResponse {
        status: StatusCode::BAD_REQUEST,
        headers: HeaderMap::new(),
        body: Value::String(why.to_owned()),
        notifications: Vec::new(),
    }
}

impl std::fmt::Debug for TestServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestServer")
            .field("app", &self.app)
            .finish_non_exhaustive()
    }
}
