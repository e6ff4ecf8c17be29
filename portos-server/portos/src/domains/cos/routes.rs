//! `/api/cos/tasks` and `/api/cos/agents`: CoS tasks and the agent runs on
//! them, for people and the agent runner. Every task change is recorded in
//! the user-actions ledger (see `store`); the checks are the model's.

use axum::Json;
use axum::extract::Path;
use portos_core::Shared;
use portos_server::clock::UserClock;
use portos_server::http::{Body, Created, InputError, Invalid, Query, RouteErrors};
use portos_server::portos_route;
use portos_server::store::{Store, StoreError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::shared::rest::Deleted;

use super::dispatch::TaskDispatch;
use super::model::{self, AgentOutcome, AgentRun, NewTask, Origin, Task, TaskChanges, TaskFilter};
use super::store::{self, RunUpdate, StartOutcome};
use crate::ledger::{Actor, Source};
use crate::shared::doc_rules::NOT_BLANK;

/// Which tasks to list.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TasksQuery {
    /// Only tasks in this status (`pending`, `in_progress`, `blocked`,
    /// `completed`, `failed`, `cancelled`).
    #[schemars(extend("enum" = ["pending", "in_progress", "blocked", "completed", "failed", "cancelled"]))]
    pub status: Option<String>,
    /// Only tasks of this managed app.
    pub app: Option<String>,
    /// 1 to 200 (default 50).
    #[schemars(range(min = 1, max = model::LIST_MAX))]
    pub limit: Option<i64>,
    /// Tasks to skip (default 0).
    #[schemars(range(min = 0))]
    pub offset: Option<i64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TaskList {
    pub tasks: Vec<Task>,
}

/// A task with its agent runs (running first), and what its coding agent
/// is to do when the Persistent Mind queued it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TaskDetail {
    #[serde(flatten)]
    pub task: Task,
    pub agents: Vec<AgentRun>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispatch: Option<TaskDispatch>,
}

/// Starting an agent on a task.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StartAgent {
    /// The first phase, 1..64 characters (default `starting`).
    #[schemars(length(max = 64), regex(pattern = NOT_BLANK))]
    pub phase: Option<String>,
}

/// A running agent's progress: a new phase, and/or how it ended.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentProgress {
    /// The new phase, 1..64 characters.
    #[schemars(length(max = 64), regex(pattern = NOT_BLANK))]
    pub phase: Option<String>,
    /// Finishes the run; the task becomes completed, failed, or pending
    /// again (cancelled).
    pub outcome: Option<AgentOutcome>,
}

/// Which agent runs to list.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentsQuery {
    /// Only running agents (default false: every run).
    pub running: Option<bool>,
    /// Only the runs of this task.
    #[serde(rename = "taskId")]
    pub task_id: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct AgentList {
    pub agents: Vec<AgentRun>,
}

/// A task that is not there.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum TaskMissing {
    // Not the route-level `NOT_FOUND`: the route exists, the task does not.
    #[error("Task not found")]
    #[route_error(status = 404, code = "TASK_NOT_FOUND")]
    NotFound,
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// A task change refused: it breaks a rule, or the task is not there.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum TaskRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error("Task not found")]
    #[route_error(status = 404, code = "TASK_NOT_FOUND")]
    NotFound,
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// Why no agent was started: a bad phase, no such task, or one already
/// running on it.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum StartRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error("Task not found")]
    #[route_error(status = 404, code = "TASK_NOT_FOUND")]
    TaskNotFound,
    /// The id of the agent already running on the task.
    #[error("The task already has a running agent ({0})")]
    #[route_error(status = 409, code = "CONFLICT")]
    AlreadyRunning(String),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// Why an agent's progress was not recorded.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum ProgressRefusal {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error("Agent run not found")]
    #[route_error(status = 404, code = "AGENT_RUN_NOT_FOUND")]
    NotFound,
    #[error("The agent run has already finished")]
    #[route_error(status = 409, code = "CONFLICT")]
    AlreadyFinished,
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// CoS tasks, newest first.
#[portos_route(method = "GET", path = "/api/cos/tasks", summary = "CoS tasks")]
async fn list_tasks(
    store: Shared<Store>,
    Query(query): Query<TasksQuery>,
) -> Result<Json<TaskList>, InputError> {
    let filter = TaskFilter::checked(
        query.status.as_deref(),
        query.app,
        query.limit,
        query.offset,
    )
    .map_err(Invalid)?;
    let tasks = store
        .run(move |connection| store::list_tasks(connection, &filter))
        .await?;
    Ok(Json(TaskList { tasks }))
}

/// Creates a task (recorded as `cos.task.create`).
#[portos_route(
    method = "POST",
    path = "/api/cos/tasks",
    summary = "Create a CoS task"
)]
async fn create_task(
    store: Shared<Store>,
    clock: Shared<UserClock>,
    Body(new): Body<NewTask>,
) -> Result<Created<Task>, InputError> {
    let input = new.checked().map_err(Invalid)?;
    let now = clock.now();
    let origin = by_user("POST", "/api/cos/tasks");
    let task = store
        .run(move |connection| store::create_task(connection, &input, &now, &origin))
        .await?;
    Ok(Created(task))
}

