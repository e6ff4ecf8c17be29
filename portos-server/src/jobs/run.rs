//! A job's runner: waits for a confirmation when the job is parked, runs
//! the adapter with the job's cancellation signal, writes its progress
//! reports in order, and records the verdict.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use portos_core::{
    CallChannel, PreparedCall, PreparedRun, Progress, ProgressSink, ToolResult, ToolState,
};
use tokio::sync::{mpsc, oneshot};
use tracing::Instrument;

use super::sql::{Change, JobRow};
use super::{JobState, Jobs, Running, now_ms, retention_ms};

/// Sends an adapter's reports to the job's writer (never blocks the adapter).
struct ProgressReports(mpsc::UnboundedSender<Progress>);

impl ProgressSink for ProgressReports {
    fn report(&self, progress: Progress) {
        let _ = self.0.send(progress);
    }
}

impl Jobs {
    /// Keeps the result of a write that finished after its job was
    /// cancelled (the state stays `cancelled`).
    async fn record_late_result(
        &self,
        job_id: &str,
        result: &ToolResult,
    ) -> Result<(), crate::store::StoreError> {
        let id = job_id.to_owned();
        let outcome = outcome(result);
        self.0
            .store
            .run(move |connection| super::sql::keep_late_outcome(connection, &id, outcome))
            .await
    }

    /// Starts the runner of a job whose record is committed.
    pub(super) fn launch(&self, prepared: PreparedCall, row: &JobRow) {
        let cancel = self.0.registry.shutdown_token().child_token();
        let cancel_requested = Arc::new(AtomicBool::new(false));
        let parked = row.state == JobState::InputRequired
            && row
                .input_request
                .as_ref()
                .is_some_and(super::InputRequest::is_confirmation);
        let (confirm, confirmed) = if parked {
            let (sender, receiver) = oneshot::channel();
            (Some(sender), Some(receiver))
        } else {
            (None, None)
        };
        self.lock_running().insert(
            row.job_id.clone(),
            Running {
                cancel: cancel.clone(),
                cancel_requested: cancel_requested.clone(),
                confirm,
                waiting: super::asking::Waiting::with_answers(
                    row.asking
                        .as_ref()
                        .map(|asking| asking.answers.clone())
                        .unwrap_or_default(),
                ),
            },
        );
        // The adapter may ask a caller that can answer (one that follows
        // the job as a task).
        let input = row.asking.as_ref().map(|asking| {
            Arc::new(super::asking::JobInput {
                jobs: self.clone(),
                job_id: row.job_id.clone(),
                kinds: asking.kinds.clone(),
            }) as Arc<dyn portos_core::InputSource>
        });
        let jobs = self.clone();
        let job_id = row.job_id.clone();
        let request_id: Arc<str> = Arc::from(row.request_id.as_str());
        let span = job_span(row);
        tokio::spawn(async move {
            if let Some(confirmed) = confirmed {
                let approved = tokio::select! {
                    answer = confirmed => answer.unwrap_or(false),
                    // Shutting down: the job stays parked for the next run.
                    () = cancel.cancelled() => false,
                };
                if !approved {
                    jobs.lock_running().remove(&job_id);
                    return;
                }
            }
            let read = prepared_is_read(&jobs, &prepared);
            let (sender, receiver) = mpsc::unbounded_channel();
            let (run_ended, ended) = oneshot::channel();
            let writer = tokio::spawn(write_progress(
                jobs.clone(),
                job_id.clone(),
                receiver,
                ended,
            ));
            let channel = CallChannel {
                progress: Some(Arc::new(ProgressReports(sender))),
                log: None,
                input,
            };
            let run = jobs
                .0
                .registry
                .run_prepared(prepared, request_id, cancel.clone(), channel);
            let ran = if read {
                // A read loses nothing by being dropped: stop it at once.
                tokio::select! {
                    ran = run => Some(ran),
                    () = cancel.cancelled() => None,
                }
            } else {
                Some(run.await)
            };
            let crashed = ran.as_ref().is_some_and(|ran| ran.crashed);
            let result = ran.map(|ran: PreparedRun| ran.result);
            // The adapter is done: what it reported last and the writer has
            // not written yet goes into the job's end, one commit for both.
            let _ = run_ended.send(());
            let last_report = writer.await.ok().flatten();
            jobs.lock_running().remove(&job_id);
            if cancel_requested.load(Ordering::SeqCst) {
                // Already `cancelled` (and announced): keep what a write
                // produced anyway, without changing the state.
                if let Some(result) = result.filter(ToolResult::is_completed)
                    && let Err(error) = jobs.record_late_result(&job_id, &result).await
                {
                    tracing::error!(%job_id, %error, "a cancelled job's result could not be kept");
                }
                return;
            }
            // Kept if a cancel wins the race to the record.
            let late = result
                .as_ref()
                .filter(|result| result.is_completed())
                .cloned();
            let Some(mut change) = verdict(result, cancel.is_cancelled(), crashed) else {
                // The server is stopping mid-run: the record stays `working`
                // and the next start settles it.
                return;
            };
            change.progress = last_report;
            let kind = match change.state {
                Some(JobState::Completed) => "completed",
                _ => "failed",
            };
            match jobs.apply(&job_id, change, kind).await {
                Ok(Some(_)) => {}
                // Cancelled just before: keep what the work produced.
                Ok(None) => {
                    if let Some(result) = late
                        && let Err(error) = jobs.record_late_result(&job_id, &result).await
                    {
                        tracing::error!(%job_id, %error, "a cancelled job's result could not be kept");
                    }
                }
                Err(error) => {
                    tracing::error!(%job_id, %error, "a job's result could not be recorded");
                }
            }
        }.instrument(span));
    }
}

