//! Fingerprints, replays, conflicts, the two bounded stores and
//! `GET /calls/:requestId` (docs/reference.md#fingerprint,
//! docs/reference.md#idempotency), from the spec.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use portos_core::{
    AdapterError, Authority, Capabilities, ErrorCode, Registry, RegistryLimits, Shared, StateMap,
    ToolCall, ToolError, ToolResult, ToolState, linked, portos_tool,
};
use portos_tests as _;
portos_core::use_vocabulary!(portos_words);
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::Semaphore;

// ---- the tools under test -------------------------------------------------

/// How many times any adapter of this file ran, per registry.
#[derive(Default)]
struct Runs(AtomicU64);

/// Holds `idem.slow` until the test opens it.
struct Gate(Semaphore);

fn count_run(runs: &Runs) -> u64 {
    runs.0.fetch_add(1, Ordering::SeqCst) + 1
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CountArgs {
    label: String,
    #[serde(default = "one")]
    times: u32,
}

fn one() -> u32 {
    1
}

/// Count the runs of this registry (a write).
#[portos_tool(
    name = "idem.count",
    scopes = ["agent", "mind", "ui"],
    capabilities = ["writePortos"],
    side_effect = "write",
)]
async fn idem_count(args: CountArgs, runs: Shared<Runs>) -> Result<Value, AdapterError> {
    let run = count_run(&runs);
    Ok(json!({ "ok": true, "run": run, "label": args.label, "times": args.times }))
}

/// Another write, to reuse a requestId across tools.
#[portos_tool(name = "idem.other", scopes = ["ui"], side_effect = "write", unguarded = "the tests' counter changes nothing kept")]
async fn idem_other(args: CountArgs, runs: Shared<Runs>) -> Result<Value, AdapterError> {
    let run = count_run(&runs);
    Ok(json!({ "ok": true, "run": run, "label": args.label }))
}

/// Counts, then waits at the gate: a call that stays in flight.
#[portos_tool(
    name = "idem.slow",
    scopes = ["ui"],
    side_effect = "write",
    unguarded = "the tests' counter changes nothing kept",
)]
async fn idem_slow(runs: Shared<Runs>, gate: Shared<Gate>) -> Result<Value, AdapterError> {
    let run = count_run(&runs);
    let _open = gate.0.acquire().await?;
    Ok(json!({ "ok": true, "run": run }))
}

/// Counts, then fails outright.
#[portos_tool(name = "idem.fail", scopes = ["ui"], side_effect = "write", unguarded = "the tests' counter changes nothing kept")]
async fn idem_fail(runs: Shared<Runs>) -> Result<Value, AdapterError> {
    let run = count_run(&runs);
    Err(AdapterError::new(format!("run {run} failed")))
}

/// Counts, then reports a failure in its result.
#[portos_tool(name = "idem.report", scopes = ["ui"], side_effect = "write", unguarded = "the tests' counter changes nothing kept")]
async fn idem_report(runs: Shared<Runs>) -> Result<Value, AdapterError> {
    let run = count_run(&runs);
    Ok(json!({ "ok": false, "run": run, "summary": "Nothing to do." }))
}

// ---- helpers ----------------------------------------------------------------

fn registry_with(limits: RegistryLimits) -> std::sync::Arc<Registry> {
    let mut state = StateMap::new();
    state.insert(Runs::default());
    state.insert(Gate(Semaphore::new(0)));
    Registry::builder()
        .limits(limits)
        .state(state)
        .build()
        .expect("the linked tools are valid")
}

fn registry() -> std::sync::Arc<Registry> {
    registry_with(RegistryLimits::default())
}

fn runs(registry: &Registry) -> u64 {
    registry
        .state()
        .get::<Runs>()
        .expect("runs state")
        .0
        .load(Ordering::SeqCst)
}

fn open_gate(registry: &Registry) {
    registry
        .state()
        .get::<Gate>()
        .expect("gate state")
        .0
        .add_permits(1);
}

fn call(request_id: &str, name: &str, arguments: Value) -> ToolCall {
    let mut body = json!({ "requestId": request_id, "name": name });
    body["arguments"] = arguments;
    ToolCall::parse(&body).expect("a valid envelope")
}

