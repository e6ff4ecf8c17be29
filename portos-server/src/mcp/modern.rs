//! MCP 2026-07-28, served beside the 2025 revisions on the same endpoint
//! and over stdio. The revision has no handshake and no session: every
//! request names its protocol version and the client's capabilities in
//! `params._meta`, and over HTTP mirrors the version, the method and the
//! tool's name in headers that must agree with the body. A server answers
//! `server/discover` instead of `initialize`, and every result says what
//! kind of result it is (`resultType`).
//!
//! Which era a message belongs to: over HTTP, a `MCP-Protocol-Version`
//! header that is not a 2025 revision, or a body whose `_meta` names a
//! protocol version (so a modern request that forgot the header is told so
//! rather than served as a 2025 one); over stdio, the `_meta` version alone.
//! The guards of docs/reference.md#mcp-transport (loopback, Origin, Host,
//! disabled, grants) run before either era's handling.

use std::borrow::Cow;

use axum::http::HeaderValue;
use base64::Engine;
use serde_json::{Map, Value, json};

use super::jsonrpc::{CallParams, INVALID_PARAMS, METHOD_NOT_FOUND, Message};
use std::sync::Arc;

use portos_core::canonical_json;
use portos_core::{InputKind, InputSource};

use super::input::{self, RoundInput};
use super::listen::{Filter, Listening};
use super::primitives::{Era, PrimitiveRefusal};
use super::reply::{ResultMeta, ServerInfo};
use super::request_meta::RequestMeta;
use super::server::{CallMeta, CallOutcome, Follows, McpServer, call_params};
use super::tasks::{TASKS_EXTENSION, capabilities_declare_tasks, declares_tasks, task};
use crate::agent_tools::request_state::RequestStateKey;

/// The revisions served the 2026 way (per-request metadata, no handshake).
pub(crate) const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];

pub(crate) use super::request_meta::{CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY};
/// The `_meta` key of a result naming the server (written by the typed
/// meta's serde rename in `reply`; its tests read it here).
#[cfg(test)]
pub(crate) const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// A header that is missing or disagrees with the body.
pub(crate) const HEADER_MISMATCH: i64 = -32020;
/// The protocol version named is not one this server speaks.
pub(crate) const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// The request needs a client capability it did not declare (SEP-2575).
pub(crate) use super::reply::MISSING_REQUIRED_CLIENT_CAPABILITY;

/// How long a client may keep `server/discover`'s answer: what it describes
/// (the revisions, the capabilities, the instructions) changes only with a
/// new build.
const DISCOVER_TTL_MS: u64 = 3_600_000;
/// `tools/list` may change at any moment (a grant, Agent Tools' settings)
/// and this server sends no change notifications, so the list is stale as
/// soon as it is read: a client asks again rather than trusting a copy.
const TOOLS_TTL_MS: u64 = 0;

/// The revisions that open with `initialize`: served by the 2025 handling
/// (which refuses the ones it does not speak, such as 2024-11-05).
const HANDSHAKE_ERA: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// Whether a `MCP-Protocol-Version` header selects the 2026 handling: any
/// value that is not a handshake-era revision, unknown ones included (they
/// are then refused with the versions this server speaks).
pub(crate) fn header_is_modern(version: &str) -> bool {
    !HANDSHAKE_ERA.contains(&version.trim())
}

/// Whether a message's own `_meta` names a protocol version (the 2026 way).
pub(crate) fn message_is_modern(message: &Message) -> bool {
    match message {
        Message::Request { params, .. } => params
            .as_ref()
            .and_then(|params| params.get("_meta"))
            .and_then(Value::as_object)
            .is_some_and(|meta| meta.contains_key(PROTOCOL_VERSION_KEY)),
        Message::ToolCall { call, .. } => {
            call.meta.as_ref().is_some_and(RequestMeta::names_a_version)
        }
        Message::Notification { .. } | Message::Response { .. } => false,
    }
}

/// The request headers of the Streamable HTTP transport that mirror the
/// body, as sent (surrounding whitespace is not part of a value).
#[derive(Clone, Debug, Default)]
pub(crate) struct MirroredHeaders {
    pub protocol_version: Option<HeaderText>,
    pub method: Option<HeaderText>,
    pub name: Option<HeaderText>,
    /// The `Mcp-Param-*` headers: the name after the prefix (lowercase, as
    /// HTTP/1 and HTTP/2 carry it) and the value.
    pub params: Vec<(String, HeaderText)>,
}

