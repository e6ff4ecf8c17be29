//! Jobs across restarts, on a real store in a temporary directory, with
//! tools written by hand (so no other test's registry links them).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use portos_core::__private::v1::{
    ArgumentError, BoundCall, IntentRule, PolicyDecl, SourceLocation, ToolDescriptor,
};
use portos_core::{Authority, Confirmation, SideEffect, ToolCall};
use serde_json::{Value, json};

use super::sql::{self, Claim, JobRow};
use super::{Job, JobState, Viewer};
use crate::store::Store;
use crate::{App, Config, ServerBuilder};

static COUNT_RUNS: AtomicUsize = AtomicUsize::new(0);
static SEND_RUNS: AtomicUsize = AtomicUsize::new(0);

fn input() -> Value {
    json!({ "type": "object", "properties": { "n": { "type": "integer" } }, "additionalProperties": false })
}

fn output() -> Value {
    json!({ "type": "object" })
}

fn count(arguments: Value) -> Result<BoundCall, ArgumentError> {
    Ok(BoundCall::new(arguments, |_| {
        Box::pin(async {
            let runs = COUNT_RUNS.fetch_add(1, Ordering::SeqCst) + 1;
            portos_core::OutputJson::from_value(
                json!({ "ok": true, "summary": "counted", "runs": runs }),
            )
            .map_err(|error| error.to_string())
        })
    }))
}

fn send(arguments: Value) -> Result<BoundCall, ArgumentError> {
    Ok(BoundCall::new(arguments, |_| {
        Box::pin(async {
            SEND_RUNS.fetch_add(1, Ordering::SeqCst);
            portos_core::OutputJson::from_value(json!({ "ok": true, "summary": "sent" }))
                .map_err(|error| error.to_string())
        })
    }))
}

/// Waits for its cancellation signal, then gives up.
fn wait(arguments: Value) -> Result<BoundCall, ArgumentError> {
    Ok(BoundCall::new(arguments, |ctx| {
        Box::pin(async move {
            ctx.cancellation().cancelled().await;
            Err("stopped".to_owned())
        })
    }))
}

const fn descriptor(
    name: &'static str,
    side_effect: SideEffect,
    idempotent: bool,
    bind: fn(Value) -> Result<BoundCall, ArgumentError>,
) -> ToolDescriptor {
    ToolDescriptor {
        name,
        version: 1,
        not_strict: None,
        content_output: || false,
        requires_client: &[],
        requires_tasks: false,
        ask_first: None,
        description: "A job for the tests.",
        provider_name: name,
        aliases: &[],
        policy: PolicyDecl {
            scopes: &["ui"],
            capabilities: &[],
            side_effect,
            idempotent,
            is_async: false,
            long_running: true,
            confirmation: Confirmation::None,
            open_world: false,
            unguarded: if matches!(side_effect, SideEffect::Read) {
                None
            } else {
                Some("the tests' jobs change nothing kept")
            },
        },
        intent: IntentRule {
            group: None,
            suppress_on_form_fill: false,
        },
        input_schema: input,
        output_schema: output,
        bind,
        state: &[],
        location: SourceLocation {
            file: file!(),
            line: line!(),
            column: column!(),
        },
    }
}

static COUNT: ToolDescriptor = descriptor("jobs_test_count", SideEffect::Write, true, count);
static SEND: ToolDescriptor = descriptor("jobs_test_send", SideEffect::Write, false, send);
static WAIT: ToolDescriptor = descriptor("jobs_test_wait", SideEffect::Read, true, wait);

/// A server over `store` (each call is a new start of the same data).
fn start(store: &Store) -> App {
    ServerBuilder::new("Test", "0.0.0", Config::default())
        .configure_registry(|registry| registry.descriptors([&COUNT, &SEND, &WAIT]))
        .with_store(store.clone())
        .build()
        .expect("built")
}

fn call(request_id: &str, name: &str, n: i64) -> ToolCall {
    ToolCall::parse(&json!({ "requestId": request_id, "name": name, "arguments": { "n": n } }))
        .expect("a valid call")
}

const PERSON: Viewer = Viewer::Person {
    authenticated: true,
};

async fn final_job(app: &App, job_id: &str) -> Job {
    tokio::time::timeout(Duration::from_secs(10), app.jobs.wait_final(PERSON, job_id))
        .await
        .expect("the job ends")
        .expect("the job is there")
}

