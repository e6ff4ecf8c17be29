//! `/api/cos/tasks` and `/api/cos/agents`: CoS tasks and the agent runs on
//! them, for people and the agent runner. Every task change is recorded in
//! the user-actions ledger (see `store`); the checks are the model's.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use portos_core::portos_route;
use portos_server::http::ApiError;
use portos_server::http::body::JsonBody;
use portos_server::http::query::{invalid, strict_query};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{self, AgentOutcome, AgentRun, NewTask, Origin, Task, TaskChanges, TaskFilter};
use super::store::{self, RunUpdate, StartOutcome};
use crate::app::App;
use crate::ledger::{Actor, Source};

/// Which tasks to list.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TasksQuery {
    /// Only tasks in this status (`pending`, `in_progress`, `blocked`,
    /// `completed`, `failed`, `cancelled`).
    pub status: Option<String>,
    /// Only tasks of this managed app.
    pub app: Option<String>,
    /// 1 to 200 (default 50).
    pub limit: Option<i64>,
    /// Tasks to skip (default 0).
    pub offset: Option<i64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TaskList {
    pub tasks: Vec<Task>,
}

/// A task with its agent runs (running first).
#[derive(Debug, Serialize, JsonSchema)]
pub struct TaskDetail {
    #[serde(flatten)]
    pub task: Task,
    pub agents: Vec<AgentRun>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Deleted {
    pub ok: bool,
    pub id: String,
}

/// Starting an agent on a task.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StartAgent {
    /// The first phase, 1..64 characters (default `starting`).
    pub phase: Option<String>,
}

/// A running agent's progress: a new phase, and/or how it ended.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentProgress {
    pub phase: Option<String>,
    /// Finishes the run; the task becomes completed, failed, or pending
    /// again (cancelled).
    pub outcome: Option<AgentOutcome>,
}

/// Which agent runs to list.
#[derive(Debug, Deserialize, JsonSchema)]
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

/// CoS tasks, newest first.
#[portos_route(
    method = "GET",
    path = "/api/cos/tasks",
    summary = "CoS tasks",
    query = TasksQuery,
    response = TaskList,
    errors = [(400, "VALIDATION_ERROR")],
)]
async fn list_tasks(State(app): State<App>, uri: Uri) -> Result<Json<TaskList>, ApiError> {
    let query: TasksQuery = strict_query(&uri)?;
    let filter = TaskFilter::checked(
        query.status.as_deref(),
        query.app,
        query.limit,
        query.offset,
    )
    .map_err(invalid)?;
    let tasks = app
        .store
        .run(move |connection| store::list_tasks(connection, &filter))
        .await?;
    Ok(Json(TaskList { tasks }))
}

/// Creates a task (recorded as `cos.task.create`).
#[portos_route(
    method = "POST",
    path = "/api/cos/tasks",
    summary = "Create a CoS task",
    request = NewTask,
    response = Task,
    status = 201,
    errors = [(400, "VALIDATION_ERROR"), (415, "UNSUPPORTED_MEDIA_TYPE")],
)]
async fn create_task(
    State(app): State<App>,
    body: JsonBody,
) -> Result<(StatusCode, Json<Task>), ApiError> {
    let input = body.into_typed::<NewTask>()?.checked().map_err(invalid)?;
    let now = app.clock.now();
    let origin = by_user("POST", "/api/cos/tasks");
    let task = app
        .store
        .run(move |connection| store::create_task(connection, &input, &now, &origin))
        .await?;
    Ok((StatusCode::CREATED, Json(task)))
}