impl MirroredHeaders {
    /// The `Mcp-Param-{name}` header (names are case-insensitive).
    pub(crate) fn param(&self, name: &str) -> Option<&HeaderText> {
        self.params
            .iter()
            .find(|(given, _)| given.eq_ignore_ascii_case(name))
            .map(|(_, value)| value)
    }
}

/// A header's value: text (visible ASCII, spaces and tabs), or bytes that
/// are not. The value is kept as the request carried it (a shared buffer,
/// no copy) and read trimmed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HeaderText {
    Text(HeaderValue),
    Invalid,
}

impl HeaderText {
    pub(crate) fn from_value(value: &HeaderValue) -> HeaderText {
        let visible = |byte: &u8| *byte == b'\t' || (b' '..=b'~').contains(byte);
        if value.as_bytes().iter().all(visible) {
            HeaderText::Text(value.clone())
        } else {
            HeaderText::Invalid
        }
    }

    #[cfg(test)]
    pub(crate) fn from_bytes(bytes: &[u8]) -> HeaderText {
        HeaderValue::from_bytes(bytes)
            .map_or(HeaderText::Invalid, |value| HeaderText::from_value(&value))
    }

    /// The text without surrounding whitespace; `None` when invalid.
    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            HeaderText::Text(value) => value.to_str().ok().map(str::trim),
            HeaderText::Invalid => None,
        }
    }
}

/// How the HTTP transport should answer a modern message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReplyStatus {
    Ok,
    /// 400: malformed metadata, a header mismatch, an unsupported version.
    BadRequest,
    /// 404: a method this revision does not have (`initialize`, `ping`, …).
    NotFound,
    /// 500: the server failed (a resource or prompt adapter's error).
    ServerError,
}

/// A refusal, as a JSON-RPC error.
pub(super) struct Refusal {
    code: i64,
    message: String,
    data: Option<Value>,
}

impl Refusal {
    pub(super) fn new(code: i64, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
            data: None,
        }
    }

    fn status(&self) -> ReplyStatus {
        match self.code {
            METHOD_NOT_FOUND => ReplyStatus::NotFound,
            super::jsonrpc::INTERNAL_ERROR => ReplyStatus::ServerError,
            _ => ReplyStatus::BadRequest,
        }
    }

    fn into_response(self, id: &Value) -> String {
        let mut error = Map::new();
        error.insert("code".to_owned(), json!(self.code));
        error.insert("message".to_owned(), json!(self.message));
        if let Some(data) = self.data {
            error.insert("data".to_owned(), data);
        }
        json!({ "jsonrpc": "2.0", "id": id, "error": error }).to_string()
    }
}

impl From<PrimitiveRefusal> for Refusal {
    fn from(refusal: PrimitiveRefusal) -> Refusal {
        Refusal {
            code: refusal.code,
            message: refusal.message,
            data: refusal.data,
        }
    }
}

