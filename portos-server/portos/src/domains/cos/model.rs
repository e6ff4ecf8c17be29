//! The task and agent-run records, and the checks a change must pass before
//! it touches the store.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

use crate::ledger::{Actor, Source};
use crate::shared::doc_rules::NOT_BLANK;

pub const DESCRIPTION_MAX_CHARS: usize = 500;
pub const APP_MAX_CHARS: usize = 128;
pub const PHASE_MAX_CHARS: usize = 64;
/// Tasks one listing returns unless asked otherwise, and at most.
pub const LIST_DEFAULT: usize = 50;
pub const LIST_MAX: usize = 200;
/// The phase an agent run starts in unless told otherwise.
pub const DEFAULT_PHASE: &str = "starting";

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Pending,
    InProgress,
    Blocked,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    pub const ALL: [TaskStatus; 6] = [
        TaskStatus::Pending,
        TaskStatus::InProgress,
        TaskStatus::Blocked,
        TaskStatus::Completed,
        TaskStatus::Failed,
        TaskStatus::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Pending => "pending",
            TaskStatus::InProgress => "in_progress",
            TaskStatus::Blocked => "blocked",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<TaskStatus> {
        TaskStatus::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Priority {
    Low,
    #[default]
    Medium,
    High,
    Critical,
}

impl Priority {
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Low => "LOW",
            Priority::Medium => "MEDIUM",
            Priority::High => "HIGH",
            Priority::Critical => "CRITICAL",
        }
    }

    pub fn parse(text: &str) -> Option<Priority> {
        [
            Priority::Low,
            Priority::Medium,
            Priority::High,
            Priority::Critical,
        ]
        .into_iter()
        .find(|p| p.as_str() == text)
    }
}

/// A task as the routes show it. Times are RFC 3339 in the user's zone.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    pub id: String,
    pub description: String,
    /// The managed app (workspace) the task belongs to, if any.
    pub app: Option<String>,
    pub status: TaskStatus,
    pub priority: Priority,
    pub created_at: String,
    pub updated_at: String,
}

/// A new task: `description` 1..500 characters (trimmed), `app` 1..128.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTask {
    #[schemars(length(max = 500), regex(pattern = NOT_BLANK))]
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 128), regex(pattern = NOT_BLANK))]
    pub app: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<Priority>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<TaskStatus>,
}

impl NewTask {
    /// The trimmed, checked task, or what to fix.
    pub fn checked(self) -> Result<NewTask, String> {
        Ok(NewTask {
            description: checked_description(&self.description)?,
            app: self.app.as_deref().map(checked_app).transpose()?,
            priority: self.priority,
            status: self.status,
        })
    }
}

/// A change to a task: only the fields given change; `"app": null` clears
/// the app.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskChanges {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 500), regex(pattern = NOT_BLANK))]
    pub description: Option<String>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(length(max = 128), regex(pattern = NOT_BLANK))]
    pub app: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<Priority>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<TaskStatus>,
}

impl TaskChanges {
    /// The trimmed, checked change, or what to fix.
    pub fn checked(self) -> Result<TaskChanges, String> {
        if self.description.is_none()
            && self.app.is_none()
            && self.priority.is_none()
            && self.status.is_none()
        {
            return Err("Nothing to change: give description, app, priority or status".to_owned());
        }
        Ok(TaskChanges {
            description: self
                .description
                .as_deref()
                .map(checked_description)
                .transpose()?,
            app: match self.app {
                Some(Some(app)) => Some(Some(checked_app(&app)?)),
                other => other,
            },
            priority: self.priority,
            status: self.status,
        })
    }
}

/// A key given as `null` is present (`Some(None)`), unlike a missing key.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(deserializer).map(Some)
}

fn checked_description(text: &str) -> Result<String, String> {
    let text = text.trim();
    match text.chars().count() {
        0 => Err("description must not be empty".to_owned()),
        n if n > DESCRIPTION_MAX_CHARS => Err(format!(
            "description must be at most {DESCRIPTION_MAX_CHARS} characters (got {n})"
        )),
        _ => Ok(text.to_owned()),
    }
}

fn checked_app(text: &str) -> Result<String, String> {
    let text = text.trim();
    match text.chars().count() {
        0 => Err("app must not be empty (leave it out, or null to clear it)".to_owned()),
        n if n > APP_MAX_CHARS => Err(format!(
            "app must be at most {APP_MAX_CHARS} characters (got {n})"
        )),
        _ => Ok(text.to_owned()),
    }
}

