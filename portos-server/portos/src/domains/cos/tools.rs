//! `cos.agents.status` (docs/reference.md#semantic-adapters row 21): the agents
//! working on CoS tasks right now, from the task and agent-run records.

use portos_core::{AdapterError, Shared, portos_tool};
use schemars::JsonSchema;
use serde::Serialize;

use super::model::{RunningAgent, running_summary};
use super::store;
use crate::clock::UserClock;
use crate::store::Store;

#[derive(Debug, Serialize, JsonSchema)]
pub struct AgentsStatus {
    pub ok: bool,
    pub count: usize,
    pub agents: Vec<RunningAgent>,
    pub summary: String,
}

/// Tell which coding agents are running, on what, and for how long.
#[portos_tool(
    name = "cos.agents.status",
    aliases = ["code_agent_status", "cos_agents_status"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
    intent_group = "code",
)]
pub async fn agents_status(
    store: Shared<Store>,
    clock: Shared<UserClock>,
) -> Result<AgentsStatus, AdapterError> {
    let now_ms = clock.now().timestamp().as_millisecond();
    let runs = store
        .run(|connection| store::list_agents(connection, true, None))
        .await?;
    let agents: Vec<RunningAgent> = runs
        .into_iter()
        .map(|run| RunningAgent::at(run, now_ms))
        .collect();
    Ok(AgentsStatus {
        ok: true,
        count: agents.len(),
        summary: running_summary(&agents),
        agents,
    })
}
