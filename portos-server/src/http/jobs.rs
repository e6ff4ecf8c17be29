//! The durable jobs of long-running tools over HTTP: list them, read one,
//! follow it as Server-Sent Events (resumable with `Last-Event-ID`),
//! cancel it, and answer its confirmation. The caller is the person (the HTTP principal), who sees every
//! job; the contract's error body and codes for every refusal.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::portos_route;
use axum::Extension;
use axum::Json;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::Stream;
use portos_core::ErrorCode;
use portos_core::inventory::RouteIo;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use super::io::schema_of;
use super::{ApiError, Body, Query, RouteErrors, RouteInput, RouteOutput};
use crate::app::App;
use crate::auth::AuthContext;
use crate::jobs::{Job, JobError, JobEvent, JobState, Jobs, RECHECK_AFTER, Viewer};

/// The longest page of the job list, and its length when none is asked.
const LIST_MAX: usize = 100;
const LIST_DEFAULT: usize = 50;

/// Which jobs to list.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct JobsQuery {
    /// Only jobs in this state (`input_required`: the ones waiting for a
    /// person's confirmation).
    state: Option<JobState>,
    /// 1 to 100 (default 50).
    #[schemars(range(min = 1, max = 100))]
    limit: Option<usize>,
    /// Jobs to skip, newest first (default 0).
    offset: Option<usize>,
}

/// A page of jobs, newest first.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct JobPage {
    jobs: Vec<Job>,
    limit: usize,
    offset: usize,
    /// Whether more jobs follow this page.
    has_more: bool,
}

/// Every job the person may see (every principal's), newest first, until
/// a day after it ended; `state=input_required` lists the calls waiting for
/// the person's confirmation.
#[portos_route(method = "GET", mount = "tools", path = "/jobs", summary = "Tool jobs")]
async fn jobs(
    State(app): State<App>,
    Extension(auth): Extension<AuthContext>,
    Query(query): Query<JobsQuery>,
) -> Result<Json<JobPage>, Refusal<ListCodes>> {
    // The document's range is enforced on the query already; a clamp keeps
    // the store's page bounded whatever happens to it.
    let limit = query.limit.unwrap_or(LIST_DEFAULT).clamp(1, LIST_MAX);
    let offset = query.offset.unwrap_or(0);
    let (jobs, has_more) = app
        .jobs
        .list(person(&auth), query.state, offset, limit)
        .await?;
    Ok(Json(JobPage {
        jobs,
        limit,
        offset,
        has_more,
    }))
}

/// A job as it stands: its state, progress, what it waits for and, once
/// final, its result envelope.
#[portos_route(
    method = "GET",
    mount = "tools",
    path = "/jobs/{jobId}",
    summary = "Tool job"
)]
async fn job(
    State(app): State<App>,
    Extension(auth): Extension<AuthContext>,
    Path(JobId(job_id)): Path<JobId>,
) -> Result<Json<Job>, Refusal<ReadCodes>> {
    Ok(Json(app.jobs.get(person(&auth), &job_id).await?))
}

/// The job's events as Server-Sent Events: each with `id` (resume after it
/// with `Last-Event-ID`), `event` (`working`, `progress`,
/// `input_required`, `completed`, `failed`, `cancelled`) and `data` (the
/// job as it was then). Events already recorded come first; the stream
/// ends after the final one.
#[portos_route(
    method = "GET",
    mount = "tools",
    path = "/jobs/{jobId}/events",
    summary = "Follow a tool job"
)]
async fn job_events(
    State(app): State<App>,
    Extension(auth): Extension<AuthContext>,
    Path(JobId(job_id)): Path<JobId>,
    LastEventId(after): LastEventId,
) -> Result<JobStream, Refusal<ReadCodes>> {
    let viewer = person(&auth);
    // Subscribed before the stored events are read: none falls between.
    let live = app.jobs.subscribe();
    let (stored, already_ended) = app.jobs.events_after(viewer, &job_id, after).await?;
    Ok(JobStream(Follow {
        jobs: app.jobs.clone(),
        viewer,
        job_id,
        last: after,
        // A job that had ended has nothing more to say after what is stored.
        ended: already_ended && stored.is_empty(),
        pending: stored.into(),
        live,
    }))
}

/// Stops the job: it is `cancelled` at once (durably, before this answers)
/// and its adapter is signalled. A read stops there; a write that finishes
/// its work anyway stays `cancelled`, with what it did kept in the job's
/// result envelope. The job as it stands.
#[portos_route(
    method = "POST",
    mount = "tools",
    path = "/jobs/{jobId}/cancel",
    summary = "Cancel a tool job"
)]
async fn cancel(
    State(app): State<App>,
    Extension(auth): Extension<AuthContext>,
    Path(JobId(job_id)): Path<JobId>,
) -> Result<Json<Job>, Refusal<CancelCodes>> {
    Ok(Json(app.jobs.cancel(person(&auth), &job_id).await?))
}

/// The person's answer to a job waiting in `input_required`: approve (the
/// job's principal must still hold the tool's capabilities) or refuse
/// (the job is cancelled). Needs an authenticated session.
#[portos_route(
    method = "POST",
    mount = "tools",
    path = "/jobs/{jobId}/confirm",
    summary = "Confirm a tool job"
)]
async fn confirm(
    State(app): State<App>,
    Extension(auth): Extension<AuthContext>,
    Path(JobId(job_id)): Path<JobId>,
    Body(answer): Body<Confirmation>,
) -> Result<Json<Job>, Refusal<ConfirmCodes>> {
    Ok(Json(
        app.jobs
            .confirm(person(&auth), &job_id, answer.approve)
            .await?,
    ))
}

fn person(auth: &AuthContext) -> Viewer {
    Viewer::Person {
        authenticated: auth.authenticated,
    }
}

