//! The executor (docs/reference.md#recipe-execution steps 6–8) with a scripted
//! registry.

use std::collections::VecDeque;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::valid;
use crate::domains::recipes::definition::parse;
use crate::domains::recipes::execute::{
    ChildOutcome, Children, GUIDANCE, RecipeOutcome, Run, Stop, StopKind, child_request_id, execute,
};

/// Plays scripted answers and records what it was asked.
#[derive(Default)]
struct Script {
    /// Per child, in order: a stop before it, or its outcome.
    plays: VecDeque<Result<ChildOutcome, Stop>>,
    checked: Vec<String>,
    calls: Vec<(String, String, Map<String, Value>)>,
}

impl Children for Script {
    async fn before_child(&mut self, step_id: &str) -> Result<(), Stop> {
        self.checked.push(step_id.to_owned());
        match self.plays.front() {
            Some(Err(_)) => Err(self
                .plays
                .pop_front()
                .and_then(Result::err)
                .expect("a stop")),
            _ => Ok(()),
        }
    }

    async fn call(
        &mut self,
        request_id: &str,
        tool: &str,
        arguments: Map<String, Value>,
    ) -> ChildOutcome {
        self.calls
            .push((request_id.to_owned(), tool.to_owned(), arguments));
        match self.plays.pop_front() {
            Some(Ok(outcome)) => outcome,
            _ => ChildOutcome::NotCompleted("no script".to_owned()),
        }
    }
}

fn recent() -> ChildOutcome {
    ChildOutcome::Completed(json!({
        "ok": true, "count": 1,
        "items": [{ "date": "2026-01-01", "text": "tea" }],
        "summary": "1 capture",
    }))
}

fn search() -> ChildOutcome {
    ChildOutcome::Completed(json!({ "ok": true, "count": 0, "hits": [], "summary": "none" }))
}

async fn run_with(plays: Vec<Result<ChildOutcome, Stop>>, arguments: Value) -> (Value, Script) {
    let definition = parse(&valid()).expect("valid");
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    let mut script = Script {
        plays: plays.into(),
        ..Script::default()
    };
    let outcome = execute(
        Run {
            definition: &definition,
            recipe_id: "r-1",
            revision: 3,
            parent_request_id: "parent-1",
            arguments: &arguments,
        },
        &mut script,
    )
    .await;
    let value = serde_json::to_value(&outcome).expect("serializes");
    match outcome {
        RecipeOutcome::Completed(_) => assert_eq!(value["ok"], true),
        RecipeOutcome::Failed(_) => assert_eq!(value["guidance"], GUIDANCE),
    }
    (value, script)
}

#[test]
fn child_request_ids_are_derived_from_the_parent() {
    let digest = Sha256::digest("parent-1:r-1:3:recent");
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    let id = child_request_id("parent-1", "r-1", 3, "recent");
    assert_eq!(id, format!("recipe-{}", &hex[..48]));
    assert_ne!(id, child_request_id("parent-1", "r-1", 4, "recent"));
}

#[tokio::test]
async fn children_run_in_order_with_bindings_and_the_outputs_are_resolved() {
    let (result, script) = run_with(vec![Ok(recent()), Ok(search())], json!({ "limit": 2 })).await;
    assert_eq!(
        result,
        json!({
            "ok": true, "state": "completed", "recipeId": "r-1", "revision": 3,
            "outcomes": [
                { "step": "recent", "state": "completed" },
                { "step": "search", "state": "completed" },
            ],
            "outputs": {
                "latest": [{ "date": "2026-01-01", "text": "tea" }],
                "hits": [],
                "note": "done",
            },
        })
    );
    assert_eq!(script.checked, ["recent", "search"]);
    assert_eq!(
        script.calls[0].0,
        child_request_id("parent-1", "r-1", 3, "recent")
    );
    assert_eq!(script.calls[0].1, "brain.recent");
    assert_eq!(
        Value::Object(script.calls[0].2.clone()),
        json!({ "limit": 2 })
    );
    assert_eq!(script.calls[1].1, "brain.search");
    assert_eq!(
        Value::Object(script.calls[1].2.clone()),
        json!({ "query": "tea", "limit": 3 })
    );
}

