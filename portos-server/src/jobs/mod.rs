//! Durable jobs: how a `long_running` tool answers. The job record is
//! committed in the store before the caller hears of it; the adapter runs
//! in the background with the job's own cancellation signal and reports
//! progress into the record; its result envelope is kept like any other.
//! The same `requestId` always names the same job, across restarts. A job
//! that a restart interrupted runs again if its tool is idempotent and fails
//! with a message saying so if not: none silently vanishes.
//!
//! Who sees what: the person (the HTTP principal) sees every job, since it
//! is whom a confirmation asks; an agent or an in-process principal sees
//! only its own.

mod asking;
mod cluster;
mod record;
mod run;
mod sql;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use portos_core::{
    Authority, Capabilities, Confirmation, ErrorCode, Registry, Scope, ToolCall, ToolError,
};
use tokio::sync::{broadcast, oneshot};
use tokio_util::sync::CancellationToken;

pub(crate) use asking::Asking;
pub(crate) use cluster::TakeOver;
pub(crate) use record::{InputRequest, Job, JobEvent, JobState};

use crate::events::Events;
use crate::grants::GrantsCache;
use crate::store::{Store, StoreError, detached};
use sql::{Change, Claim, JobRow};

/// How long a final job (and its result) is kept: the retention of every
/// idempotency fingerprint (docs/reference.md#idempotency).
pub(crate) const RETENTION: Duration = Duration::from_secs(24 * 60 * 60);

/// Who asks about a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Viewer {
    /// The person, over HTTP: every job. Unauthenticated (a passwordless
    /// install), they may follow any job and cancel reads only.
    Person { authenticated: bool },
    /// A principal (an agent over MCP): its own jobs only.
    Principal(Scope),
}

impl Viewer {
    fn sees(self, row: &JobRow) -> bool {
        match self {
            Viewer::Person { .. } => true,
            Viewer::Principal(scope) => row.principal == scope.as_str(),
        }
    }
}

/// Why a job operation did not happen.
#[derive(Debug, thiserror::Error)]
pub(crate) enum JobError {
    /// A refusal with the contract's code (nothing changed).
    #[error(transparent)]
    Refused(#[from] ToolError),
    /// The store failed: the server's fault.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn not_found() -> JobError {
    ToolError::new(ErrorCode::ToolJobNotFound, "Tool job not found").into()
}

/// A person changing a job that writes without signing in; `product` is
/// the application's name, if the registry has it.
fn auth_required(product: Option<&str>) -> JobError {
    let session = match product {
        Some(product) => format!("an authenticated {product} session"),
        None => "an authenticated session".to_owned(),
    };
    ToolError::new(
        ErrorCode::ToolAuthRequired,
        format!("Changing a job that writes requires {session}"),
    )
    .into()
}

fn finished(row: &JobRow) -> JobError {
    ToolError::new(
        ErrorCode::ToolJobFinished,
        format!("The job has already ended ({})", row.state.as_str()),
    )
    .into()
}

/// Why a cancelled job ended.
const CANCELLED: &str = "Cancelled by the caller";

/// The status of a job a person confirmed through its caller.
const CONFIRMED_BY_CALLER: &str = "Confirmed by a person through the caller";

/// What a caller brings to a job beside the call.
#[derive(Clone, Debug, Default)]
pub(crate) struct Submission {
    /// It follows the job and can answer its tool's questions: what it can
    /// answer, and what it answered already.
    pub asking: Option<Asking>,
    /// A person at the caller's end confirmed the call already (asked by
    /// the caller's client, [`Jobs::confirmation_question`]): a job that
    /// would wait for a person's confirmation starts at once.
    pub confirmed: bool,
}

/// The durable jobs of one server. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Jobs(Arc<Inner>);

struct Inner {
    registry: Arc<Registry>,
    store: Store,
    grants: GrantsCache,
    events: Events,
    live: broadcast::Sender<Arc<JobEvent>>,
    running: Mutex<HashMap<String, Running>>,
}

/// What the server holds of a job whose runner is alive.
struct Running {
    cancel: CancellationToken,
    /// Set when a caller (not the shutdown) cancelled the job.
    cancel_requested: Arc<AtomicBool>,
    /// Answers a parked job's confirmation.
    confirm: Option<oneshot::Sender<bool>>,
    /// The questions its adapter waits on, and the answers so far.
    waiting: asking::Waiting,
}

impl Running {
    /// A caller cancelled the job (here or on another server): the run is
    /// signalled, and a parked runner ends when its confirmation is dropped.
    fn stop(&mut self) {
        self.cancel_requested.store(true, Ordering::SeqCst);
        self.confirm = None;
        self.waiting.drop_waiters();
        self.cancel.cancel();
    }
}

/// How long a follower of a job (a stream, a waiting call) waits for a live
/// event before it reads the store again: another server may run the job,
/// and an announcement of it may not have reached this one.
pub(crate) const RECHECK_AFTER: Duration = Duration::from_secs(5);

impl std::fmt::Debug for Jobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jobs").finish_non_exhaustive()
    }
}

