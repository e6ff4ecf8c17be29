//! The job tables: one row a job, and its events in order. Every change of
//! a job and the event announcing it are one transaction, so a stream that
//! resumes from the store sees exactly what live followers saw.

use crate::store::changes::{self, Change as Announced};
use crate::store::sql::{Connection, OptionalExtension, Row, params};

use super::Asking;
use super::record::{InputRequest, Job, JobEvent, JobState, POLL_INTERVAL_MS, event_kind};
use crate::store::StoreError;
use portos_core::{OutputJson, Progress, ToolResult, ToolState};

/// A server's hold on the jobs it runs: its name, and until when.
#[derive(Clone, Copy, Debug)]
pub(super) struct Lease<'a> {
    pub runner: &'a str,
    pub until_ms: i64,
}

const COLUMNS: &str = "job_id, request_id, principal, authenticated, tool, arguments, fingerprint,
    state, status_message, progress, input_request, outcome, output, error,
    created_at_ms, updated_at_ms, expires_at_ms, asking, fault";

/// A job row as stored.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct JobRow {
    pub job_id: String,
    pub request_id: String,
    pub principal: String,
    pub authenticated: bool,
    pub tool: String,
    /// The normalized arguments, as JSON text.
    pub arguments: String,
    /// The call's idempotency fingerprint, lowercase hex.
    pub fingerprint: String,
    pub state: JobState,
    pub status_message: Option<String>,
    pub progress: Option<Progress>,
    pub input_request: Option<InputRequest>,
    /// The adapter's verdict, once it ran: the envelope's `state`,
    /// `result` (an object's JSON text) and `error`.
    pub outcome: Option<ToolState>,
    pub output: Option<String>,
    pub error: Option<String>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    pub expires_at_ms: i64,
    /// What the caller can answer, and what it answered: for a job whose
    /// tool may ask its caller (an MCP client that follows it as a task).
    pub asking: Option<Asking>,
    /// Why the server could not finish it (see [`Job::fault`]).
    pub fault: Option<String>,
}

impl JobRow {
    fn read(row: &Row<'_>) -> crate::store::sql::Result<JobRow> {
        let state: String = row.get(7)?;
        let progress: Option<String> = row.get(9)?;
        let input_request: Option<String> = row.get(10)?;
        let outcome: Option<String> = row.get(11)?;
        let asking: Option<String> = row.get(17)?;
        Ok(JobRow {
            job_id: row.get(0)?,
            request_id: row.get(1)?,
            principal: row.get(2)?,
            authenticated: row.get(3)?,
            tool: row.get(4)?,
            arguments: row.get(5)?,
            fingerprint: row.get(6)?,
            // The table's CHECK admits only the five words.
            state: JobState::from_name(&state).unwrap_or(JobState::Failed),
            status_message: row.get(8)?,
            progress: progress.and_then(|text| serde_json::from_str(&text).ok()),
            input_request: input_request.and_then(|text| serde_json::from_str(&text).ok()),
            outcome: outcome.map(|word| {
                if word == "completed" {
                    ToolState::Completed
                } else {
                    ToolState::Failed
                }
            }),
            output: row.get(12)?,
            error: row.get(13)?,
            created_at_ms: row.get(14)?,
            updated_at_ms: row.get(15)?,
            expires_at_ms: row.get(16)?,
            asking: asking.and_then(|text| serde_json::from_str(&text).ok()),
            fault: row.get(18)?,
        })
    }

    /// The job as callers see it.
    pub(super) fn to_job(&self, duplicate: bool) -> Job {
        Job {
            kind: "portos_tool_job",
            job_id: self.job_id.clone(),
            request_id: self.request_id.clone(),
            name: self.tool.clone(),
            principal: self.principal.clone(),
            state: self.state,
            duplicate,
            status_message: self.status_message.clone(),
            progress: self.progress.clone(),
            input_request: self.input_request.clone(),
            created_at: rfc3339(self.created_at_ms),
            updated_at: rfc3339(self.updated_at_ms),
            expires_at: rfc3339(self.expires_at_ms),
            poll_interval_ms: POLL_INTERVAL_MS,
            result: self.result(),
            fault: self.fault.clone(),
            created_at_ms: self.created_at_ms,
            expires_at_ms: self.expires_at_ms,
        }
    }