// The methods other than `tools/call` are answered through a box: their
// futures are large and rare, and held inline they would make every
// call's future (moved and copied on each request) as large as theirs.
impl McpServer {
    /// Answers one 2026-07-28 message: `None` for a notification or a
    /// response (HTTP answers 202). `headers` is `None` over stdio, which has
    /// no header layer.
    pub(crate) async fn handle_modern(
        &self,
        message: Message,
        headers: Option<&MirroredHeaders>,
        meta: &CallMeta,
    ) -> Option<(ReplyStatus, String)> {
        let (id, method, params) = match message {
            Message::ToolCall { id, call } => {
                return Some(self.call_modern(id, call, headers, meta).await);
            }
            Message::Request { id, method, params } => (id, method, params),
            Message::Response { id, outcome } => {
                self.take_answer(&id, outcome, meta);
                return None;
            }
            Message::Notification { .. } => return None,
        };
        if let Err(refusal) = check(&method, params.as_ref(), headers) {
            return Some((refusal.status(), refusal.into_response(&id)));
        }
        let answer = match method.as_str() {
            "server/discover" => {
                only_meta(params.as_ref(), "server/discover").map(|()| self.discover())
            }
            // No list is paged, so no cursor was ever issued.
            "tools/list" if params.as_ref().is_some_and(|p| p.contains_key("cursor")) => {
                Err(Refusal::new(INVALID_PARAMS, "Invalid cursor"))
            }
            "tools/list" => match only_meta(params.as_ref(), "tools/list") {
                Ok(()) => Ok(self.tools_list().await),
                Err(refusal) => Err(refusal),
            },
            primitive if self.withholds_primitive_method(primitive) => {
                Err(Refusal::new(METHOD_NOT_FOUND, "Method not found"))
            }
            "resources/list" | "resources/templates/list" | "prompts/list"
                if params.as_ref().is_some_and(|p| p.contains_key("cursor")) =>
            {
                Err(Refusal::new(INVALID_PARAMS, "Invalid cursor"))
            }
            "resources/list" | "resources/templates/list" | "prompts/list" => {
                match only_meta(params.as_ref(), &method) {
                    Ok(()) => Ok(Box::pin(self.primitive_list(&method)).await),
                    Err(refusal) => Err(refusal),
                }
            }
            // A read is as stale as the list it came from.
            "resources/read" => Box::pin(self.resources_read(params.as_ref(), &id, Era::Modern))
                .await
                .map(|result| self.cached_result(self.complete_result(result)))
                .map_err(Refusal::from),
            "prompts/get" => {
                let mut params = params;
                let round = params.as_mut().map(Round::take).unwrap_or_default();
                return Some(Box::pin(self.answer_prompt(&id, params.as_ref(), meta, round)).await);
            }
            "completion/complete" => Box::pin(self.complete(params.as_ref(), &id))
                .await
                .map(|result| self.complete_result(result))
                .map_err(Refusal::from),
            "tools/call" => {
                let tasks = declares_tasks(params.as_ref());
                // 2025's `task` opt-in is gone at this revision, and the
                // extension asks servers to ignore it, not to refuse it: a
                // task is the server's choice, for a declaring client. Other
                // keys this server does not read are ignored too, as the
                // revision asks; a multi-round call's answers are read.
                let mut params = params;
                let round = params.as_mut().map(Round::take).unwrap_or_default();
                match call_params(params) {
                    Some((name, arguments)) => {
                        return Some(
                            self.answer_call(&id, &name, arguments, meta, tasks, round, headers)
                                .await,
                        );
                    }
                    None => Err(Refusal::new(INVALID_PARAMS, "Invalid tools/call params")),
                }
            }
            // The task methods belong to the extension: a request that does
            // not declare it in its own capabilities is refused (SEP-2575).
            "tasks/get" | "tasks/update" | "tasks/cancel" if !declares_tasks(params.as_ref()) => {
                Err(Refusal {
                    code: MISSING_REQUIRED_CLIENT_CAPABILITY,
                    message: "Missing required client capability".to_owned(),
                    data: Some(json!({
                        "requiredCapabilities": { "extensions": { TASKS_EXTENSION: {} } }
                    })),
                })
            }
            "tasks/get" => Box::pin(self.task_get(params.as_ref())).await,
            "tasks/update" => Box::pin(self.task_update(params.as_ref())).await,
            "tasks/cancel" => Box::pin(self.task_cancel(params.as_ref())).await,
            _ => Err(Refusal::new(METHOD_NOT_FOUND, "Method not found")),
        };
        Some(match answer {
            Ok(result) => (
                ReplyStatus::Ok,
                super::jsonrpc::result_response(&id, result).to_string(),
            ),
            Err(refusal) => (refusal.status(), refusal.into_response(&id)),
        })
    }

    /// A 2026-07-28 `subscriptions/listen` (which the transport streams):
    /// the subscription, once its request passed every check a request
    /// passes; otherwise the refusal to answer.
    pub(crate) async fn listen_request(
        &self,
        id: Value,
        params: Option<&Map<String, Value>>,
        headers: Option<&MirroredHeaders>,
    ) -> Result<Listening, (ReplyStatus, String)> {
        let refused = |refusal: Refusal, id: &Value| (refusal.status(), refusal.into_response(id));
        check("subscriptions/listen", params, headers).map_err(|refusal| refused(refusal, &id))?;
        let requested = Filter::parse(params.and_then(|params| params.get("notifications")))
            .map_err(|message| refused(Refusal::new(INVALID_PARAMS, message), &id))?;
        Ok(Box::pin(self.open_listen(id, requested)).await)
    }

