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
pub mod otlp;

pub use loopback::serve_on_loopback;

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
/// a string when it is not JSON).
#[derive(Clone, Debug)]
pub struct TestResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
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

    /// Signs in with `password`: every request after this carries the
    /// session (a server started with [`TestServer::start_locked`]).
    pub async fn sign_in(&self, password: &str) -> TestResponse {
        let answer = self
            .post("/api/auth/login", &json!({ "password": password }))
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
            "/api/settings/agent-context",
            &json!({ "enabled": true, "actions": actions }),
        )
        .await
    }

    /// One MCP request (JSON-RPC id 1) at `revision`.
    pub async fn mcp(&self, revision: Mcp, method: &str, params: Value) -> TestResponse {
        let mut params = match params {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        let mut headers: Vec<(&str, String)> = vec![
            ("accept", "application/json, text/event-stream".to_owned()),
            ("mcp-protocol-version", revision.version().to_owned()),
        ];
        if revision == Mcp::Modern {
            params.insert(
                "_meta".to_owned(),
                json!({
                    "io.modelcontextprotocol/protocolVersion": revision.version(),
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": { "name": "portos-testing", "version": "1" },
                }),
            );
            headers.push(("mcp-method", method.to_owned()));
            if let Some(name) = params.get("name").and_then(Value::as_str) {
                headers.push(("mcp-name", name.to_owned()));
            }
        }
        let message = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        self.send(
            Method::POST,
            "/api/agent-context/mcp",
            Some(&message),
            &headers,
        )
        .await
    }

    async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        extra: &[(&str, String)],
    ) -> TestResponse {
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
            Err(error) => return failed(&error.to_string()),
        };
        request.extensions_mut().insert(ConnectInfo(PEER));
        let Ok(response) = self.service.clone().oneshot(request).await;
        let (parts, body) = response.into_parts();
        let bytes = axum::body::to_bytes(body, usize::MAX)
            .await
            .unwrap_or_default();
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
        };
        TestResponse {
            status: parts.status,
            headers: parts.headers,
            body,
        }
    }
}

/// A request that could not be made (a path that is not a URI).
fn failed(why: &str) -> TestResponse {
    TestResponse {
        status: StatusCode::BAD_REQUEST,
        headers: HeaderMap::new(),
        body: Value::String(why.to_owned()),
    }
}

impl std::fmt::Debug for TestServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestServer")
            .field("app", &self.app)
            .finish_non_exhaustive()
    }
}
