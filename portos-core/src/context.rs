//! What an adapter receives besides its input: who is calling, the call's
//! requestId, a cancellation signal; and the server state it names in its
//! signature ([`Shared`]).

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::contract::{Capabilities, Scope};

/// The server-derived authority of a call. No request body can set it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Authority {
    /// The principal the call speaks for.
    pub scope: Scope,
    /// The capabilities granted to the principal (only a scope that holds
    /// grants is checked against them).
    pub capabilities: Capabilities,
    /// Whether the caller is signed in: a `#[signed_in]` scope's writes need it.
    pub authenticated: bool,
    /// The most the caller's credential allows, whatever its scope holds:
    /// a remote caller's access token carries scopes that map to
    /// capabilities, and a tool needing one the token lacks is refused even
    /// when the principal is granted it. `None`: no such limit (a session,
    /// a local agent).
    pub credential: Option<Capabilities>,
    /// Whom the caller's credential names (a remote access token's `sub`),
    /// for the records a call leaves; `None` for a local caller.
    pub subject: Option<Arc<str>>,
}

impl Authority {
    /// A caller of `scope` with no grants, not signed in.
    pub fn of(scope: Scope) -> Authority {
        Authority {
            scope,
            capabilities: Capabilities::NONE,
            authenticated: false,
            credential: None,
            subject: None,
        }
    }

    /// The same caller, acting for `subject` (see [`Authority::subject`]).
    pub fn on_behalf_of(self, subject: Arc<str>) -> Authority {
        Authority {
            subject: Some(subject),
            ..self
        }
    }

    /// The same caller holding `capabilities` (a principal whose scope
    /// holds grants: the registry checks a tool's required capabilities
    /// against them).
    pub fn granted(self, capabilities: Capabilities) -> Authority {
        Authority {
            capabilities,
            ..self
        }
    }

    /// The same caller, limited to what its credential carries (see
    /// [`Authority::credential`]).
    pub fn limited_to(self, credential: Capabilities) -> Authority {
        Authority {
            credential: Some(credential),
            ..self
        }
    }

    /// Whether the caller's credential allows a tool needing `required`.
    pub fn credential_allows(&self, required: &[crate::contract::Capability]) -> bool {
        self.credential
            .is_none_or(|credential| credential.has_all(required))
    }

    /// The same caller, signed in or not (a principal whose scope asks a
    /// signed-in caller for writes).
    pub fn signed_in(self, authenticated: bool) -> Authority {
        Authority {
            authenticated,
            ..self
        }
    }
}

/// Server state shared with adapters, keyed by type.
#[derive(Clone, Default)]
pub struct StateMap {
    entries: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl StateMap {
    /// An empty map.
    pub fn new() -> StateMap {
        StateMap::default()
    }

    /// Adds (or replaces) the value of type `T`.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) -> &mut StateMap {
        self.entries.insert(TypeId::of::<T>(), Arc::new(value));
        self
    }

    /// Whether a value of the declared type is here.
    pub fn provides(&self, need: &StateNeed) -> bool {
        self.entries.contains_key(&need.type_id())
    }

    /// The value of type `T`, borrowed, if the map has one.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.entries
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref::<T>())
    }

    /// The value of type `T`, shared (a reference-count increment).
    pub fn shared<T: Send + Sync + 'static>(&self) -> Result<Shared<T>, MissingState> {
        self.entries
            .get(&TypeId::of::<T>())
            .and_then(|value| Arc::clone(value).downcast::<T>().ok())
            .map(Shared)
            .ok_or(MissingState(type_name::<T>()))
    }
}

/// One value of server state, named in a signature: a tool adapter's or a
/// route handler's parameter `store: Shared<Store>`. The macros derive the
/// declaration from it, and the server refuses to start when it was not
/// given a value of that type, so a handler never asks for state at run
/// time. Dereferences to `T`; cloning it is a reference-count increment,
/// so it can move into a blocking task.
pub struct Shared<T: ?Sized>(Arc<T>);

impl<T: ?Sized> Shared<T> {
    /// The shared allocation itself, e.g. to keep it past the call.
    pub fn into_arc(this: Shared<T>) -> Arc<T> {
        this.0
    }
}

impl<T: ?Sized> std::ops::Deref for Shared<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized> Clone for Shared<T> {
    fn clone(&self) -> Shared<T> {
        Shared(Arc::clone(&self.0))
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Debug for StateMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateMap")
            .field("entries", &self.entries.len())
            .finish()
    }
}

/// A type that can be server state: one value shared by every call, on any
/// worker thread, for as long as the server runs.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be server state of a portos tool or route",
    label = "this state type is not `Send + Sync`",
    note = "one value is shared by every call on every worker thread: use thread-safe types (`Arc<Mutex<_>>` rather than `Rc<RefCell<_>>`)"
)]
pub trait ServerState: Send + Sync + 'static {}
// `do_not_recommend`: report the declared type once, with the note above,
// instead of rustc's chain of `Send`/`Sync` requirements.
#[diagnostic::do_not_recommend]
impl<T: Send + Sync + 'static> ServerState for T {}

