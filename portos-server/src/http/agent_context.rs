//! Agent Tools over HTTP (docs/reference.md#manifest,
//! docs/reference.md#mcp-transport): the settings, the manifest, and the
//! Streamable HTTP MCP endpoint (every POST stands alone; a 2025 client may
//! hold a session for what it sets). Who may reach them is
//! `super::agent_caller`'s (loopback callers, or remote mode's token
//! holders), checked before anything else; the password gate (or remote
//! mode's token check) has already run.

use crate::portos_route;
use axum::Json;
use axum::extract::{FromRequest, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use portos_core::contract::{FieldIssue, ValidationFailure};
use portos_core::inventory::{OutcomeSpec, RouteIo};
use schemars::{Schema, SchemaGenerator, json_schema};
use serde_json::Value;

use super::agent_caller::{ActiveAgent, LocalCaller};
use super::io::schema_of;
use super::mcp_listen;
use super::remote_gate::RemoteClient;
use super::{ApiError, Body, RouteErrors, RouteInput, RouteOutput};
use crate::agent_tools::config::{AgentContextSettings, AgentContextView};
use crate::app::App;
use crate::mcp::jsonrpc::{self, INVALID_REQUEST};
use crate::mcp::modern::{self, HeaderText, MirroredHeaders, ReplyStatus};
use crate::mcp::notify::{Follow, Notifier};
use crate::mcp::server::SUPPORTED_VERSIONS;
use crate::mcp::telemetry::{self as mcp_telemetry, McpObservation, Transport};
use crate::mcp::{CallMeta, ConfigReads, McpServer};
use crate::remote::RemoteCaller;
use crate::settings;
use crate::settings::SettingsChange;
use crate::store::changes::{self, Change};
use crate::store::{StoreError, detached};
use portos_core::telemetry::in_span;

/// The Agent Tools settings: enabled, context profile, scopes, and the
/// agent's semantic action grants (all off by default).
#[portos_route(
    method = "GET",
    mount = "mcp-settings",
    path = "",
    summary = "Agent Tools settings"
)]
async fn read_settings(State(app): State<App>) -> Json<AgentContextView> {
    Json(app.agent_context.current().view())
}

/// Why the settings were not saved.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum SettingsError {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] ValidationFailure),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
    #[error("the settings could not be encoded: {0}")]
    #[route_error(internal)]
    Encode(#[from] serde_json::Error),
}

/// Replaces the Agent Tools settings (keys left out take their defaults).
/// Unknown keys, unknown scopes, repeated scopes and non-boolean grants are
/// refused and nothing is stored.
#[portos_route(
    method = "PUT",
    mount = "mcp-settings",
    path = "",
    summary = "Change Agent Tools settings"
)]
async fn change_settings(
    State(app): State<App>,
    Body(parsed): Body<AgentContextSettings>,
) -> Result<Json<AgentContextView>, SettingsError> {
    parsed.check().map_err(|message| ValidationFailure {
        details: vec![FieldIssue {
            path: String::new(),
            message,
        }],
    })?;
    let enabled = parsed.enabled == Some(true);
    let stored = serde_json::to_value(&parsed)?;
    let grants = app.grants.clone();
    let agent_context = app.agent_context.clone();
    let (store, events) = (app.store.clone(), app.events.clone());
    let observer = app.settings_observer.clone();
    let route = app.mounts.path_of(crate::mounts::MCP_SETTINGS);
    // Subscribers hear of every change that committed, even if the caller
    // hangs up in between.
    let config = detached(async move {
        let config = store
            .run(move |connection| {
                // The settings and what the observer writes commit together; the
                // caches are refreshed from what committed.
                let transaction = connection.transaction()?;
                settings::set_json(&transaction, settings::AGENT_CONTEXT, &stored)?;
                observer.changed(&transaction, &settings_changed(enabled, route))?;
                changes::announce(&transaction, &Change::AgentContext)?;
                transaction.commit()?;
                grants.refresh(connection)?;
                agent_context.refresh(connection)
            })
            .await?;
        events.catalog_changed(settings::AGENT_CONTEXT).await;
        Ok::<_, SettingsError>(config)
    })
    .await?;
    Ok(Json(config.view()))
}

