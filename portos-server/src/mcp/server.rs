//! The MCP methods of Agent Tools, shared by the Streamable HTTP endpoint
//! and the stdio transport (docs/reference.md#mcp-transport step 9,
//! docs/reference.md#mcp-results, docs/reference.md#mcp-request-ids):
//! `initialize` (version negotiation), `ping`, `tools/list`, `tools/call`. Tool
//! failures are results with `isError`, never JSON-RPC errors.

use std::sync::Arc;

use portos_core::contract::{FieldIssue, check_request_id, json_type};
use portos_core::{
    Authority, CallChannel, Capabilities, Capability, CatalogFormat, CatalogQuery, CatalogScope,
    InputError, InputKind, InputSource, LogLevel, ToolCall,
};

use crate::jobs::{Asking, Job, JobError, Submission, Viewer};
use serde_json::{Map, Value, json};

use super::config::AgentContextConfig;
use super::context_tools::{Outcome, cap};
use super::input::StreamInput;
use super::jsonrpc::{self, INVALID_PARAMS, MAX_TOOL_NAME_CHARS, METHOD_NOT_FOUND, Message};
use super::notify::{self, Follow, Notifier};
use super::primitives::{Era, PrimitiveRefusal};
use super::reply::{ToolReply, error_result};
use super::session::Session;
use crate::app::App;
use crate::remote::RemoteCaller;

/// The protocol revision this server speaks natively.
pub(crate) const PROTOCOL_VERSION: &str = "2025-11-25";
/// Every revision `initialize` accepts (and `MCP-Protocol-Version` may name).
pub(crate) const SUPPORTED_VERSIONS: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];
pub(crate) const SCHEMA_VERSION: u32 = 5;

/// Where the configuration is read: the in-memory copy (the HTTP server,
/// which is the only writer of its store), or the store itself on every
/// message (stdio, a separate process whose store the server may change).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConfigReads {
    Cached,
    Live,
}

/// Per-message facts from the transport.
#[derive(Clone, Default)]
pub(crate) struct CallMeta {
    /// The `Idempotency-Key` header (HTTP only).
    pub idempotency_key: Option<String>,
    /// What the request asked to hear while it runs (its `_meta`).
    pub follow: Follow,
    /// The client's 2025 session (its log level), when it has one.
    pub session: Option<Arc<Session>>,
    /// Where notifications go ahead of the response, when the transport
    /// can send them.
    pub notifier: Option<Notifier>,
    /// What the client declared it can answer (its 2025 session's
    /// `initialize`, or the 2026-07-28 request's `_meta`).
    pub client_answers: Vec<InputKind>,
    /// Where a 2026-07-28 call's questions go (its round); `None` sends a
    /// 2025 client's on the event stream.
    pub input: Option<Arc<dyn InputSource>>,
}

impl std::fmt::Debug for CallMeta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallMeta")
            .field("idempotency_key", &self.idempotency_key)
            .field("follow", &self.follow)
            .field(
                "session",
                &self.session.as_ref().map(|session| session.id()),
            )
            .field("client_answers", &self.client_answers)
            .finish_non_exhaustive()
    }
}

impl CallMeta {
    /// The channel a call's adapter reports on: progress when the request
    /// gave a token, log messages of the level it (or its session) asked
    /// for; empty when the transport cannot send them.
    pub(crate) fn channel(&self) -> CallChannel {
        let mut channel = match &self.notifier {
            Some(notifier) => {
                let level = self.follow.log_level.or_else(|| {
                    self.session
                        .as_ref()
                        .and_then(|session| session.log_level())
                });
                notify::channel(notifier, self.follow.progress_token.as_ref(), level)
            }
            None => CallChannel::default(),
        };
        channel.input = self.input.clone().or_else(|| {
            let (notifier, session) = (self.notifier.as_ref()?, self.session.as_ref()?);
            (!self.client_answers.is_empty()).then(|| {
                Arc::new(StreamInput::new(
                    self.client_answers.clone(),
                    notifier.clone(),
                    Arc::clone(session.requests()),
                )) as Arc<dyn InputSource>
            })
        });
        channel
    }
}

