//! The CoS tasks and agent runs in SQLite: their tables and every statement
//! on them. Each write runs in one transaction with its ledger row, so a
//! change is recorded iff it commits.

use std::collections::BTreeMap;

use jiff::ZonedDateTime;
use portos_server::store::Schema;
use portos_server::store::sql::{Connection, OptionalExtension, Row, params};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

use super::dispatch::{EffortChoice, PrCompletion, TaskDispatch};
use super::model::{
    AgentOutcome, AgentRun, AgentStatus, NewTask, Origin, Priority, Task, TaskChanges, TaskFilter,
    TaskStatus,
};
use crate::ledger::{self, ActionType, Actor, NewAction};
use crate::store::StoreError;

portos_server::store_schema!(
    /// CoS tasks, their agent runs, and what a coding agent is to do for a
    /// task the Persistent Mind queued.
    COS = Schema {
        component: "cos",
        migrations: &["
            CREATE TABLE IF NOT EXISTS cos_tasks (
                id          TEXT PRIMARY KEY,
                description TEXT NOT NULL,
                app         TEXT,
                status      TEXT NOT NULL CHECK (status IN
                              ('pending', 'in_progress', 'blocked', 'completed', 'failed', 'cancelled')),
                priority    TEXT NOT NULL CHECK (priority IN ('LOW', 'MEDIUM', 'HIGH', 'CRITICAL')),
                created_at  TEXT NOT NULL,
                updated_at  TEXT NOT NULL,
                seq         INTEGER NOT NULL
            );
            CREATE INDEX IF NOT EXISTS cos_tasks_recent ON cos_tasks (seq DESC);
            CREATE INDEX IF NOT EXISTS cos_tasks_app ON cos_tasks (app, status);

            CREATE TABLE IF NOT EXISTS cos_agent_runs (
                id             TEXT PRIMARY KEY,
                task_id        TEXT NOT NULL REFERENCES cos_tasks (id) ON DELETE CASCADE,
                phase          TEXT NOT NULL,
                started_at_ms  INTEGER NOT NULL,
                finished_at_ms INTEGER,
                outcome        TEXT CHECK (outcome IN ('completed', 'failed', 'cancelled'))
            );
            CREATE INDEX IF NOT EXISTS cos_agent_runs_running
                ON cos_agent_runs (finished_at_ms, started_at_ms);
            CREATE INDEX IF NOT EXISTS cos_agent_runs_task ON cos_agent_runs (task_id);
        ", "
            CREATE TABLE IF NOT EXISTS cos_task_dispatch (
                task_id             TEXT PRIMARY KEY REFERENCES cos_tasks (id) ON DELETE CASCADE,
                prompt              TEXT NOT NULL,
                provider_id         TEXT NOT NULL,
                model               TEXT NOT NULL,
                effort              TEXT NOT NULL,
                plan_only           INTEGER NOT NULL CHECK (plan_only IN (0, 1)),
                pr_completion       TEXT,
                required_validation TEXT NOT NULL,
                wake_id             TEXT NOT NULL
            );
        "],
    }
);

const TASK_COLUMNS: &str = "id, description, app, status, priority, created_at, updated_at";
const RUN_COLUMNS: &str = "r.id, r.task_id, t.description, t.app, r.phase, r.started_at_ms,
     r.finished_at_ms, r.outcome";

fn local_time(now: &ZonedDateTime) -> String {
    now.strftime("%Y-%m-%dT%H:%M:%S%.3f%:z").to_string()
}

fn task_of(row: &Row<'_>) -> portos_server::store::sql::Result<Task> {
    let status: String = row.get(3)?;
    let priority: String = row.get(4)?;
    Ok(Task {
        id: row.get(0)?,
        description: row.get(1)?,
        app: row.get(2)?,
        // The table's CHECK constraints admit only known values.
        status: TaskStatus::parse(&status).unwrap_or(TaskStatus::Pending),
        priority: Priority::parse(&priority).unwrap_or_default(),
        created_at: row.get(5)?,
        updated_at: row.get(6)?,
    })
}

fn run_of(row: &Row<'_>) -> portos_server::store::sql::Result<AgentRun> {
    let finished_at_ms: Option<i64> = row.get(6)?;
    let outcome: Option<String> = row.get(7)?;
    Ok(AgentRun {
        agent_id: row.get(0)?,
        task_id: row.get(1)?,
        description: row.get(2)?,
        app: row.get(3)?,
        phase: row.get(4)?,
        status: if finished_at_ms.is_some() {
            AgentStatus::Finished
        } else {
            AgentStatus::Running
        },
        started_at_ms: row.get(5)?,
        finished_at_ms,
        outcome: outcome.as_deref().and_then(AgentOutcome::parse),
    })
}

/// Tasks, newest first, optionally of one status and/or one app.
pub fn list_tasks(connection: &Connection, filter: &TaskFilter) -> Result<Vec<Task>, StoreError> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {TASK_COLUMNS} FROM cos_tasks
         WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR app = ?2)
         ORDER BY seq DESC LIMIT ?3 OFFSET ?4"
    ))?;
    let rows = statement.query_map(
        params![
            filter.status.map(TaskStatus::as_str),
            filter.app,
            i64::try_from(filter.limit).unwrap_or(i64::MAX),
            i64::try_from(filter.offset).unwrap_or(i64::MAX),
        ],
        task_of,
    )?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

