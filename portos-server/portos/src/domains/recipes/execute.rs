//! Running a recipe's steps (docs/reference.md#recipe-execution, steps 6 to 8),
//! as a pure function of the definition and a [`Children`] that the registry
//! supplies: before each child it re-checks what may have changed (abort,
//! authority, the access grant, the definition against the live catalog,
//! the budget), and it makes each child call. Children run one at a time;
//! the first that does not complete stops the recipe.

use std::future::Future;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::definition::{Binding, RecipeDefinition, Segment};

/// What a failed recipe tells its caller to do next, verbatim.
pub const GUIDANCE: &str = "Read the current definition and grants; repair or restore if needed. Use a new requestId only for an intentional retry.";
/// The longest `error` of a failed recipe.
pub const MAX_ERROR_CHARS: usize = 500;

/// Why the registry stopped the recipe before a child.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stop {
    pub kind: StopKind,
    /// Said to the caller as the recipe's `error`.
    pub reason: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopKind {
    /// The caller cancelled: the recipe ends `aborted`.
    Aborted,
    /// The definition no longer passes against the live catalog:
    /// `failingStep` is `"definition"`.
    Definition,
    /// Anything else (access revoked, budget spent): the step is the
    /// failing one.
    Refused,
}

/// How a child call ended.
#[derive(Clone, Debug, PartialEq)]
pub enum ChildOutcome {
    /// Completed, with the tool's `result`.
    Completed(Value),
    /// Refused or failed, with why.
    NotCompleted(String),
}

/// What the registry lends the executor.
pub trait Children {
    /// The live re-checks before the child of `step_id`.
    fn before_child(&mut self, step_id: &str) -> impl Future<Output = Result<(), Stop>> + Send;

    /// Calls `tool` with `arguments` under the child's `request_id`.
    fn call(
        &mut self,
        request_id: &str,
        tool: &str,
        arguments: Map<String, Value>,
    ) -> impl Future<Output = ChildOutcome> + Send;
}

/// One run of a recipe.
#[derive(Clone, Copy, Debug)]
pub struct Run<'a> {
    pub definition: &'a RecipeDefinition,
    pub recipe_id: &'a str,
    pub revision: i64,
    /// The recipe call's own requestId; each child's is derived from it.
    pub parent_request_id: &'a str,
    /// The recipe's arguments, already validated against its parameters.
    pub arguments: &'a Map<String, Value>,
}

/// A step's outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct StepOutcome {
    pub step: String,
    /// `completed`, `failed` (the child did not complete, or its arguments
    /// could not be resolved), `stopped` (refused before the child ran) or
    /// `aborted`. Steps never reached are not listed.
    pub state: String,
}

