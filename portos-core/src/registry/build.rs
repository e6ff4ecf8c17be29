//! Building the registry: every descriptor is checked once, all problems are
//! collected, and nothing is served unless all of them pass.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::idempotency::CallStore;
use super::order::catalog_rank;
use super::{
    CallJournal, CallLedger, CallMeter, DynamicTools, Recalled, RegisteredTool, Registry,
    RegistryLimits, ResultObserver,
};
use crate::context::StateMap;
use crate::contract::words;
use crate::contract::{Policy, SCHEMA_VERSION, is_callable_name, is_provider_name};
use crate::declared::{check_state, resolve_words};
use crate::descriptor::ToolDescriptor;
use crate::primitives::{Primitives, PromptDescriptor, ResourceDescriptor};
use crate::schema::strict::StrictProjections;
use crate::{linked, schema};

/// Every problem found while building, one line each.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct RegistryBuildError {
    /// One line per problem, each naming the declaration and where it was written.
    pub problems: Vec<String>,
}

impl fmt::Display for RegistryBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the tool registry cannot be built:")?;
        for problem in &self.problems {
            write!(f, "\n  - {problem}")?;
        }
        Ok(())
    }
}

/// Configures and builds a [`Registry`].
#[derive(Default)]
pub struct RegistryBuilder {
    limits: RegistryLimits,
    state: StateMap,
    descriptors: Option<Vec<&'static ToolDescriptor>>,
    resources: Option<Vec<&'static ResourceDescriptor>>,
    prompts: Option<Vec<&'static PromptDescriptor>>,
    observers: Vec<ResultObserver>,
    meter: Option<CallMeter>,
    order: &'static [&'static str],
    dynamic: Option<Arc<dyn DynamicTools>>,
    ledger: Option<Arc<dyn CallLedger>>,
    journal: Option<(Arc<dyn CallJournal>, Vec<Recalled>)>,
    product: Option<String>,
}

impl fmt::Debug for RegistryBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegistryBuilder")
            .field("limits", &self.limits)
            .field("order", &self.order.len())
            .finish_non_exhaustive()
    }
}

impl RegistryBuilder {
    /// The bounds of the idempotency store (by default 500 results, 10,000
    /// fingerprints, 24 hours).
    pub fn limits(mut self, limits: RegistryLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The server state adapters take as `Shared<T>` parameters.
    pub fn state(mut self, state: StateMap) -> Self {
        self.state = state;
        self
    }

    /// The state given so far (what a server checks its routes against).
    pub fn state_map(&self) -> &StateMap {
        &self.state
    }

    /// Adds an observer told about each adapter run when it ends.
    pub fn on_result(mut self, observer: ResultObserver) -> Self {
        self.observers.push(observer);
        self
    }

    /// Tells `meter` of every call when it ends, refusals and replays
    /// included (what a server counts for its metrics). One meter; a later
    /// one replaces it.
    pub fn meter(mut self, meter: CallMeter) -> Self {
        self.meter = Some(meter);
        self
    }

    /// The catalog order: these canonical names first, in this order; every
    /// other tool after them, by canonical name. Without it, every tool is
    /// listed by canonical name. A name that no linked tool has is ignored.
    pub fn order(mut self, names: &'static [&'static str]) -> Self {
        self.order = names;
        self
    }

    /// Adds a source of tools found at run time (saved recipes): listed in
    /// the catalogs of the scopes it serves and called through the same
    /// checks. No linked tool may have a name it claims.
    pub fn dynamic_tools(mut self, source: Arc<dyn DynamicTools>) -> Self {
        self.dynamic = Some(source);
        self
    }

    /// Shares idempotency with the other servers of a cluster through
    /// `ledger` instead of keeping it in this process's memory.
    pub fn ledger(mut self, ledger: Arc<dyn CallLedger>) -> Self {
        self.ledger = Some(ledger);
        self
    }

    /// Keeps this server's writes through `journal` (their store work and
    /// kept result in one transaction), starting from what it `recalled`
    /// of the calls before this process: docs/reference.md#idempotency
    /// across crashes and restarts of one server. A [`ledger`](Self::ledger)
    /// takes precedence.
    pub fn journal(mut self, journal: Arc<dyn CallJournal>, recalled: Vec<Recalled>) -> Self {
        self.journal = Some((journal, recalled));
        self
    }