/// The Agent Tools manifest: settings, limits, exclusions and the advertised
/// tools. Readable while the feature is disabled; semantic tools are then
/// not advertised.
#[portos_route(
    method = "GET",
    mount = "mcp-manifest",
    path = "",
    summary = "Agent Tools manifest"
)]
async fn manifest(State(app): State<App>, _local: LocalCaller) -> Json<Value> {
    let server = McpServer::new(app.clone(), ConfigReads::Cached);
    Json(server.manifest(&app.agent_context.current()))
}

/// Agent Tools MCP over Streamable HTTP: one JSON-RPC message per POST,
/// answered with JSON, or with an event stream when the request asked to
/// follow its progress or log messages and the call sent some (they go
/// ahead of the response); notifications and responses get 202. The 2025
/// revisions (`initialize`, which opens a session, `ping`,
/// `logging/setLevel`, the lists, reads and calls) and 2026-07-28
/// (`server/discover`, each request carrying its version in `_meta` and in
/// headers) on the same endpoint.
#[portos_route(method = "POST", mount = "mcp", path = "", summary = "Agent Tools MCP")]
async fn mcp_post(
    State(app): State<App>,
    _agent: ActiveAgent,
    RemoteClient(caller): RemoteClient,
    McpPost {
        mut meta,
        message,
        mirrored,
        version,
        session_id,
    }: McpPost,
) -> McpAnswer {
    // A session the client names must be live: one that ended (or that
    // this process never opened) is 404, and the client opens another.
    if let Some(id) = &session_id {
        match app.mcp_sessions.find(id) {
            Some(session) => {
                meta.client_answers = session.answered_kinds();
                meta.session = Some(session);
            }
            None => return McpAnswer::Refused(session_not_found()),
        }
    }
    // `initialize` (2025) opens a session once it succeeds.
    let opener = mirrored
        .is_none()
        .then(|| initialize_capabilities(&message))
        .flatten()
        .map(|capabilities| (app.clone(), capabilities));
    let mut server = McpServer::new(app, ConfigReads::Cached);
    if let Some(caller) = caller {
        audit(&caller, &message);
        server = server.for_remote(caller);
        if let Some(refused) = scope_refusal(&server, &message) {
            return McpAnswer::Refused(refused);
        }
    }
    // A 2026-07-28 subscription is a stream of its own, as long as the
    // client listens.
    if mirrored.is_some()
        && let jsonrpc::Message::Request { id, method, params } = &message
        && method == "subscriptions/listen"
    {
        return match server
            .listen_request(id.clone(), params.as_ref(), mirrored.as_ref())
            .await
        {
            Ok(listening) => McpAnswer::Stream(mcp_listen::subscription(server, listening)),
            Err((status, response)) => McpAnswer::Reply(http_status(status), response, None),
        };
    }
    meta.follow = Follow::of(&message);
    // What may send ahead of the response: progress, logs, or (2025) the
    // server's own questions to a client that can answer them.
    let follows = meta.follow.progress_token.is_some()
        || meta.follow.log_level.is_some()
        || meta.session.as_ref().is_some_and(|session| {
            session.log_level().is_some() || !meta.client_answers.is_empty()
        });
    let answer = if follows && called_tool_or_prompt(&message) {
        // Boxed: rare, and its future would grow every call's.
        let exchange = Exchange {
            server,
            meta,
            message,
            mirrored,
            version,
        };
        Box::pin(exchange.answer_following()).await
    } else {
        // Boxed too: the handler's future is moved (copied whole) on its
        // way through the router's layers, and this one is kilobytes.
        Box::pin(respond(&server, &meta, message, mirrored, version))
            .await
            .map(Outgoing::Final)
    };
    match answer {
        Some(Outgoing::Final((status, response))) => {
            let session = opener
                .filter(|(_, _)| status == StatusCode::OK && is_result(&response))
                .and_then(|(app, capabilities)| {
                    HeaderValue::from_str(app.mcp_sessions.open(&capabilities).id()).ok()
                });
            McpAnswer::Reply(status, response, session)
        }
        Some(Outgoing::Stream(body)) => McpAnswer::Stream(body),
        None => McpAnswer::Accepted,
    }
}