    /// A `tools/call` read into its params ([`Message::ToolCall`]): the
    /// checks and the answer of the general path, without its map.
    async fn call_modern(
        &self,
        id: Value,
        call: CallParams,
        headers: Option<&MirroredHeaders>,
        meta: &CallMeta,
    ) -> (ReplyStatus, String) {
        let version = call.meta.as_ref().and_then(RequestMeta::protocol_version);
        let capabilities = call
            .meta
            .as_ref()
            .and_then(RequestMeta::client_capabilities);
        let named = Some(call.name.as_str());
        if let Err(refusal) = check_parts("tools/call", version, capabilities, named, headers) {
            return (refusal.status(), refusal.into_response(&id));
        }
        let tasks = capabilities_declare_tasks(capabilities);
        let round = Round {
            declared: input::declared(capabilities),
            ..Round::default()
        };
        let arguments = call.arguments.map(Value::Object);
        self.answer_call(&id, &call.name, arguments, meta, tasks, round, headers)
            .await
    }

    /// A checked `tools/call`: its result, its task when the request
    /// declared the extension and the tool is long-running, or the next
    /// round's questions when the tool asked the client something.
    #[allow(clippy::too_many_arguments)]
    async fn answer_call(
        &self,
        id: &Value,
        name: &str,
        arguments: Option<Value>,
        meta: &CallMeta,
        tasks: bool,
        round: Round,
        headers: Option<&MirroredHeaders>,
    ) -> (ReplyStatus, String) {
        // SEP-2243: what the tool's `x-mcp-header` parameters say in the
        // body, their headers say too (checked only where some tool has one).
        if let Some(headers) = headers
            && self.app().registry.declares_mcp_headers()
            && let Some(tool) = self.app().registry.resolve(name)
            && let Err(refusal) =
                check_param_headers(&tool.mcp_headers, arguments.as_ref(), headers)
        {
            return (refusal.status(), refusal.into_response(id));
        }
        // Only a multi-round call needs its binding (the usual call goes by).
        let bound = (!round.is_idle()).then(|| binding("tools/call", name, arguments.as_ref()));
        let opened = round.open(&self.app().request_state, bound.as_deref(), meta);
        let (meta, round_input) = match opened {
            Ok(opened) => opened,
            Err(refusal) => return (refusal.status(), refusal.into_response(id)),
        };
        let outcome = self
            .call_tool_or_task(name, arguments, meta.as_ref(), follows(tasks))
            .await;
        if let CallOutcome::Reply(reply) = &outcome
            && let Some((code, message, data)) = reply.as_error(true)
        {
            let refusal = Refusal {
                code,
                message,
                data,
            };
            return (refusal.status(), refusal.into_response(id));
        }
        // The tool asked the client something: the next round's questions
        // are the answer, whatever the call ended with.
        if let (Some(round), Some(bound)) = (round_input.as_deref(), &bound)
            && !round.questions().is_empty()
        {
            let state = self.app().request_state.seal(bound, round.answers());
            return (ReplyStatus::Ok, self.input_required(id, round, &state));
        }
        let response = match outcome {
            CallOutcome::Reply(reply) => reply.into_response(id, Some(&self.server_meta())),
            CallOutcome::Task(job) => {
                let meta_out = self.result_meta();
                let content_output = self.answers_content(&job);
                super::jsonrpc::result_response(id, task(&job, false, &meta_out, content_output))
                    .to_string()
            }
        };
        (ReplyStatus::Ok, response)
    }