#[derive(Clone, Debug)]
pub(crate) struct McpServer {
    app: App,
    reads: ConfigReads,
    /// The client when it came with an access token (remote mode): what its
    /// token allows at most, and whom it names. `None` for a local client.
    remote: Option<RemoteCaller>,
}

impl McpServer {
    pub(crate) fn new(app: App, reads: ConfigReads) -> McpServer {
        McpServer {
            app,
            reads,
            remote: None,
        }
    }

    /// The same server answering a remote client (remote mode): it lists
    /// and calls only the granted tools the client's token allows too, and
    /// its calls act for the token's subject.
    #[must_use]
    pub(crate) fn for_remote(self, caller: RemoteCaller) -> McpServer {
        McpServer {
            remote: Some(caller),
            ..self
        }
    }

    /// The remote client this server answers, if any.
    pub(crate) fn remote(&self) -> Option<&RemoteCaller> {
        self.remote.as_ref()
    }

    /// The grants the client may use: the principal's, narrowed by the
    /// client's credential.
    fn grants(&self, config: &AgentContextConfig) -> Capabilities {
        let granted = config.grants();
        self.remote
            .as_ref()
            .map_or(granted, |caller| granted.intersect(caller.capabilities))
    }

    /// What the MCP principal may do under `config`: its scope and grants,
    /// narrowed by a remote client's token and acting for its subject.
    pub(super) fn authority_with(&self, config: &AgentContextConfig) -> Authority {
        let authority = Authority::of(self.app.principals.mcp).granted(self.grants(config));
        match &self.remote {
            Some(caller) => authority
                .limited_to(caller.capabilities)
                .on_behalf_of(caller.subject.clone()),
            None => authority,
        }
    }

    /// A client's answer to one of this server's requests, handed to
    /// whoever waits for it (dropped when nobody does).
    pub(super) fn take_answer(&self, id: &Value, outcome: Result<Value, Value>, meta: &CallMeta) {
        let requests = meta.session.as_ref().map_or_else(
            || self.app.mcp_sessions.requests(),
            |session| session.requests(),
        );
        if let Some(id) = id.as_str() {
            requests.answer(id, outcome);
        }
    }

    /// Whether the job's tool answers content items (`ToolContent`).
    pub(super) fn answers_content(&self, job: &Job) -> bool {
        self.app
            .registry
            .resolve(&job.name)
            .is_some_and(|tool| tool.content_output)
    }

    /// The linked agent tool `name`, when `grants` grant it.
    fn granted_tool(
        &self,
        name: &str,
        grants: Capabilities,
    ) -> Option<&portos_core::registry::RegisteredTool> {
        self.app
            .registry
            .resolve(name)
            .filter(|tool| tool.policy.scopes.contains(&self.app.principals.mcp))
            .filter(|tool| grants.has_all(&tool.policy.required_capabilities))
    }

    /// The capabilities a linked agent tool needs, when the principal is
    /// granted it (whatever the client's credential allows): what a remote
    /// client's token must carry to call it.
    pub(crate) fn granted_tool_needs(
        &self,
        name: &str,
        config: &AgentContextConfig,
    ) -> Option<&[Capability]> {
        self.granted_tool(name, config.grants())
            .map(|tool| tool.policy.required_capabilities.as_slice())
    }

    pub(crate) fn app(&self) -> &App {
        &self.app
    }

    /// MCP clients see the jobs of the principal they speak for.
    pub(super) fn agent(&self) -> crate::jobs::Viewer {
        crate::jobs::Viewer::Principal(self.app.principals.mcp)
    }

    pub(crate) async fn config(&self) -> Arc<AgentContextConfig> {
        match self.reads {
            ConfigReads::Cached => self.app.agent_context.current(),
            ConfigReads::Live => {
                let cache = self.app.agent_context.clone();
                match self
                    .app
                    .store
                    .run(move |connection| cache.refresh(connection))
                    .await
                {
                    Ok(config) => config,
                    Err(error) => {
                        tracing::error!(%error, "cannot read the Agent Tools settings");
                        Arc::new(AgentContextConfig {
                            valid: false,
                            ..AgentContextConfig::default()
                        })
                    }
                }
            }
        }
    }