    /// The result envelope of a final job.
    pub(super) fn result(&self) -> Option<ToolResult> {
        if !self.state.is_final() {
            return None;
        }
        let state = self.outcome.unwrap_or(ToolState::Failed);
        let output = self
            .output
            .as_deref()
            .and_then(|text| serde_json::from_str(text).ok())
            .and_then(|value| OutputJson::from_value(value).ok())
            .map(std::sync::Arc::new);
        Some(ToolResult {
            kind: "portos_tool_result",
            request_id: self.request_id.clone(),
            name: self.tool.clone(),
            version: portos_core::contract::SCHEMA_VERSION,
            state,
            duplicate: false,
            result: output,
            error: self.error.clone(),
        })
    }
}

/// RFC 3339 in UTC with exactly three fractional digits (as JavaScript's
/// `toISOString` writes it), so that two times sort as text.
fn rfc3339(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|at| at.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
        .unwrap_or_default()
}

/// What a call found: its new job, or the one its `requestId` already has.
pub(super) enum Claim {
    Inserted(JobRow, JobEvent),
    Existing(JobRow),
}

/// Inserts `row` unless a job with its `requestId` exists (which is then
/// returned untouched), with the job's first event; drops expired jobs first.
pub(super) fn claim(
    connection: &mut Connection,
    row: &JobRow,
    kind: &'static str,
    lease: Lease<'_>,
) -> Result<Claim, StoreError> {
    let transaction = connection.transaction()?;
    purge_expired(&transaction, row.created_at_ms)?;
    let existing = transaction
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM tool_jobs WHERE request_id = ?1"
        ))?
        .query_row([&row.request_id], JobRow::read)
        .optional()?;
    if let Some(existing) = existing {
        return Ok(Claim::Existing(existing));
    }
    transaction
        .prepare_cached(&format!(
            "INSERT INTO tool_jobs ({COLUMNS}, runner, lease_until_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                     ?18, ?19, ?20, ?21)"
        ))?
        .execute(params![
            row.job_id,
            row.request_id,
            row.principal,
            row.authenticated,
            row.tool,
            row.arguments,
            row.fingerprint,
            row.state.as_str(),
            row.status_message,
            json_text(row.progress.as_ref()),
            json_text(row.input_request.as_ref()),
            row.outcome.map(outcome_word),
            row.output,
            row.error,
            row.created_at_ms,
            row.updated_at_ms,
            row.expires_at_ms,
            json_text(row.asking.as_ref()),
            row.fault,
            lease.runner,
            lease.until_ms,
        ])?;
    let event = append_event(&transaction, row, kind)?;
    transaction.commit()?;
    Ok(Claim::Inserted(row.clone(), event))
}

fn json_text<T: serde::Serialize>(value: Option<&T>) -> Option<String> {
    value.and_then(|value| serde_json::to_string(value).ok())
}

fn outcome_word(state: ToolState) -> &'static str {
    match state {
        ToolState::Completed => "completed",
        ToolState::Failed => "failed",
    }
}

fn append_event(
    connection: &Connection,
    row: &JobRow,
    kind: &'static str,
) -> Result<JobEvent, StoreError> {
    let data = serde_json::to_string(&row.to_job(false))
        .map_err(|error| StoreError::Worker(error.to_string()))?;
    let seq = connection
        .prepare_cached(
            "INSERT INTO tool_job_events (job_id, kind, at_ms, data) VALUES (?1, ?2, ?3, ?4)
             RETURNING seq",
        )?
        .query_row(params![row.job_id, kind, row.updated_at_ms, data], |row| {
            row.get(0)
        })?;
    // The other servers on the database hear it once it commits.
    changes::announce(connection, &Announced::Job(seq))?;
    Ok(JobEvent {
        seq,
        job_id: row.job_id.clone(),
        kind,
        data,
        is_final: row.state.is_final(),
    })
}

const PROGRESS: &str = "progress";

/// A change to a job that is not final yet.
#[derive(Debug, Default)]
pub(super) struct Change {
    pub state: Option<JobState>,
    /// `Some(None)` clears it.
    pub status_message: Option<Option<String>>,
    pub progress: Option<Progress>,
    pub input_request: Option<Option<InputRequest>>,
    /// The adapter's verdict: `state`, `result` JSON text, `error`.
    pub outcome: Option<(ToolState, Option<String>, Option<String>)>,
    pub expires_at_ms: Option<i64>,
    pub asking: Option<Asking>,
    pub fault: Option<String>,
}

/// Applies `change` and records the event, unless the job is gone or
/// already final (then `None`: a final job never changes again). A change
/// of another kind that carries progress (the run's last report, folded
/// into its end) records the `progress` event first, in the same commit.
pub(super) fn apply(
    connection: &mut Connection,
    job_id: &str,
    change: Change,
    kind: &'static str,
    now_ms: i64,
) -> Result<Option<(JobRow, Vec<JobEvent>)>, StoreError> {
    apply_with(connection, job_id, now_ms, |_| Some((change, kind)))
}