/// The recipe's result (the `result` of its tool call).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum RecipeOutcome {
    Completed(Completed),
    Failed(Failed),
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Completed {
    /// Always `true`.
    pub ok: bool,
    /// Always `completed`.
    pub state: String,
    pub recipe_id: String,
    pub revision: i64,
    pub outcomes: Vec<StepOutcome>,
    pub outputs: Map<String, Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Failed {
    /// Always `false`.
    pub ok: bool,
    /// `aborted` when cancelled, `partial` when at least one child
    /// completed, else `failed`.
    pub state: String,
    pub recipe_id: String,
    pub revision: i64,
    /// A step id, `outputs` or `definition`.
    pub failing_step: String,
    pub outcomes: Vec<StepOutcome>,
    /// At most 500 characters.
    pub error: String,
    pub guidance: String,
}

/// The requestId of a step's child call: `recipe-` and the first 48 hex
/// digits of sha256(`<parentRequestId>:<recipeId>:<revision>:<stepId>`), so
/// a replayed recipe call replays its children too.
pub fn child_request_id(parent: &str, recipe_id: &str, revision: i64, step_id: &str) -> String {
    let digest = Sha256::digest(format!("{parent}:{recipe_id}:{revision}:{step_id}"));
    let mut hex = String::with_capacity(48);
    for byte in digest.iter().take(24) {
        hex.push_str(&format!("{byte:02x}"));
    }
    format!("recipe-{hex}")
}

/// Runs the recipe's steps, then resolves its outputs.
pub async fn execute(run: Run<'_>, children: &mut impl Children) -> RecipeOutcome {
    let mut outcomes: Vec<StepOutcome> = Vec::new();
    let mut results: Vec<(&str, Value)> = Vec::new();
    let fail = |outcomes: Vec<StepOutcome>,
                completed: usize,
                aborted: bool,
                failing_step: &str,
                error: String| {
        let state = if aborted {
            "aborted"
        } else if completed > 0 {
            "partial"
        } else {
            "failed"
        };
        RecipeOutcome::Failed(Failed {
            ok: false,
            state: state.to_owned(),
            recipe_id: run.recipe_id.to_owned(),
            revision: run.revision,
            failing_step: failing_step.to_owned(),
            outcomes,
            error: bounded(&error),
            guidance: GUIDANCE.to_owned(),
        })
    };
    for step in &run.definition.steps {
        if let Err(stop) = children.before_child(&step.id).await {
            let (state, failing) = match stop.kind {
                StopKind::Aborted => ("aborted", step.id.as_str()),
                StopKind::Definition => ("stopped", "definition"),
                StopKind::Refused => ("stopped", step.id.as_str()),
            };
            outcomes.push(outcome(&step.id, state));
            let aborted = stop.kind == StopKind::Aborted;
            return fail(outcomes, results.len(), aborted, failing, stop.reason);
        }
        let arguments = match resolve_all(&step.arguments, run.arguments, &results) {
            Ok(arguments) => arguments,
            Err(why) => {
                outcomes.push(outcome(&step.id, "failed"));
                let error = format!("Step \"{}\" could not bind {why}", step.id);
                return fail(outcomes, results.len(), false, &step.id, error);
            }
        };
        let request_id =
            child_request_id(run.parent_request_id, run.recipe_id, run.revision, &step.id);
        match children.call(&request_id, &step.tool, arguments).await {
            ChildOutcome::Completed(result) => {
                outcomes.push(outcome(&step.id, "completed"));
                results.push((&step.id, result));
            }
            ChildOutcome::NotCompleted(why) => {
                outcomes.push(outcome(&step.id, "failed"));
                let error = format!(
                    "Step \"{}\" ({}) did not complete: {why}",
                    step.id, step.tool
                );
                return fail(outcomes, results.len(), false, &step.id, error);
            }
        }
    }
    match resolve_all(&run.definition.outputs, run.arguments, &results) {
        Ok(outputs) => RecipeOutcome::Completed(Completed {
            ok: true,
            state: "completed".to_owned(),
            recipe_id: run.recipe_id.to_owned(),
            revision: run.revision,
            outcomes,
            outputs,
        }),
        Err(why) => {
            let error = format!("The outputs could not bind {why}");
            fail(outcomes, results.len(), false, "outputs", error)
        }
    }
}

fn outcome(step: &str, state: &str) -> StepOutcome {
    StepOutcome {
        step: step.to_owned(),
        state: state.to_owned(),
    }
}

/// Resolves named bindings. An input the caller left out (an optional
/// parameter) leaves its entry out too.
fn resolve_all(
    bindings: &[(String, Binding)],
    arguments: &Map<String, Value>,
    results: &[(&str, Value)],
) -> Result<Map<String, Value>, String> {
    let mut resolved = Map::new();
    for (name, binding) in bindings {
        let value = match binding {
            Binding::Literal(value) => Some(value.clone()),
            Binding::Input(parameter) => arguments.get(parameter).cloned(),
            Binding::Step { step, path } => {
                let result = results
                    .iter()
                    .find_map(|(id, result)| (id == step).then_some(result))
                    .ok_or_else(|| format!("{name:?}: step \"{step}\" has no result"))?;
                Some(
                    follow(result, path)
                        .ok_or_else(|| {
                            format!(
                                "{name:?}: the result of step \"{step}\" has nothing at [{}]",
                                path.iter()
                                    .map(ToString::to_string)
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )
                        })?
                        .clone(),
                )
            }
        };
        if let Some(value) = value {
            resolved.insert(name.clone(), value);
        }
    }
    Ok(resolved)
}

fn follow<'v>(mut value: &'v Value, path: &[Segment]) -> Option<&'v Value> {
    for segment in path {
        value = match (segment, value) {
            (Segment::Key(key), Value::Object(map)) => map.get(key)?,
            (Segment::Index(index), Value::Array(items)) => {
                items.get(usize::try_from(*index).ok()?)?
            }
            _ => return None,
        };
    }
    Some(value)
}

fn bounded(text: &str) -> String {
    if text.chars().count() <= MAX_ERROR_CHARS {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(MAX_ERROR_CHARS - 1).collect();
    short.push('…');
    short
}