    /// The manifest (docs/reference.md#manifest). Semantic tools are advertised
    /// only while the feature is enabled and valid (the contract's finding 5).
    /// Its kind is the application's ([`crate::McpNames`]), its endpoint
    /// where the application mounts it; `stateful` is true because
    /// `initialize` (2025) opens a session the client may hold, and
    /// `sessionRequired` false because every request also stands alone.
    pub(crate) fn manifest(&self, config: &AgentContextConfig) -> Value {
        json!({
            "kind": self.app.mcp_names.manifest_kind,
            "schemaVersion": SCHEMA_VERSION,
            "protocolVersion": PROTOCOL_VERSION,
            "enabled": config.enabled,
            "configurationValid": config.valid,
            "transport": {
                "type": "streamable-http",
                "endpoint": self.app.mounts.path_of(crate::mounts::MCP),
                // Remote mode also admits token holders from other machines.
                "loopbackOnly": self.app.remote.is_none(),
                "stateful": true,
                "sessionRequired": false,
            },
            "profile": config.profile,
            "scopes": config.scopes,
            "limits": self.app.context_tools.limits(),
            "exclusions": self.app.context_tools.exclusions(),
            "actions": config.actions,
            "tools": self.tools(config),
        })
    }

    /// Context tools, then the granted agent-scope semantic tools in MCP form.
    pub(crate) fn tools(&self, config: &AgentContextConfig) -> Vec<Value> {
        let mut tools = self.app.context_tools.definitions(config);
        if config.active() {
            tools.extend(self.semantic_tools(config));
        }
        tools
    }