    /// The application's name in what the registry tells callers ("…
    /// require an authenticated PortOS session"); without it the messages
    /// name no product.
    pub fn product(mut self, name: impl Into<String>) -> Self {
        self.product = Some(name.into());
        self
    }

    /// Uses these descriptors instead of every linked tool (tests, embedding).
    pub fn descriptors(
        mut self,
        descriptors: impl IntoIterator<Item = &'static ToolDescriptor>,
    ) -> Self {
        self.descriptors = Some(descriptors.into_iter().collect());
        self
    }

    /// The resources and templates to serve, instead of every linked one.
    pub fn resources(
        mut self,
        resources: impl IntoIterator<Item = &'static ResourceDescriptor>,
    ) -> Self {
        self.resources = Some(resources.into_iter().collect());
        self
    }

    /// The prompts to serve, instead of every linked one.
    pub fn prompts(mut self, prompts: impl IntoIterator<Item = &'static PromptDescriptor>) -> Self {
        self.prompts = Some(prompts.into_iter().collect());
        self
    }

    /// Checks every descriptor and builds the registry, shared: a dynamic
    /// tool's run gets it back to make child calls.
    pub fn build(self) -> Result<Arc<Registry>, RegistryBuildError> {
        let mut descriptors = self
            .descriptors
            .unwrap_or_else(|| linked::tools().collect());
        let order = self.order;
        descriptors.sort_by_cached_key(|d| catalog_rank(order, d.name));

        let resources = self
            .resources
            .unwrap_or_else(|| linked::resources().collect());
        let prompts = self.prompts.unwrap_or_else(|| linked::prompts().collect());
        let declares_any = !descriptors.is_empty() || !resources.is_empty() || !prompts.is_empty();
        let mut problems = vocabulary_problems(declares_any);
        let mut index: HashMap<&'static str, usize> = HashMap::new();
        let mut policies = Vec::with_capacity(descriptors.len());
        for (position, descriptor) in descriptors.iter().enumerate() {
            check_descriptor(descriptor, &mut problems);
            check_guarded(descriptor, &mut problems);
            policies.push(resolve_policy(descriptor, &mut problems));
            check_state_provided(descriptor, &self.state, &mut problems);
            if let Some(source) = &self.dynamic {
                check_not_claimed(descriptor, source.as_ref(), &mut problems);
            }
            let mut claim = |key: &'static str, what: &str| match index.get(key) {
                Some(&other) if other == position => {}
                Some(&other) => {
                    let other = descriptors[other];
                    problems.push(format!(
                        "{what} `{key}` of tool `{}` ({}) is already used by tool `{}` ({})",
                        descriptor.name, descriptor.location, other.name, other.location
                    ));
                }
                None => {
                    index.insert(key, position);
                }
            };
            claim(descriptor.name, "name");
            claim(descriptor.provider_name, "provider name");
            for alias in descriptor.aliases {
                claim(alias, "alias");
            }
        }

        let mut tools = Vec::with_capacity(descriptors.len());
        for (descriptor, policy) in descriptors.into_iter().zip(policies) {
            match compile(descriptor, policy) {
                Ok(tool) => tools.push(tool),
                Err(problem) => problems.push(problem),
            }
        }

        let state = Arc::new(self.state);
        let shutdown = CancellationToken::new();
        let primitives = Primitives::build(
            resources,
            prompts,
            Arc::clone(&state),
            shutdown.clone(),
            &mut problems,
        );

        if !problems.is_empty() {
            return Err(RegistryBuildError { problems });
        }
        let sign_in_refusal = match self.product.as_deref() {
            Some(product) => {
                format!("Mutating tool calls require an authenticated {product} session")
            }
            None => "Mutating tool calls require an authenticated session".to_owned(),
        }
        .into_boxed_str();
        let (limits, observers, dynamic, ledger) =
            (self.limits, self.observers, self.dynamic, self.ledger);
        let calls = CallStore::new(limits);
        let journal = match (ledger.is_some(), self.journal) {
            (false, Some((journal, recalled))) => {
                calls.restore(recalled);
                Some(journal)
            }
            _ => None,
        };
        let mcp_headers = tools.iter().any(|tool| !tool.mcp_headers.is_empty());
        Ok(Arc::new_cyclic(|this| Registry {
            mcp_headers,
            tools,
            index,
            calls,
            ledger,
            journal,
            in_flight: Arc::default(),
            state,
            shutdown,
            primitives,
            unavailable: std::sync::RwLock::new(HashMap::new()),
            observers: observers.into(),
            meter: self.meter,
            dynamic,
            this: this.clone(),
            sign_in_refusal,
            product: self.product.map(String::into_boxed_str),
        }))
    }
}

