//! `cos.agents.status` (BEHAVIOUR §3 row 21): the agents working on CoS
//! tasks right now, from the task and agent-run records.

use portos_core::{AdapterError, ToolContext, portos_tool};
use schemars::JsonSchema;
use serde::Serialize;

use crate::clock::UserClock;
use crate::cos;
use crate::store::Store;

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunningAgent {
    pub task_id: String,
    pub agent_id: String,
    pub description: String,
    pub phase: String,
    pub app: Option<String>,
    /// Time since the agent started, by the user's clock.
    pub elapsed_ms: i64,
}

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
    aliases = ["code_agent_status"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
    intent_group = "code",
)]
pub async fn agents_status(ctx: &ToolContext) -> Result<AgentsStatus, AdapterError> {
    let store = ctx.state::<Store>()?.clone();
    let now_ms = ctx.state::<UserClock>()?.now().timestamp().as_millisecond();
    let runs = store
        .run(|connection| cos::store::list_agents(connection, true, None))
        .await?;
    let agents: Vec<RunningAgent> = runs
        .into_iter()
        .map(|run| RunningAgent {
            elapsed_ms: (now_ms - run.started_at_ms).max(0),
            task_id: run.task_id,
            agent_id: run.agent_id,
            description: run.description,
            phase: run.phase,
            app: run.app,
        })
        .collect();
    Ok(AgentsStatus {
        ok: true,
        count: agents.len(),
        summary: summary(&agents),
        agents,
    })
}

fn summary(agents: &[RunningAgent]) -> String {
    match agents {
        [] => "No agents are running.".to_owned(),
        [agent] => format!(
            "1 agent running: \"{}\"{} ({}, {}).",
            agent.description,
            in_app(agent.app.as_deref()),
            agent.phase,
            minutes(agent.elapsed_ms)
        ),
        _ => {
            let each: Vec<String> = agents
                .iter()
                .map(|agent| {
                    format!(
                        "\"{}\"{} ({})",
                        agent.description,
                        in_app(agent.app.as_deref()),
                        agent.phase
                    )
                })
                .collect();
            format!("{} agents running: {}.", agents.len(), each.join("; "))
        }
    }
}

fn in_app(app: Option<&str>) -> String {
    app.map(|app| format!(" in {app}")).unwrap_or_default()
}

fn minutes(elapsed_ms: i64) -> String {
    match elapsed_ms / 60_000 {
        0 => "under a minute".to_owned(),
        1 => "1 minute".to_owned(),
        n => format!("{n} minutes"),
    }
}