/// What a run that died mid-job leaves: a `working` row, never finished.
async fn left_working(store: &Store, job_id: &str, tool: &'static str) {
    let now = jiff::Timestamp::now().as_millisecond();
    let fingerprint = portos_core::registry::Fingerprint::of_call(
        tool,
        &json!({ "n": 1 }),
        crate::test_words::UI,
    );
    let row = JobRow {
        job_id: job_id.to_owned(),
        request_id: format!("crashed-{job_id}"),
        principal: "ui".to_owned(),
        authenticated: true,
        tool: tool.to_owned(),
        arguments: json!({ "n": 1 }).to_string(),
        fingerprint: fingerprint.to_hex(),
        state: JobState::Working,
        status_message: None,
        progress: None,
        input_request: None,
        outcome: None,
        output: None,
        error: None,
        created_at_ms: now,
        updated_at_ms: now,
        expires_at_ms: now + 60_000,
        asking: None,
        fault: None,
    };
    let claimed = store
        .run(move |connection| sql::claim(connection, &row, "working", super::cluster::lease(0)))
        .await
        .expect("stored");
    assert!(matches!(claimed, Claim::Inserted(..)));
}

/// The `runs` the counting tool answered.
fn runs_of(job: &Job) -> Option<Value> {
    let envelope = serde_json::to_value(job.result.as_ref()?).ok()?;
    envelope.pointer("/result/runs").cloned()
}

#[tokio::test]
async fn an_interrupted_job_runs_again_only_when_its_tool_is_idempotent() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("test.db"), &[]).expect("store");
    left_working(&store, "job-count", COUNT.name).await;
    left_working(&store, "job-send", SEND.name).await;
    let before = SEND_RUNS.load(Ordering::SeqCst);

    let app = start(&store);
    assert_eq!(app.jobs.recover().await.expect("settled"), 2);

    let counted = final_job(&app, "job-count").await;
    assert_eq!(counted.state, JobState::Completed);
    let (events, ended) = app
        .jobs
        .events_after(PERSON, "job-count", 0)
        .await
        .expect("events");
    assert!(ended, "the job had ended when its events were read");
    let kinds: Vec<&str> = events.iter().map(|event| event.kind).collect();
    assert_eq!(kinds, ["working", "working", "completed"]);
    assert!(
        events[1]
            .data
            .contains("Running again after a server restart"),
        "{}",
        events[1].data
    );

    let sent = final_job(&app, "job-send").await;
    assert_eq!(sent.state, JobState::Failed);
    let error = sent.result.and_then(|result| result.error).expect("why");
    assert!(error.contains("not idempotent"), "{error}");
    assert_eq!(SEND_RUNS.load(Ordering::SeqCst), before, "never run twice");
    // Nothing is left to settle.
    assert_eq!(start(&store).jobs.recover().await.expect("settled"), 0);
}

#[tokio::test]
async fn the_same_request_id_answers_the_same_job_after_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("test.db"), &[]).expect("store");
    let person = Authority::of(crate::test_words::UI).signed_in(true);

    let first = start(&store);
    let job = first
        .jobs
        .submit(person.clone(), call("same-id", COUNT.name, 7))
        .await
        .expect("a job");
    assert!(!job.duplicate);
    let done = final_job(&first, &job.job_id).await;
    let runs = runs_of(&done).expect("runs");
    first.registry.shutdown_token().cancel();

    let second = start(&store);
    let again = second
        .jobs
        .submit(person.clone(), call("same-id", COUNT.name, 7))
        .await
        .expect("the same job");
    assert!(again.duplicate);
    assert_eq!(again.job_id, job.job_id);
    assert_eq!(again.state, JobState::Completed);
    assert_eq!(
        runs_of(&again),
        Some(runs),
        "the retained result, not a new run"
    );

    let conflict = second
        .jobs
        .submit(person, call("same-id", COUNT.name, 8))
        .await
        .expect_err("other arguments");
    let super::JobError::Refused(conflict) = conflict else {
        panic!("a refusal");
    };
    assert_eq!(
        conflict.code,
        portos_core::ErrorCode::ToolIdempotencyConflict
    );
}

#[tokio::test]
async fn a_job_the_shutdown_stopped_is_left_for_the_next_start() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("test.db"), &[]).expect("store");
    let first = start(&store);
    let job = first
        .jobs
        .submit(
            Authority::of(crate::test_words::UI),
            call("waits", WAIT.name, 1),
        )
        .await
        .expect("a job");
    first.registry.shutdown_token().cancel();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let stopped = first.jobs.get(PERSON, &job.job_id).await.expect("there");
    assert_eq!(
        stopped.state,
        JobState::Working,
        "not failed by the shutdown"
    );

    let second = start(&store);
    assert_eq!(second.jobs.recover().await.expect("settled"), 1);
    // Running again; a caller's cancel ends it for good.
    let cancelled = second
        .jobs
        .cancel(PERSON, &job.job_id)
        .await
        .expect("cancelled");
    assert_eq!(cancelled.state, JobState::Cancelled);
    let refused = second
        .jobs
        .cancel(PERSON, &job.job_id)
        .await
        .expect_err("already over");
    let super::JobError::Refused(refused) = refused else {
        panic!("a refusal");
    };
    assert_eq!(refused.code, portos_core::ErrorCode::ToolJobFinished);
}