/// Rules the macro enforces at compile time, checked again because a
/// descriptor can also be written by hand.
fn check_descriptor(d: &ToolDescriptor, problems: &mut Vec<String>) {
    let at = d.location;
    if !is_callable_name(d.name) {
        problems.push(format!(
            "tool name `{}` ({at}) breaks the naming rule [A-Za-z0-9._-]{{1,100}}",
            d.name
        ));
    }
    if !is_provider_name(d.provider_name) {
        problems.push(format!(
            "provider name `{}` of tool `{}` ({at}) is not valid for OpenAI, Anthropic and MCP",
            d.provider_name, d.name
        ));
    }
    for alias in d.aliases {
        if !is_callable_name(alias) {
            problems.push(format!(
                "alias `{alias}` of tool `{}` ({at}) breaks the naming rule",
                d.name
            ));
        }
    }
    if d.version != SCHEMA_VERSION {
        problems.push(format!(
            "tool `{}` ({at}) has unsupported version {}",
            d.name, d.version
        ));
    }
    if d.policy.scopes.is_empty() {
        problems.push(format!("tool `{}` ({at}) has no scope", d.name));
    }
    if d.description.trim().is_empty() {
        problems.push(format!("tool `{}` ({at}) has no description", d.name));
    }
    for (position, need) in d.state.iter().enumerate() {
        if d.state[..position].contains(need) {
            problems.push(format!(
                "tool `{}` ({at}) declares state `{}` twice",
                d.name,
                need.type_name()
            ));
        }
    }
}

/// A linked tool answering to a name of the dynamic source's form would be
/// unreachable (the source answers for those names) or ambiguous.
fn check_not_claimed(d: &ToolDescriptor, source: &dyn DynamicTools, problems: &mut Vec<String>) {
    let names = std::iter::once(d.name)
        .chain(std::iter::once(d.provider_name))
        .chain(d.aliases.iter().copied());
    for name in names.filter(|name| source.claims(name)) {
        problems.push(format!(
            "tool `{}` ({}) answers to `{name}`, a name the run-time tool source claims",
            d.name, d.location
        ));
    }
}

/// The state a tool declares must be there before anything is served: a
/// missing value is a start-up error naming the tool, not a failed call.
fn check_state_provided(d: &ToolDescriptor, state: &StateMap, problems: &mut Vec<String>) {
    check_state("tool", d.name, d.location, d.state, state, problems);
}

/// The linked vocabulary's own problems. That none is linked is a problem
/// only when there are tools to name its words.
fn vocabulary_problems(has_tools: bool) -> Vec<String> {
    let none_linked = words::linked_vocabularies().is_empty();
    if none_linked && !has_tools {
        return Vec::new();
    }
    words::vocabulary_problems()
}

/// The declared words, looked up in the linked vocabulary; every unknown
/// one is a problem naming the tool and where it was declared.
fn resolve_policy(d: &ToolDescriptor, problems: &mut Vec<String>) -> Policy {
    let (scopes, required_capabilities) = resolve_words(
        "tool",
        d.name,
        d.location,
        d.policy.scopes,
        d.policy.capabilities,
        problems,
    );
    Policy {
        scopes,
        required_capabilities,
        side_effect: d.policy.side_effect,
        idempotent: d.policy.idempotent,
        // A job is asynchronous whatever else was declared.
        is_async: d.policy.is_async || d.policy.long_running,
        confirmation: d.policy.confirmation,
        long_running: d.policy.long_running,
        unguarded: d.policy.unguarded,
    }
}