/// [`apply`] of the change `decide` makes of the job as it stands, read
/// with the row locked (`None`: nothing changes, nothing is recorded).
pub(super) fn apply_with(
    connection: &mut Connection,
    job_id: &str,
    now_ms: i64,
    decide: impl FnOnce(&JobRow) -> Option<(Change, &'static str)>,
) -> Result<Option<(JobRow, Vec<JobEvent>)>, StoreError> {
    let transaction = connection.transaction()?;
    // The row is locked before it is read: on PostgreSQL another server's
    // change (a cancel, a runner's report) commits before or after this
    // one, never in between its read and its write.
    transaction.execute(
        "UPDATE tool_jobs SET job_id = job_id WHERE job_id = ?1",
        [job_id],
    )?;
    let Some(mut row) = get(&transaction, job_id)? else {
        return Ok(None);
    };
    if row.state.is_final() {
        return Ok(None);
    }
    let Some((change, kind)) = decide(&row) else {
        return Ok(None);
    };
    row.updated_at_ms = now_ms;
    let mut events = Vec::with_capacity(2);
    if let Some(progress) = change.progress {
        row.progress = Some(progress);
        if kind != PROGRESS {
            // As the job stood when it reported, before the rest changes.
            events.push(append_event(&transaction, &row, PROGRESS)?);
        }
    }
    if let Some(state) = change.state {
        row.state = state;
    }
    if let Some(message) = change.status_message {
        row.status_message = message;
    }
    if let Some(request) = change.input_request {
        row.input_request = request;
    }
    if let Some((state, output, error)) = change.outcome {
        row.outcome = Some(state);
        row.output = output;
        row.error = error;
    }
    if let Some(expires_at_ms) = change.expires_at_ms {
        row.expires_at_ms = expires_at_ms;
    }
    if let Some(asking) = change.asking {
        row.asking = Some(asking);
    }
    if let Some(fault) = change.fault {
        row.fault = Some(fault);
    }
    transaction
        .prepare_cached(
            "UPDATE tool_jobs SET state = ?2, status_message = ?3, progress = ?4, input_request = ?5,
             outcome = ?6, output = ?7, error = ?8, updated_at_ms = ?9, expires_at_ms = ?10,
             asking = ?11, fault = ?12
         WHERE job_id = ?1",
        )?
        .execute(params![
            row.job_id,
            row.state.as_str(),
            row.status_message,
            json_text(row.progress.as_ref()),
            json_text(row.input_request.as_ref()),
            row.outcome.map(outcome_word),
            row.output,
            row.error,
            row.updated_at_ms,
            row.expires_at_ms,
            json_text(row.asking.as_ref()),
            row.fault,
        ])?;
    events.push(append_event(&transaction, &row, kind)?);
    transaction.commit()?;
    Ok(Some((row, events)))
}

/// Keeps the outcome of a write that finished after its job was cancelled:
/// the state stays `cancelled`, the envelope carries what the write did.
pub(super) fn keep_late_outcome(
    connection: &Connection,
    job_id: &str,
    (state, output, error): (ToolState, Option<String>, Option<String>),
) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE tool_jobs SET outcome = ?2, output = ?3, error = ?4,
             status_message = 'Cancelled by the caller after its work had finished'
         WHERE job_id = ?1 AND state = 'cancelled'",
        params![job_id, outcome_word(state), output, error],
    )?;
    Ok(())
}

pub(super) fn get(connection: &Connection, job_id: &str) -> Result<Option<JobRow>, StoreError> {
    Ok(connection
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM tool_jobs WHERE job_id = ?1"
        ))?
        .query_row([job_id], JobRow::read)
        .optional()?)
}

/// A page of the jobs of `principal` (all principals for `None`) in
/// `state` (any for `None`), newest first; expired ones are not listed.
pub(super) fn list(
    connection: &Connection,
    principal: Option<&str>,
    state: Option<JobState>,
    offset: usize,
    limit: usize,
    now_ms: i64,
) -> Result<Vec<JobRow>, StoreError> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM tool_jobs
         WHERE (?1 IS NULL OR principal = ?1) AND (?5 IS NULL OR state = ?5)
             AND expires_at_ms > ?2
         ORDER BY created_at_ms DESC, job_id LIMIT ?3 OFFSET ?4"
    ))?;
    let rows = statement.query_map(
        params![
            principal,
            now_ms,
            i64::try_from(limit).unwrap_or(i64::MAX),
            i64::try_from(offset).unwrap_or(i64::MAX),
            state.map(JobState::as_str),
        ],
        JobRow::read,
    )?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Takes over the unfinished jobs whose lease ran out before