/// One message being answered.
struct Exchange {
    server: McpServer,
    meta: CallMeta,
    message: jsonrpc::Message,
    mirrored: Option<MirroredHeaders>,
    version: Option<&'static str>,
}

/// What a POST answers: one JSON response, or an event stream ending with
/// it.
enum Outgoing {
    Final((StatusCode, String)),
    Stream(axum::body::Body),
}

/// What the stream of a followed call carries.
enum Event {
    Note(String),
    Final((StatusCode, String)),
}

/// The response to `message` (`None` for a notification or a response),
/// observed.
async fn respond(
    server: &McpServer,
    meta: &CallMeta,
    message: jsonrpc::Message,
    mirrored: Option<MirroredHeaders>,
    version: Option<&'static str>,
) -> Option<(StatusCode, String)> {
    let version = version.or_else(|| mcp_telemetry::meta_version(&message));
    let observation = McpObservation::start(&message, version, Transport::Http);
    let unobserved = tracing::Span::none();
    let span = observation
        .as_ref()
        .map_or(&unobserved, McpObservation::span);
    // Each branch's own future in the span, not one async block around
    // both: a layer less to poll through on every call.
    let answer = match mirrored {
        Some(mirrored) => in_span(span, server.handle_modern(message, Some(&mirrored), meta))
            .await
            .map(|(status, response)| (http_status(status), response)),
        None => in_span(span, server.handle(message, meta))
            .await
            .map(|response| (StatusCode::OK, response)),
    };
    if let Some(observation) = observation {
        let response = answer.as_ref().map(|(_, response)| response.as_str());
        observation.finish(&server.app().metrics.mcp, response);
    }
    answer
}

impl Exchange {
    /// The response, observed.
    async fn answer(self) -> Option<(StatusCode, String)> {
        respond(
            &self.server,
            &self.meta,
            self.message,
            self.mirrored,
            self.version,
        )
        .await
    }

    /// A call the client follows: answered on its own task, its
    /// notifications sent ahead of the response. Until the first one, the
    /// answer may still be plain JSON (with its own status): a call that
    /// reports nothing is answered as any other.
    async fn answer_following(mut self) -> Option<Outgoing> {
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<Event>();
        let notes = sender.clone();
        self.meta.notifier = Some(Notifier::new(move |line| {
            let _ = notes.send(Event::Note(line));
        }));
        // Detached: a client that hangs up does not stop the call.
        tokio::spawn(async move {
            if let Some(answer) = self.answer().await {
                let _ = sender.send(Event::Final(answer));
            }
        });
        match receiver.recv().await? {
            Event::Final(answer) => Some(Outgoing::Final(answer)),
            Event::Note(first) => {
                let events = futures::stream::unfold(
                    (Some(first), Some(receiver)),
                    |(pending, receiver)| async move {
                        if let Some(line) = pending {
                            return Some((sse_data(&line), (None, receiver)));
                        }
                        let mut receiver = receiver?;
                        match receiver.recv().await? {
                            Event::Note(line) => Some((sse_data(&line), (None, Some(receiver)))),
                            // The response ends the stream.
                            Event::Final((_, line)) => Some((sse_data(&line), (None, None))),
                        }
                    },
                );
                Some(Outgoing::Stream(axum::body::Body::from_stream(events)))
            }
        }
    }
}