fn count(request_id: &str, label: &str) -> ToolCall {
    call(request_id, "idem.count", json!({ "label": label }))
}

fn ui() -> Authority {
    Authority {
        scope: portos_words::UI,
        capabilities: Capabilities::NONE,
        authenticated: true,
        credential: None,
        subject: None,
    }
}

fn writer_mind() -> Authority {
    portos_words::principal::mind(Capabilities::NONE.with(portos_words::WRITE_PORTOS))
}

async fn run(registry: &Registry, authority: Authority, call: ToolCall) -> ToolResult {
    let id = call.request_id.clone();
    match registry.call(&authority, call).await {
        Ok(result) => result,
        Err(error) => panic!("{id} should run, refused: {error:?}"),
    }
}

async fn refuse(registry: &Registry, authority: Authority, call: ToolCall) -> ToolError {
    let id = call.request_id.clone();
    match registry.call(&authority, call).await {
        Ok(result) => panic!("{id} should be refused, ran: {result:?}"),
        Err(error) => error,
    }
}

fn run_number(result: &ToolResult) -> u64 {
    result
        .result
        .as_ref()
        .and_then(|r| r["run"].as_u64())
        .expect("a run number")
}

const CONFLICT: &str = "requestId was already used for a different tool call";
const EXPIRED: &str = "requestId result has expired and cannot be replayed safely";

fn assert_conflict(error: &ToolError) {
    assert_eq!(error.code, ErrorCode::ToolIdempotencyConflict, "{error:?}");
    assert_eq!(error.code.as_str(), "TOOL_IDEMPOTENCY_CONFLICT");
    assert_eq!(error.status(), 409);
    assert_eq!(error.message, CONFLICT);
}

fn assert_expired(error: &ToolError) {
    assert_eq!(error.code, ErrorCode::ToolIdempotencyExpired, "{error:?}");
    assert_eq!(error.code.as_str(), "TOOL_IDEMPOTENCY_EXPIRED");
    assert_eq!(error.status(), 409);
    assert_eq!(error.message, EXPIRED);
}

/// The same envelope apart from the `duplicate` flag.
fn same_apart_from_duplicate(a: &ToolResult, b: &ToolResult) {
    let mut b = b.clone();
    b.duplicate = a.duplicate;
    assert_eq!(*a, b);
}

// ---- replay -----------------------------------------------------------------

#[tokio::test]
async fn a_replay_is_a_duplicate_and_does_not_run_the_adapter_again() {
    let registry = registry();
    let first = run(&registry, ui(), count("r1", "a")).await;
    assert!(!first.duplicate);
    assert_eq!(first.state, ToolState::Completed);
    for _ in 0..3 {
        let replay = run(&registry, ui(), count("r1", "a")).await;
        assert!(replay.duplicate);
        same_apart_from_duplicate(&first, &replay);
    }
    assert_eq!(runs(&registry), 1);
}

#[tokio::test]
async fn a_replay_through_an_alias_is_a_replay() {
    let registry = registry();
    let first = run(&registry, ui(), count("r1", "a")).await;
    let replay = run(
        &registry,
        ui(),
        call("r1", "idem_count", json!({ "label": "a" })),
    )
    .await;
    assert!(replay.duplicate);
    assert_eq!(replay.name, "idem.count");
    same_apart_from_duplicate(&first, &replay);
    assert_eq!(runs(&registry), 1);
}

#[tokio::test]
async fn the_request_id_is_compared_after_trimming() {
    let registry = registry();
    run(&registry, ui(), count("  r1  ", "a")).await;
    let replay = run(&registry, ui(), count("r1", "a")).await;
    assert!(replay.duplicate);
    assert_eq!(replay.request_id, "r1");
    assert_eq!(runs(&registry), 1);
}

#[tokio::test]
async fn the_fingerprint_covers_normalized_arguments() {
    let registry = registry();
    run(&registry, ui(), count("r1", "a")).await;
    // The declared default filled in, and another key order: the same call.
    let explicit = call("r1", "idem.count", json!({ "times": 1, "label": "a" }));
    let replay = run(&registry, ui(), explicit).await;
    assert!(replay.duplicate);
    assert_eq!(runs(&registry), 1);
}

