//! Running a saved recipe as a registry tool
//! (docs/reference.md#recipe-execution steps 6–8): the executor walks the
//! steps; this supplies its children — before each, the live re-checks (abort,
//! the caller's grants read again, the access grant, the definition against the
//! live catalog, the shared budget); for each, a call through the registry
//! under the live authority.

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use portos_core::registry::{DynamicCall, DynamicRun};
use portos_core::{Authority, CallBudget, Registry, Scope, ToolCall, ToolState};
use portos_server::store::Store;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::catalog::{access_capability, live_authority};
use super::definition::RecipeDefinition;
use super::events::{self, RecipeEvent};
use super::execute::{self, ChildOutcome, Children, RecipeOutcome, Run, Stop, StopKind};
use super::validate::validate;

/// Children an agent's recipe call may run: it has no turn, so each call
/// gets a budget of its own (docs/reference.md#recipe-execution step 6).
pub const AGENT_CHILDREN: usize = 5;

pub const ACCESS_REVOKED: &str = "Recipe access was revoked; remaining steps were stopped";
pub const BUDGET_SPENT: &str =
    "Shared turn tool-call budget exhausted; remaining steps were stopped";
pub const CANCELLED: &str = "The recipe was cancelled; remaining steps were stopped";

/// One recipe at one revision, ready to run.
#[derive(Debug)]
pub struct RecipeRun {
    pub store: Store,
    pub recipe_id: String,
    pub revision: i64,
    pub definition: Arc<RecipeDefinition>,
    pub scope: Scope,
}

impl DynamicRun for RecipeRun {
    fn run(&self, call: DynamicCall) -> BoxFuture<'static, Result<Value, String>> {
        let store = self.store.clone();
        let recipe_id = self.recipe_id.clone();
        let revision = self.revision;
        let definition = self.definition.clone();
        let scope = self.scope;
        async move {
            let arguments = match &call.arguments {
                Value::Object(arguments) => arguments.clone(),
                _ => Map::new(),
            };
            // A Mind call always comes with its turn's budget; without one
            // there is nothing to charge, and the first child is refused.
            let budget = call.budget.clone().or_else(|| {
                (scope == portos_words::AGENT).then(|| Arc::new(CallBudget::new(AGENT_CHILDREN)))
            });
            let mut children = RecipeChildren {
                registry: call.registry.clone(),
                store: store.clone(),
                recipe_id: recipe_id.clone(),
                revision,
                step: String::new(),
                definition: definition.clone(),
                caller: call.authority.clone(),
                authority: call.authority,
                budget,
                cancel: call.cancel.clone(),
            };
            let outcome = execute::execute(
                Run {
                    definition: &definition,
                    recipe_id: &recipe_id,
                    revision,
                    parent_request_id: &call.request_id,
                    arguments: &arguments,
                },
                &mut children,
            )
            .await;
            if let RecipeOutcome::Failed(failed) = &outcome {
                let mut event = RecipeEvent::new(
                    format!("recipe-failure:{}", call.request_id),
                    "failure",
                    &failed.state,
                );
                event.recipe_id = Some(recipe_id.clone());
                event.revision = Some(revision);
                event.step = Some(failed.failing_step.clone());
                event.detail = Some(failed.error.clone());
                events::record(&store, event).await;
            }
            serde_json::to_value(outcome).map_err(|error| error.to_string())
        }
        .boxed()
    }
}

/// The runner of a listed-but-unavailable recipe: the registry refuses it
/// before running (`available: false`), so this is never reached.
#[derive(Debug)]
pub struct NeverRuns;

impl DynamicRun for NeverRuns {
    fn run(&self, _: DynamicCall) -> BoxFuture<'static, Result<Value, String>> {
        futures::future::ready(Err("This saved recipe is unavailable".to_owned())).boxed()
    }
}

struct RecipeChildren {
    registry: Arc<Registry>,
    store: Store,
    recipe_id: String,
    revision: i64,
    /// The step whose child is next (or running).
    step: String,
    definition: Arc<RecipeDefinition>,
    /// The authority the recipe was called with (for an agent, the grants
    /// of its connection, intersected again before every child).
    caller: Authority,
    /// The authority read just before the current child.
    authority: Authority,
    budget: Option<Arc<CallBudget>>,
    cancel: CancellationToken,
}

impl Children for RecipeChildren {
    async fn before_child(&mut self, step_id: &str) -> Result<(), Stop> {
        step_id.clone_into(&mut self.step);
        let stop = |kind, reason: &str| Stop {
            kind,
            reason: reason.to_owned(),
        };
        if self.cancel.is_cancelled() {
            return Err(stop(StopKind::Aborted, CANCELLED));
        }
        let scope = self.caller.scope;
        self.authority = live_authority(&self.store, self.caller.clone())
            .await
            .unwrap_or_else(|_| Authority {
                capabilities: portos_core::Capabilities::NONE,
                ..self.caller.clone()
            });
        if !self.authority.capabilities.has(access_capability(scope)) {
            return Err(stop(StopKind::Refused, ACCESS_REVOKED));
        }
        if let Err(error) = validate(&self.definition, scope, &self.registry) {
            return Err(stop(StopKind::Definition, &error.to_string()));
        }
        match &self.budget {
            Some(budget) if budget.try_charge() => Ok(()),
            _ => Err(stop(StopKind::Refused, BUDGET_SPENT)),
        }
    }

    async fn call(
        &mut self,
        request_id: &str,
        tool: &str,
        arguments: Map<String, Value>,
    ) -> ChildOutcome {
        let call = ToolCall::new(request_id, tool, arguments);
        let outcome = self.child(call, tool).await;
        // What the child did, never what it answered.
        let mut event = RecipeEvent::new(
            format!("recipe-step:{request_id}"),
            "step",
            match &outcome {
                ChildOutcome::Completed(_) => "completed",
                ChildOutcome::NotCompleted(_) => "failed",
            },
        );
        event.recipe_id = Some(self.recipe_id.clone());
        event.revision = Some(self.revision);
        event.step = Some(self.step.clone());
        event.detail = Some(format!("{tool} as {}", self.authority.scope));
        events::record(&self.store, event).await;
        outcome
    }
}

impl RecipeChildren {
    async fn child(&self, call: ToolCall, tool: &str) -> ChildOutcome {
        match self.registry.call(&self.authority, call).await {
            Ok(result) if result.state == ToolState::Completed => ChildOutcome::Completed(
                result
                    .result
                    .as_deref()
                    .map_or(Value::Null, |output| output.value().clone()),
            ),
            Ok(result) => {
                ChildOutcome::NotCompleted(result.error.unwrap_or_else(|| format!("{tool} failed")))
            }
            Err(refusal) => {
                ChildOutcome::NotCompleted(format!("{}: {}", refusal.code, refusal.message))
            }
        }
    }
}