/// One type of server state a tool or route takes as a [`Shared`]
/// parameter: checked against the server's [`StateMap`] when the server is
/// built, so a missing value stops start-up instead of failing a call.
#[derive(Clone, Copy)]
pub struct StateNeed {
    type_id: TypeId,
    // `type_name` is not a `const fn`; a pointer to it fits in a `static`.
    type_name: fn() -> &'static str,
}

impl StateNeed {
    /// The need for a value of type `T`.
    pub const fn of<T: ServerState>() -> StateNeed {
        StateNeed {
            type_id: TypeId::of::<T>(),
            type_name: type_name::<T>,
        }
    }

    /// The needed type's id, the key of the [`StateMap`] entry that satisfies it.
    pub fn type_id(&self) -> TypeId {
        self.type_id
    }

    /// The type's path, e.g. `portos_server::store::Store`, for messages.
    pub fn type_name(&self) -> &'static str {
        (self.type_name)()
    }
}

impl PartialEq for StateNeed {
    fn eq(&self, other: &StateNeed) -> bool {
        self.type_id == other.type_id
    }
}

impl Eq for StateNeed {}

impl fmt::Debug for StateNeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("StateNeed").field(&self.type_name()).finish()
    }
}

/// The server has no value of a type a handler takes as [`Shared`]. Only
/// a context or server put together by hand can get here: the registry and
/// the router refuse to build without every value their handlers name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the server has no state `{0}`: give the server builder a value of this type")]
pub struct MissingState(pub &'static str);

/// How far a long-running call has come, as its adapter reports it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Progress {
    /// Units of work done so far (it only grows).
    pub done: f64,
    /// Units of work in all, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// What the adapter is doing now, for a person to read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Where a job's progress goes: its durable record and whoever follows it.
pub trait ProgressSink: Send + Sync {
    /// Takes one report of how far the call has come.
    fn report(&self, progress: Progress);
}

/// How severe a log message is: the syslog levels MCP uses, least severe
/// first (so `level >= wanted` is the filter).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// `debug`: detail for debugging.
    Debug,
    /// `info`: ordinary information.
    Info,
    /// `notice`: normal but significant.
    Notice,
    /// `warning`: something may be wrong.
    Warning,
    /// `error`: something failed.
    Error,
    /// `critical`: a critical condition.
    Critical,
    /// `alert`: action must be taken at once.
    Alert,
    /// `emergency`: the system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, least severe first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level's wire name (`debug` … `emergency`), as MCP writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    /// The level whose wire name is `name`.
    pub fn from_name(name: &str) -> Option<LogLevel> {
        LogLevel::ALL
            .into_iter()
            .find(|level| level.as_str() == name)
    }
}

/// Where a call's log messages go (the caller's connection, which keeps
/// only the levels its client asked for).
pub trait LogSink: Send + Sync {
    /// Sends `message` at `level`, if the caller wants that level.
    fn log(&self, level: LogLevel, message: &str);
}

/// What the caller's connection takes while a call runs: its progress, its
/// log messages, and the questions it can answer. Empty for a caller that
/// only waits for the result.
#[derive(Clone, Default)]
pub struct CallChannel {
    /// Where progress reports go; `None`: nowhere.
    pub progress: Option<Arc<dyn ProgressSink>>,
    /// Where log messages go; `None`: nowhere.
    pub log: Option<Arc<dyn LogSink>>,
    /// Where questions go; `None`: the caller cannot be asked.
    pub input: Option<Arc<dyn InputSource>>,
}

impl CallChannel {
    /// Whether the channel takes nothing: no progress, no log, no questions.
    pub fn is_empty(&self) -> bool {
        self.progress.is_none() && self.log.is_none() && self.input.is_none()
    }
}

impl fmt::Debug for CallChannel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallChannel")
            .field("progress", &self.progress.is_some())
            .field("log", &self.log.is_some())
            .field("input", &self.input.is_some())
            .finish()
    }
}

/// What an adapter may ask its caller for (MCP's client features): a
/// person's answer to a form, a model's completion, the client's roots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InputKind {
    /// `elicitation`: a person fills in a form (`elicitation/create`).
    Elicitation,
    /// `sampling`: the client's model writes a completion
    /// (`sampling/createMessage`).
    Sampling,
    /// `roots`: the client lists its roots (`roots/list`).
    Roots,
}

impl InputKind {
    /// Every kind, in the order MCP lists them.
    pub const ALL: [InputKind; 3] = [
        InputKind::Elicitation,
        InputKind::Sampling,
        InputKind::Roots,
    ];