#[tokio::test]
async fn a_request_id_from_another_scope_conflicts() {
    let registry = registry();
    run(&registry, ui(), count("r1", "a")).await;
    assert_conflict(&refuse(&registry, writer_mind(), count("r1", "a")).await);
    let agent = portos_words::principal::agent(Capabilities::NONE.with(portos_words::WRITE_PORTOS));
    assert_conflict(&refuse(&registry, agent, count("r1", "a")).await);
    assert_eq!(runs(&registry), 1);
    // The original caller still gets its replay.
    assert!(run(&registry, ui(), count("r1", "a")).await.duplicate);
}

#[tokio::test]
async fn different_arguments_or_another_tool_conflict() {
    let registry = registry();
    let first = run(&registry, ui(), count("r1", "a")).await;
    assert_conflict(&refuse(&registry, ui(), count("r1", "b")).await);
    assert_conflict(
        &refuse(
            &registry,
            ui(),
            call("r1", "idem.count", json!({ "label": "a", "times": 2 })),
        )
        .await,
    );
    assert_conflict(
        &refuse(
            &registry,
            ui(),
            call("r1", "idem.other", json!({ "label": "a" })),
        )
        .await,
    );
    assert_eq!(runs(&registry), 1);
    let replay = run(&registry, ui(), count("r1", "a")).await;
    same_apart_from_duplicate(&first, &replay);
}

#[tokio::test]
async fn a_conflict_is_also_reported_for_a_mind_replay_of_a_mind_call_with_new_arguments() {
    let registry = registry();
    run(&registry, writer_mind(), count("mind:turn-1:0", "a")).await;
    assert!(
        run(&registry, writer_mind(), count("mind:turn-1:0", "a"))
            .await
            .duplicate
    );
    assert_conflict(&refuse(&registry, writer_mind(), count("mind:turn-1:0", "z")).await);
    assert_eq!(runs(&registry), 1);
}

// ---- concurrency --------------------------------------------------------------