/// A tool that changes anything names the capability that guards it, or
/// says why it needs none (`unguarded`); a stale `unguarded` is refused too.
fn check_guarded(d: &ToolDescriptor, problems: &mut Vec<String>) {
    let writes = !d.policy.side_effect.is_read();
    let guarded = !d.policy.capabilities.is_empty();
    match (writes, guarded, d.policy.unguarded) {
        (true, false, None) => problems.push(format!(
            "tool `{}` ({}) is a `{}` tool that requires no capability, so every principal of its scopes could run it: add `capabilities = [\"...\"]`, or `unguarded = \"why any caller may\"`",
            d.name, d.location, d.policy.side_effect
        )),
        (_, _, Some(reason)) if reason.trim().is_empty() => problems.push(format!(
            "tool `{}` ({}) declares `unguarded` without a reason",
            d.name, d.location
        )),
        (false, _, Some(_)) => problems.push(format!(
            "tool `{}` ({}) declares `unguarded`, but it is a read: remove the declaration",
            d.name, d.location
        )),
        (true, true, Some(_)) => problems.push(format!(
            "tool `{}` ({}) declares `unguarded`, but it requires a capability: remove the declaration",
            d.name, d.location
        )),
        _ => {}
    }
}

fn compile(d: &'static ToolDescriptor, policy: Policy) -> Result<RegisteredTool, String> {
    let input_schema = schema::project_input(&(d.input_schema)())
        .map_err(|error| format!("tool `{}` ({}): {error}", d.name, d.location))?;
    let validator = jsonschema::validator_for(&input_schema).map_err(|error| {
        format!(
            "tool `{}` ({}): {}",
            d.name,
            d.location,
            schema::SchemaError::Invalid(error.to_string())
        )
    })?;
    let mcp_headers = schema::mcp_header::header_params(&input_schema)
        .map_err(|error| format!("tool `{}` ({}): {error}", d.name, d.location))?;
    let mut tool = registered(d, policy, input_schema, validator);
    tool.mcp_headers = mcp_headers;
    check_output_is_object(&tool)?;
    check_strict(&tool)?;
    Ok(tool)
}

/// A tool whose input cannot be projected to the strict provider formats
/// without losing a rule that matters (an open object, a value set, a
/// composition; see [`schema::strict`]) is refused unless its author says
/// why with `not_strict`; a `not_strict` on a tool that projects cleanly is
/// refused too, so the declaration cannot go stale.
fn check_strict(tool: &RegisteredTool) -> Result<(), String> {
    let d = tool.descriptor;
    let refused: Vec<String> = tool
        .strict
        .refused()
        .map(|(dialect, refusals)| {
            let each: Vec<String> = refusals.iter().map(ToString::to_string).collect();
            format!("{dialect}: {}", each.join("; "))
        })
        .collect();
    match (d.not_strict, refused.is_empty()) {
        (None, false) => Err(format!(
            "tool `{}` ({}): its input schema cannot be projected to the strict provider formats without losing a rule that matters — {}. Close the schema, or declare `not_strict = \"why\"` to offer the tool unconstrained in those formats",
            d.name,
            d.location,
            refused.join(" | ")
        )),
        (Some(_), true) => Err(format!(
            "tool `{}` ({}) declares `not_strict`, but its input schema projects to every strict provider format: remove the declaration",
            d.name, d.location
        )),
        _ => Ok(()),
    }
}

/// The contract normalizes any non-object adapter result into a failure, so
/// an output type that can never be an object is a mistake caught here, once,
/// rather than on every call.
fn check_output_is_object(tool: &RegisteredTool) -> Result<(), String> {
    let declared = tool.result_schema.get("type");
    let can_be_object = match declared {
        None => true,
        Some(serde_json::Value::String(t)) => t == "object",
        Some(serde_json::Value::Array(types)) => types.iter().any(|t| t == "object"),
        Some(_) => true,
    };
    if can_be_object {
        return Ok(());
    }
    let d = tool.descriptor;
    Err(format!(
        "tool `{}` ({}) returns {} values, but an adapter must return a JSON object (a struct with `ok` and `summary`)",
        d.name,
        d.location,
        declared.map_or_else(String::new, ToString::to_string)
    ))
}

fn registered(
    d: &'static ToolDescriptor,
    policy: Policy,
    input_schema: serde_json::Value,
    validator: jsonschema::Validator,
) -> RegisteredTool {
    let mut result_schema = (d.output_schema)();
    if let Some(map) = result_schema.as_object_mut() {
        map.remove("$schema");
    }
    RegisteredTool {
        strict: StrictProjections::of(&input_schema),
        descriptor: d,
        policy,
        input_schema,
        output_schema: json!({"type": "object", "additionalProperties": true}),
        result_schema,
        content_output: (d.content_output)(),
        mcp_headers: Vec::new(),
        validator,
    }
}

impl RegisteredTool {
    pub(crate) fn validator(&self) -> &jsonschema::Validator {
        &self.validator
    }
}