pub fn get_task(connection: &Connection, id: &str) -> Result<Option<Task>, StoreError> {
    Ok(connection
        .prepare_cached(&format!(
            "SELECT {TASK_COLUMNS} FROM cos_tasks WHERE id = ?1"
        ))?
        .query_row([id], task_of)
        .optional()?)
}

/// Creates a checked task (see [`NewTask::checked`]) and records
/// `cos.task.create`.
pub fn create_task(
    connection: &mut Connection,
    input: &NewTask,
    now: &ZonedDateTime,
    origin: &Origin,
) -> Result<Task, StoreError> {
    let task = Task {
        id: uuid::Uuid::new_v4().to_string(),
        description: input.description.clone(),
        app: input.app.clone(),
        status: input.status.unwrap_or(TaskStatus::Pending),
        priority: input.priority.unwrap_or_default(),
        created_at: local_time(now),
        updated_at: local_time(now),
    };
    let transaction = connection.transaction()?;
    insert_task(&transaction, &task)?;
    ledger::record(
        &transaction,
        &action(
            ActionType::CosTaskCreate,
            origin,
            format!("Created task \"{}\"", task.description),
            &task,
        )
        .payload(json!({
            "app": task.app,
            "status": task.status,
            "priority": task.priority,
        })),
    )?;
    transaction.commit()?;
    Ok(task)
}

fn insert_task(connection: &Connection, task: &Task) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO cos_tasks (id, description, app, status, priority, created_at, updated_at, seq)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, (SELECT COALESCE(MAX(seq), 0) + 1 FROM cos_tasks))",
        params![
            task.id,
            task.description,
            task.app,
            task.status.as_str(),
            task.priority.as_str(),
            task.created_at,
            task.updated_at
        ],
    )?;
    Ok(())
}

/// What queueing a task with a known id came to.
#[derive(Debug)]
pub struct Queued {
    pub task: Task,
    /// The id was queued before (a replay): nothing was written.
    pub duplicate: bool,
}

/// Queues a pending task under `id` with its coding agent's instructions
/// and records `cos.task.create`, unless a task with that id exists (then
/// it is answered as a duplicate and nothing changes).
pub fn queue_dispatched_task(
    connection: &mut Connection,
    id: &str,
    input: &NewTask,
    dispatch: &TaskDispatch,
    now: &ZonedDateTime,
    origin: &Origin,
) -> Result<Queued, StoreError> {
    let transaction = connection.transaction()?;
    if let Some(task) = get_task(&transaction, id)? {
        return Ok(Queued {
            task,
            duplicate: true,
        });
    }
    let task = Task {
        id: id.to_owned(),
        description: input.description.clone(),
        app: input.app.clone(),
        status: TaskStatus::Pending,
        priority: input.priority.unwrap_or_default(),
        created_at: local_time(now),
        updated_at: local_time(now),
    };
    insert_task(&transaction, &task)?;
    let checks: Vec<&str> = dispatch
        .required_validation
        .iter()
        .map(|check| check.as_str())
        .collect();
    transaction.execute(
        "INSERT INTO cos_task_dispatch (task_id, prompt, provider_id, model, effort, plan_only,
                pr_completion, required_validation, wake_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            task.id,
            dispatch.prompt,
            dispatch.provider_id,
            dispatch.model,
            dispatch.effort.as_str(),
            dispatch.plan_only,
            dispatch.pr_completion.map(PrCompletion::as_str),
            json!(checks).to_string(),
            dispatch.wake_id,
        ],
    )?;
    ledger::record(
        &transaction,
        &action(
            ActionType::CosTaskCreate,
            origin,
            format!("Queued task \"{}\"", task.description),
            &task,
        )
        // The prompt stays in the task: the ledger says who asked for what.
        .payload(json!({
            "app": task.app,
            "status": task.status,
            "priority": task.priority,
            "providerId": dispatch.provider_id,
            "model": dispatch.model,
            "effort": dispatch.effort,
            "planOnly": dispatch.plan_only,
            "prCompletion": dispatch.pr_completion,
            "requiredValidation": checks,
            "wakeId": dispatch.wake_id,
        })),
    )?;
    transaction.commit()?;
    Ok(Queued {
        task,
        duplicate: false,
    })
}