#[tokio::test]
async fn concurrent_duplicates_run_the_adapter_exactly_once() {
    let registry = registry();
    let person = ui();
    let calls: Vec<_> = (0..8)
        .map(|_| registry.call(&person, call("same", "idem.slow", json!({}))))
        .collect();
    let mut all = std::pin::pin!(futures::future::join_all(calls));
    // One poll admits all eight while the adapter is held at the gate.
    assert!(futures::poll!(all.as_mut()).is_pending());
    open_gate(&registry);
    let results: Vec<ToolResult> = all
        .await
        .into_iter()
        .map(|r| r.expect("admitted"))
        .collect();

    assert_eq!(runs(&registry), 1);
    assert_eq!(results.iter().filter(|r| !r.duplicate).count(), 1);
    assert_eq!(results.iter().filter(|r| r.duplicate).count(), 7);
    for result in &results {
        same_apart_from_duplicate(&results[0], result);
        assert_eq!(run_number(result), 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_duplicates_spawned_at_once_run_the_adapter_exactly_once() {
    const CALLERS: usize = 6;
    let registry = registry();
    let start = Arc::new(tokio::sync::Barrier::new(CALLERS + 1));
    let handles: Vec<_> = (0..CALLERS)
        .map(|_| {
            let registry = registry.clone();
            let start = start.clone();
            tokio::spawn(async move {
                start.wait().await;
                registry
                    .call(&ui(), call("spawned", "idem.slow", json!({})))
                    .await
            })
        })
        .collect();
    start.wait().await;
    // Hold the gate until the adapter has started; late callers still find
    // the retained call, so the outcome does not depend on scheduling.
    while runs(&registry) == 0 {
        tokio::task::yield_now().await;
    }
    open_gate(&registry);
    let mut results = Vec::new();
    for handle in handles {
        results.push(handle.await.expect("task finished").expect("admitted"));
    }
    assert_eq!(runs(&registry), 1);
    assert_eq!(results.iter().filter(|r| !r.duplicate).count(), 1);
    assert!(
        results
            .iter()
            .all(|r| run_number(r) == 1 && r.state == ToolState::Completed)
    );
}

// ---- the result store: FIFO eviction ----------------------------------------

fn small(max_results: usize) -> RegistryLimits {
    RegistryLimits {
        max_results,
        ..RegistryLimits::default()
    }
}

#[tokio::test]
async fn an_evicted_result_is_expired_for_the_same_call_and_conflicting_for_another() {
    let registry = registry_with(small(2));
    for id in ["a", "b", "c"] {
        run(&registry, ui(), count(id, id)).await;
    }
    assert_eq!(runs(&registry), 3);
    // "a" was the oldest and left the result store, but its fingerprint stays.
    assert_expired(&refuse(&registry, ui(), count("a", "a")).await);
    assert_conflict(&refuse(&registry, ui(), count("a", "other")).await);
    assert_conflict(&refuse(&registry, writer_mind(), count("a", "a")).await);
    assert_eq!(runs(&registry), 3, "an evicted call is never run again");
    // The two newest are still replayed.
    assert!(run(&registry, ui(), count("b", "b")).await.duplicate);
    assert!(run(&registry, ui(), count("c", "c")).await.duplicate);
    assert_eq!(runs(&registry), 3);
}

#[tokio::test]
async fn eviction_is_first_in_first_out_not_least_recently_used() {
    let registry = registry_with(small(2));
    run(&registry, ui(), count("a", "a")).await;
    run(&registry, ui(), count("b", "b")).await;
    // Replaying "a" does not make it younger.
    assert!(run(&registry, ui(), count("a", "a")).await.duplicate);
    run(&registry, ui(), count("c", "c")).await;
    assert_expired(&refuse(&registry, ui(), count("a", "a")).await);
    assert!(run(&registry, ui(), count("b", "b")).await.duplicate);
    assert_eq!(runs(&registry), 3);
}

#[tokio::test]
async fn the_default_result_store_keeps_500_calls() {
    let registry = registry();
    assert_eq!(registry.limits().max_results, 500);
    assert_eq!(registry.limits().max_tombstones, 10_000);
    assert_eq!(registry.limits().retention, Duration::from_secs(86_400));
    for index in 0..501 {
        run(&registry, ui(), count(&format!("n{index}"), "x")).await;
    }
    assert_expired(&refuse(&registry, ui(), count("n0", "x")).await);
    assert!(run(&registry, ui(), count("n1", "x")).await.duplicate);
    assert_eq!(runs(&registry), 501);
}

// ---- the fingerprint store: retention and cap ---------------------------------

#[tokio::test(start_paused = true)]
async fn a_request_id_is_fresh_again_once_both_stores_forgot_it() {
    let registry = registry_with(small(1));
    run(&registry, ui(), count("old", "a")).await;
    run(&registry, ui(), count("pusher", "b")).await; // evicts "old" from the results
    assert_expired(&refuse(&registry, ui(), count("old", "a")).await);

    tokio::time::advance(Duration::from_secs(24 * 60 * 60 - 1)).await;
    assert_expired(&refuse(&registry, ui(), count("old", "a")).await);
    assert_conflict(&refuse(&registry, ui(), count("old", "changed")).await);
    assert_eq!(runs(&registry), 2);

    tokio::time::advance(Duration::from_secs(2)).await;
    let again = run(&registry, ui(), count("old", "a")).await;
    assert!(!again.duplicate);
    assert_eq!(run_number(&again), 3);
    assert_eq!(runs(&registry), 3);
}

#[tokio::test(start_paused = true)]
async fn after_retention_a_forgotten_request_id_takes_any_call() {
    let registry = registry_with(small(1));
    run(&registry, ui(), count("old", "a")).await;
    run(&registry, ui(), count("pusher", "b")).await;
    tokio::time::advance(Duration::from_secs(24 * 60 * 60 + 1)).await;
    let fresh = run(&registry, writer_mind(), count("old", "something else")).await;
    assert!(!fresh.duplicate);
    assert_eq!(runs(&registry), 3);
}

#[tokio::test(start_paused = true)]
async fn a_retained_result_is_replayed_even_after_the_retention_period() {
    let registry = registry();
    let first = run(&registry, ui(), count("kept", "a")).await;
    tokio::time::advance(Duration::from_secs(25 * 60 * 60)).await;
    let replay = run(&registry, ui(), count("kept", "a")).await;
    assert!(replay.duplicate);
    same_apart_from_duplicate(&first, &replay);
    assert_conflict(&refuse(&registry, ui(), count("kept", "b")).await);
    assert_eq!(runs(&registry), 1);
}

#[tokio::test(start_paused = true)]
async fn retention_is_configurable() {
    let limits = RegistryLimits {
        max_results: 1,
        max_tombstones: 100,
        retention: Duration::from_secs(60),
    };
    let registry = registry_with(limits);
    run(&registry, ui(), count("old", "a")).await;
    run(&registry, ui(), count("pusher", "b")).await;
    assert_expired(&refuse(&registry, ui(), count("old", "a")).await);
    tokio::time::advance(Duration::from_secs(61)).await;
    assert!(!run(&registry, ui(), count("old", "a")).await.duplicate);
}

#[tokio::test]
async fn the_fingerprint_store_is_capped_first_in_first_out() {
    let limits = RegistryLimits {
        max_results: 1,
        max_tombstones: 2,
        ..RegistryLimits::default()
    };
    let registry = registry_with(limits);
    for id in ["a", "b", "c"] {
        run(&registry, ui(), count(id, id)).await;
    }
    // Results hold only "c"; fingerprints hold "b" and "c"; "a" is forgotten.
    assert_expired(&refuse(&registry, ui(), count("b", "b")).await);
    let fresh = run(&registry, ui(), count("a", "a")).await;
    assert!(!fresh.duplicate);
    assert_eq!(runs(&registry), 4);
}

// ---- failed results ------------------------------------------------------------

#[tokio::test]
async fn a_failed_call_is_retained_and_replays_as_failed() {
    let registry = registry();
    let first = run(&registry, ui(), call("f1", "idem.fail", json!({}))).await;
    assert_eq!(first.state, ToolState::Failed);
    assert_eq!(first.error.as_deref(), Some("run 1 failed"));
    let replay = run(&registry, ui(), call("f1", "idem.fail", json!({}))).await;
    assert!(replay.duplicate);
    assert_eq!(replay.state, ToolState::Failed);
    assert_eq!(replay.error.as_deref(), Some("run 1 failed"));
    assert_eq!(runs(&registry), 1, "a failure is not retried by a replay");
    let stored = registry.retained("f1").await.expect("retained");
    assert_eq!(stored.state, ToolState::Failed);
    assert!(!stored.duplicate);
}

#[tokio::test]
async fn a_reported_failure_is_retained_with_its_result() {
    let registry = registry();
    let first = run(&registry, ui(), call("f2", "idem.report", json!({}))).await;
    assert_eq!(first.state, ToolState::Failed);
    let replay = run(&registry, ui(), call("f2", "idem.report", json!({}))).await;
    assert!(replay.duplicate);
    same_apart_from_duplicate(&first, &replay);
    assert_eq!(replay.error.as_deref(), Some("Nothing to do."));
    assert_eq!(runs(&registry), 1);
}

// ---- GET /calls/:requestId ------------------------------------------------------

#[tokio::test]
async fn retained_returns_the_stored_envelope_with_duplicate_false() {
    let registry = registry();
    let first = run(&registry, ui(), count("g1", "a")).await;
    run(&registry, ui(), count("g1", "a")).await; // a replay does not change the stored one
    let stored = registry.retained("g1").await.expect("retained");
    assert!(!stored.duplicate);
    assert_eq!(stored, first);
    assert_eq!(runs(&registry), 1, "reading a call never runs it");
}

#[tokio::test]
async fn retained_of_an_unknown_call_is_tool_call_not_found() {
    let registry = registry();
    let error = registry.retained("never-seen").await.expect_err("unknown");
    assert_eq!(error.code, ErrorCode::ToolCallNotFound);
    assert_eq!(error.code.as_str(), "TOOL_CALL_NOT_FOUND");
    assert_eq!(error.status(), 404);
    assert_eq!(error.message, "Tool call not found");
}

#[tokio::test]
async fn retained_reads_only_the_result_store() {
    let registry = registry_with(small(1));
    run(&registry, ui(), count("a", "a")).await;
    run(&registry, ui(), count("b", "b")).await;
    // "a" is still remembered as a fingerprint, but has no result to show.
    let error = registry.retained("a").await.expect_err("evicted");
    assert_eq!(error.code, ErrorCode::ToolCallNotFound);
    assert!(registry.retained("b").await.is_ok());
}

#[tokio::test]
async fn a_refused_call_leaves_nothing_to_read() {
    let registry = registry();
    refuse(
        &registry,
        portos_words::principal::ui(false),
        count("denied", "a"),
    )
    .await;
    refuse(
        &registry,
        ui(),
        call("invalid", "idem.count", json!({ "label": 1 })),
    )
    .await;
    for id in ["denied", "invalid"] {
        let error = registry.retained(id).await.expect_err("nothing ran");
        assert_eq!(error.code, ErrorCode::ToolCallNotFound);
    }
}

#[tokio::test]
async fn retained_waits_for_a_call_still_in_flight() {
    let registry = registry();
    let person = ui();
    let mut running =
        std::pin::pin!(registry.call(&person, call("slow-1", "idem.slow", json!({}))));
    assert!(futures::poll!(running.as_mut()).is_pending());
    let mut reading = std::pin::pin!(registry.retained("slow-1"));
    assert!(
        futures::poll!(reading.as_mut()).is_pending(),
        "the call is still running"
    );
    open_gate(&registry);
    let (result, stored) = futures::join!(running, reading);
    let result = result.expect("admitted");
    let stored = stored.expect("retained");
    assert_eq!(stored, result);
    assert!(!stored.duplicate);
    assert_eq!(runs(&registry), 1);
}

// ---- docs/reference.md#fingerprint the fingerprint ------------------------------

/// Canonical JSON written independently: keys sorted at every depth, compact.
fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
            let inner: Vec<String> = entries
                .into_iter()
                .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), canonical(v)))
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(canonical).collect();
            format!("[{}]", inner.join(","))
        }
        other => other.to_string(),
    }
}

