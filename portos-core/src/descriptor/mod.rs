//! What the attributes emit: const data and function pointers, collected at
//! link time (see [`linked`](crate::linked)). `#[portos_tool]` emits a
//! [`ToolDescriptor`] (here), `#[portos_route]` a [`RouteEntry`] (`route`)
//! and `#[portos_event]` an [`EventSpec`] (`event`). The registry and the
//! inventory are built from these; they depend on nothing above them.

mod event;
mod route;

pub use event::{Direction, EventSpec, Place, PortosEvent, mounted_event_name};
pub use route::{
    Access, ErrorSpec, HttpMethod, HttpToolEffect, HttpToolSpec, OutcomeSpec, RouteEffect,
    RouteEntry, RouteIo, RouteSpec, SchemaFn, ToolPrivacy, effective,
};

use std::fmt;

use futures::future::BoxFuture;
use serde_json::Value;

use crate::context::{StateNeed, ToolContext};
pub use crate::contract::SourceLocation;
use crate::contract::{Confirmation, OutputJson, SideEffect};

/// One tool, as declared. Const data only; schemas are computed from the
/// function pointers when the registry is built.
pub struct ToolDescriptor {
    /// The canonical name (`name = "..."`): `[A-Za-z0-9._-]{1,100}`.
    pub name: &'static str,
    /// The contract schema version (`version`; 1, the only one).
    pub version: u32,
    /// The catalog description: `description = "..."`, else the doc comment.
    pub description: &'static str,
    /// The name in the OpenAI, Anthropic and MCP formats
    /// (`[a-zA-Z0-9_-]{1,64}`; by default the name with `.` and `-` as `_`).
    pub provider_name: &'static str,
    /// Other names a call may use (`aliases`; by default the provider name).
    pub aliases: &'static [&'static str],
    /// The declared policy, its words still strings.
    pub policy: PolicyDecl,
    /// How the catalog's intent filter treats the tool.
    pub intent: IntentRule,
    /// The raw schemars schema of the input type.
    pub input_schema: fn() -> Value,
    /// The raw schemars schema of the adapter's output type.
    pub output_schema: fn() -> Value,
    /// Turns schema-valid arguments into a typed, ready-to-run call.
    pub bind: fn(Value) -> Result<BoundCall, ArgumentError>,
    /// The server state the adapter takes (its `Shared<T>` parameters): the
    /// registry refuses to build without each.
    pub state: &'static [StateNeed],
    /// `not_strict = "why"`: the input schema cannot be projected to the
    /// strict provider formats without losing a rule that matters, and the
    /// author says why; those formats then offer the tool unconstrained
    /// (the registry build refuses such a tool without it).
    pub not_strict: Option<&'static str>,
    /// Whether the adapter returns `ToolContent`: its output is content
    /// items, which MCP answers as the call's `content` (a function, as the
    /// type is probed outside a const context).
    pub content_output: fn() -> bool,
    /// What the caller must be able to answer (`requires_client = [...]`):
    /// MCP refuses a call from a client that did not declare it.
    pub requires_client: &'static [crate::context::InputKind],
    /// `requires_client = ["tasks"]` on a `long_running` tool: a caller
    /// must follow its job (MCP: the tasks extension, `taskSupport:
    /// "required"`); one that can only wait for the result is refused.
    pub requires_tasks: bool,
    /// `ask_first = path` on a `long_running` tool: its questions, asked
    /// in the call (an MCP client's rounds) before its job begins, so the
    /// job starts with the answers (its adapter's same asks answer at once).
    pub ask_first: Option<AskFirst>,
    /// Where the `#[portos_tool]` attribute was written.
    pub location: SourceLocation,
}

impl fmt::Debug for ToolDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolDescriptor")
            .field("name", &self.name)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// A tool's questions before its job: the call's context and validated
/// arguments in, `Ok` once every question is answered.
pub(crate) type AskFirst =
    fn(ToolContext, Value) -> BoxFuture<'static, Result<(), crate::context::InputError>>;

