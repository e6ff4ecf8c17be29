//! `cos.create-task`: check the request against what is stored now, then
//! queue the task under its derived id (a replay finds it again).

use portos_core::{AdapterError, Shared, ToolContext, portos_tool};
use portos_server::clock::UserClock;
use portos_server::store::{Store, StoreError};
use schemars::JsonSchema;
use serde::Serialize;

use super::checks::{self, Situation};
use super::input::CreateTaskArgs;
use crate::domains::apps::{self, RemoteCache, ResolvedApp};
use crate::domains::cos::{self, NewTask, Origin, TaskDispatch};
use crate::domains::mind::turn::wake::Wakes;
use crate::ledger::Source;

/// Whether the task is in the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RequestState {
    Queued,
    Failed,
}

/// What became of the request.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaskRequest {
    pub ok: bool,
    /// `sys-mind-…`; null when nothing was queued.
    pub task_id: Option<String>,
    pub state: RequestState,
    /// The same request was queued earlier in this wake: that task.
    pub duplicate: bool,
    /// Why nothing was queued (at most 300 characters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl TaskRequest {
    fn refused(error: String) -> TaskRequest {
        TaskRequest {
            ok: false,
            task_id: None,
            state: RequestState::Failed,
            duplicate: false,
            error: Some(error),
        }
    }
}

/// Queue a coding task on a managed app for an enabled CLI/TUI coding
/// provider. The grant, app, provider, model, effort and tracker are
/// checked again when the call runs; the same request in the same wake
/// returns the task it queued.
#[portos_tool(
    name = "cos.create-task",
    scopes = ["mind"],
    capabilities = ["createTasks"],
    side_effect = "supervised-write",
    idempotent,
    async,
    confirmation = "capability-grant",
)]
pub async fn create_task(
    ctx: &ToolContext,
    args: CreateTaskArgs,
    store: Shared<Store>,
    remotes: Shared<RemoteCache>,
    wakes: Shared<Wakes>,
    clock: Shared<UserClock>,
) -> Result<TaskRequest, AdapterError> {
    // Read now, not when the turn began: a grant revoked while the model
    // was thinking stops the task.
    let (settings, providers) = store
        .run(|connection| {
            let settings = crate::domains::mind::live_settings(connection)?;
            Ok((settings, cos::stored_providers(connection)?))
        })
        .await?;
    let app = if settings.create_tasks {
        roster_app(&store, &remotes, &args.app_id).await?
    } else {
        None
    };
    let situation = Situation {
        settings: &settings,
        app: app.as_ref(),
        providers: &providers,
    };
    if let Some(refusal) = checks::refusal(&args, &situation) {
        return Ok(TaskRequest::refused(refusal));
    }

    // Outside a turn (a test, a future caller) the call itself is the wake.
    let wake_id = wakes
        .turn_of(ctx.request_id())
        .unwrap_or_else(|| ctx.request_id().to_owned());
    let normalized = serde_json::to_value(&args)?;
    let id = super::task_id(&wake_id, &normalized);
    let now = clock.now();
    let new = NewTask {
        description: args.description,
        app: Some(args.app_id),
        priority: Some(args.priority),
        status: None,
    };
    let dispatch = TaskDispatch {
        prompt: args.prompt,
        provider_id: args.provider_id,
        model: args.model,
        effort: args.effort,
        plan_only: args.plan_only,
        pr_completion: args.pr_completion,
        required_validation: args.required_validation,
        wake_id,
    };
    let origin = Origin {
        actor: crate::shared::actor_of(ctx.authority().scope),
        source: Source::default(),
        subject: ctx.authority().subject.as_deref().map(str::to_owned),
    };
    let queued = store
        .run(move |connection| {
            cos::queue_dispatched_task(connection, &id, &new, &dispatch, &now, &origin)
        })
        .await?;
    Ok(TaskRequest {
        ok: true,
        task_id: Some(queued.task.id),
        state: RequestState::Queued,
        duplicate: queued.duplicate,
        error: None,
    })
}

/// The app when it is in the Mind's roster (active, with a repository,
/// among the first 50 runnable apps), with its tracker resolved.
async fn roster_app(
    store: &Store,
    cache: &RemoteCache,
    app_id: &str,
) -> Result<Option<ResolvedApp>, StoreError> {
    let roster = apps::runnable(store).await?;
    Ok(match roster.into_iter().find(|app| app.id == app_id) {
        Some(app) => Some(apps::resolve_app(cache, app).await),
        None => None,
    })
}
