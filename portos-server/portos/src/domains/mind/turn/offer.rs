//! The tools a turn offers the model: the mind catalog in OpenAI format for
//! the grants stored now (provider formats list only granted tools), less
//! what the turn's budget no longer allows, and the way back from the
//! provider names the model uses to the registry's tools.

use portos_core::{Capabilities, CatalogFormat, CatalogQuery, CatalogScope, Catalogs, Registry};
use serde_json::Value;

use super::budget::{CREATE_TASK, MAX_TASKS_PER_TURN, TurnBudget};

/// The OpenAI `tools` array for `grants`, within `budget`.
pub fn offered_tools(catalogs: &Catalogs, grants: Capabilities, budget: &TurnBudget) -> Vec<Value> {
    let query = CatalogQuery {
        scope: CatalogScope::Only(portos_words::MIND),
        intent: None,
        format: CatalogFormat::Openai,
    };
    let served = catalogs.catalog(&query, grants);
    let tools = serde_json::from_str::<Value>(served.to_json())
        .ok()
        .and_then(|mut body| body.get_mut("tools").map(Value::take));
    let Some(Value::Array(tools)) = tools else {
        return Vec::new();
    };
    let calls_left = !budget.calls_exhausted();
    let tasks_left = budget.tasks_used < MAX_TASKS_PER_TURN;
    tools
        .into_iter()
        .filter(|entry| {
            let is_task = canonical_of(catalogs.registry(), entry) == Some(CREATE_TASK);
            if is_task { tasks_left } else { calls_left }
        })
        .collect()
}

/// The canonical name of an OpenAI catalog entry's tool.
fn canonical_of<'r>(registry: &'r Registry, entry: &Value) -> Option<&'r str> {
    let name = entry.pointer("/function/name").and_then(Value::as_str)?;
    registry.resolve(name).map(|tool| tool.name())
}