/// The coding agent's instructions of a task, if the Mind queued it.
pub fn get_dispatch(
    connection: &Connection,
    task_id: &str,
) -> Result<Option<TaskDispatch>, StoreError> {
    Ok(connection
        .prepare_cached(
            "SELECT prompt, provider_id, model, effort, plan_only, pr_completion,
                    required_validation, wake_id
             FROM cos_task_dispatch WHERE task_id = ?1",
        )?
        .query_row([task_id], |row| {
            let effort: String = row.get(3)?;
            let pr_completion: Option<String> = row.get(5)?;
            let checks: String = row.get(6)?;
            Ok(TaskDispatch {
                prompt: row.get(0)?,
                provider_id: row.get(1)?,
                model: row.get(2)?,
                // Written by this module from the same enums.
                effort: EffortChoice::parse(&effort).unwrap_or_default(),
                plan_only: row.get(4)?,
                pr_completion: pr_completion
                    .and_then(|text| serde_json::from_value(Value::String(text)).ok()),
                required_validation: serde_json::from_str(&checks).unwrap_or_default(),
                wake_id: row.get(7)?,
            })
        })
        .optional()?)
}

/// Applies a checked change (see [`TaskChanges::checked`]) and records
/// `cos.task.update` with the fields that changed. `None`: no such task.
pub fn update_task(
    connection: &mut Connection,
    id: &str,
    changes: &TaskChanges,
    now: &ZonedDateTime,
    origin: &Origin,
) -> Result<Option<Task>, StoreError> {
    let transaction = connection.transaction()?;
    // Another server's change of it commits before or after this one.
    transaction.lock_rows("cos_tasks", "id", id)?;
    let Some(before) = get_task(&transaction, id)? else {
        return Ok(None);
    };
    let after = Task {
        description: changes
            .description
            .clone()
            .unwrap_or_else(|| before.description.clone()),
        app: changes.app.clone().unwrap_or_else(|| before.app.clone()),
        status: changes.status.unwrap_or(before.status),
        priority: changes.priority.unwrap_or(before.priority),
        updated_at: local_time(now),
        ..before.clone()
    };
    store_task(&transaction, &after)?;
    let changed = changed_fields(&before, &after);
    ledger::record(
        &transaction,
        &action(
            ActionType::CosTaskUpdate,
            origin,
            format!("Updated task \"{}\"", after.description),
            &after,
        )
        .payload(json!({ "changes": changed })),
    )?;
    transaction.commit()?;
    Ok(Some(after))
}

/// Deletes a task (its runs go with it) and records `cos.task.delete`.
/// `None`: no such task.
pub fn delete_task(
    connection: &mut Connection,
    id: &str,
    origin: &Origin,
) -> Result<Option<Task>, StoreError> {
    let transaction = connection.transaction()?;
    let Some(task) = get_task(&transaction, id)? else {
        return Ok(None);
    };
    transaction.execute("DELETE FROM cos_tasks WHERE id = ?1", [id])?;
    ledger::record(
        &transaction,
        &action(
            ActionType::CosTaskDelete,
            origin,
            format!("Deleted task \"{}\"", task.description),
            &task,
        )
        .payload(json!({ "app": task.app, "status": task.status })),
    )?;
    transaction.commit()?;
    Ok(Some(task))
}