/// One JSON-RPC message as a server-sent event (JSON text has no line
/// breaks, so it is one `data:` line).
fn sse_data(line: &str) -> Result<bytes::Bytes, std::convert::Infallible> {
    Ok(bytes::Bytes::from(format!("data: {line}\n\n")))
}

/// Whether `message` calls a tool or gets a prompt: what reports while it
/// runs.
fn called_tool_or_prompt(message: &jsonrpc::Message) -> bool {
    match message {
        jsonrpc::Message::ToolCall { .. } => true,
        jsonrpc::Message::Request { method, .. } => {
            method == "tools/call" || method == "prompts/get"
        }
        _ => false,
    }
}

/// The client capabilities of an `initialize` request (an empty object
/// when it names none; `None` for any other message).
fn initialize_capabilities(message: &jsonrpc::Message) -> Option<serde_json::Map<String, Value>> {
    match message {
        jsonrpc::Message::Request { method, params, .. } if method == "initialize" => Some(
            params
                .as_ref()
                .and_then(|params| params.get("capabilities"))
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
        ),
        _ => None,
    }
}

/// Whether a response is a result (not a JSON-RPC error).
fn is_result(response: &str) -> bool {
    serde_json::from_str::<Value>(response).is_ok_and(|response| response.get("result").is_some())
}

/// 404 for a session that ended or was never opened here.
fn session_not_found() -> Response {
    jsonrpc_status(StatusCode::NOT_FOUND, "Session not found")
}

/// Remote mode's audit trail: who called which tool (the log at `info`).
fn audit(caller: &RemoteCaller, message: &jsonrpc::Message) {
    if let Some(name) = called_tool(message) {
        tracing::info!(
            subject = %caller.subject,
            client_id = caller.client_id.as_deref().unwrap_or(""),
            tool = name,
            transport = "mcp",
            "remote tool call"
        );
    }
}

/// The tool a `tools/call` message names.
fn called_tool(message: &jsonrpc::Message) -> Option<&str> {
    match message {
        jsonrpc::Message::ToolCall { call, .. } => Some(call.name.as_str()),
        jsonrpc::Message::Request { method, params, .. } if method == "tools/call" => {
            params.as_ref()?.get("name")?.as_str()
        }
        _ => None,
    }
}

/// Remote mode: a `tools/call` of a tool the principal is granted but the
/// caller's token does not carry the scopes of is refused with HTTP 403 and
/// the `insufficient_scope` challenge naming them (the MCP revision's step-up
/// authorization), before anything runs.
fn scope_refusal(server: &McpServer, message: &jsonrpc::Message) -> Option<Response> {
    let (app, caller) = (server.app(), server.remote()?);
    let remote = app.remote.as_ref()?;
    let name = called_tool(message)?;
    let needed = server.granted_tool_needs(name, &app.agent_context.current())?;
    let refusal = remote.insufficient(caller, needed)?;
    Some(super::remote_gate::refusal_response(remote, &refusal))
}

/// 2026-07-28 over HTTP: the revision's refusals are 400 (metadata,
/// headers, version, params) and 404 (a method it does not have); a
/// server's failure is 500.
fn http_status(status: ReplyStatus) -> StatusCode {
    match status {
        ReplyStatus::Ok => StatusCode::OK,
        ReplyStatus::BadRequest => StatusCode::BAD_REQUEST,
        ReplyStatus::NotFound => StatusCode::NOT_FOUND,
        ReplyStatus::ServerError => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// A 2025 session's event stream (`Mcp-Session-Id`): the server's
/// notifications outside any call, that the tools, prompts or resources it
/// may list changed and that a resource it subscribed to changed. Without a
/// session there is none to open: 405 (`Allow: POST`); 404 for a session
/// that is not live. (A call's own notifications travel on its POST's
/// stream; 2026-07-28 clients listen with `subscriptions/listen`.)
#[portos_route(
    method = "GET",
    mount = "mcp",
    path = "",
    summary = "Agent Tools MCP session stream"
)]
async fn mcp_get(State(app): State<App>, _agent: ActiveAgent, headers: HeaderMap) -> SessionStream {
    let Some(id) = headers.get(&MCP_SESSION_ID).and_then(|id| id.to_str().ok()) else {
        return SessionStream::NoSession;
    };
    match app.mcp_sessions.find(id.trim()) {
        Some(session) => {
            let server = McpServer::new(app, ConfigReads::Cached);
            SessionStream::Open(mcp_listen::session(server, session))
        }
        None => SessionStream::NotFound,
    }
}