    fn semantic_tools(&self, config: &AgentContextConfig) -> Vec<Value> {
        let query = CatalogQuery {
            scope: CatalogScope::Only(self.app.principals.mcp),
            intent: None,
            format: CatalogFormat::Mcp,
        };
        // The served catalog memo already holds this body; MCP catalogs
        // list only granted tools.
        let served = self.app.catalogs.catalog(&query, self.grants(config));
        serde_json::from_str::<Value>(served.to_json())
            .ok()
            .and_then(|mut body| body.get_mut("tools").map(Value::take))
            .and_then(|tools| match tools {
                Value::Array(tools) => Some(tools),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// Answers one message, rendered as JSON text; `None` for notifications
    /// and responses.
    pub(crate) async fn handle(&self, message: Message, meta: &CallMeta) -> Option<String> {
        let (id, method, params) = match message {
            // The usual message: a plain call (no `task`; a `_meta` says
            // nothing to this revision).
            Message::ToolCall { id, call } => {
                let arguments = call.arguments.map(Value::Object);
                let reply = self.call_tool(&call.name, arguments, meta).await;
                return Some(reply.into_response(&id, None));
            }
            Message::Request { id, method, params } => (id, method, params),
            Message::Response { id, outcome } => {
                self.take_answer(&id, outcome, meta);
                return None;
            }
            Message::Notification { .. } => return None,
        };
        if method == "initialize"
            && let (Some(session), Some(capabilities)) = (
                &meta.session,
                params
                    .as_ref()
                    .and_then(|params| params.get("capabilities"))
                    .and_then(Value::as_object),
            )
        {
            session.set_client_capabilities(capabilities);
        }
        if let Some(response) = self
            .handle_task_2025(&id, &method, params.as_ref(), meta)
            .await
        {
            return Some(response);
        }
        let answer = match method.as_str() {
            "initialize" => initialize(
                params.as_ref(),
                &self.app.identity.agent_tools_name,
                self.app.context_tools.instructions(),
                self.has_long_running_tools(),
            )
            .map(|mut result| {
                if let Some(capabilities) = result["capabilities"].as_object_mut() {
                    capabilities.extend(self.primitive_capabilities());
                }
                result
            }),
            "ping" => Ok(json!({})),
            // The level applies to the session; a request without one has
            // nothing to keep it in (and hears no log messages).
            "logging/setLevel" => match log_level_param(params.as_ref()) {
                Some(level) => {
                    if let Some(session) = &meta.session {
                        session.set_log_level(level);
                    }
                    Ok(json!({}))
                }
                None => Err((INVALID_PARAMS, "Invalid logging/setLevel params")),
            },
            "tools/list" => match list_params_ok(params.as_ref()) {
                true => {
                    let config = self.config().await;
                    Ok(json!({ "tools": self.tools(&config) }))
                }
                false => Err((INVALID_PARAMS, "Invalid tools/list params")),
            },
            "tools/call" => match call_params(params) {
                Some((name, arguments)) => {
                    return Some(
                        self.call_tool(&name, arguments, meta)
                            .await
                            .into_response(&id, None),
                    );
                }
                None => Err((INVALID_PARAMS, "Invalid tools/call params")),
            },
            primitive if self.withholds_primitive_method(primitive) => {
                Err((METHOD_NOT_FOUND, "Method not found"))
            }
            "resources/list" | "resources/templates/list" | "prompts/list"
                if !list_params_ok(params.as_ref()) =>
            {
                Err((INVALID_PARAMS, "Invalid list params"))
            }
            // Boxed, as the 2026 handling's: a rare method's future held
            // inline would grow every call's.
            "resources/list" => Ok(Box::pin(self.resources_list()).await),
            "resources/templates/list" => Ok(Box::pin(self.resource_templates_list()).await),
            "prompts/list" => Ok(Box::pin(self.prompts_list()).await),
            "resources/read"
            | "prompts/get"
            | "completion/complete"
            | "resources/subscribe"
            | "resources/unsubscribe" => {
                let answer = match method.as_str() {
                    "resources/subscribe" | "resources/unsubscribe" => {
                        Box::pin(self.subscription_2025(
                            &method,
                            params.as_ref(),
                            &id,
                            meta.session.as_deref(),
                        ))
                        .await
                    }
                    "resources/read" => {
                        Box::pin(self.resources_read(params.as_ref(), &id, Era::Handshake)).await
                    }
                    "prompts/get" => Box::pin(self.prompts_get(params.as_ref(), &id, meta)).await,
                    _ => Box::pin(self.complete(params.as_ref(), &id)).await,
                };
                return Some(primitive_response(&id, answer));
            }
            // Includes `server/discover` of newer SDKs: a fast "not found"
            // makes them fall back to `initialize`.
            _ => Err((METHOD_NOT_FOUND, "Method not found")),
        };
        Some(
            match answer {
                Ok(result) => jsonrpc::result_response(&id, result),
                Err((code, message)) => jsonrpc::error_response(&id, code, message),
            }
            .to_string(),
        )
    }

    /// Whether any agent tool answers with a job (then `initialize`
    /// declares the 2025-11-25 `tasks` capability).
    pub(super) fn has_long_running_tools(&self) -> bool {
        self.app.registry.tools().iter().any(|tool| {
            tool.policy.long_running && tool.policy.scopes.contains(&self.app.principals.mcp)
        })
    }

    /// A `tools/call` result (docs/reference.md#mcp-results). A long-running
    /// tool's job is waited for: its result is the answer.
    pub(crate) async fn call_tool(
        &self,
        name: &str,
        arguments: Option<Value>,
        meta: &CallMeta,
    ) -> ToolReply {
        match self
            .call_tool_or_task(name, arguments, meta, Follows::Nothing)
            .await
        {
            CallOutcome::Reply(reply) => reply,
            // Not asked for: a job is only answered when `tasks` is set.
            CallOutcome::Task(job) => {
                let content_output = self.answers_content(&job);
                job_reply(&job, content_output)
            }
        }
    }

    /// A `tools/call`; for a client that follows a task (`follows`), a
    /// long-running tool answers its job instead of waiting for it.
    pub(crate) async fn call_tool_or_task(
        &self,
        name: &str,
        arguments: Option<Value>,
        meta: &CallMeta,
        follows: Follows,
    ) -> CallOutcome {
        let config = self.config().await;
        if !config.active() {
            let title = self.app.mcp_names.title;
            return CallOutcome::Reply(error_result(&format!("{title} is disabled or invalid.")));
        }
        if self.app.context_tools.is_context_tool(name) {
            let tools = &self.app.context_tools;
            return CallOutcome::Reply(
                match tools
                    .call(&self.app.store, name, arguments.as_ref(), &config)
                    .await
                {
                    Outcome::Output(output) => ToolReply::structured(&output, false),
                    Outcome::Refused(message) => error_result(&message),
                },
            );
        }
        self.call_semantic(name, arguments, &config, meta, follows)
            .await
    }

    async fn call_semantic(
        &self,
        name: &str,
        arguments: Option<Value>,
        config: &AgentContextConfig,
        meta: &CallMeta,
        follows: Follows,
    ) -> CallOutcome {
        let grants = self.grants(config);
        let registry = &self.app.registry;
        let granted = self.granted_tool(name, grants);
        if let Some(tool) = granted {
            let missing: Vec<InputKind> = tool
                .descriptor
                .requires_client
                .iter()
                .filter(|kind| !meta.client_answers.contains(kind))
                .copied()
                .collect();
            if !missing.is_empty() {
                return CallOutcome::Reply(ToolReply::MissingCapability(missing));
            }
            if tool.descriptor.requires_tasks && follows == Follows::Nothing {
                return CallOutcome::Reply(ToolReply::TaskRequired);
            }
        }
        let content_output = granted.is_some_and(|tool| tool.content_output);
        let linked = granted.map(|tool| std::borrow::Cow::Borrowed(tool.name()));
        // A run-time tool (a saved recipe) is looked up, granted and
        // refused by the registry itself, with its own messages.
        let dynamic = || {
            registry
                .dynamic_tools()
                .filter(|source| source.claims(name))
                .and_then(|_| registry.canonical_name(name))
        };
        let Some(canonical) = linked.or_else(dynamic) else {
            return CallOutcome::Reply(error_result(&format!(
                "Unknown or ungranted tool: {}",
                cap(name, MAX_TOOL_NAME_CHARS)
            )));
        };
        // The envelope is built, not parsed: the name is canonical and the
        // arguments an object already (`call_params`); only a requestId
        // from the client's `Idempotency-Key` has rules left to check.
        let request_id = match &meta.idempotency_key {
            Some(key) => match check_request_id(&Value::String(format!("agent-mcp:{key}"))) {
                Ok(request_id) => request_id,
                Err(issue) => return CallOutcome::Reply(invalid_call(&issue)),
            },
            None => {
                let mut buffer = uuid::Uuid::encode_buffer();
                let id = uuid::Uuid::new_v4().hyphenated().encode_lower(&mut buffer);
                let mut request_id = String::with_capacity(10 + id.len());
                request_id.push_str("agent-mcp:");
                request_id.push_str(id);
                request_id
            }
        };
        let arguments = match arguments {
            None => Map::new(),
            Some(Value::Object(arguments)) => arguments,
            Some(other) => {
                return CallOutcome::Reply(invalid_call(&FieldIssue {
                    path: "arguments".to_owned(),
                    message: format!("Expected object, received {}", json_type(&other)),
                }));
            }
        };
        let call = ToolCall::new(request_id, canonical.as_ref(), arguments);
        let authority = self.authority_with(config);
        if self.app.jobs.is_job(&call.name) {
            // Boxed: a job's submission is kilobytes of future, and every
            // call's future (moved whole through the router) would carry it.
            return Box::pin(self.call_job(authority, call, follows, meta)).await;
        }
        CallOutcome::Reply(
            match self
                .app
                .registry
                .answer_on(&authority, call, None, meta.channel())
                .await
            {
                Ok(answer) => ToolReply::of_result(&answer, answer.retained(), content_output),
                Err(error) => error_result(&error.message),
            },
        )
    }

    /// A long-running tool: its job, or (for a client that cannot follow
    /// one) its result once the job ends. A client that follows the job
    /// answers its tool's questions there (`tasks/update`).
    async fn call_job(
        &self,
        authority: Authority,
        call: ToolCall,
        follows: Follows,
        meta: &CallMeta,
    ) -> CallOutcome {
        let jobs = &self.app.jobs;
        let Before { answers, confirmed } =
            match self.before_job(&authority, &call, meta, follows).await {
                Ok(before) => before,
                Err(reply) => return CallOutcome::Reply(reply),
            };
        let asking = if follows == Follows::AnsweringTask {
            Some(Asking {
                kinds: meta.client_answers.clone(),
                answers,
            })
        } else {
            // A caller that waits cannot answer more: the job has what it
            // answered before (its tool's other questions fail at once).
            (!answers.is_empty()).then(|| Asking {
                kinds: Vec::new(),
                answers,
            })
        };
        let job = match jobs
            .submit_with(authority, call, Submission { asking, confirmed })
            .await
        {
            Ok(job) => job,
            Err(error) => return CallOutcome::Reply(job_error(&error)),
        };
        if follows != Follows::Nothing {
            return CallOutcome::Task(Box::new(job));
        }
        match jobs
            .wait_final(Viewer::Principal(self.app.principals.mcp), &job.job_id)
            .await
        {
            Ok(job) => CallOutcome::Reply(job_reply(&job, self.answers_content(&job))),
            Err(error) => CallOutcome::Reply(job_error(&error)),
        }
    }
}

/// What a job's caller settled before the job began.
#[derive(Debug, Default)]
struct Before {
    /// The answers to the tool's `ask_first` questions.
    answers: Map<String, Value>,
    /// A person at the client's end confirmed the call.
    confirmed: bool,
}

/// The key of the confirmation a client's person is asked for.
const CONFIRMATION_KEY: &str = "confirmation";

impl McpServer {
    /// What is put to the client before a long-running tool's job, on the
    /// call's channel: the tool's `ask_first` questions, then, for a call
    /// that would wait for a person's confirmation and a client that can
    /// ask its person (and does not follow the job as a task, where the
    /// parked job asks), that confirmation. The answers the job starts
    /// with; or the call's reply when they are not all answered (a 2026
    /// round's `input_required` replaces it), the person refused, or the
    /// call is refused.
    async fn before_job(
        &self,
        authority: &Authority,
        call: &ToolCall,
        meta: &CallMeta,
        follows: Follows,
    ) -> Result<Before, ToolReply> {
        let registry = &self.app.registry;
        let asks_first = registry
            .resolve(&call.name)
            .is_some_and(|tool| tool.descriptor.ask_first.is_some());
        let mut channel = meta.channel();
        let can_confirm = follows != Follows::AnsweringTask
            && channel
                .input
                .as_ref()
                .is_some_and(|input| input.supports(InputKind::Elicitation));
        if !asks_first && !can_confirm {
            return Ok(Before::default());
        }
        let prepared = registry
            .prepare(authority, &call.name, call.arguments.clone())
            .map_err(|error| error_result(&error.message))?;
        let question = can_confirm
            .then(|| self.app.jobs.confirmation_question(&prepared))
            .flatten();
        if !asks_first && question.is_none() {
            return Ok(Before::default());
        }
        let recorded = channel
            .input
            .take()
            .map(|input| Arc::new(super::input::Recorded::new(input)));
        channel.input = recorded
            .clone()
            .map(|recorded| recorded as Arc<dyn InputSource>);
        let could_not =
            |error: InputError| error_result(&format!("'{}' could not ask: {error}", call.name));
        let request_id: Arc<str> = Arc::from(call.request_id.as_str());
        registry
            .ask_first(&prepared, request_id.clone(), channel.clone())
            .await
            .map_err(could_not)?;
        let mut before = Before::default();
        if let Some(question) = question {
            let ctx = portos_core::ToolContext::new(
                authority.clone(),
                request_id,
                registry.shutdown_token().child_token(),
                registry.state().clone(),
            )
            .with_channel(channel);
            let form = json!({
                "type": "object",
                "properties": {"confirm": {
                    "type": "boolean",
                    "title": "Confirm",
                    "description": "Run the call (true) or refuse it (false)",
                }},
                "required": ["confirm"],
            });
            let answer = ctx
                .elicit(CONFIRMATION_KEY, &question, form)
                .await
                .map_err(could_not)?;
            if !answer.accepted() || answer.content.get("confirm") != Some(&Value::Bool(true)) {
                return Err(error_result("A person refused the call"));
            }
            before.confirmed = true;
        }
        before.answers = recorded
            .map(|recorded| recorded.answers())
            .unwrap_or_default();
        Ok(before)
    }
}

/// A primitive's answer or refusal as a JSON-RPC response.
fn primitive_response(id: &Value, answer: Result<Value, PrimitiveRefusal>) -> String {
    match answer {
        Ok(result) => jsonrpc::result_response(id, result),
        Err(refusal) => {
            let mut response = jsonrpc::error_response(id, refusal.code, &refusal.message);
            if let Some(data) = refusal.data {
                response["error"]["data"] = data;
            }
            response
        }
    }
    .to_string()
}

/// A call whose envelope breaks the contract's rules, as a tool result.
fn invalid_call(issue: &FieldIssue) -> ToolReply {
    error_result(&format!(
        "Invalid tool call: {} {}",
        issue.path, issue.message
    ))
}

/// How the caller of a long-running tool follows its job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Follows {
    /// It waits for the result (no task).
    Nothing,
    /// A 2025-11-25 task: polled; the tool's questions cannot reach it.
    Task,
    /// A task of the 2026 tasks extension: polled, and it answers the
    /// tool's questions (`tasks/update`).
    AnsweringTask,
}

/// What a `tools/call` answers: a result, or a long-running tool's job.
#[derive(Debug)]
pub(crate) enum CallOutcome {
    Reply(ToolReply),
    Task(Box<Job>),
}

/// A final job's result as a `tools/call` result (`content_output`: its
/// tool answers content items).
pub(super) fn job_reply(job: &Job, content_output: bool) -> ToolReply {
    match &job.result {
        Some(result) => ToolReply::of_result(result, result, content_output),
        None => error_result(&format!("The job has not ended ({})", job.state.as_str())),
    }
}

pub(super) fn job_error(error: &JobError) -> ToolReply {
    match error {
        JobError::Refused(error) => error_result(&error.message),
        JobError::Store(error) => error_result(&format!("The job could not be recorded: {error}")),
    }
}

/// `initialize`: strict params; the requested version when supported,
/// else the newest.
fn initialize(
    params: Option<&Map<String, Value>>,
    server_name: &str,
    instructions: &str,
    tasks: bool,
) -> Result<Value, (i64, &'static str)> {
    let invalid = (INVALID_PARAMS, "Invalid initialize params");
    let params = params.ok_or(invalid)?;
    if params.keys().any(|key| {
        !matches!(
            key.as_str(),
            "protocolVersion" | "capabilities" | "clientInfo" | "_meta"
        )
    }) {
        return Err(invalid);
    }
    let version = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .filter(|v| v.chars().count() <= 40)
        .ok_or(invalid)?;
    if !params.get("capabilities").is_some_and(Value::is_object) {
        return Err(invalid);
    }
    if !params.get("_meta").is_none_or(Value::is_object) {
        return Err(invalid);
    }
    let client = params
        .get("clientInfo")
        .and_then(Value::as_object)
        .ok_or(invalid)?;
    if !client_info_ok(client) {
        return Err(invalid);
    }
    let negotiated = if SUPPORTED_VERSIONS.contains(&version) {
        version
    } else {
        PROTOCOL_VERSION
    };
    // Lists change with grants and settings: a session hears of it.
    let mut capabilities = json!({ "tools": { "listChanged": true }, "logging": {} });
    // Tasks exist from 2025-11-25 on.
    if tasks && negotiated == "2025-11-25" {
        capabilities["tasks"] = super::tasks_2025::capability();
    }
    Ok(json!({
        "protocolVersion": negotiated,
        "capabilities": capabilities,
        "serverInfo": { "name": server_name, "version": "1" },
        "instructions": instructions,
    }))
}

fn client_info_ok(client: &Map<String, Value>) -> bool {
    let text = |key: &str, min: usize, max: usize, required: bool| match client.get(key) {
        None => !required,
        Some(Value::String(s)) => (min..=max).contains(&s.chars().count()),
        Some(_) => false,
    };
    let known = client.keys().all(|key| {
        matches!(
            key.as_str(),
            "name" | "version" | "title" | "websiteUrl" | "icons" | "description"
        )
    });
    let url_ok = client.get("websiteUrl").is_none_or(|url| {
        url.as_str().is_some_and(|u| {
            u.len() <= 500 && (u.starts_with("http://") || u.starts_with("https://"))
        })
    });
    let icons_ok = client
        .get("icons")
        .is_none_or(|icons| icons.as_array().is_some_and(|list| list.len() <= 20));
    known
        && text("name", 1, 120, true)
        && text("version", 1, 80, true)
        && text("title", 0, 160, false)
        && text("description", 0, 2000, false)
        && url_ok
        && icons_ok
}

/// `logging/setLevel`: `{ level, _meta? }`, a level MCP names.
fn log_level_param(params: Option<&Map<String, Value>>) -> Option<LogLevel> {
    let params = params?;
    if params
        .iter()
        .any(|(key, value)| key != "level" && !(key == "_meta" && value.is_object()))
    {
        return None;
    }
    params
        .get("level")
        .and_then(Value::as_str)
        .and_then(LogLevel::from_name)
}

/// `tools/list`: only `_meta`; a cursor is refused (there are no pages).
fn list_params_ok(params: Option<&Map<String, Value>>) -> bool {
    params.is_none_or(|params| {
        params
            .iter()
            .all(|(key, value)| key == "_meta" && value.is_object())
    })
}

/// `tools/call`: `{ name 1..120, arguments?: object, _meta? }`.
pub(super) fn call_params(params: Option<Map<String, Value>>) -> Option<(String, Option<Value>)> {
    // One pass taking the map apart (removing keys one by one from the
    // ordered map cost more than the rest of this).
    let (mut name, mut arguments) = (None, None);
    for (key, value) in params? {
        match (key.as_str(), value) {
            ("name", Value::String(text)) if jsonrpc::valid_tool_name(&text) => name = Some(text),
            ("arguments", value @ Value::Object(_)) => arguments = Some(value),
            ("_meta", Value::Object(_)) => {}
            _ => return None,
        }
    }
    Some((name?, arguments))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initialize_negotiates_the_version() {
        let params = |version: &str| {
            json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
                .as_object()
                .cloned()
        };
        for version in SUPPORTED_VERSIONS {
            assert_eq!(
                initialize(params(version).as_ref(), "t", "i", false).expect("ok")["protocolVersion"],
                version
            );
        }
        assert_eq!(
            initialize(params("2024-11-05").as_ref(), "t", "i", false).expect("ok")["protocolVersion"],
            PROTOCOL_VERSION
        );
        let bad = json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": ""}});
        assert!(initialize(bad.as_object(), "t", "i", false).is_err());
        assert!(initialize(None, "t", "i", false).is_err());
    }

    #[test]
    fn list_and_call_params() {
        assert!(list_params_ok(None));
        assert!(list_params_ok(json!({"_meta": {}}).as_object()));
        assert!(!list_params_ok(json!({"cursor": "x"}).as_object()));
        assert!(call_params(json!({"name": "ping"}).as_object().cloned()).is_some());
        assert!(call_params(json!({"name": ""}).as_object().cloned()).is_none());
        assert!(call_params(json!({"name": "x", "arguments": []}).as_object().cloned()).is_none());
        assert!(call_params(json!({"name": "x", "other": 1}).as_object().cloned()).is_none());
    }
}