/// A phase name: trimmed, 1..64 characters.
pub fn checked_phase(text: &str) -> Result<String, String> {
    let text = text.trim();
    match text.chars().count() {
        0 => Err("phase must not be empty".to_owned()),
        n if n > PHASE_MAX_CHARS => Err(format!(
            "phase must be at most {PHASE_MAX_CHARS} characters (got {n})"
        )),
        _ => Ok(text.to_owned()),
    }
}

/// Which tasks to list, checked: a known status, a page of 1..200 tasks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskFilter {
    pub status: Option<TaskStatus>,
    pub app: Option<String>,
    pub limit: usize,
    pub offset: usize,
}

impl TaskFilter {
    /// The filter, or what to fix.
    pub fn checked(
        status: Option<&str>,
        app: Option<String>,
        limit: Option<i64>,
        offset: Option<i64>,
    ) -> Result<TaskFilter, String> {
        let status = status
            .map(|name| {
                TaskStatus::parse(name).ok_or_else(|| {
                    format!(
                        "Unknown status '{name}': use pending, in_progress, blocked, completed, failed or cancelled"
                    )
                })
            })
            .transpose()?;
        let limit = match limit {
            None => LIST_DEFAULT,
            Some(n) if (1..=LIST_MAX as i64).contains(&n) => usize::try_from(n).unwrap_or(LIST_MAX),
            Some(_) => return Err(format!("limit must be between 1 and {LIST_MAX}")),
        };
        let offset = match offset {
            None => 0,
            Some(n) => usize::try_from(n).map_err(|_| "offset must be 0 or more".to_owned())?,
        };
        Ok(TaskFilter {
            status,
            app,
            limit,
            offset,
        })
    }
}

/// The phase a new agent run starts in ([`DEFAULT_PHASE`] when none is
/// given), checked.
pub fn starting_phase(phase: Option<&str>) -> Result<String, String> {
    checked_phase(phase.unwrap_or(DEFAULT_PHASE))
}

/// A running agent's progress report, checked: a new phase and/or an
/// outcome, at least one of them.
pub fn checked_progress(
    phase: Option<&str>,
    outcome: Option<AgentOutcome>,
) -> Result<(Option<String>, Option<AgentOutcome>), String> {
    if phase.is_none() && outcome.is_none() {
        return Err("Nothing to change: give phase and/or outcome".to_owned());
    }
    Ok((phase.map(checked_phase).transpose()?, outcome))
}

/// How an agent run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AgentOutcome {
    Completed,
    Failed,
    Cancelled,
}

impl AgentOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            AgentOutcome::Completed => "completed",
            AgentOutcome::Failed => "failed",
            AgentOutcome::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<AgentOutcome> {
        [
            AgentOutcome::Completed,
            AgentOutcome::Failed,
            AgentOutcome::Cancelled,
        ]
        .into_iter()
        .find(|o| o.as_str() == text)
    }

    /// The status the task takes when its run ends this way: a cancelled
    /// run puts the task back in the queue.
    pub fn task_status(self) -> TaskStatus {
        match self {
            AgentOutcome::Completed => TaskStatus::Completed,
            AgentOutcome::Failed => TaskStatus::Failed,
            AgentOutcome::Cancelled => TaskStatus::Pending,
        }
    }
}

/// Whether a run is still going.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AgentStatus {
    Running,
    Finished,
}

/// An agent run on a task, with the task's description and app.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentRun {
    pub agent_id: String,
    pub task_id: String,
    pub description: String,
    pub app: Option<String>,
    pub phase: String,
    pub status: AgentStatus,
    /// Unix milliseconds.
    pub started_at_ms: i64,
    pub finished_at_ms: Option<i64>,
    pub outcome: Option<AgentOutcome>,
}

// An agent at work now, as `cos.agents.status` tells it (no doc comment:
// it would become the schema's description).
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

impl RunningAgent {
    /// A running `run` seen at `now_ms` (Unix milliseconds).
    pub fn at(run: AgentRun, now_ms: i64) -> RunningAgent {
        RunningAgent {
            elapsed_ms: (now_ms - run.started_at_ms).max(0),
            task_id: run.task_id,
            agent_id: run.agent_id,
            description: run.description,
            phase: run.phase,
            app: run.app,
        }
    }
}

/// What is running, in a sentence: each agent's task, app and phase (and
/// for a single agent, for how long).
pub fn running_summary(agents: &[RunningAgent]) -> String {
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

/// Who makes a change and through which route: what the ledger row says.
#[derive(Clone, Debug)]
pub struct Origin {
    pub actor: Actor,
    pub source: Source,
    /// Remote mode: whom the caller's access token names.
    pub subject: Option<String>,
}