/// What `GET` answers.
pub(super) enum SessionStream {
    Open(axum::body::Body),
    NotFound,
    NoSession,
}

impl IntoResponse for SessionStream {
    fn into_response(self) -> Response {
        match self {
            SessionStream::Open(body) => McpAnswer::Stream(body).into_response(),
            SessionStream::NotFound => session_not_found(),
            SessionStream::NoSession => PostOnly.into_response(),
        }
    }
}

impl RouteOutput for SessionStream {
    fn describe(io: &mut RouteIo) {
        io.modeled = true;
        io.outcomes.push(OutcomeSpec {
            status: 200,
            description: "The session's event stream (`text/event-stream`): `notifications/tools/list_changed`, `notifications/prompts/list_changed`, `notifications/resources/list_changed` and `notifications/resources/updated`, one JSON-RPC message per `data:` line",
            schema: None,
        });
        io.outcomes.push(OutcomeSpec {
            status: 405,
            description: "No `Mcp-Session-Id` header: no session stream to open (`Allow: POST`, empty body)",
            schema: None,
        });
        io.outcomes.push(OutcomeSpec {
            status: 404,
            description: "The session is not live (ended, expired, or opened by another server) (-32600)",
            schema: Some(jsonrpc_error_schema),
        });
    }
}

/// Ends the 2025 session `Mcp-Session-Id` names: 204, and later requests
/// naming it get 404; 404 for a session that is not live. Without the
/// header there is nothing to end: 405 (`Allow: POST`), as for a
/// stateless client.
#[portos_route(
    method = "DELETE",
    mount = "mcp",
    path = "",
    summary = "End an Agent Tools MCP session"
)]
async fn mcp_delete(State(app): State<App>, _agent: ActiveAgent, headers: HeaderMap) -> SessionEnd {
    match headers.get(&MCP_SESSION_ID).and_then(|id| id.to_str().ok()) {
        None => SessionEnd::NoSession,
        Some(id) if app.mcp_sessions.close(id.trim()) => SessionEnd::Ended,
        Some(_) => SessionEnd::NotFound,
    }
}

/// What `DELETE` answers.
pub(super) enum SessionEnd {
    Ended,
    NotFound,
    NoSession,
}

impl IntoResponse for SessionEnd {
    fn into_response(self) -> Response {
        match self {
            SessionEnd::Ended => StatusCode::NO_CONTENT.into_response(),
            SessionEnd::NotFound => session_not_found(),
            SessionEnd::NoSession => PostOnly.into_response(),
        }
    }
}

impl RouteOutput for SessionEnd {
    fn describe(io: &mut RouteIo) {
        io.success_status = 204;
        io.modeled = true;
        io.outcomes.push(OutcomeSpec {
            status: 204,
            description: "The session ended: requests naming it now get 404",
            schema: None,
        });
        io.outcomes.push(OutcomeSpec {
            status: 405,
            description: "No `Mcp-Session-Id` header: no session to end (`Allow: POST`, empty body)",
            schema: None,
        });
        io.outcomes.push(OutcomeSpec {
            status: 404,
            description: "The session is not live (ended, expired, or opened by another server) (-32600)",
            schema: Some(jsonrpc_error_schema),
        });
    }
}