    /// The capability a client declares to answer it, and the word an
    /// attribute names it by.
    pub fn as_str(self) -> &'static str {
        match self {
            InputKind::Elicitation => "elicitation",
            InputKind::Sampling => "sampling",
            InputKind::Roots => "roots",
        }
    }

    /// The kind named `name` (`elicitation`, `sampling`, `roots`).
    pub fn from_name(name: &str) -> Option<InputKind> {
        InputKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == name)
    }

    /// Whether `answer` has the shape of an answer to a question of this
    /// kind (an elicitation's `action`, a completion's `role` and
    /// `content`, a list of `roots`): anything else is asked again.
    pub fn accepts(self, answer: &serde_json::Value) -> bool {
        let Some(answer) = answer.as_object() else {
            return false;
        };
        match self {
            InputKind::Elicitation => answer
                .get("action")
                .and_then(serde_json::Value::as_str)
                .is_some_and(|action| matches!(action, "accept" | "decline" | "cancel")),
            InputKind::Sampling => answer.contains_key("content") && answer.contains_key("role"),
            InputKind::Roots => answer.get("roots").is_some_and(serde_json::Value::is_array),
        }
    }

    /// The kind whose request is sent as `method`.
    pub fn from_method(method: &str) -> Option<InputKind> {
        InputKind::ALL
            .into_iter()
            .find(|kind| kind.method() == method)
    }

    /// The method the request is sent as.
    pub fn method(self) -> &'static str {
        match self {
            InputKind::Elicitation => "elicitation/create",
            InputKind::Sampling => "sampling/createMessage",
            InputKind::Roots => "roots/list",
        }
    }
}

/// One question for the caller: its kind and its params, as the protocol
/// writes them (`elicitation/create`'s `message` and `requestedSchema`,
/// `sampling/createMessage`'s `messages` and `maxTokens`, none for roots).
#[derive(Clone, Debug, PartialEq)]
pub struct InputRequest {
    /// What is asked, and so the method the request is sent as.
    pub kind: InputKind,
    /// The request's params, as the protocol writes them.
    pub params: serde_json::Value,
}

impl InputRequest {
    /// A form for a person: `message`, and the object schema of the
    /// answer (flat, of primitive properties).
    pub fn elicitation(message: &str, requested_schema: serde_json::Value) -> InputRequest {
        let mut params = serde_json::Map::new();
        params.insert("message".to_owned(), serde_json::Value::from(message));
        params.insert("requestedSchema".to_owned(), requested_schema);
        InputRequest {
            kind: InputKind::Elicitation,
            params: serde_json::Value::Object(params),
        }
    }

    /// A completion from the client's model (`params` as
    /// `sampling/createMessage` takes them).
    pub fn sampling(params: serde_json::Value) -> InputRequest {
        InputRequest {
            kind: InputKind::Sampling,
            params,
        }
    }

    /// The client's roots.
    pub fn roots() -> InputRequest {
        InputRequest {
            kind: InputKind::Roots,
            params: serde_json::json!({}),
        }
    }
}

/// Why a question got no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// The caller cannot answer this kind of question (an HTTP caller, a
    /// client that did not declare the capability).
    #[error("the caller cannot answer {0} requests")]
    Unavailable(&'static str),
    /// Asked: the call ends here and the caller calls again with the
    /// answers (MCP 2026-07-28's multi-round calls). Return it (`?`).
    #[error("waiting for the caller's input")]
    Required,
    /// The caller answered with an error, or not in time.
    #[error("the caller did not answer: {0}")]
    Failed(String),
}

/// Where a call's questions go: the caller's connection.
pub trait InputSource: Send + Sync {
    /// Whether the caller can answer `kind`.
    fn supports(&self, kind: InputKind) -> bool;
    /// Asks `request` under `key` (a name the adapter gives each question,
    /// stable across rounds); the answer is the client's result.
    fn ask(
        &self,
        key: &str,
        request: InputRequest,
    ) -> futures::future::BoxFuture<'static, Result<serde_json::Value, InputError>>;
}

/// A person's answer to an elicitation.
#[derive(Clone, Debug, PartialEq)]
pub struct Elicited {
    /// `accept`, `decline` or `cancel`.
    pub action: String,
    /// The form's values, when accepted.
    pub content: serde_json::Map<String, serde_json::Value>,
}

impl Elicited {
    /// Whether the person accepted the form (`action` is `accept`).
    pub fn accepted(&self) -> bool {
        self.action == "accept"
    }
}

/// Passed to every adapter that asks for it (`ctx: &ToolContext`).
#[derive(Clone)]
pub struct ToolContext {
    authority: Authority,
    request_id: Arc<str>,
    cancel: CancellationToken,
    /// Read only by the generated code, for the adapter's [`Shared`]
    /// parameters.
    state: Arc<StateMap>,
    /// Where progress and log messages go: a job's record, or the caller's
    /// connection.
    channel: CallChannel,
}