fn prepared_is_read(jobs: &Jobs, prepared: &PreparedCall) -> bool {
    jobs.0
        .registry
        .resolve(prepared.name())
        .is_some_and(|tool| tool.policy.side_effect.is_read())
}

/// What the run's end means for the record; `None` leaves it as it is. An
/// adapter that `crashed` (panicked) gave no answer of its tool's: the job
/// failed by the server's fault.
fn verdict(result: Option<ToolResult>, signalled: bool, crashed: bool) -> Option<Change> {
    let result = result?;
    if result.state == ToolState::Completed {
        return Some(finished(JobState::Completed, &result, None));
    }
    if signalled {
        // Failed because the server is stopping: settled at the next start.
        return None;
    }
    let mut change = finished(JobState::Failed, &result, result.error.clone());
    if crashed {
        change.fault = Some("The tool's adapter crashed while the job ran".to_owned());
    }
    Some(change)
}

fn finished(state: JobState, result: &ToolResult, message: Option<String>) -> Change {
    Change {
        state: Some(state),
        status_message: Some(message),
        // Whatever it asked is moot now.
        input_request: Some(None),
        outcome: Some(outcome(result)),
        expires_at_ms: Some(now_ms().saturating_add(retention_ms())),
        ..Change::default()
    }
}

/// The envelope's `state`, `result` (as JSON text) and `error`.
pub(super) fn outcome(result: &ToolResult) -> (ToolState, Option<String>, Option<String>) {
    let output = result
        .result
        .as_ref()
        .and_then(|output| serde_json::to_string(output.as_ref()).ok());
    (result.state, output, result.error.clone())
}

/// Writes a job's progress reports in order; a burst is written as its
/// last report (each write is a durable commit). Once the run has ended it
/// stops and hands back the report it had not written yet, which the job's
/// end records in its own commit (a quick job's last "Done" costs no commit
/// of its own).
async fn write_progress(
    jobs: Jobs,
    job_id: String,
    mut reports: mpsc::UnboundedReceiver<Progress>,
    mut run_ended: oneshot::Receiver<()>,
) -> Option<Progress> {
    loop {
        let mut progress = tokio::select! {
            // The run's end first: a report queued with it is folded.
            biased;
            _ = &mut run_ended => {
                let mut last = None;
                while let Ok(newer) = reports.try_recv() {
                    last = Some(newer);
                }
                return last;
            }
            report = reports.recv() => report?,
        };
        while let Ok(newer) = reports.try_recv() {
            progress = newer;
        }
        let change = Change {
            progress: Some(progress),
            ..Change::default()
        };
        if let Err(error) = jobs.apply(&job_id, change, "progress").await {
            tracing::warn!(%job_id, %error, "a job's progress could not be recorded");
        }
    }
}

/// A job's run as a span of its own trace (it may run long after the call
/// that started it, or after a restart), linked to that call's span when
/// this process saw it.
fn job_span(row: &JobRow) -> tracing::Span {
    let span = tracing::info_span!(
        target: portos_core::telemetry::SPAN_TARGET,
        parent: None,
        "job",
        otel.name = tracing::field::Empty,
        otel.kind = "internal",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %row.tool,
        gen_ai.tool.call.id = %row.request_id,
        tool.job.id = %row.job_id,
    );
    if !span.is_disabled() {
        span.record("otel.name", format!("job {}", row.tool));
        if let Some(caller) = crate::telemetry::traces::context_of(&tracing::Span::current()) {
            crate::telemetry::traces::link(&span, caller);
        }
    }
    span
}