/// One task and its agent runs.
#[portos_route(method = "GET", path = "/api/cos/tasks/{id}", summary = "CoS task")]
async fn read_task(
    store: Shared<Store>,
    Path(id): Path<String>,
) -> Result<Json<TaskDetail>, TaskMissing> {
    let detail = store
        .run(move |connection| {
            let Some(task) = store::get_task(connection, &id)? else {
                return Ok(None);
            };
            let agents = store::list_agents(connection, false, Some(&id))?;
            let dispatch = store::get_dispatch(connection, &id)?;
            Ok(Some(TaskDetail {
                task,
                agents,
                dispatch,
            }))
        })
        .await?;
    detail.map(Json).ok_or(TaskMissing::NotFound)
}

/// Changes a task's description, app (`null` clears it), priority or status
/// (recorded as `cos.task.update`).
#[portos_route(
    method = "PUT",
    path = "/api/cos/tasks/{id}",
    summary = "Change a CoS task"
)]
async fn update_task(
    store: Shared<Store>,
    clock: Shared<UserClock>,
    Path(id): Path<String>,
    Body(changes): Body<TaskChanges>,
) -> Result<Json<Task>, TaskRefusal> {
    let changes = changes.checked().map_err(Invalid)?;
    let now = clock.now();
    let origin = by_user("PUT", "/api/cos/tasks/{id}");
    let task = store
        .run(move |connection| store::update_task(connection, &id, &changes, &now, &origin))
        .await?;
    task.map(Json).ok_or(TaskRefusal::NotFound)
}

/// Deletes a task and its agent runs (recorded as `cos.task.delete`).
#[portos_route(
    method = "DELETE",
    path = "/api/cos/tasks/{id}",
    summary = "Delete a CoS task"
)]
async fn delete_task(
    store: Shared<Store>,
    Path(id): Path<String>,
) -> Result<Json<Deleted>, TaskMissing> {
    let origin = by_user("DELETE", "/api/cos/tasks/{id}");
    let deleted = store
        .run(move |connection| store::delete_task(connection, &id, &origin))
        .await?;
    deleted
        .map(|task| {
            Json(Deleted {
                ok: true,
                id: task.id,
            })
        })
        .ok_or(TaskMissing::NotFound)
}

/// Starts an agent on a task: the task goes `in_progress` (recorded as
/// `cos.task.spawn`). One agent per task at a time.
#[portos_route(
    method = "POST",
    path = "/api/cos/tasks/{id}/agents",
    summary = "Start an agent on a CoS task"
)]
async fn start_agent(
    store: Shared<Store>,
    clock: Shared<UserClock>,
    Path(id): Path<String>,
    Body(start): Body<StartAgent>,
) -> Result<Created<AgentRun>, StartRefusal> {
    let phase = model::starting_phase(start.phase.as_deref()).map_err(Invalid)?;
    let now = clock.now();
    let origin = by_user("POST", "/api/cos/tasks/{id}/agents");
    let outcome = store
        .run(move |connection| store::start_agent(connection, &id, &phase, &now, &origin))
        .await?;
    match outcome {
        StartOutcome::Started(run) => Ok(Created(run)),
        StartOutcome::TaskNotFound => Err(StartRefusal::TaskNotFound),
        StartOutcome::AlreadyRunning(agent_id) => Err(StartRefusal::AlreadyRunning(agent_id)),
    }
}

/// Agent runs: running ones first (longest-running first), then finished.
#[portos_route(method = "GET", path = "/api/cos/agents", summary = "CoS agent runs")]
async fn list_agents(
    store: Shared<Store>,
    Query(query): Query<AgentsQuery>,
) -> Result<Json<AgentList>, StoreError> {
    let agents = store
        .run(move |connection| {
            store::list_agents(
                connection,
                query.running.unwrap_or(false),
                query.task_id.as_deref(),
            )
        })
        .await?;
    Ok(Json(AgentList { agents }))
}

/// Moves a running agent to a new phase, or finishes it with an outcome
/// (the task's status follows; recorded as `cos.task.update` by `system`).
#[portos_route(
    method = "PUT",
    path = "/api/cos/agents/{id}",
    summary = "Report a CoS agent's progress"
)]
async fn update_agent(
    store: Shared<Store>,
    clock: Shared<UserClock>,
    Path(id): Path<String>,
    Body(progress): Body<AgentProgress>,
) -> Result<Json<AgentRun>, ProgressRefusal> {
    let (phase, outcome) =
        model::checked_progress(progress.phase.as_deref(), progress.outcome).map_err(Invalid)?;
    let now = clock.now();
    let source = Source::http("PUT", "/api/cos/agents/{id}");
    let outcome = store
        .run(move |connection| {
            store::update_agent(connection, &id, phase.as_deref(), outcome, &now, &source)
        })
        .await?;
    match outcome {
        RunUpdate::Updated(run) => Ok(Json(run)),
        RunUpdate::NotFound => Err(ProgressRefusal::NotFound),
        RunUpdate::AlreadyFinished => Err(ProgressRefusal::AlreadyFinished),
    }
}

fn by_user(method: &str, route: &str) -> Origin {
    Origin {
        actor: Actor::User,
        source: Source::http(method, route),
        subject: None,
    }
}