    /// `prompts/get`, which may ask the client too.
    async fn answer_prompt(
        &self,
        id: &Value,
        params: Option<&Map<String, Value>>,
        meta: &CallMeta,
        round: Round,
    ) -> (ReplyStatus, String) {
        let name = params
            .and_then(|params| params.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let arguments = params.and_then(|params| params.get("arguments")).cloned();
        let bound = (!round.is_idle()).then(|| binding("prompts/get", &name, arguments.as_ref()));
        let opened = round.open(&self.app().request_state, bound.as_deref(), meta);
        let (meta, round_input) = match opened {
            Ok(opened) => opened,
            Err(refusal) => return (refusal.status(), refusal.into_response(id)),
        };
        let answer = self.prompts_get(params, id, meta.as_ref()).await;
        if let (Some(round), Some(bound)) = (round_input.as_deref(), &bound)
            && !round.questions().is_empty()
        {
            let state = self.app().request_state.seal(bound, round.answers());
            return (ReplyStatus::Ok, self.input_required(id, round, &state));
        }
        match answer {
            Ok(result) => (
                ReplyStatus::Ok,
                super::jsonrpc::result_response(id, self.complete_result(result)).to_string(),
            ),
            Err(refusal) => {
                let refusal = Refusal::from(refusal);
                (refusal.status(), refusal.into_response(id))
            }
        }
    }

    /// An `input_required` result: the round's questions, and the state to
    /// send back with their answers.
    fn input_required(&self, id: &Value, round: &RoundInput, state: &str) -> String {
        super::jsonrpc::result_response(
            id,
            json!({
                "resultType": "input_required",
                "inputRequests": input::input_requests(&round.questions()),
                "requestState": state,
                "_meta": self.result_meta(),
            }),
        )
        .to_string()
    }

    /// A list of resources, templates or prompts, with the caching hints
    /// the revision requires: like `tools/list`, stale at once (grants
    /// change it), and the same for every client of this server.
    async fn primitive_list(&self, method: &str) -> Value {
        let result = match method {
            "resources/list" => self.resources_list().await,
            "resources/templates/list" => self.resource_templates_list().await,
            _ => self.prompts_list().await,
        };
        self.cached_result(self.complete_result(result))
    }

    /// The caching hints of a list or a read: like `tools/list`'s.
    fn cached_result(&self, mut result: Value) -> Value {
        if let Some(object) = result.as_object_mut() {
            object.insert("ttlMs".to_owned(), json!(TOOLS_TTL_MS));
            object.insert("cacheScope".to_owned(), json!("public"));
        }
        result
    }

    /// A result of this revision: its kind and who answers.
    fn complete_result(&self, mut result: Value) -> Value {
        if let Some(object) = result.as_object_mut() {
            object.insert("resultType".to_owned(), json!("complete"));
            object.insert("_meta".to_owned(), self.result_meta());
        }
        result
    }

    /// `server/discover`: the revisions, the capabilities, who answers.
    fn discover(&self) -> Value {
        // Lists change with grants and settings: a listener hears of it.
        let mut capabilities = json!({ "tools": { "listChanged": true }, "logging": {} });
        if let Some(object) = capabilities.as_object_mut() {
            object.extend(self.primitive_capabilities());
        }
        // Only a server with a long-running agent tool has tasks to offer
        // (as `initialize` declares 2025's `tasks` only then).
        if self.has_long_running_tools() {
            capabilities["extensions"] = json!({ TASKS_EXTENSION: {} });
        }
        json!({
            "resultType": "complete",
            "supportedVersions": MODERN_VERSIONS,
            "capabilities": capabilities,
            "instructions": self.app().context_tools.instructions(),
            "ttlMs": DISCOVER_TTL_MS,
            "cacheScope": "public",
            "_meta": self.result_meta(),
        })
    }

    /// `tools/list`: the same tools as the 2025 answer, in the same
    /// (deterministic) order, with the caching hints the revision requires.
    /// `public`: the list depends on the server's settings, not on who asks.
    async fn tools_list(&self) -> Value {
        let config = self.config().await;
        json!({
            "resultType": "complete",
            "tools": self.tools(&config),
            "ttlMs": TOOLS_TTL_MS,
            "cacheScope": "public",
            "_meta": self.result_meta(),
        })
    }

    /// The `_meta` of every 2026-07-28 result: who answers.
    pub(super) fn server_meta(&self) -> ResultMeta<'_> {
        ResultMeta {
            server_info: Some(ServerInfo {
                name: &self.app().identity.agent_tools_name,
                version: env!("CARGO_PKG_VERSION"),
            }),
        }
    }

    /// [`McpServer::server_meta`] as a tree, for results built as one.
    pub(super) fn result_meta(&self) -> Value {
        serde_json::to_value(self.server_meta()).unwrap_or_default()
    }
}

/// What a 2026-07-28 request brings to a multi-round call: the kinds of
/// question its client declared it answers, its answers (`inputResponses`)
/// and the state of the rounds before (`requestState`).
#[derive(Debug, Default)]
pub(super) struct Round {
    declared: Vec<InputKind>,
    responses: Option<Value>,
    state: Option<Value>,
}

