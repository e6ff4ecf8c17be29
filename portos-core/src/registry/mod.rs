//! The governed registry: built once from the link-time slice, then every
//! caller's path to a tool (docs/reference.md#calls).
//!
//! ```text
//! resolve (name | providerName | alias) -> authorize (scope, capabilities, auth)
//!   -> validate (compiled schema, typed input) -> idempotency -> adapter -> normalize
//! ```

mod budget;
mod build;
mod call;
mod dynamic;
mod fingerprint;
mod idempotency;
mod job;
mod journal;
mod meter;
mod order;
mod shared;

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock, Weak};
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use budget::CallBudget;
pub use build::{RegistryBuildError, RegistryBuilder};
pub use dynamic::{
    DynamicCall, DynamicListing, DynamicRun, DynamicTool, DynamicToolSpec, DynamicTools, Resolved,
};
pub use fingerprint::Fingerprint;
pub use job::{PreparedCall, PreparedRun};
pub use journal::{CallJournal, JournaledCall, Recalled};
pub use meter::{CallEnd, CallMeter, CallReport, MeteredTool};
pub use shared::{CallLedger, Claim, Claimed, ClaimedCall, Kept};

use crate::context::StateMap;
use crate::contract::{Policy, ToolResult};
use crate::descriptor::ToolDescriptor;
use crate::schema::strict::StrictProjections;
use idempotency::CallStore;
use shared::InFlight;

/// Bounds of the idempotency stores (docs/reference.md#idempotency): of this
/// process's, or of the cluster's under a [`CallLedger`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegistryLimits {
    /// Results retained for replay and `GET /calls/:requestId` (FIFO).
    pub max_results: usize,
    /// Fingerprints remembered after their result was evicted.
    pub max_tombstones: usize,
    /// How long a fingerprint is remembered.
    pub retention: Duration,
}

impl Default for RegistryLimits {
    fn default() -> Self {
        RegistryLimits {
            max_results: 500,
            max_tombstones: 10_000,
            retention: Duration::from_secs(24 * 60 * 60),
        }
    }
}

/// One tool, checked and with its schemas computed and its validator compiled.
pub struct RegisteredTool {
    /// The declaration.
    pub descriptor: &'static ToolDescriptor,
    /// The policy, its words resolved against the vocabulary: the catalog's
    /// policy block and what calls are authorized against.
    pub policy: Policy,
    /// The closed input schema every projection carries.
    pub input_schema: Value,
    /// The contract's output schema: an open object, because callers receive
    /// the normalized envelope around whatever the adapter returned.
    pub output_schema: Value,
    /// The adapter's own typed output schema, for documentation.
    pub result_schema: Value,
    /// The input schema in each strict provider subset (or why not), with
    /// what each projection dropped or rewrote.
    pub strict: StrictProjections,
    /// The adapter answers content items (`ToolContent`).
    pub content_output: bool,
    /// The input properties an MCP client mirrors in `Mcp-Param-*`
    /// headers (SEP-2243's `x-mcp-header`).
    pub mcp_headers: Vec<crate::schema::mcp_header::HeaderParam>,
    validator: jsonschema::Validator,
}

impl RegisteredTool {
    /// The canonical name.
    pub fn name(&self) -> &'static str {
        self.descriptor.name
    }
}

impl std::fmt::Debug for RegisteredTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredTool")
            .field("name", &self.descriptor.name)
            .finish_non_exhaustive()
    }
}

/// The registry. Cheap to share behind an `Arc`; all methods take `&self`.
pub struct Registry {
    tools: Vec<RegisteredTool>,
    /// Canonical names, provider names and aliases → index in `tools`.
    index: HashMap<&'static str, usize>,
    calls: CallStore,
    /// The cluster's idempotency (several servers on one database), if the
    /// server has one; `calls` is then unused.
    ledger: Option<Arc<dyn CallLedger>>,
    /// Calls running here under `ledger`.
    in_flight: Arc<InFlight>,
    /// Where a one-server registry keeps its writes durably (a store only
    /// this server writes); `calls` stays the index.
    journal: Option<Arc<dyn CallJournal>>,
    state: Arc<StateMap>,
    shutdown: CancellationToken,
    /// The resources, templates and prompts, governed like the tools.
    primitives: crate::primitives::Primitives,
    /// Some tool mirrors an input property in a header (`x-mcp-header`).
    mcp_headers: bool,
    /// Tools switched off at run time (canonical name → reason), e.g. while a
    /// feature they need is not configured. Calls get `TOOL_UNAVAILABLE`.
    unavailable: RwLock<HashMap<&'static str, String>>,
    /// Told about every adapter run when it ends (not about replays);
    /// shared so a run clones one pointer, not the list.
    observers: Arc<[ResultObserver]>,
    /// Told of every call when it ends (`RegistryBuilder::meter`).
    meter: Option<CallMeter>,
    /// Tools found at run time (saved recipes), if the application has any.
    dynamic: Option<Arc<dyn DynamicTools>>,
    /// This registry, for a dynamic tool's child calls (a registry is only
    /// ever built inside an `Arc`).
    this: Weak<Registry>,
    /// What a person's write without signing in is told, naming the
    /// application (`RegistryBuilder::product`).
    sign_in_refusal: Box<str>,
    product: Option<Box<str>>,
}