/// One JSON-RPC message POSTed to the MCP endpoint, with the call metadata
/// its headers carry. Refused with a JSON-RPC error body: 406 unless
/// `Accept` names JSON and SSE, 400 for an unsupported
/// `MCP-Protocol-Version` or a malformed message; 413 (the contract's body)
/// when larger than the configured limit.
pub(super) struct McpPost {
    meta: CallMeta,
    message: jsonrpc::Message,
    /// The headers a 2026-07-28 request mirrors its body in; `None` for a
    /// 2025 message.
    mirrored: Option<MirroredHeaders>,
    /// The served revision its `MCP-Protocol-Version` header names.
    version: Option<&'static str>,
    /// The 2025 session its `Mcp-Session-Id` header names.
    session_id: Option<String>,
}

impl FromRequest<App> for McpPost {
    type Rejection = Response;

    async fn from_request(request: Request, app: &App) -> Result<McpPost, Response> {
        let (parts, body) = request.into_parts();
        let headers = &parts.headers;
        if !accepts_json_and_sse(headers) {
            return Err(jsonrpc_status(
                StatusCode::NOT_ACCEPTABLE,
                "Accept must include application/json and text/event-stream",
            ));
        }
        // A version header that is not a 2025 revision selects 2026-07-28,
        // which answers an unknown version itself (with the ones it speaks).
        let version = headers.get(&MCP_PROTOCOL_VERSION);
        let modern_header =
            version.is_some_and(|version| version.to_str().map_or(true, modern::header_is_modern));
        if let Some(version) = version
            && !modern_header
            && !version
                .to_str()
                .is_ok_and(|v| SUPPORTED_VERSIONS.contains(&v.trim()))
        {
            return Err(jsonrpc_status(
                StatusCode::BAD_REQUEST,
                "Unsupported MCP-Protocol-Version",
            ));
        }
        let meta = CallMeta {
            idempotency_key: headers
                .get(&IDEMPOTENCY_KEY)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            ..CallMeta::default()
        };
        let session_id = headers
            .get(&MCP_SESSION_ID)
            .map(|id| id.to_str().map(|id| id.trim().to_owned()))
            .transpose()
            .map_err(|_| session_not_found())?;
        let bytes = axum::body::to_bytes(body, app.config.body_limit)
            .await
            .map_err(|_| {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "PAYLOAD_TOO_LARGE",
                    "Request body is larger than the configured limit",
                )
                .into_response()
            })?;
        match jsonrpc::parse(&bytes) {
            Ok(message) => {
                // A body naming its version the 2026 way is served that way
                // (and told if its headers are missing), header or not.
                let body_modern = modern::message_is_modern(&message);
                // A header naming no revision this server knows, over a
                // body that names none either, is an unsupported version as
                // step 6 says (not a 2026 request missing its `_meta`).
                if modern_header && !body_modern && !version.is_some_and(names_modern_revision) {
                    return Err(jsonrpc_status(
                        StatusCode::BAD_REQUEST,
                        "Unsupported MCP-Protocol-Version",
                    ));
                }
                let modern = modern_header || body_modern;
                Ok(McpPost {
                    meta,
                    message,
                    mirrored: modern
                        .then(|| mirrored_headers(headers, app.registry.declares_mcp_headers())),
                    version: version
                        .and_then(|version| version.to_str().ok())
                        .and_then(mcp_telemetry::known_version),
                    session_id,
                })
            }
            Err(rejected) => {
                Err((StatusCode::BAD_REQUEST, Json(rejected.to_response())).into_response())
            }
        }
    }
}

/// Whether a version header names a revision served the 2026 way.
fn names_modern_revision(version: &HeaderValue) -> bool {
    version
        .to_str()
        .is_ok_and(|version| modern::MODERN_VERSIONS.contains(&version.trim()))
}