impl Round {
    /// Takes the round's keys out of a request's params, and drops the
    /// keys no method of this server reads (the revision asks servers to
    /// ignore what they do not know).
    fn take(params: &mut Map<String, Value>) -> Round {
        let declared = input::declared(
            params
                .get("_meta")
                .and_then(|meta| meta.get(CLIENT_CAPABILITIES_KEY))
                .and_then(Value::as_object),
        );
        let round = Round {
            declared,
            responses: params.remove("inputResponses"),
            state: params.remove("requestState"),
        };
        params.retain(|key, _| matches!(key.as_str(), "name" | "arguments" | "_meta"));
        round
    }

    /// Neither a client that can answer anything nor a state: an ordinary
    /// call.
    fn is_idle(&self) -> bool {
        self.declared.is_empty() && self.state.is_none()
    }

    /// The meta a call runs under, and its round (when the client can
    /// answer anything): the answers of the sealed state (which must open
    /// for this call) and of this request. Answers that are not an object
    /// of answers are read as none: the questions are asked again.
    fn open<'m>(
        self,
        key: &RequestStateKey,
        binding: Option<&str>,
        meta: &'m CallMeta,
    ) -> Result<(Cow<'m, CallMeta>, Option<Arc<RoundInput>>), Refusal> {
        let Some(binding) = binding.filter(|_| !self.is_idle()) else {
            return Ok((Cow::Borrowed(meta), None));
        };
        let mut answers = match &self.state {
            None => Map::new(),
            Some(Value::String(state)) => key
                .open(binding, state)
                .map_err(|tampered| Refusal::new(INVALID_PARAMS, tampered.to_string()))?,
            Some(_) => {
                return Err(Refusal::new(
                    INVALID_PARAMS,
                    "Invalid params: requestState is a string",
                ));
            }
        };
        if let Some(Value::Object(responses)) = self.responses {
            answers.extend(responses);
        }
        let round = Arc::new(RoundInput::new(self.declared.clone(), answers));
        let meta = CallMeta {
            client_answers: self.declared,
            input: Some(Arc::clone(&round) as Arc<dyn InputSource>),
            ..meta.clone()
        };
        Ok((Cow::Owned(meta), Some(round)))
    }
}

/// What a sealed state is for: the method, the tool or prompt, and its
/// arguments (in canonical form).
/// How a 2026-07-28 caller follows a long-running tool's job: as a task
/// when its request declares the extension.
fn follows(tasks: bool) -> Follows {
    if tasks {
        Follows::AnsweringTask
    } else {
        Follows::Nothing
    }
}

fn binding(method: &str, name: &str, arguments: Option<&Value>) -> String {
    let arguments = arguments.map_or_else(|| "{}".to_owned(), canonical_json::to_string);
    format!("{method} {name} {arguments}")
}

/// The revision's checks in the order its clients and the conformance
/// suite expect: the metadata every request carries, then the headers
/// against the body (so a header naming a supported version over a body
/// naming another is a mismatch, not an unsupported version), then the
/// version itself.
fn check(
    method: &str,
    params: Option<&Map<String, Value>>,
    headers: Option<&MirroredHeaders>,
) -> Result<(), Refusal> {
    let meta = params
        .and_then(|params| params.get("_meta"))
        .and_then(Value::as_object);
    let version = meta
        .and_then(|meta| meta.get(PROTOCOL_VERSION_KEY))
        .and_then(Value::as_str);
    let capabilities = meta
        .and_then(|meta| meta.get(CLIENT_CAPABILITIES_KEY))
        .and_then(Value::as_object);
    // A body without the named value is refused by the method itself.
    let named = named_key(method)
        .and_then(|key| params?.get(key))
        .and_then(Value::as_str);
    check_parts(method, version, capabilities, named, headers)
}