/// Who answers to a called name (no linked tool has a name the run-time
/// source claims, so the order of the checks does not matter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// The linked tool at this position of `tools`.
    Linked(usize),
    /// The run-time source (a saved recipe).
    Dynamic,
    Unknown,
}

/// Called with the result of each adapter run and the authority it ran
/// under, e.g. to announce it (with whom the caller's credential names).
pub type ResultObserver = Arc<dyn Fn(&ToolResult, &crate::Authority) + Send + Sync>;

impl Registry {
    /// A builder with the defaults: the linked tools, default limits, no state.
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder::default()
    }

    /// Every tool, in catalog order.
    pub fn tools(&self) -> &[RegisteredTool] {
        &self.tools
    }

    /// Whether any linked tool mirrors an input property in a header
    /// (`x-mcp-header`): the MCP transport checks those headers only then.
    pub fn declares_mcp_headers(&self) -> bool {
        self.mcp_headers
    }

    /// Resolves a canonical name, provider name or alias.
    pub fn resolve(&self, name: &str) -> Option<&RegisteredTool> {
        self.index.get(name).map(|&index| &self.tools[index])
    }

    /// Who answers to `name`: one look-up, shared by the call and its meter.
    fn target(&self, name: &str) -> Target {
        if let Some(&index) = self.index.get(name) {
            return Target::Linked(index);
        }
        match &self.dynamic {
            Some(source) if source.claims(name) => Target::Dynamic,
            _ => Target::Unknown,
        }
    }

    /// The canonical name `name` resolves to: a linked tool's, or the form
    /// the run-time source gives a name it claims (which may name nothing
    /// that exists now; the call says so). `None` for a name nobody answers to.
    pub fn canonical_name(&self, name: &str) -> Option<std::borrow::Cow<'static, str>> {
        if let Some(tool) = self.resolve(name) {
            return Some(std::borrow::Cow::Borrowed(tool.name()));
        }
        let source = self.dynamic.as_ref().filter(|source| source.claims(name))?;
        Some(std::borrow::Cow::Owned(source.canonical_name(name)))
    }

    /// The source of run-time tools, if any.
    pub fn dynamic_tools(&self) -> Option<&Arc<dyn DynamicTools>> {
        self.dynamic.as_ref()
    }

    /// The resources, resource templates and prompts.
    pub fn primitives(&self) -> &crate::primitives::Primitives {
        &self.primitives
    }

    /// Shared server state handed to adapters.
    pub fn state(&self) -> &Arc<StateMap> {
        &self.state
    }

    /// Signals running adapters that the server is stopping.
    pub fn shutdown_token(&self) -> &CancellationToken {
        &self.shutdown
    }

    /// The bounds of the idempotency store.
    pub fn limits(&self) -> RegistryLimits {
        self.calls.limits()
    }

    /// Marks a tool unavailable: calls answer 409 `TOOL_UNAVAILABLE` with
    /// `reason` until [`Registry::set_available`]. Returns false for an
    /// unknown name.
    pub fn set_unavailable(&self, name: &str, reason: impl Into<String>) -> bool {
        let Some(tool) = self.resolve(name) else {
            return false;
        };
        self.unavailable
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(tool.name(), reason.into());
        true
    }

    /// Makes a tool callable again. Returns false for an unknown name.
    pub fn set_available(&self, name: &str) -> bool {
        let Some(tool) = self.resolve(name) else {
            return false;
        };
        self.unavailable
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(tool.name());
        true
    }

    /// Why a tool is unavailable, if it is.
    pub fn unavailable_reason(&self, name: &str) -> Option<String> {
        self.unavailable_reason_of(self.resolve(name)?)
    }

    /// [`Registry::unavailable_reason`] of a resolved tool: with no tool
    /// switched off (the usual case) nothing is hashed.
    fn unavailable_reason_of(&self, tool: &RegisteredTool) -> Option<String> {
        let unavailable = self
            .unavailable
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        if unavailable.is_empty() {
            return None;
        }
        unavailable.get(tool.name()).cloned()
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}
