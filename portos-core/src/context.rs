//! What an adapter receives besides its input: who is calling, the call's
//! requestId, a cancellation signal, and typed access to server state.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::contract::{Capabilities, Scope};

/// The server-derived authority of a call. No request body can set it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Authority {
    pub scope: Scope,
    pub capabilities: Capabilities,
    pub authenticated: bool,
}

impl Authority {
    /// The HTTP registry principal (docs/reference.md#http-authority).
    pub fn ui(authenticated: bool) -> Authority {
        Authority {
            scope: Scope::Ui,
            capabilities: Capabilities::NONE,
            authenticated,
        }
    }

    pub fn agent(capabilities: Capabilities) -> Authority {
        Authority {
            scope: Scope::Agent,
            capabilities,
            authenticated: false,
        }
    }

    pub fn mind(capabilities: Capabilities) -> Authority {
        Authority {
            scope: Scope::Mind,
            capabilities,
            authenticated: false,
        }
    }

    pub fn voice() -> Authority {
        Authority {
            scope: Scope::Voice,
            capabilities: Capabilities::NONE,
            authenticated: false,
        }
    }
}

/// Server state shared with adapters, keyed by type.
#[derive(Clone, Default)]
pub struct StateMap {
    entries: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl StateMap {
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

    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.entries
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref::<T>())
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
    message = "`{Self}` cannot be server state of a portos tool",
    label = "this state type is not `Send + Sync`",
    note = "one value is shared by every call on every worker thread: use thread-safe types (`Arc<Mutex<_>>` rather than `Rc<RefCell<_>>`)"
)]
pub trait ServerState: Send + Sync + 'static {}
// `do_not_recommend`: report the declared type once, with the note above,
// instead of rustc's chain of `Send`/`Sync` requirements.
#[diagnostic::do_not_recommend]
impl<T: Send + Sync + 'static> ServerState for T {}

/// One type of server state a tool declares with `state = [...]`: checked
/// against the server's [`StateMap`] when the registry is built, and the only
/// state [`ToolContext::state`] hands that tool.
#[derive(Clone, Copy)]
pub struct StateNeed {
    type_id: TypeId,
    // `type_name` is not a `const fn`; a pointer to it fits in a `static`.
    type_name: fn() -> &'static str,
}

impl StateNeed {
    pub const fn of<T: ServerState>() -> StateNeed {
        StateNeed {
            type_id: TypeId::of::<T>(),
            type_name: type_name::<T>,
        }
    }

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

/// Why [`ToolContext::state`] has no value of the type asked for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MissingState {
    /// The tool did not list the type in `state = [...]`. Refused even when
    /// the server has the value, so a forgotten declaration fails the first
    /// test that calls the tool instead of passing the start-up check.
    #[error(
        "this tool did not declare server state `{0}`: add it to `state = [...]` in its #[portos_tool]"
    )]
    Undeclared(&'static str),
    /// The tool declared the type but the server has no value of it (only a
    /// context built by hand can get here: the registry refuses to build).
    #[error("server state `{0}` is not available to this tool")]
    NotProvided(&'static str),
}

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
    fn report(&self, progress: Progress);
}

/// Passed to every adapter that asks for it (`ctx: &ToolContext`).
#[derive(Clone)]
pub struct ToolContext {
    authority: Authority,
    request_id: Arc<str>,
    cancel: CancellationToken,
    state: Arc<StateMap>,
    /// The running tool's `state = [...]`: all of `state` it may read.
    declared: &'static [StateNeed],
    /// Set when the call runs as a durable job.
    progress: Option<Arc<dyn ProgressSink>>,
}

impl ToolContext {
    pub fn new(
        authority: Authority,
        request_id: Arc<str>,
        cancel: CancellationToken,
        state: Arc<StateMap>,
        declared: &'static [StateNeed],
    ) -> ToolContext {
        ToolContext {
            authority,
            request_id,
            cancel,
            state,
            declared,
            progress: None,
        }
    }

    /// The context of a call that runs as a durable job: its progress
    /// reports reach `sink`.
    #[must_use]
    pub fn with_progress(mut self, sink: Arc<dyn ProgressSink>) -> ToolContext {
        self.progress = Some(sink);
        self
    }

    /// Reports how far the call has come. Recorded on the call's job (and
    /// sent to whoever follows it) when the call runs as one; a no-op for
    /// a call that waits for its result anyway.
    pub fn report_progress(&self, done: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(sink) = &self.progress {
            sink.report(Progress {
                done,
                total,
                message: message.map(str::to_owned),
            });
        }
    }

    pub fn authority(&self) -> &Authority {
        &self.authority
    }

    pub fn request_id(&self) -> &str {
        &self.request_id
    }

    /// Fires when the server shuts down or, for a job, when a caller
    /// cancels it: long adapters should check it and stop early (returning
    /// an error; a job that stopped on it is recorded as cancelled).
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Typed access to server state (the store, settings…): only the types
    /// the tool declared in `state = [...]`.
    pub fn state<T: Send + Sync + 'static>(&self) -> Result<&T, MissingState> {
        // A handful of static entries: a linear scan, no allocation.
        let id = TypeId::of::<T>();
        if !self.declared.iter().any(|need| need.type_id == id) {
            return Err(MissingState::Undeclared(type_name::<T>()));
        }
        self.state
            .get::<T>()
            .ok_or(MissingState::NotProvided(type_name::<T>()))
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("authority", &self.authority)
            .field("request_id", &self.request_id)
            .finish_non_exhaustive()
    }
}