impl ToolContext {
    /// The context of a call by `authority` under `request_id`, stopped by
    /// `cancel`, reading the server's `state`; it reports to no one until
    /// given a channel ([`ToolContext::with_channel`]).
    pub fn new(
        authority: Authority,
        request_id: Arc<str>,
        cancel: CancellationToken,
        state: Arc<StateMap>,
    ) -> ToolContext {
        ToolContext {
            authority,
            request_id,
            cancel,
            state,
            channel: CallChannel::default(),
        }
    }

    /// The context of a call that runs as a durable job: its progress
    /// reports reach `sink`.
    #[must_use]
    pub fn with_progress(mut self, sink: Arc<dyn ProgressSink>) -> ToolContext {
        self.channel.progress = Some(sink);
        self
    }

    /// The context of a call whose caller follows it on `channel`.
    #[must_use]
    pub fn with_channel(mut self, channel: CallChannel) -> ToolContext {
        self.channel = channel;
        self
    }

    /// Writes a log message for the caller, when it asked for messages of
    /// `level` (an MCP client sets the least severe level it wants); a
    /// no-op otherwise. The server's own log is `tracing`'s.
    pub fn log(&self, level: LogLevel, message: &str) {
        if let Some(sink) = &self.channel.log {
            sink.log(level, message);
        }
    }

    /// Whether the caller can answer questions of `kind`.
    pub fn can_ask(&self, kind: InputKind) -> bool {
        self.channel
            .input
            .as_ref()
            .is_some_and(|input| input.supports(kind))
    }

    /// Asks the caller `request` under `key`. Over MCP 2026-07-28 the
    /// first ask of a round ends the call with [`InputError::Required`]
    /// (return it with `?`) and the client calls again with the answers,
    /// when this ask answers at once: an adapter asks before it changes
    /// anything, and asks the same keys in the same order each round.
    pub async fn ask(
        &self,
        key: &str,
        request: InputRequest,
    ) -> Result<serde_json::Value, InputError> {
        match &self.channel.input {
            Some(input) if input.supports(request.kind) => input.ask(key, request).await,
            _ => Err(InputError::Unavailable(request.kind.as_str())),
        }
    }

    /// Asks a person to fill in a form (`requested_schema`: a flat object
    /// schema) and reads the answer.
    pub async fn elicit(
        &self,
        key: &str,
        message: &str,
        requested_schema: serde_json::Value,
    ) -> Result<Elicited, InputError> {
        let answer = self
            .ask(key, InputRequest::elicitation(message, requested_schema))
            .await?;
        let action = answer
            .get("action")
            .and_then(serde_json::Value::as_str)
            .filter(|action| matches!(*action, "accept" | "decline" | "cancel"))
            .ok_or_else(|| {
                InputError::Failed("an elicitation answer names its action".to_owned())
            })?;
        let content = answer
            .get("content")
            .and_then(serde_json::Value::as_object)
            .cloned()
            .unwrap_or_default();
        Ok(Elicited {
            action: action.to_owned(),
            content,
        })
    }

    /// Reports how far the call has come: recorded on the call's job (and
    /// sent to whoever follows it) when the call runs as one, sent to the
    /// caller when it asked to follow the call's progress (an MCP
    /// `progressToken`), a no-op otherwise.
    pub fn report_progress(&self, done: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(sink) = &self.channel.progress {
            sink.report(Progress {
                done,
                total,
                message: message.map(str::to_owned),
            });
        }
    }

    /// Who is calling: the server-derived authority of the call.
    pub fn authority(&self) -> &Authority {
        &self.authority
    }

    /// The server's value of `T`, for code that runs with a context but
    /// is not an adapter (a completer). An adapter takes it as a
    /// `Shared<T>` parameter instead, which the registry checks at start-up.
    pub fn shared<T: Send + Sync + 'static>(&self) -> Result<Shared<T>, MissingState> {
        self.state.shared::<T>()
    }

    /// The call's `requestId`.
    pub fn request_id(&self) -> &str {
        &self.request_id
    }

    /// Fires when the server shuts down or, for a job, when a caller
    /// cancels it: long adapters should check it and stop early (returning
    /// an error; a job that stopped on it is recorded as cancelled).
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }
}

/// The value an adapter's `Shared<T>` parameter receives (generated code
/// calls it; the registry checked at start-up that it is there).
pub(crate) fn shared<T: Send + Sync + 'static>(
    ctx: &ToolContext,
) -> Result<Shared<T>, MissingState> {
    ctx.state.shared::<T>()
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("authority", &self.authority)
            .field("request_id", &self.request_id)
            .finish_non_exhaustive()
    }
}