fn now_ms() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}

fn retention_ms() -> i64 {
    i64::try_from(RETENTION.as_millis()).unwrap_or(i64::MAX)
}

impl Jobs {
    pub(crate) fn new(
        registry: Arc<Registry>,
        store: Store,
        grants: GrantsCache,
        events: Events,
    ) -> Jobs {
        // Followers that fall this far behind re-read the store.
        let (live, _) = broadcast::channel(1024);
        Jobs(Arc::new(Inner {
            registry,
            store,
            grants,
            events,
            live,
            running: Mutex::new(HashMap::new()),
        }))
    }

    /// How many jobs of each tool are in each state, for `/metrics`.
    pub(crate) async fn counts(
        &self,
    ) -> Result<Vec<(String, JobState, u64)>, crate::store::StoreError> {
        let now = now_ms();
        self.0
            .store
            .run(move |connection| sql::counts(connection, now))
            .await
    }

    /// Whether a call of `name` answers with a job.
    pub(crate) fn is_job(&self, name: &str) -> bool {
        self.0.registry.is_long_running(name)
    }

    /// Starts a job for `call` (or answers the job its `requestId` already
    /// names: `duplicate: true`). The refusals are the registry's, in its
    /// order, then `TOOL_IDEMPOTENCY_CONFLICT` for a `requestId` used by a
    /// different call.
    pub(crate) async fn submit(
        &self,
        authority: Authority,
        call: ToolCall,
    ) -> Result<Job, JobError> {
        self.submit_with(authority, call, Submission::default())
            .await
    }

    /// [`Jobs::submit`] with what the caller brings beside the call.
    pub(crate) async fn submit_with(
        &self,
        authority: Authority,
        call: ToolCall,
        submission: Submission,
    ) -> Result<Job, JobError> {
        // A job's record and its runner change together, never the record
        // alone: a caller that hangs up must not leave a job nobody runs.
        let jobs = self.clone();
        // The caller's span goes with it: the job's span links to it.
        let caller = tracing::Span::current();
        detached(portos_core::telemetry::in_span(&caller, async move {
            jobs.submit_here(authority, call, submission).await
        }))
        .await
    }

    async fn submit_here(
        &self,
        authority: Authority,
        call: ToolCall,
        Submission { asking, confirmed }: Submission,
    ) -> Result<Job, JobError> {
        let inner = &self.0;
        let prepared = inner
            .registry
            .prepare(&authority, &call.name, call.arguments)?;
        // A person at the caller's end who confirmed already is the
        // person the job would wait for.
        let confirm =
            needs_confirmation(&inner.registry, prepared.name(), &authority) && !confirmed;
        let now = now_ms();
        let row = JobRow {
            job_id: uuid::Uuid::new_v4().to_string(),
            request_id: call.request_id,
            principal: authority.scope.as_str().to_owned(),
            authenticated: authority.authenticated,
            tool: prepared.name().to_owned(),
            arguments: prepared.arguments().to_string(),
            fingerprint: prepared.fingerprint().to_hex(),
            state: if confirm {
                JobState::InputRequired
            } else {
                JobState::Working
            },
            status_message: confirmed.then(|| CONFIRMED_BY_CALLER.to_owned()),
            progress: None,
            input_request: confirm.then(|| confirmation_request(&inner.registry, &prepared)),
            outcome: None,
            output: None,
            error: None,
            created_at_ms: now,
            updated_at_ms: now,
            expires_at_ms: now.saturating_add(retention_ms()),
            asking: asking.filter(|asking| !asking.kinds.is_empty() || !asking.answers.is_empty()),
            fault: None,
        };
        let kind = row.state.as_str();
        let claim_row = row.clone();
        let claim = inner
            .store
            .run(move |connection| {
                sql::claim(
                    connection,
                    &claim_row,
                    event_kind(kind),
                    cluster::lease(now),
                )
            })
            .await?;
        match claim {
            Claim::Existing(existing) if existing.fingerprint == row.fingerprint => {
                Ok(existing.to_job(true))
            }
            Claim::Existing(_) => Err(ToolError::new(
                ErrorCode::ToolIdempotencyConflict,
                "requestId was already used for a different tool call",
            )
            .into()),
            Claim::Inserted(row, event) => {
                self.publish(event);
                let job = row.to_job(false);
                self.launch(prepared, &row);
                Ok(job)
            }
        }
    }

