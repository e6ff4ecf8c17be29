//! Tools an application finds at run time instead of linking them in —
//! PortOS's saved read recipes (docs/reference.md#saved-recipes) are the first.
//! A source of them plugs into the registry with
//! [`RegistryBuilder::dynamic_tools`](super::RegistryBuilder::dynamic_tools);
//! the registry then
//!
//! * hands every call whose name the source [claims](DynamicTools::claims) to
//!   the source to [resolve](DynamicTools::resolve) (its own refusals first:
//!   scope, live authority, access grant, the current revision),
//! * runs the common checks on what it resolved — scope, capabilities,
//!   arguments against the tool's compiled schema — then the same
//!   idempotency store and result normalization as a linked tool, with the
//!   tool's [fingerprint extra](DynamicToolSpec::fingerprint_extra) in the
//!   fingerprint (docs/reference.md#fingerprint: a new revision conflicts with
//!   an old requestId),
//! * and lists the source's tools in the catalogs of the scopes it serves,
//!   after the linked ones, with a memo keyed by the listing's revision so a
//!   change gives a new ETag.
//!
//! The source owns what only it can know: how names map to definitions,
//! what the caller's live authority is, and what running one means
//! ([`DynamicRun`]); a run gets the registry back to make child calls.

use std::fmt;
use std::sync::{Arc, OnceLock};

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::{CallBudget, Registry};
use crate::context::Authority;
use crate::contract::{Capabilities, Policy, Scope, ToolError};

/// A source of run-time tools.
pub trait DynamicTools: Send + Sync + 'static {
    /// Whether `name` has this source's form (e.g. the `recipe.` prefix or
    /// its provider-name form), whether or not such a tool exists now. A
    /// claimed name is always answered by the source, never by the linked
    /// tools, and no linked tool may have one (the build refuses it).
    fn claims(&self, name: &str) -> bool;

    /// The canonical form of a claimed name (e.g. `recipe_daily_brief` →
    /// `recipe.daily-brief`), which callers use to key what they derive
    /// from a name (a turn's requestIds). The name itself by default.
    fn canonical_name(&self, name: &str) -> String {
        name.to_owned()
    }

    /// What a catalog of `scope` lists now. Called on every catalog read of
    /// a scope, so it should hand out a snapshot; its `revision` must change
    /// whenever what it lists may have (the served catalog is memoized by it).
    fn listing(&self, registry: &Registry, scope: Scope) -> Arc<DynamicListing>;

    /// The tool a call names, and the authority it runs under (the source may
    /// re-read the caller's grants from storage), or the source's refusal.
    fn resolve<'a>(
        &'a self,
        registry: &'a Registry,
        authority: Authority,
        name: &'a str,
    ) -> BoxFuture<'a, Result<Resolved, ToolError>>;

    /// Fields the native catalog entry of `tool` carries for a read with
    /// `grants`, after `availableInScope` and before `granted` (provenance,
    /// availability and why not).
    fn native_fields(
        &self,
        tool: &DynamicTool,
        grants: Capabilities,
    ) -> Vec<(&'static str, Value)> {
        let _ = (tool, grants);
        Vec::new()
    }
}

/// The tools of one scope at one moment.
#[derive(Debug, Default)]
pub struct DynamicListing {
    /// Changes whenever `tools` may have (a content hash or a counter).
    pub revision: u64,
    /// The tools listed, after the linked ones.
    pub tools: Vec<Arc<DynamicTool>>,
}

/// What [`DynamicTools::resolve`] found for a call.
#[derive(Debug)]
pub struct Resolved {
    /// The tool the name resolved to.
    pub tool: Arc<DynamicTool>,
    /// The authority the call and its children run under.
    pub authority: Authority,
}

/// Runs a resolved tool whose arguments passed its schema.
pub trait DynamicRun: Send + Sync + 'static {
    /// Runs `call`: its output as JSON, normalized like a linked adapter's, or
    /// the message of its failure.
    fn run(&self, call: DynamicCall) -> BoxFuture<'static, Result<Value, String>>;
}

/// One run of a dynamic tool.
#[derive(Clone)]
pub struct DynamicCall {
    /// The registry, for child calls.
    pub registry: Arc<Registry>,
    /// The authority the source resolved for the call.
    pub authority: Authority,
    /// The call's `requestId`.
    pub request_id: Arc<str>,
    /// Validated against the tool's input schema.
    pub arguments: Value,
    /// The caller's shared call budget, when it has one (a Mind turn).
    pub budget: Option<Arc<CallBudget>>,
    /// Fires when the server stops.
    pub cancel: CancellationToken,
}

impl fmt::Debug for DynamicCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicCall")
            .field("authority", &self.authority)
            .field("request_id", &self.request_id)
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

/// Everything a dynamic tool is, as the source describes it.
pub struct DynamicToolSpec {
    /// The canonical name, e.g. `recipe.daily-brief`.
    pub name: String,
    /// The name in the provider formats (`[a-zA-Z0-9_-]{1,64}`).
    pub provider_name: String,
    /// The contract schema version.
    pub version: u32,
    /// The native catalog's description.
    pub description: String,
    /// The provider formats' description (they have no field for
    /// provenance, so the source may add it here).
    pub provider_description: String,
    /// The closed input schema, also the validator of every call.
    pub input_schema: Value,
    /// The output schema the catalog lists.
    pub output_schema: Value,
    /// The policy calls are authorized against and the catalog lists.
    pub policy: Policy,
    /// False for a tool listed only to say why it cannot be used: it is
    /// never granted and never runs.
    pub available: bool,
    /// Keys added to the idempotency fingerprint (e.g. `recipeId`,
    /// `revision`).
    pub fingerprint_extra: Map<String, Value>,
    /// What the source keeps about the tool for itself (e.g. its
    /// provenance, for [`DynamicTools::native_fields`]); never served as is.
    pub details: Value,
    /// What running the tool means.
    pub runner: Arc<dyn DynamicRun>,
}

impl fmt::Debug for DynamicToolSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicToolSpec")
            .field("name", &self.name)
            .field("policy", &self.policy)
            .field("available", &self.available)
            .finish_non_exhaustive()
    }
}

/// A dynamic tool, with its validator compiled on first call.
pub struct DynamicTool {
    /// The source's description of the tool.
    pub spec: DynamicToolSpec,
    validator: OnceLock<Result<jsonschema::Validator, String>>,
}

impl DynamicTool {
    /// A tool of `spec`, its schema not yet compiled.
    pub fn new(spec: DynamicToolSpec) -> DynamicTool {
        DynamicTool {
            spec,
            validator: OnceLock::new(),
        }
    }

    /// The canonical name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// Whether `grants` hold everything the tool needs and it can run.
    pub fn granted(&self, grants: Capabilities) -> bool {
        self.spec.available && grants.has_all(&self.spec.policy.required_capabilities)
    }

    /// The compiled input schema, or why the source's schema does not compile.
    pub(crate) fn validator(&self) -> Result<&jsonschema::Validator, &str> {
        self.validator
            .get_or_init(|| {
                jsonschema::validator_for(&self.spec.input_schema).map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(String::as_str)
    }
}

impl fmt::Debug for DynamicTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicTool")
            .field("name", &self.spec.name)
            .field("available", &self.spec.available)
            .finish_non_exhaustive()
    }
}