/// The headers a 2026-07-28 request mirrors its body in (read only for
/// such a request); the `Mcp-Param-*` ones only when a tool declares one.
fn mirrored_headers(headers: &HeaderMap, params: bool) -> MirroredHeaders {
    let text = |name: &HeaderName| headers.get(name).map(HeaderText::from_value);
    MirroredHeaders {
        protocol_version: text(&MCP_PROTOCOL_VERSION),
        method: text(&MCP_METHOD),
        name: text(&MCP_NAME),
        params: if params {
            headers
                .iter()
                .filter_map(|(name, value)| {
                    let param = name.as_str().strip_prefix("mcp-param-")?;
                    Some((param.to_owned(), HeaderText::from_value(value)))
                })
                .collect()
        } else {
            Vec::new()
        },
    }
}

impl RouteInput for McpPost {
    fn describe(io: &mut RouteIo) {
        io.request = Some(jsonrpc_message_schema);
        // The transport's refusals are JSON-RPC errors, not the REST error
        // shape (docs/reference.md#mcp-transport steps 5-7).
        io.outcomes.push(OutcomeSpec {
            status: 400,
            description: "A message that is not one valid JSON-RPC message (-32700, -32600) or an unsupported MCP-Protocol-Version (-32600), with `id: null`; at MCP 2026-07-28 also that revision's refusals of metadata, headers and version",
            schema: Some(jsonrpc_error_schema),
        });
        io.outcomes.push(OutcomeSpec {
            status: 406,
            description: "Accept does not name both application/json and text/event-stream (-32600, `id: null`)",
            schema: Some(jsonrpc_error_schema),
        });
        io.error(413, "PAYLOAD_TOO_LARGE");
    }
}

/// The schema of one JSON-RPC 2.0 message a client sends: a request (with
/// an `id`), a notification (without), or a response to the server. What
/// each method's `params` must hold is MCP's (docs/mcp.md); a message that
/// is not valid JSON-RPC is a 400.
fn jsonrpc_message_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "required": ["jsonrpc"],
        "properties": {
            "jsonrpc": { "type": "string", "enum": ["2.0"] },
            "id": {
                "description": "A string or an integer: a request (absent: a notification, answered 202)"
            },
            "method": { "type": "string", "minLength": 1 },
            "params": { "type": "object" },
            "result": { "description": "A response to the server (answered 202)" },
            "error": { "type": "object" }
        }
    })
}

/// The schema of a JSON-RPC error response.
fn jsonrpc_error_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "required": ["jsonrpc", "id", "error"],
        "properties": {
            "jsonrpc": { "type": "string", "enum": ["2.0"] },
            "id": {
                "description": "The request's id (a string or a number), or null when the message could not be read"
            },
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                    "code": { "type": "integer" },
                    "message": { "type": "string" },
                    "data": {}
                }
            }
        }
    })
}

/// A JSON-RPC response (200; with the session it opened, for
/// `initialize`), an event stream ending with one, or 202 for a
/// notification or a response.
pub(super) enum McpAnswer {
    Reply(StatusCode, String, Option<HeaderValue>),
    Stream(axum::body::Body),
    Accepted,
    /// Refused at the HTTP level (remote mode's `insufficient_scope`).
    Refused(Response),
}