/// [`check`] of what a request's `_meta` names (its version when a string,
/// the client's capabilities when an object) and of the value its method
/// names in the `Mcp-Name` header (see [`named_key`]), when the body has it.
fn check_parts(
    method: &str,
    version: Option<&str>,
    capabilities: Option<&Map<String, Value>>,
    named: Option<&str>,
    headers: Option<&MirroredHeaders>,
) -> Result<(), Refusal> {
    let (Some(version), true) = (version, capabilities.is_some()) else {
        return Err(Refusal::new(
            INVALID_PARAMS,
            format!(
                "Invalid params: _meta must name {PROTOCOL_VERSION_KEY} (a string) and {CLIENT_CAPABILITIES_KEY} (an object)"
            ),
        ));
    };
    if let Some(headers) = headers {
        check_headers(headers, version, method, named)?;
    }
    if !MODERN_VERSIONS.contains(&version) {
        let mut refusal = Refusal::new(
            UNSUPPORTED_PROTOCOL_VERSION,
            format!("Unsupported protocol version: {}", cut(version)),
        );
        refusal.data = Some(json!({ "supported": MODERN_VERSIONS, "requested": version }));
        return Err(refusal);
    }
    Ok(())
}

fn check_headers(
    headers: &MirroredHeaders,
    version: &str,
    method: &str,
    named: Option<&str>,
) -> Result<(), Refusal> {
    agree(
        "MCP-Protocol-Version",
        headers.protocol_version.as_ref(),
        version,
        false,
    )?;
    agree("Mcp-Method", headers.method.as_ref(), method, false)?;
    if let Some(value) = named {
        agree("Mcp-Name", headers.name.as_ref(), value, true)?;
    }
    Ok(())
}

/// Each `x-mcp-header` parameter given in the body (not null) has its
/// `Mcp-Param-{name}` header, saying the same: a string as it is (or
/// `=?base64?…?=` of its UTF-8), a number in decimal, a boolean as `true`
/// or `false`.
fn check_param_headers(
    params: &[portos_core::schema::mcp_header::HeaderParam],
    arguments: Option<&Value>,
    headers: &MirroredHeaders,
) -> Result<(), Refusal> {
    for param in params {
        let body = match arguments.and_then(|arguments| arguments.get(&param.property)) {
            Some(Value::String(text)) => Cow::Borrowed(text.as_str()),
            Some(Value::Number(number)) => Cow::Owned(number.to_string()),
            Some(Value::Bool(flag)) => Cow::Owned(flag.to_string()),
            // Absent or null: no header is expected (another type is the
            // schema's to refuse).
            _ => continue,
        };
        agree(
            &format!("Mcp-Param-{}", param.header),
            headers.param(&param.header),
            &body,
            true,
        )?;
    }
    Ok(())
}

/// The params key whose value a method mirrors in the `Mcp-Name` header.
fn named_key(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// A required header present and equal to the body's value (an encoded
/// `=?base64?…?=` value decoded first where the revision allows it).
fn agree(
    header: &str,
    given: Option<&HeaderText>,
    body: &str,
    may_be_encoded: bool,
) -> Result<(), Refusal> {
    let mismatch =
        |detail: String| Refusal::new(HEADER_MISMATCH, format!("Header mismatch: {detail}"));
    let text = match given {
        None => return Err(mismatch(format!("{header} header is required"))),
        Some(given) => match given.text() {
            Some(text) => text,
            None => {
                return Err(mismatch(format!("{header} header has invalid characters")));
            }
        },
    };
    let value = if may_be_encoded {
        decode(text).ok_or_else(|| mismatch(format!("{header} header is not valid base64")))?
    } else {
        Cow::Borrowed(text)
    };
    if value == body {
        Ok(())
    } else {
        Err(mismatch(format!(
            "{header} header value '{}' does not match body value '{}'",
            cut(&value),
            cut(body)
        )))
    }
}

/// `=?base64?{standard base64 of UTF-8}?=`, or the text itself.
fn decode(text: &str) -> Option<Cow<'_, str>> {
    let Some(encoded) = text
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Some(Cow::Borrowed(text));
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()?;
    String::from_utf8(bytes).ok().map(Cow::Owned)
}

/// A method whose only parameter is `_meta`.
fn only_meta(params: Option<&Map<String, Value>>, method: &str) -> Result<(), Refusal> {
    if params.is_none_or(|params| params.keys().all(|key| key == "_meta")) {
        Ok(())
    } else {
        Err(Refusal::new(
            INVALID_PARAMS,
            format!("Invalid {method} params"),
        ))
    }
}