    /// The job `job_id` as `viewer` may see it.
    pub(crate) async fn get(&self, viewer: Viewer, job_id: &str) -> Result<Job, JobError> {
        Ok(self.visible(viewer, job_id).await?.to_job(false))
    }

    async fn visible(&self, viewer: Viewer, job_id: &str) -> Result<JobRow, JobError> {
        let id = job_id.to_owned();
        let row = self
            .0
            .store
            .run(move |connection| sql::get(connection, &id))
            .await?;
        row.filter(|row| viewer.sees(row)).ok_or_else(not_found)
    }

    /// Cancels a job: it is `cancelled` at once (durably, before this
    /// answers) and its adapter is signalled (`ctx.cancellation()`); a read
    /// is dropped there and then. A write that finishes its work anyway
    /// stays `cancelled`, with the result it produced kept in its envelope,
    /// so nothing it did goes unrecorded. `TOOL_JOB_FINISHED` for a final job.
    pub(crate) async fn cancel(&self, viewer: Viewer, job_id: &str) -> Result<Job, JobError> {
        let (jobs, job_id) = (self.clone(), job_id.to_owned());
        detached(async move { jobs.cancel_here(viewer, &job_id).await }).await
    }

    async fn cancel_here(&self, viewer: Viewer, job_id: &str) -> Result<Job, JobError> {
        let row = self.visible(viewer, job_id).await?;
        if row.state.is_final() {
            return Err(finished(&row));
        }
        let read = self
            .0
            .registry
            .resolve(&row.tool)
            .is_some_and(|tool| tool.policy.side_effect.is_read());
        if viewer
            == (Viewer::Person {
                authenticated: false,
            })
            && !read
        {
            return Err(auth_required(self.0.registry.product()));
        }
        let Some(cancelled) = self
            .apply(&row.job_id, cancelled_change(CANCELLED), "cancelled")
            .await?
        else {
            // It ended in between: say so as for any final job.
            return Err(finished(&self.visible(viewer, job_id).await?));
        };
        if let Some(entry) = self.lock_running().get_mut(&row.job_id) {
            entry.stop();
        }
        Ok(cancelled.to_job(false))
    }

    /// A person's answer to a job parked in `input_required`. Approval
    /// needs the job's principal to hold the tool's capabilities now
    /// (`TOOL_CAPABILITY_DENIED` otherwise, and the job stays parked);
    /// refusal cancels it.
    pub(crate) async fn confirm(
        &self,
        viewer: Viewer,
        job_id: &str,
        approve: bool,
    ) -> Result<Job, JobError> {
        let (jobs, job_id) = (self.clone(), job_id.to_owned());
        detached(async move { jobs.confirm_here(viewer, &job_id, approve).await }).await
    }

    async fn confirm_here(
        &self,
        viewer: Viewer,
        job_id: &str,
        approve: bool,
    ) -> Result<Job, JobError> {
        let row = self.visible(viewer, job_id).await?;
        if viewer
            == (Viewer::Person {
                authenticated: false,
            })
        {
            return Err(auth_required(self.0.registry.product()));
        }
        if row.state.is_final() {
            return Err(finished(&row));
        }
        // A job asking its MCP caller questions waits for that caller's
        // answers, not a person's confirmation.
        let confirming = row
            .input_request
            .as_ref()
            .is_some_and(InputRequest::is_confirmation);
        if row.state != JobState::InputRequired || !confirming {
            return Err(ToolError::new(
                ErrorCode::ToolJobNotAwaitingInput,
                "The job is not waiting for a confirmation",
            )
            .into());
        }
        if approve {
            let required = self
                .0
                .registry
                .resolve(&row.tool)
                .map(|tool| tool.policy.required_capabilities.clone())
                .unwrap_or_default();
            if !self.capabilities_of(&row.principal).has_all(&required) {
                return Err(ToolError::new(
                    ErrorCode::ToolCapabilityDenied,
                    format!(
                        "Tool '{}' is not granted to the {} principal",
                        row.tool, row.principal
                    ),
                )
                .into());
            }
        }
        let sender = self
            .lock_running()
            .get_mut(&row.job_id)
            .and_then(|entry| entry.confirm.take());
        let (change, kind) = if approve {
            (
                Change {
                    state: Some(JobState::Working),
                    status_message: Some(Some("Confirmed".to_owned())),
                    input_request: Some(None),
                    ..Change::default()
                },
                "working",
            )
        } else {
            (cancelled_change("A person refused the call"), "cancelled")
        };
        let updated = self.apply(&row.job_id, change, kind).await?;
        if let Some(sender) = sender {
            let _ = sender.send(approve);
        }
        match updated {
            Some(row) => Ok(row.to_job(false)),
            None => Err(finished(&self.visible(viewer, job_id).await?)),
        }
    }