/// `expired_before_ms` (their server stopped renewing it): they are
/// `lease`'s now, oldest first, to resume or settle.
pub(super) fn take_over(
    connection: &Connection,
    lease: Lease<'_>,
    expired_before_ms: i64,
) -> Result<Vec<JobRow>, StoreError> {
    let mut statement = connection.prepare_cached(&format!(
        "UPDATE tool_jobs SET runner = ?1, lease_until_ms = ?2
         WHERE state IN ('working', 'input_required') AND lease_until_ms < ?3
         RETURNING {COLUMNS}"
    ))?;
    let mut rows = statement
        .query_map(
            params![lease.runner, lease.until_ms, expired_before_ms],
            JobRow::read,
        )?
        .collect::<Result<Vec<_>, _>>()?;
    rows.sort_by(|a, b| (a.created_at_ms, &a.job_id).cmp(&(b.created_at_ms, &b.job_id)));
    Ok(rows)
}

/// Extends `lease` over every unfinished job its server runs.
pub(super) fn renew_leases(connection: &Connection, lease: Lease<'_>) -> Result<usize, StoreError> {
    Ok(connection
        .prepare_cached(
            "UPDATE tool_jobs SET lease_until_ms = ?2
             WHERE runner = ?1 AND state IN ('working', 'input_required')",
        )?
        .execute(params![lease.runner, lease.until_ms])?)
}

/// The event numbered `seq`, if it is still kept.
pub(super) fn event(connection: &Connection, seq: i64) -> Result<Option<JobEvent>, StoreError> {
    Ok(connection
        .prepare_cached("SELECT seq, kind, data, job_id FROM tool_job_events WHERE seq = ?1")?
        .query_row([seq], |row| {
            let kind = event_kind(&row.get::<_, String>(1)?);
            Ok(JobEvent {
                seq: row.get(0)?,
                job_id: row.get(3)?,
                kind,
                data: row.get(2)?,
                is_final: is_final_kind(kind),
            })
        })
        .optional()?)
}

fn is_final_kind(kind: &str) -> bool {
    matches!(kind, "completed" | "failed" | "cancelled")
}

/// The events of `job_id` after `after` (0: from the first), in order.
pub(super) fn events_after(
    connection: &Connection,
    job_id: &str,
    after: i64,
) -> Result<Vec<JobEvent>, StoreError> {
    let mut statement = connection.prepare_cached(
        "SELECT seq, kind, data FROM tool_job_events WHERE job_id = ?1 AND seq > ?2 ORDER BY seq",
    )?;
    let rows = statement.query_map(params![job_id, after], |row| {
        let kind: String = row.get(1)?;
        let kind = event_kind(&kind);
        Ok(JobEvent {
            seq: row.get(0)?,
            job_id: job_id.to_owned(),
            kind,
            data: row.get(2)?,
            is_final: is_final_kind(kind),
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Forgets final jobs whose time is up (their events go with them).
fn purge_expired(connection: &Connection, now_ms: i64) -> Result<usize, StoreError> {
    Ok(connection
        .prepare_cached(
            "DELETE FROM tool_jobs WHERE expires_at_ms <= ?1
             AND state IN ('completed', 'failed', 'cancelled')",
        )?
        .execute([now_ms])?)
}

/// How many jobs of each tool are in each state (expired ones aside).
pub(super) fn counts(
    connection: &mut Connection,
    now_ms: i64,
) -> Result<Vec<(String, JobState, u64)>, StoreError> {
    let mut statement = connection.prepare_cached(
        "SELECT tool, state, COUNT(*) FROM tool_jobs WHERE expires_at_ms > ?1
         GROUP BY tool, state ORDER BY tool, state",
    )?;
    let rows = statement.query_map(params![now_ms], |row| {
        let state: String = row.get(1)?;
        let count: i64 = row.get(2)?;
        Ok((row.get::<_, String>(0)?, state, count))
    })?;
    let mut counts = Vec::new();
    for row in rows {
        let (tool, state, count) = row?;
        if let Some(state) = JobState::from_name(&state) {
            counts.push((tool, state, u64::try_from(count).unwrap_or(0)));
        }
    }
    Ok(counts)
}