impl IntoResponse for McpAnswer {
    fn into_response(self) -> Response {
        match self {
            McpAnswer::Reply(status, response, session) => {
                let mut reply = (
                    status,
                    [(
                        header::CONTENT_TYPE,
                        HeaderValue::from_static("application/json"),
                    )],
                    response,
                )
                    .into_response();
                if let Some(session) = session {
                    reply.headers_mut().insert(MCP_SESSION_ID.clone(), session);
                }
                reply
            }
            McpAnswer::Stream(body) => (
                StatusCode::OK,
                [
                    (
                        header::CONTENT_TYPE,
                        HeaderValue::from_static("text/event-stream"),
                    ),
                    (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
                ],
                body,
            )
                .into_response(),
            McpAnswer::Accepted => StatusCode::ACCEPTED.into_response(),
            McpAnswer::Refused(response) => response,
        }
    }
}

impl RouteOutput for McpAnswer {
    fn describe(io: &mut RouteIo) {
        io.response = Some(schema_of::<Value>());
        io.outcomes.push(OutcomeSpec {
            status: 404,
            description: "MCP 2026-07-28: a method that revision does not have (`initialize`, `ping`, …), as a JSON-RPC error (-32601); a 2025 `Mcp-Session-Id` that names no live session (-32600)",
            schema: Some(schema_of::<Value>()),
        });
    }
}

/// 405 with `Allow: POST` and an empty body (docs/reference.md#mcp-transport
/// step 4): there is no stream to open, and without `Mcp-Session-Id` no
/// session to end.
pub(super) struct PostOnly;

impl IntoResponse for PostOnly {
    fn into_response(self) -> Response {
        (
            StatusCode::METHOD_NOT_ALLOWED,
            [(header::ALLOW, HeaderValue::from_static("POST"))],
        )
            .into_response()
    }
}

impl RouteOutput for PostOnly {
    fn describe(io: &mut RouteIo) {
        io.success_status = 405;
        io.modeled = true;
        io.outcomes.push(OutcomeSpec {
            status: 405,
            description: "No stream to open: POST one JSON-RPC message (`Allow: POST`, empty body)",
            schema: None,
        });
    }
}

fn jsonrpc_status(status: StatusCode, message: &str) -> Response {
    (
        status,
        Json(jsonrpc::error_response(
            &Value::Null,
            INVALID_REQUEST,
            message,
        )),
    )
        .into_response()
}

/// The MCP transport's headers, named once (a look-up by a `&str` name
/// checks and folds the name on every request).
static MCP_PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
static MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
static MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
static IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
static MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

fn accepts_json_and_sse(headers: &HeaderMap) -> bool {
    let accept = headers.get_all(header::ACCEPT);
    // The value MCP clients send, compared whole first.
    if accept.iter().any(|value| {
        value
            .as_bytes()
            .eq_ignore_ascii_case(b"application/json, text/event-stream")
    }) {
        return true;
    }
    // Each type in any of the Accept headers (text ones), in any case; a
    // type cannot span two headers, so they are read one by one, as is.
    let names = |needle: &str| {
        accept
            .iter()
            .filter(|value| value.to_str().is_ok())
            .any(|value| contains_ignoring_case(value.as_bytes(), needle.as_bytes()))
    };
    names("application/json") && names("text/event-stream")
}

/// Whether `haystack` holds `needle` (lower case), in any case. Only the
/// places whose first byte matches are compared (an MCP call asks this
/// twice of its Accept header).
fn contains_ignoring_case(haystack: &[u8], needle: &[u8]) -> bool {
    let Some(&first) = needle.first() else {
        return true;
    };
    haystack.windows(needle.len()).any(|window| {
        window[0].to_ascii_lowercase() == first && window.eq_ignore_ascii_case(needle)
    })
}

/// An Agent Tools settings change (at `route`, where the settings are
/// mounted) as the application's settings observer is told of it.
fn settings_changed(enabled: bool, route: &'static str) -> SettingsChange {
    let state = if enabled { "enabled" } else { "disabled" };
    SettingsChange {
        key: settings::AGENT_CONTEXT,
        name: "Agent Tools",
        summary: format!("Saved the Agent Tools settings ({state})"),
        details: serde_json::json!({ "enabled": enabled }),
        method: "PUT",
        route,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_names_json_and_sse_in_any_header_and_case() {
        let accept = |values: &[&[u8]]| {
            let mut headers = HeaderMap::new();
            for value in values {
                headers.append(
                    header::ACCEPT,
                    HeaderValue::from_bytes(value).expect("a header value"),
                );
            }
            accepts_json_and_sse(&headers)
        };
        assert!(accept(&[b"application/json, text/event-stream"]));
        assert!(accept(&[b"Text/Event-Stream", b"APPLICATION/JSON;q=0.9"]));
        assert!(!accept(&[b"application/json"]));
        assert!(!accept(&[b"text/event-stream", b"application/\xffjson"]));
        assert!(!accept(&[]));
    }
}