    /// The job's events after `after` (0: all), for a stream that starts
    /// or resumes, and whether the job had already ended when they were
    /// read (then they are all it will ever have: a stream that resumes
    /// after the final event ends at once); `TOOL_JOB_NOT_FOUND` as for
    /// [`Jobs::get`].
    pub(crate) async fn events_after(
        &self,
        viewer: Viewer,
        job_id: &str,
        after: i64,
    ) -> Result<(Vec<JobEvent>, bool), JobError> {
        // The state is read first: a job's final state and its final event
        // are one transaction, so a final state means every event is stored.
        let row = self.visible(viewer, job_id).await?;
        let ended = row.state.is_final();
        let events = self
            .0
            .store
            .run(move |connection| sql::events_after(connection, &row.job_id, after))
            .await?;
        Ok((events, ended))
    }

    /// A page of the jobs `viewer` sees (in `state`, when given), newest
    /// first: up to `limit` after skipping `offset`, and whether more follow.
    pub(crate) async fn list(
        &self,
        viewer: Viewer,
        state: Option<JobState>,
        offset: usize,
        limit: usize,
    ) -> Result<(Vec<Job>, bool), JobError> {
        let principal = match viewer {
            Viewer::Person { .. } => None,
            Viewer::Principal(scope) => Some(scope.as_str()),
        };
        let mut rows = self
            .0
            .store
            .run(move |connection| {
                sql::list(
                    connection,
                    principal,
                    state,
                    offset,
                    limit.saturating_add(1),
                    now_ms(),
                )
            })
            .await?;
        let more = rows.len() > limit;
        rows.truncate(limit);
        Ok((rows.iter().map(|row| row.to_job(false)).collect(), more))
    }

    /// Every job event from now on (subscribe before reading the stored
    /// ones, so none falls between).
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Arc<JobEvent>> {
        self.0.live.subscribe()
    }

    /// Waits until the job is final and answers it (a caller that cannot
    /// follow a job: an MCP client without the tasks extension).
    pub(crate) async fn wait_final(&self, viewer: Viewer, job_id: &str) -> Result<Job, JobError> {
        let mut live = self.subscribe();
        loop {
            let job = self.get(viewer, job_id).await?;
            if job.state.is_final() {
                return Ok(job);
            }
            loop {
                // Quiet for a while: read the record again.
                let Ok(heard) = tokio::time::timeout(RECHECK_AFTER, live.recv()).await else {
                    break;
                };
                match heard {
                    Ok(event) if event.job_id == job_id && event.is_final => break,
                    Ok(_) => {}
                    // Behind: read the record again.
                    Err(broadcast::error::RecvError::Lagged(_)) => break,
                    Err(broadcast::error::RecvError::Closed) => return Err(not_found()),
                }
            }
        }
    }

    async fn resume(&self, row: JobRow) -> Result<(), StoreError> {
        let inner = &self.0;
        let Some(scope) = Scope::from_name(&row.principal) else {
            return self
                .fail(&row.job_id, "The job's principal is unknown")
                .await;
        };
        // The caller's credential (a remote token's scopes) was checked
        // when the job was submitted; a resumed job runs on the grants.
        let authority = Authority::of(scope)
            .granted(self.capabilities_of(&row.principal))
            .signed_in(row.authenticated);
        let arguments = match serde_json::from_str(&row.arguments) {
            Ok(serde_json::Value::Object(arguments)) => arguments,
            _ => {
                return self
                    .fail(&row.job_id, "The job's stored arguments are unreadable")
                    .await;
            }
        };
        let prepared = match inner.registry.prepare(&authority, &row.tool, arguments) {
            Ok(prepared) => prepared,
            Err(refusal) => {
                let message = format!(
                    "The job could not resume after a restart: {}",
                    refusal.message
                );
                return self.fail(&row.job_id, &message).await;
            }
        };
        // A tool's questions are asked again by its run (answered at once
        // when the caller had answered them); only a person's confirmation
        // parks a job across a restart.
        let parked = row
            .input_request
            .as_ref()
            .is_some_and(InputRequest::is_confirmation);
        if !parked {
            let idempotent = inner
                .registry
                .resolve(&row.tool)
                .is_some_and(|tool| tool.policy.idempotent);
            if !idempotent {
                return self
                    .fail(
                        &row.job_id,
                        "The server stopped while the job ran; it was not run again because the tool is not idempotent",
                    )
                    .await;
            }
            let change = Change {
                status_message: Some(Some("Running again after a server restart".to_owned())),
                ..Change::default()
            };
            let _ = self.apply(&row.job_id, change, "working").await?;
        }
        self.launch(prepared, &row);
        Ok(())
    }