/// The job's id, as a call's answer gave it.
#[derive(Deserialize, JsonSchema)]
#[serde(transparent)]
struct JobId(#[schemars(length(min = 1, max = 64))] String);

/// The answer to a confirmation.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Confirmation {
    /// `true` runs the call; `false` refuses it (the job is cancelled).
    approve: bool,
}

/// The `Last-Event-ID` header of a stream that resumes (0 when absent).
struct LastEventId(i64);

impl<S: Send + Sync> FromRequestParts<S> for LastEventId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<LastEventId, ApiError> {
        let Some(value) = parts.headers.get("last-event-id") else {
            return Ok(LastEventId(0));
        };
        value
            .to_str()
            .ok()
            .and_then(|text| text.trim().parse::<i64>().ok())
            .filter(|seq| *seq >= 0)
            .map(LastEventId)
            .ok_or_else(|| {
                ApiError::new(
                    axum::http::StatusCode::BAD_REQUEST,
                    ErrorCode::ValidationError.as_str(),
                    "Last-Event-ID must be an event id this stream sent (a non-negative integer)",
                )
            })
    }
}

impl RouteInput for LastEventId {
    fn describe(io: &mut RouteIo) {
        io.error(400, ErrorCode::ValidationError.as_str());
    }
}

/// Following one job: the stored events not sent yet, then live ones.
struct Follow {
    jobs: Jobs,
    viewer: Viewer,
    job_id: String,
    /// The last event sent (or the client's `Last-Event-ID`).
    last: i64,
    pending: VecDeque<JobEvent>,
    live: broadcast::Receiver<Arc<JobEvent>>,
    ended: bool,
}

impl Follow {
    /// The next event to send, or `None` when the stream is over.
    async fn next(&mut self) -> Option<JobEvent> {
        if self.ended {
            return None;
        }
        loop {
            if let Some(event) = self.pending.pop_front() {
                if event.seq <= self.last {
                    continue;
                }
                self.last = event.seq;
                self.ended = event.is_final;
                return Some(event);
            }
            let heard = match tokio::time::timeout(RECHECK_AFTER, self.live.recv()).await {
                Ok(heard) => heard,
                // Quiet for a while: the store has every event.
                Err(_) => Err(broadcast::error::RecvError::Lagged(0)),
            };
            match heard {
                Ok(event) if event.job_id == self.job_id => {
                    self.pending.push_back(JobEvent::clone(&event));
                }
                Ok(_) => {}
                // Fell behind the live feed: the store has every event.
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    match self
                        .jobs
                        .events_after(self.viewer, &self.job_id, self.last)
                        .await
                    {
                        Ok((events, _)) => self.pending.extend(events),
                        Err(_) => return None,
                    }
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}

/// The event stream's answer.
struct JobStream(Follow);

impl JobStream {
    fn events(self) -> impl Stream<Item = Result<Event, Infallible>> {
        futures::stream::unfold(self.0, |mut follow| async move {
            let event = follow.next().await?;
            let sse = Event::default()
                .id(event.seq.to_string())
                .event(event.kind)
                .data(event.data);
            Some((Ok(sse), follow))
        })
    }
}

impl IntoResponse for JobStream {
    fn into_response(self) -> Response {
        Sse::new(self.events())
            .keep_alive(KeepAlive::default())
            .into_response()
    }
}

/// The event stream's text, as the document describes it.
#[derive(JsonSchema)]
#[schemars(
    description = "Server-Sent Events: `id` (the event's sequence), `event` (its kind) and `data` (the job as JSON, a `Job`)"
)]
#[allow(dead_code)]
struct EventStreamText(String);

impl RouteOutput for JobStream {
    fn describe(io: &mut RouteIo) {
        io.response = Some(schema_of::<EventStreamText>());
        io.response_media_type = Some("text/event-stream");
        io.success_status = 200;
    }
}

/// The codes a family of job routes answers.
trait Codes {
    const CODES: &'static [ErrorCode];
}

struct ListCodes;
impl Codes for ListCodes {
    const CODES: &'static [ErrorCode] = &[];
}

struct ReadCodes;
impl Codes for ReadCodes {
    const CODES: &'static [ErrorCode] = &[ErrorCode::ToolJobNotFound];
}

struct CancelCodes;
impl Codes for CancelCodes {
    const CODES: &'static [ErrorCode] = &[
        ErrorCode::ToolJobNotFound,
        ErrorCode::ToolJobFinished,
        ErrorCode::ToolAuthRequired,
    ];
}

struct ConfirmCodes;
impl Codes for ConfirmCodes {
    const CODES: &'static [ErrorCode] = &[
        ErrorCode::ToolJobNotFound,
        ErrorCode::ToolJobFinished,
        ErrorCode::ToolJobNotAwaitingInput,
        ErrorCode::ToolAuthRequired,
        ErrorCode::ToolCapabilityDenied,
    ];
}

/// A job refusal with the codes its route documents.
struct Refusal<C>(JobError, PhantomData<C>);

impl<C> From<JobError> for Refusal<C> {
    fn from(error: JobError) -> Refusal<C> {
        Refusal(error, PhantomData)
    }
}

impl<C> From<Refusal<C>> for ApiError {
    fn from(Refusal(error, _): Refusal<C>) -> ApiError {
        match error {
            JobError::Refused(error) => ApiError::from(error),
            JobError::Store(error) => ApiError::from(error),
        }
    }
}

impl<C> IntoResponse for Refusal<C> {
    fn into_response(self) -> Response {
        ApiError::from(self).into_response()
    }
}

impl<C: Codes> RouteErrors for Refusal<C> {
    fn describe(io: &mut RouteIo) {
        for code in C::CODES {
            io.error(code.status(), code.as_str());
        }
    }
}