/// What starting an agent on a task came to.
#[derive(Debug)]
pub enum StartOutcome {
    Started(AgentRun),
    TaskNotFound,
    /// The task already has this running agent: one run at a time.
    AlreadyRunning(String),
}

/// Starts an agent run on a task (the task goes `in_progress`) and records
/// `cos.task.spawn`.
pub fn start_agent(
    connection: &mut Connection,
    task_id: &str,
    phase: &str,
    now: &ZonedDateTime,
    origin: &Origin,
) -> Result<StartOutcome, StoreError> {
    let transaction = connection.transaction()?;
    let Some(task) = get_task(&transaction, task_id)? else {
        return Ok(StartOutcome::TaskNotFound);
    };
    let running: Option<String> = transaction
        .query_row(
            "SELECT id FROM cos_agent_runs WHERE task_id = ?1 AND finished_at_ms IS NULL",
            [task_id],
            |row| row.get(0),
        )
        .optional()?;
    if let Some(agent_id) = running {
        return Ok(StartOutcome::AlreadyRunning(agent_id));
    }
    let agent_id = uuid::Uuid::new_v4().to_string();
    let started_at_ms = now.timestamp().as_millisecond();
    transaction.execute(
        "INSERT INTO cos_agent_runs (id, task_id, phase, started_at_ms) VALUES (?1, ?2, ?3, ?4)",
        params![agent_id, task_id, phase, started_at_ms],
    )?;
    let task = Task {
        status: TaskStatus::InProgress,
        updated_at: local_time(now),
        ..task
    };
    store_task(&transaction, &task)?;
    ledger::record(
        &transaction,
        &action(
            ActionType::CosTaskSpawn,
            origin,
            format!("Started an agent on task \"{}\"", task.description),
            &task,
        )
        .payload(json!({ "agentId": agent_id, "phase": phase })),
    )?;
    transaction.commit()?;
    Ok(StartOutcome::Started(AgentRun {
        agent_id,
        task_id: task.id,
        description: task.description,
        app: task.app,
        phase: phase.to_owned(),
        status: AgentStatus::Running,
        started_at_ms,
        finished_at_ms: None,
        outcome: None,
    }))
}

/// What a change to an agent run came to.
#[derive(Debug)]
pub enum RunUpdate {
    Updated(AgentRun),
    NotFound,
    /// A finished run does not change any more.
    AlreadyFinished,
}

/// Moves a running agent to a new phase and/or finishes it. Finishing sets
/// the task's status from the outcome, recorded as `cos.task.update` by the
/// system (the run, not the user, changed the task).
pub fn update_agent(
    connection: &mut Connection,
    agent_id: &str,
    phase: Option<&str>,
    outcome: Option<AgentOutcome>,
    now: &ZonedDateTime,
    source: &ledger::Source,
) -> Result<RunUpdate, StoreError> {
    let transaction = connection.transaction()?;
    // Another server's change of it commits before or after this one.
    transaction.lock_rows("cos_agent_runs", "id", agent_id)?;
    let Some(run) = get_agent(&transaction, agent_id)? else {
        return Ok(RunUpdate::NotFound);
    };
    if run.status == AgentStatus::Finished {
        return Ok(RunUpdate::AlreadyFinished);
    }
    let phase = phase.map_or_else(|| run.phase.clone(), str::to_owned);
    let finished_at_ms = outcome.map(|_| now.timestamp().as_millisecond());
    transaction.execute(
        "UPDATE cos_agent_runs SET phase = ?2, finished_at_ms = ?3, outcome = ?4 WHERE id = ?1",
        params![
            agent_id,
            phase,
            finished_at_ms,
            outcome.map(AgentOutcome::as_str)
        ],
    )?;
    if let Some(outcome) = outcome
        && let Some(task) = get_task(&transaction, &run.task_id)?
    {
        let after = Task {
            status: outcome.task_status(),
            updated_at: local_time(now),
            ..task.clone()
        };
        store_task(&transaction, &after)?;
        let origin = Origin {
            actor: Actor::System,
            source: source.clone(),
            subject: None,
        };
        ledger::record(
            &transaction,
            &action(
                ActionType::CosTaskUpdate,
                &origin,
                format!(
                    "Agent {} on task \"{}\"",
                    outcome.as_str(),
                    after.description
                ),
                &after,
            )
            .payload(json!({
                "agentId": agent_id,
                "outcome": outcome,
                "changes": changed_fields(&task, &after),
            })),
        )?;
    }
    let updated = get_agent(&transaction, agent_id)?;
    transaction.commit()?;
    Ok(updated.map_or(RunUpdate::NotFound, RunUpdate::Updated))
}