/// One task and its agent runs.
#[portos_route(
    method = "GET",
    path = "/api/cos/tasks/{id}",
    summary = "CoS task",
    response = TaskDetail,
    errors = [(404, "TASK_NOT_FOUND")],
)]
async fn read_task(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<TaskDetail>, ApiError> {
    let detail = app
        .store
        .run(move |connection| {
            let Some(task) = store::get_task(connection, &id)? else {
                return Ok(None);
            };
            let agents = store::list_agents(connection, false, Some(&id))?;
            Ok(Some(TaskDetail { task, agents }))
        })
        .await?;
    detail.map(Json).ok_or_else(task_not_found)
}

/// Changes a task's description, app (`null` clears it), priority or status
/// (recorded as `cos.task.update`).
#[portos_route(
    method = "PUT",
    path = "/api/cos/tasks/{id}",
    summary = "Change a CoS task",
    request = TaskChanges,
    response = Task,
    errors = [
        (400, "VALIDATION_ERROR"),
        (404, "TASK_NOT_FOUND"),
        (415, "UNSUPPORTED_MEDIA_TYPE"),
    ],
)]
async fn update_task(
    State(app): State<App>,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<Json<Task>, ApiError> {
    let changes = body
        .into_typed::<TaskChanges>()?
        .checked()
        .map_err(invalid)?;
    let now = app.clock.now();
    let origin = by_user("PUT", "/api/cos/tasks/{id}");
    let task = app
        .store
        .run(move |connection| store::update_task(connection, &id, &changes, &now, &origin))
        .await?;
    task.map(Json).ok_or_else(task_not_found)
}

/// Deletes a task and its agent runs (recorded as `cos.task.delete`).
#[portos_route(
    method = "DELETE",
    path = "/api/cos/tasks/{id}",
    summary = "Delete a CoS task",
    response = Deleted,
    errors = [(404, "TASK_NOT_FOUND")],
)]
async fn delete_task(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Result<Json<Deleted>, ApiError> {
    let origin = by_user("DELETE", "/api/cos/tasks/{id}");
    let deleted = app
        .store
        .run(move |connection| store::delete_task(connection, &id, &origin))
        .await?;
    deleted
        .map(|task| {
            Json(Deleted {
                ok: true,
                id: task.id,
            })
        })
        .ok_or_else(task_not_found)
}

/// Starts an agent on a task: the task goes `in_progress` (recorded as
/// `cos.task.spawn`). One agent per task at a time.
#[portos_route(
    method = "POST",
    path = "/api/cos/tasks/{id}/agents",
    summary = "Start an agent on a CoS task",
    request = StartAgent,
    response = AgentRun,
    status = 201,
    errors = [
        (400, "VALIDATION_ERROR"),
        (404, "TASK_NOT_FOUND"),
        (409, "CONFLICT"),
        (415, "UNSUPPORTED_MEDIA_TYPE"),
    ],
)]
async fn start_agent(
    State(app): State<App>,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<(StatusCode, Json<AgentRun>), ApiError> {
    let start: StartAgent = body.into_typed()?;
    let phase = model::starting_phase(start.phase.as_deref()).map_err(invalid)?;
    let now = app.clock.now();
    let origin = by_user("POST", "/api/cos/tasks/{id}/agents");
    let outcome = app
        .store
        .run(move |connection| store::start_agent(connection, &id, &phase, &now, &origin))
        .await?;
    match outcome {
        StartOutcome::Started(run) => Ok((StatusCode::CREATED, Json(run))),
        StartOutcome::TaskNotFound => Err(task_not_found()),
        StartOutcome::AlreadyRunning(agent_id) => Err(ApiError::new(
            StatusCode::CONFLICT,
            "CONFLICT",
            format!("The task already has a running agent ({agent_id})"),
        )),
    }
}

/// Agent runs: running ones first (longest-running first), then finished.
#[portos_route(
    method = "GET",
    path = "/api/cos/agents",
    summary = "CoS agent runs",
    query = AgentsQuery,
    response = AgentList,
    errors = [(400, "VALIDATION_ERROR")],
)]
async fn list_agents(State(app): State<App>, uri: Uri) -> Result<Json<AgentList>, ApiError> {
    let query: AgentsQuery = strict_query(&uri)?;
    let agents = app
        .store
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
    summary = "Report a CoS agent's progress",
    request = AgentProgress,
    response = AgentRun,
    errors = [
        (400, "VALIDATION_ERROR"),
        (404, "AGENT_RUN_NOT_FOUND"),
        (409, "CONFLICT"),
        (415, "UNSUPPORTED_MEDIA_TYPE"),
    ],
)]
async fn update_agent(
    State(app): State<App>,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<Json<AgentRun>, ApiError> {
    let progress: AgentProgress = body.into_typed()?;
    let (phase, outcome) =
        model::checked_progress(progress.phase.as_deref(), progress.outcome).map_err(invalid)?;
    let now = app.clock.now();
    let source = Source::http("PUT", "/api/cos/agents/{id}");
    let outcome = app
        .store
        .run(move |connection| {
            store::update_agent(connection, &id, phase.as_deref(), outcome, &now, &source)
        })
        .await?;
    match outcome {
        RunUpdate::Updated(run) => Ok(Json(run)),
        RunUpdate::NotFound => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "AGENT_RUN_NOT_FOUND",
            "Agent run not found",
        )),
        RunUpdate::AlreadyFinished => Err(ApiError::new(
            StatusCode::CONFLICT,
            "CONFLICT",
            "The agent run has already finished",
        )),
    }
}

fn by_user(method: &str, route: &str) -> Origin {
    Origin {
        actor: Actor::User,
        source: Source::http(method, route),
    }
}

fn task_not_found() -> ApiError {
    // Not the route-level `NOT_FOUND`: the route exists, the task does not.
    ApiError::new(StatusCode::NOT_FOUND, "TASK_NOT_FOUND", "Task not found")
}