/// Echoed values are cut so an error stays small.
fn cut(text: &str) -> String {
    const MAX_ECHO_CHARS: usize = 120;
    text.chars().take(MAX_ECHO_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(version: &str) -> Map<String, Value> {
        let mut params = Map::new();
        params.insert(
            "_meta".to_owned(),
            json!({ PROTOCOL_VERSION_KEY: version, CLIENT_CAPABILITIES_KEY: {} }),
        );
        params
    }

    fn headers(version: &str, method: &str, name: Option<&str>) -> MirroredHeaders {
        let text = |value: &str| Some(HeaderText::from_bytes(value.as_bytes()));
        MirroredHeaders {
            protocol_version: text(version),
            method: text(method),
            name: name.and_then(text),
            params: Vec::new(),
        }
    }

    fn code(result: Result<(), Refusal>) -> Option<i64> {
        result.err().map(|refusal| refusal.code)
    }

    #[test]
    fn eras() {
        assert!(!header_is_modern("2025-11-25"));
        assert!(!header_is_modern(" 2025-03-26 "));
        assert!(!header_is_modern("2024-11-05"));
        assert!(header_is_modern("2026-07-28"));
        assert!(header_is_modern("v999.0.0"));
    }

    #[test]
    fn the_metadata_comes_first_then_headers_then_the_version() {
        let ok = headers("2026-07-28", "server/discover", None);
        assert_eq!(
            code(check("server/discover", None, Some(&ok))),
            Some(INVALID_PARAMS)
        );
        let mut no_capabilities = Map::new();
        no_capabilities.insert(
            "_meta".to_owned(),
            json!({ PROTOCOL_VERSION_KEY: "2026-07-28" }),
        );
        assert_eq!(
            code(check("server/discover", Some(&no_capabilities), Some(&ok))),
            Some(INVALID_PARAMS)
        );
        assert_eq!(
            code(check(
                "server/discover",
                Some(&meta("2026-07-28")),
                Some(&ok)
            )),
            None
        );
        // A header naming a served version over a body naming another.
        assert_eq!(
            code(check("server/discover", Some(&meta("v999.0.0")), Some(&ok))),
            Some(HEADER_MISMATCH)
        );
        let unknown = headers("v999.0.0", "server/discover", None);
        assert_eq!(
            code(check(
                "server/discover",
                Some(&meta("v999.0.0")),
                Some(&unknown)
            )),
            Some(UNSUPPORTED_PROTOCOL_VERSION)
        );
        // stdio: no headers, the body decides.
        assert_eq!(
            code(check("server/discover", Some(&meta("2026-07-28")), None)),
            None
        );
    }

    #[test]
    fn method_and_name_headers_must_match() {
        let mut params = meta("2026-07-28");
        params.insert("name".to_owned(), json!("time.now"));
        let call =
            |headers: &MirroredHeaders| code(check("tools/call", Some(&params), Some(headers)));
        assert_eq!(
            call(&headers("2026-07-28", "tools/call", Some("time.now"))),
            None
        );
        assert_eq!(
            call(&headers(
                "2026-07-28",
                "tools/call",
                Some("=?base64?dGltZS5ub3c=?=")
            )),
            None
        );
        assert_eq!(
            call(&headers("2026-07-28", "tools/call", Some("Time.now"))),
            Some(HEADER_MISMATCH)
        );
        assert_eq!(
            call(&headers("2026-07-28", "tools/call", None)),
            Some(HEADER_MISMATCH)
        );
        assert_eq!(
            call(&headers("2026-07-28", "tools/list", Some("time.now"))),
            Some(HEADER_MISMATCH)
        );
        assert_eq!(
            call(&headers(
                "2026-07-28",
                "tools/call",
                Some("=?base64?not base64?=")
            )),
            Some(HEADER_MISMATCH)
        );
        let mut invalid = headers("2026-07-28", "tools/call", None);
        invalid.name = Some(HeaderText::Invalid);
        assert_eq!(call(&invalid), Some(HEADER_MISMATCH));
        let mut missing = headers("2026-07-28", "tools/call", Some("time.now"));
        missing.protocol_version = None;
        assert_eq!(call(&missing), Some(HEADER_MISMATCH));
    }

    #[test]
    fn header_text() {
        assert_eq!(
            HeaderText::from_bytes(b"  tools/list ").text(),
            Some("tools/list")
        );
        assert_eq!(HeaderText::from_bytes(b"a\tb").text(), Some("a\tb"));
        assert_eq!(
            HeaderText::from_bytes("caf\u{e9}".as_bytes()),
            HeaderText::Invalid
        );
    }
}