pub fn get_agent(connection: &Connection, agent_id: &str) -> Result<Option<AgentRun>, StoreError> {
    Ok(connection
        .prepare_cached(&format!(
            "SELECT {RUN_COLUMNS} FROM cos_agent_runs r JOIN cos_tasks t ON t.id = r.task_id
             WHERE r.id = ?1"
        ))?
        .query_row([agent_id], run_of)
        .optional()?)
}

/// Agent runs, the longest-running first; only the running ones when
/// `running_only`, else every run (newest first after the running ones).
pub fn list_agents(
    connection: &Connection,
    running_only: bool,
    task_id: Option<&str>,
) -> Result<Vec<AgentRun>, StoreError> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {RUN_COLUMNS} FROM cos_agent_runs r JOIN cos_tasks t ON t.id = r.task_id
         WHERE (?1 = 0 OR r.finished_at_ms IS NULL) AND (?2 IS NULL OR r.task_id = ?2)
         ORDER BY r.finished_at_ms IS NOT NULL,
                  CASE WHEN r.finished_at_ms IS NULL THEN r.started_at_ms END ASC,
                  r.started_at_ms DESC"
    ))?;
    let rows = statement.query_map(params![running_only, task_id], run_of)?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// One managed app (a workspace) and its tasks by status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManagedApp {
    /// The app name, as tasks give it.
    pub app: String,
    pub total_tasks: u64,
    /// Task counts by status; statuses with no task are left out.
    pub tasks_by_status: BTreeMap<TaskStatus, u64>,
}

/// Lists the managed apps: every distinct `app` of the CoS tasks, in name
/// order, with how many tasks each has and how many are in each status.
/// Tasks without an app are not counted. This is what the agent-context
/// `workspaces` tool lists; call it inside `Store::run`.
pub fn managed_apps(connection: &Connection) -> Result<Vec<ManagedApp>, StoreError> {
    let mut statement = connection.prepare_cached(
        "SELECT app, status, COUNT(*) FROM cos_tasks WHERE app IS NOT NULL
         GROUP BY app, status ORDER BY app",
    )?;
    let rows = statement.query_map([], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, i64>(2)?,
        ))
    })?;
    let mut apps: Vec<ManagedApp> = Vec::new();
    for row in rows {
        let (app, status, count) = row?;
        let count = u64::try_from(count).unwrap_or(0);
        let Some(status) = TaskStatus::parse(&status) else {
            continue;
        };
        match apps.last_mut() {
            Some(last) if last.app == app => {
                last.total_tasks += count;
                last.tasks_by_status.insert(status, count);
            }
            _ => apps.push(ManagedApp {
                app,
                total_tasks: count,
                tasks_by_status: BTreeMap::from([(status, count)]),
            }),
        }
    }
    Ok(apps)
}

fn store_task(connection: &Connection, task: &Task) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE cos_tasks SET description = ?2, app = ?3, status = ?4, priority = ?5,
                updated_at = ?6
         WHERE id = ?1",
        params![
            task.id,
            task.description,
            task.app,
            task.status.as_str(),
            task.priority.as_str(),
            task.updated_at
        ],
    )?;
    Ok(())
}

/// `{ field: { from, to } }` for each field that differs.
fn changed_fields(before: &Task, after: &Task) -> Value {
    let mut changes = serde_json::Map::new();
    let mut compare = |name: &str, from: Value, to: Value| {
        if from != to {
            changes.insert(name.to_owned(), json!({ "from": from, "to": to }));
        }
    };
    compare(
        "description",
        json!(before.description),
        json!(after.description),
    );
    compare("app", json!(before.app), json!(after.app));
    compare("status", json!(before.status), json!(after.status));
    compare("priority", json!(before.priority), json!(after.priority));
    Value::Object(changes)
}

fn action(kind: ActionType, origin: &Origin, summary: String, task: &Task) -> NewAction {
    NewAction::new(kind, origin.actor, summary)
        .target(task.id.clone(), Some(task.description.clone()))
        .source(origin.source.clone())
        .subject(origin.subject.as_deref())
}