    /// Ends a job the server could not finish (a fault, not its tool's
    /// answer).
    async fn fail(&self, job_id: &str, message: &str) -> Result<(), StoreError> {
        let mut change = ended_without_result(JobState::Failed, message);
        change.fault = Some(message.to_owned());
        self.apply(job_id, change, "failed").await.map(|_| ())
    }

    /// Applies a change, then tells live followers and Socket.IO.
    async fn apply(
        &self,
        job_id: &str,
        change: Change,
        kind: &'static str,
    ) -> Result<Option<JobRow>, StoreError> {
        let id = job_id.to_owned();
        let applied = self
            .0
            .store
            .run(move |connection| sql::apply(connection, &id, change, kind, now_ms()))
            .await?;
        Ok(applied.map(|(row, events)| {
            for event in events {
                self.publish(event);
            }
            row
        }))
    }

    fn publish(&self, event: JobEvent) {
        self.0
            .events
            .job_changed(&event.job_id, event.kind, event.seq);
        // Nobody following is not an error.
        let _ = self.0.live.send(Arc::new(event));
    }

    fn lock_running(&self) -> std::sync::MutexGuard<'_, HashMap<String, Running>> {
        self.0
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The grants `principal` holds now.
    fn capabilities_of(&self, principal: &str) -> Capabilities {
        Scope::from_name(principal).map_or(Capabilities::NONE, |scope| {
            self.0.grants.current().of(scope)
        })
    }
}

impl Jobs {
    /// The question a caller's person answers for a call that would wait
    /// for a confirmation (`None` when it would not): the same words the
    /// parked job shows.
    pub(crate) fn confirmation_question(
        &self,
        prepared: &portos_core::PreparedCall,
    ) -> Option<String> {
        let registry = &self.0.registry;
        needs_confirmation(registry, prepared.name(), prepared.authority())
            .then(|| confirmation_request(registry, prepared).message)
    }
}

/// A long-running tool that asks for a capability grant parks for a
/// person's confirmation when a granted principal (an agent, the Mind)
/// calls it; the person's own calls go ahead.
fn needs_confirmation(registry: &Registry, name: &str, authority: &Authority) -> bool {
    authority.scope.holds_grants()
        && registry
            .resolve(name)
            .is_some_and(|tool| tool.policy.confirmation == Confirmation::CapabilityGrant)
}

fn confirmation_request(registry: &Registry, prepared: &portos_core::PreparedCall) -> InputRequest {
    let capabilities: Vec<&str> = registry
        .resolve(prepared.name())
        .map(|tool| {
            tool.policy
                .required_capabilities
                .iter()
                .map(|capability| capability.as_str())
                .collect()
        })
        .unwrap_or_default();
    InputRequest {
        kind: record::CONFIRMATION.to_owned(),
        questions: serde_json::Map::new(),
        message: format!(
            "The {} principal asks to run '{}' with {}; it needs {}. Approve or refuse.",
            prepared.authority().scope,
            prepared.name(),
            prepared.arguments(),
            if capabilities.is_empty() {
                "no capability".to_owned()
            } else {
                capabilities.join(", ")
            }
        ),
    }
}

fn cancelled_change(message: &str) -> Change {
    ended_without_result(JobState::Cancelled, message)
}

/// A job's end that no adapter result made: its final `state`, and a failed
/// envelope saying why.
fn ended_without_result(state: JobState, message: &str) -> Change {
    Change {
        state: Some(state),
        status_message: Some(Some(message.to_owned())),
        input_request: Some(None),
        outcome: Some((
            portos_core::ToolState::Failed,
            None,
            Some(message.to_owned()),
        )),
        expires_at_ms: Some(now_ms().saturating_add(retention_ms())),
        ..Change::default()
    }
}

fn event_kind(state: &str) -> &'static str {
    record::event_kind(state)
}

#[cfg(test)]
mod tests;