/// The declared policy, as const data. Scopes and capabilities are the
/// application's words, by name: the registry build resolves them against
/// the linked vocabulary and refuses a word it does not declare.
#[derive(Clone, Copy, Debug)]
pub struct PolicyDecl {
    /// `scopes`: the names of the scopes that may call the tool.
    pub scopes: &'static [&'static str],
    /// `capabilities`: the names of the capabilities the tool requires.
    pub capabilities: &'static [&'static str],
    /// `side_effect`: what the tool does to the world.
    pub side_effect: SideEffect,
    /// `idempotent`: replays are harmless (by default, for reads only).
    pub idempotent: bool,
    /// `async`: the call queues work.
    pub is_async: bool,
    /// `long_running = true`: calls answer with a durable job.
    pub long_running: bool,
    /// `confirmation`: what a call needs before it runs.
    pub confirmation: Confirmation,
    /// `open_world`: the author says the tool reaches outside this machine
    /// (MCP `openWorldHint`, also on when it requires an `#[open_world]`
    /// capability).
    pub open_world: bool,
    /// `unguarded = "why"`: a tool that is not a read but requires no
    /// capability says why any principal of its scopes may run it (the
    /// catalog shows the reason). Without a capability or this, the macro
    /// and the registry build refuse such a tool.
    pub unguarded: Option<&'static str>,
}

/// How the catalog's intent filter treats the tool
/// (docs/reference.md#intent-filtering). A tool with no group and no
/// suppression is always listed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntentRule {
    /// The intent group that lists the tool. Which groups exist, and what
    /// switches each on, is the application's
    /// `catalog::IntentGroups`; the catalog layer
    /// refuses a group it was not given.
    pub group: Option<&'static str>,
    /// Dropped when the intent looks like filling in a UI form.
    pub suppress_on_form_fill: bool,
}

/// What an adapter run yields before normalization: its output as JSON, or
/// the message of the error it returned.
pub type AdapterOutcome = Result<OutputJson, String>;

type Runner = Box<dyn FnOnce(ToolContext) -> BoxFuture<'static, AdapterOutcome> + Send>;

/// A call whose arguments were deserialized into the adapter's input type.
pub struct BoundCall {
    normalized: Value,
    run: Runner,
}

impl BoundCall {
    /// A call that hands `run` the context and reports `normalized` as its
    /// arguments.
    pub fn new<F>(normalized: Value, run: F) -> BoundCall
    where
        F: FnOnce(ToolContext) -> BoxFuture<'static, AdapterOutcome> + Send + 'static,
    {
        BoundCall {
            normalized,
            run: Box::new(run),
        }
    }

    /// The arguments as the adapter sees them (defaults filled in, values
    /// trimmed by their types): what the idempotency fingerprint covers.
    pub fn normalized(&self) -> &Value {
        &self.normalized
    }

    /// Runs the adapter with `ctx`.
    pub fn run(self, ctx: ToolContext) -> BoxFuture<'static, AdapterOutcome> {
        (self.run)(ctx)
    }
}

impl fmt::Debug for BoundCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BoundCall")
            .field("normalized", &self.normalized)
            .finish_non_exhaustive()
    }
}

/// Arguments passed the JSON Schema but not the input type's own rules.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ArgumentError(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    /// The route and event enums and the tables `#[portos_route]` and
    /// `#[portos_event]` check against are one list.
    #[test]
    fn route_and_event_enums_follow_the_tables() {
        fn same<T: Copy + fmt::Debug + serde::Serialize>(
            all: &[T],
            terms: &[portos_vocabulary::Term],
        ) {
            assert_eq!(all.len(), terms.len());
            for (value, term) in all.iter().zip(terms) {
                assert_eq!(format!("{value:?}"), term.variant);
                assert_eq!(
                    serde_json::to_value(value).ok(),
                    Some(serde_json::Value::from(term.name))
                );
            }
        }
        same(&HttpMethod::ALL, portos_vocabulary::HTTP_METHODS);
        same(&Access::ALL, portos_vocabulary::ROUTE_ACCESS);
        same(&RouteEffect::ALL, portos_vocabulary::ROUTE_EFFECTS);
        same(&ToolPrivacy::ALL, portos_vocabulary::TOOL_PRIVACY);
        same(&HttpToolEffect::ALL, portos_vocabulary::HTTP_TOOL_EFFECTS);
        same(&Direction::ALL, portos_vocabulary::EVENT_DIRECTIONS);
        assert_eq!(HttpMethod::Patch.lowercase(), "patch");
    }
}