#[tokio::test]
async fn an_optional_input_left_out_leaves_its_argument_out() {
    let mut definition = valid();
    definition["steps"][0]["arguments"]["limit"] = json!({ "input": "mood" });
    let definition = parse(&definition).expect("valid");
    let mut script = Script {
        plays: vec![Ok(recent()), Ok(search())].into(),
        ..Script::default()
    };
    let arguments = Map::new();
    execute(
        Run {
            definition: &definition,
            recipe_id: "r",
            revision: 1,
            parent_request_id: "p",
            arguments: &arguments,
        },
        &mut script,
    )
    .await;
    assert!(script.calls[0].2.is_empty());
}

#[tokio::test]
async fn a_child_that_does_not_complete_stops_the_recipe() {
    let (result, script) = run_with(
        vec![Ok(ChildOutcome::NotCompleted(
            "TOOL_CAPABILITY_DENIED: no".to_owned(),
        ))],
        json!({ "limit": 1 }),
    )
    .await;
    assert_eq!(result["state"], "failed", "nothing completed");
    assert_eq!(result["failingStep"], "recent");
    assert_eq!(
        result["outcomes"],
        json!([{ "step": "recent", "state": "failed" }])
    );
    assert!(
        result["error"]
            .as_str()
            .is_some_and(|e| e.contains("TOOL_CAPABILITY_DENIED"))
    );
    assert_eq!(script.calls.len(), 1);

    let (result, script) = run_with(
        vec![
            Ok(recent()),
            Ok(ChildOutcome::NotCompleted("x".repeat(900))),
        ],
        json!({ "limit": 1 }),
    )
    .await;
    assert_eq!(result["state"], "partial", "one child completed");
    assert_eq!(result["failingStep"], "search");
    assert_eq!(
        result["error"].as_str().map(|e| e.chars().count()),
        Some(500)
    );
    assert_eq!(script.calls.len(), 2);
}

#[tokio::test]
async fn a_stop_before_a_child_ends_the_recipe_as_it_says() {
    let stop = |kind, reason: &str| {
        Err(Stop {
            kind,
            reason: reason.to_owned(),
        })
    };
    let (result, script) = run_with(
        vec![
            Ok(recent()),
            stop(
                StopKind::Refused,
                "Recipe access was revoked; remaining steps were stopped",
            ),
        ],
        json!({ "limit": 1 }),
    )
    .await;
    assert_eq!(result["state"], "partial");
    assert_eq!(result["failingStep"], "search");
    assert_eq!(
        result["error"],
        "Recipe access was revoked; remaining steps were stopped"
    );
    assert_eq!(
        result["outcomes"][1],
        json!({ "step": "search", "state": "stopped" })
    );
    assert_eq!(script.calls.len(), 1, "the second child never ran");

    let (result, _) = run_with(
        vec![stop(StopKind::Aborted, "aborted")],
        json!({ "limit": 1 }),
    )
    .await;
    assert_eq!(result["state"], "aborted");
    assert_eq!(
        result["outcomes"],
        json!([{ "step": "recent", "state": "aborted" }])
    );

    let (result, _) = run_with(
        vec![stop(
            StopKind::Definition,
            "brain.recent is not in the catalog",
        )],
        json!({ "limit": 1 }),
    )
    .await;
    assert_eq!(result["state"], "failed");
    assert_eq!(result["failingStep"], "definition");
}

#[tokio::test]
async fn a_missing_path_fails_the_step_or_the_outputs() {
    let empty = ChildOutcome::Completed(json!({ "ok": true, "count": 0, "items": [] }));
    let (result, script) = run_with(vec![Ok(empty)], json!({ "limit": 1 })).await;
    assert_eq!(result["state"], "partial");
    assert_eq!(result["failingStep"], "search");
    assert!(
        result["error"]
            .as_str()
            .is_some_and(|e| e.contains("\"query\"")),
        "{result}"
    );
    assert_eq!(script.calls.len(), 1);

    let no_hits = ChildOutcome::Completed(json!({ "ok": true }));
    let (result, _) = run_with(vec![Ok(recent()), Ok(no_hits)], json!({ "limit": 1 })).await;
    assert_eq!(result["state"], "partial");
    assert_eq!(result["failingStep"], "outputs");
    assert!(
        result["error"]
            .as_str()
            .is_some_and(|e| e.contains("\"hits\"")),
        "{result}"
    );
}