#[test]
fn the_fingerprint_is_the_hex_sha256_of_name_arguments_and_scope() {
    use portos_core::registry::Fingerprint;
    use sha2::{Digest, Sha256};

    let arguments =
        json!({ "query": "my secret words", "limit": 5, "nested": { "b": [2, 1], "a": null } });
    let fingerprint = Fingerprint::of_call("brain.search", &arguments, portos_words::AGENT);
    let text =
        canonical(&json!({ "scope": "agent", "arguments": arguments, "name": "brain.search" }));
    let digest = Sha256::digest(text.as_bytes());
    let expected: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    assert_eq!(fingerprint.to_hex(), expected);
    assert_eq!(expected.len(), 64);
    assert!(
        !format!("{fingerprint:?}").contains("secret"),
        "never the argument text"
    );
    // Key order of the arguments does not matter; the scope does.
    let reordered =
        json!({ "nested": { "a": null, "b": [2, 1] }, "limit": 5, "query": "my secret words" });
    assert_eq!(
        Fingerprint::of_call("brain.search", &reordered, portos_words::AGENT),
        fingerprint
    );
    assert_ne!(
        Fingerprint::of_call("brain.search", &arguments, portos_words::MIND),
        fingerprint
    );
}

// ---- declared state ------------------------------------------------------------

#[test]
fn without_the_state_its_tools_declare_the_registry_does_not_build() {
    let error = Registry::builder()
        .build()
        .expect_err("neither Runs nor Gate is given");
    let problem = |tool: &str, state: &str| {
        let location = linked::tools()
            .find(|descriptor| descriptor.name == tool)
            .map(|descriptor| descriptor.location)
            .expect("linked");
        format!(
            "tool `{tool}` ({location}) needs state `{state}`, which the server does not provide"
        )
    };
    let runs = std::any::type_name::<Runs>();
    let gate = std::any::type_name::<Gate>();
    // One problem per missing type of each tool, all in one build.
    let mut expected = vec![
        problem("idem.count", runs),
        problem("idem.fail", runs),
        problem("idem.other", runs),
        problem("idem.report", runs),
        problem("idem.slow", runs),
        problem("idem.slow", gate),
    ];
    let mut problems = error.problems.clone();
    expected.sort();
    problems.sort();
    assert_eq!(problems, expected);
    assert!(gate.ends_with("registry_idempotency::Gate"), "{gate}");
    assert!(
        error.problems[0].contains("tests/tests/registry_idempotency.rs:"),
        "the location is the tool's file and line: {}",
        error.problems[0]
    );
}
