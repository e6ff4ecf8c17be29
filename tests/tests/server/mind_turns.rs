//! The Persistent Mind's turn loop against the real binary and a scripted
//! OpenAI-compatible model on a loopback port (docs/reference.md#turn-budgets,
//! docs/reference.md#task-creation): the five-call and five-task budgets,
//! derived requestIds, coalesced calls, capped results, grants re-read before
//! each call, provider failures, the REST routes, the events and `--mind-turn`;
//! the API key never shows.

use std::time::Duration;

use portos_tests::ServerProcess;
use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::scripted_model::{Answer, ScriptedModel};

pub(crate) const KEY: &str = "sk-test-4f9a0c7e-secret";
const CALL_LIMIT: &str =
    "The PortOS tool-call limit of 5 was reached; additional calls were not executed.";
const TASK_LIMIT: &str = "Persistent Mind task request limit of 5 was reached for this turn";
const EXHAUSTED: &str =
    "The PortOS tool-call budget for this turn is exhausted: answer without calling tools.";

/// PortOS with its Mind pointed at `model` (and the key in the environment).
pub(crate) fn portos(model: &ScriptedModel, extra: &[&str]) -> ServerProcess {
    let mut args = vec![
        "--mind-provider-url",
        model.url.as_str(),
        "--mind-model",
        "scripted-model",
    ];
    args.extend_from_slice(extra);
    let server = ServerProcess::start_with_env(
        tempfile::tempdir().expect("temp dir"),
        &args,
        &[("PORTOS_MIND_API_KEY", KEY)],
    );
    model.set_portos(&server.base_url);
    server
}

pub(crate) async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().await.expect("request");
    let status = response.status();
    let text = response.text().await.expect("body");
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

pub(crate) async fn get(server: &ServerProcess, path: &str) -> Value {
    let (status, body) = send(portos_tests::http_client().get(server.url(path))).await;
    assert_eq!(status, StatusCode::OK, "{path}: {body}");
    body
}

pub(crate) async fn put(server: &ServerProcess, path: &str, body: Value) {
    let (status, answer) = send(
        portos_tests::http_client()
            .put(server.url(path))
            .json(&body),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{path}: {answer}");
}

/// Runs a turn and waits for its end.
pub(crate) async fn turn(server: &ServerProcess, prompt: &str) -> Value {
    let (status, turn) = send(
        portos_tests::http_client()
            .post(server.url("/api/cos/mind/turns"))
            .json(&json!({ "prompt": prompt, "waitSeconds": 60 })),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{turn}");
    assert_ne!(turn["state"], "running", "the turn ended within the wait");
    turn
}

/// A managed app `id` whose repository's origin is on GitHub.
pub(crate) async fn github_app(server: &ServerProcess, repos: &std::path::Path, id: &str) {
    let repo = repos.join(id);
    std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
    std::fs::write(
        repo.join(".git/config"),
        format!("[remote \"origin\"]\n\turl = https://github.com/acme/{id}.git\n"),
    )
    .expect("git config");
    let (status, app) = send(
        portos_tests::http_client()
            .post(server.url("/api/apps"))
            .json(&json!({ "id": id, "name": id, "repoPath": repo.display().to_string() })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{app}");
}

pub(crate) async fn codex_provider(server: &ServerProcess) {
    put(
        server,
        "/api/cos/providers",
        json!({ "providers": [{
            "id": "codex", "name": "Codex CLI", "kind": "cli", "enabled": true,
            "models": ["gpt-5"], "efforts": ["high"]
        }] }),
    )
    .await;
}

fn sha_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// `mind-tool-` and 32 hex of the canonical `{providerRequestId, turnId}`.
fn named_request_id(turn_id: &str, call_id: &str) -> String {
    let canonical = format!(r#"{{"providerRequestId":"{call_id}","turnId":"{turn_id}"}}"#);
    format!("mind-tool-{}", &sha_hex(&canonical)[..32])
}

pub(crate) fn calls(turn: &Value) -> Vec<Value> {
    turn["calls"].as_array().cloned().expect("calls")
}

fn task_args(index: usize) -> Value {
    json!({
        "description": format!("Task {index}"),
        "prompt": "Make the change and open a pull request.",
        "appId": "portos",
        "providerId": "codex",
        "model": "",
        "prCompletion": "review-then-merge",
    })
}

#[tokio::test]
async fn a_turn_runs_five_calls_and_five_tasks_and_refuses_the_rest() {
    let mut round_one: Vec<(String, &str, Value)> = (1..=7)
        .map(|i| (format!("c{i}"), "time_now", json!({})))
        .collect();
    round_one.extend((1..=6).map(|i| (format!("t{i}"), "cos_create_task", task_args(i))));
    let round_one: Vec<(&str, &str, Value)> = round_one
        .iter()
        .map(|(id, name, args)| (id.as_str(), *name, args.clone()))
        .collect();
    let model = ScriptedModel::start(vec![
        Answer::calls(&round_one),
        Answer::text("Queued five tasks."),
    ])
    .await;
    let server = portos(&model, &[]);
    let repos = tempfile::tempdir().expect("repos");
    github_app(&server, repos.path(), "portos").await;
    codex_provider(&server).await;
    put(
        &server,
        "/api/cos/mind/capabilities",
        json!({ "readPortos": true, "createTasks": true }),
    )
    .await;

    let turn = turn(&server, "Plan the week's work.").await;
    let turn_id = turn["id"].as_str().expect("id").to_owned();
    assert_eq!(turn["state"], "completed", "{turn}");
    assert_eq!(turn["answer"], "Queued five tasks.");
    assert_eq!(turn["rounds"], 2);
    assert_eq!(
        turn["budget"],
        json!({ "callsUsed": 5, "tasksUsed": 5, "callsRefused": 3 })
    );
    let calls = calls(&turn);
    assert_eq!(calls.len(), 13);
    for (index, call) in calls.iter().enumerate() {
        let provider_id = if index < 7 {
            format!("c{}", index + 1)
        } else {
            format!("t{}", index - 6)
        };
        let (name, over) = if index < 7 {
            ("time.now", index >= 5)
        } else {
            ("cos.create-task", index == 12)
        };
        assert_eq!(call["name"], name, "{call}");
        assert_eq!(call["round"], 1);
        if over {
            assert_eq!(call["state"], "skipped", "{call}");
            assert_eq!(call["requestId"], Value::Null, "never sent to the registry");
            let shown: Value = serde_json::from_str(call["outcome"].as_str().expect("outcome"))
                .expect("JSON outcome");
            let limit = if name == "time.now" {
                CALL_LIMIT
            } else {
                TASK_LIMIT
            };
            assert_eq!(shown["error"], limit);
            assert_eq!(shown["ok"], false);
        } else {
            assert_eq!(call["state"], "completed", "{call}");
            assert_eq!(
                call["requestId"],
                named_request_id(&turn_id, &provider_id),
                "the derived requestId"
            );
        }
    }

    // The five tasks are in the CoS queue under their derived ids, queued
    // by this wake, and nothing else is.
    let tasks = get(&server, "/api/cos/tasks").await["tasks"]
        .as_array()
        .cloned()
        .expect("tasks");
    assert_eq!(tasks.len(), 5);
    for call in &calls[7..12] {
        let shown: Value =
            serde_json::from_str(call["outcome"].as_str().expect("outcome")).expect("JSON");
        let task_id = shown["result"]["taskId"].as_str().expect("a task id");
        assert!(
            task_id.starts_with("sys-mind-") && task_id.len() == 33,
            "{task_id}"
        );
        assert_eq!(shown["result"]["state"], "queued");
        assert_eq!(shown["result"]["duplicate"], false);
        let task = get(&server, &format!("/api/cos/tasks/{task_id}")).await;
        assert_eq!(task["status"], "pending");
        assert_eq!(task["app"], "portos");
        assert_eq!(task["dispatch"]["wakeId"], turn_id);
        assert_eq!(task["dispatch"]["providerId"], "codex");
        assert_eq!(task["dispatch"]["prCompletion"], "review-then-merge");
    }

    // Each call went through the registry under its requestId.
    let retained = get(
        &server,
        &format!("/api/cos/tools/calls/{}", named_request_id(&turn_id, "c1")),
    )
    .await;
    assert_eq!(retained["name"], "time.now");
    assert_eq!(retained["state"], "completed");

    // What the model was sent: the granted tools only, the key as a bearer
    // token, then every result and the exhausted budget, and no tools left.
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].authorization.as_deref(),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(requests[0].body["model"], "scripted-model");
    let offered = requests[0].tool_names();
    assert!(offered.contains(&"time_now".to_owned()), "{offered:?}");
    assert!(
        offered.contains(&"cos_create_task".to_owned()),
        "{offered:?}"
    );
    assert!(
        !offered.contains(&"brain_capture".to_owned()),
        "writePortos is not granted: {offered:?}"
    );
    let sent = requests[1].messages();
    let tool_messages: Vec<&Value> = sent.iter().filter(|m| m["role"] == "tool").collect();
    assert_eq!(tool_messages.len(), 13);
    assert_eq!(tool_messages[0]["tool_call_id"], "c1");
    assert_eq!(
        sent.last().map(|m| m["content"].clone()),
        Some(json!(EXHAUSTED))
    );
    assert!(
        requests[1].tool_names().is_empty(),
        "both budgets are spent: nothing is offered"
    );

    // The turn is listed, and the ledger says the Mind queued the tasks.
    let listed = get(&server, "/api/cos/mind/turns").await;
    assert_eq!(listed["turns"][0]["id"], turn_id);
    assert_eq!(listed["turns"][0]["callCount"], 13);
    assert_eq!(listed["turns"][0]["state"], "completed");
    let actions = get(&server, "/api/user-actions?type=cos.task.create").await;
    let actions = actions["events"].as_array().cloned().unwrap_or_default();
    assert_eq!(actions.len(), 5, "{actions:?}");
    assert!(actions.iter().all(|action| action["actor"] == "mind"));
}

#[tokio::test]
async fn identical_calls_coalesce_and_results_are_capped() {
    let long = "x".repeat(5000);
    let model = ScriptedModel::start(vec![
        Answer::calls(&[
            ("", "time_now", json!({})),
            ("", "time_now", json!({})),
            ("", "brain_capture", json!({ "text": long })),
            ("", "brain_recent", json!({ "limit": 1 })),
        ]),
        Answer::text("Captured."),
    ])
    .await;
    let server = portos(&model, &[]);
    put(
        &server,
        "/api/cos/mind/capabilities",
        json!({ "readPortos": true, "writePortos": true }),
    )
    .await;

    let turn = turn(&server, "Note this down.").await;
    let turn_id = turn["id"].as_str().expect("id");
    assert_eq!(turn["state"], "completed", "{turn}");
    let calls = calls(&turn);
    // Without a provider id the requestId comes from the turn, the
    // canonical name and the arguments: the same call twice is one call.
    let canonical = format!(r#"{{"arguments":{{}},"name":"time.now","turnId":"{turn_id}"}}"#);
    let expected = format!("mind-tool-{}", &sha_hex(&canonical)[..32]);
    assert_eq!(calls[0]["requestId"], expected);
    assert_eq!(calls[1]["requestId"], expected);
    assert_eq!(calls[0]["duplicate"], false);
    assert_eq!(calls[1]["duplicate"], true, "{}", calls[1]);
    assert_eq!(turn["budget"]["callsUsed"], 4);

    // The brain's answer holds the 5,000 characters: the model is shown
    // the first 4,000 of its envelope.
    assert_eq!(calls[3]["name"], "brain.recent");
    let outcome = calls[3]["outcome"].as_str().expect("outcome");
    let shown: Value = serde_json::from_str(outcome).expect("JSON");
    assert_eq!(shown["truncated"], true);
    assert_eq!(
        shown["preview"].as_str().map(|p| p.chars().count()),
        Some(4000)
    );
    let sent = model.requests()[1].messages();
    let tool_messages: Vec<&Value> = sent.iter().filter(|m| m["role"] == "tool").collect();
    assert_eq!(tool_messages[3]["content"], outcome);
}

#[tokio::test]
async fn grants_revoked_mid_turn_stop_what_follows() {
    let model = ScriptedModel::start(vec![
        Answer::calls(&[("c1", "time_now", json!({}))]),
        // The owner revokes every grant while the model thinks.
        Answer::AfterGrants(
            json!({}),
            Box::new(Answer::calls(&[(
                "c2",
                "time_now",
                json!({ "timezone": "UTC" }),
            )])),
        ),
        Answer::text("I can no longer read PortOS."),
    ])
    .await;
    let server = portos(&model, &[]);
    put(
        &server,
        "/api/cos/mind/capabilities",
        json!({ "readPortos": true }),
    )
    .await;

    let turn = turn(&server, "What time is it?").await;
    assert_eq!(turn["state"], "completed", "{turn}");
    let calls = calls(&turn);
    assert_eq!(calls[0]["state"], "completed");
    assert_eq!(calls[1]["state"], "refused", "{}", calls[1]);
    let shown: Value =
        serde_json::from_str(calls[1]["outcome"].as_str().expect("outcome")).expect("JSON");
    assert_eq!(shown["code"], "TOOL_CAPABILITY_DENIED");
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests[1].tool_names().contains(&"time_now".to_owned()));
    assert!(
        requests[2].tool_names().is_empty(),
        "the next round offers nothing: {:?}",
        requests[2].tool_names()
    );
}

#[tokio::test]
async fn provider_failures_end_the_turn_failed_and_the_key_never_shows() {
    let model = ScriptedModel::start(vec![
        Answer::Raw("this is not JSON".to_owned()),
        Answer::Message(json!("a string, not a message")),
        Answer::Status(
            401,
            json!({ "error": { "message": format!("Incorrect API key provided: {KEY}") } }),
        ),
        Answer::Hang,
        Answer::calls(&[("c1", "rm_rf_everything", json!({ "path": "/" }))]),
        Answer::text("That tool does not exist."),
    ])
    .await;
    let server = portos(&model, &["--mind-timeout", "1"]);
    put(
        &server,
        "/api/cos/mind/capabilities",
        json!({ "readPortos": true }),
    )
    .await;

    let malformed = turn(&server, "one").await;
    assert_eq!(malformed["state"], "failed");
    assert!(
        malformed["error"]
            .as_str()
            .is_some_and(|e| e.contains("not a chat completion") && e.contains("not JSON")),
        "{malformed}"
    );
    let no_message = turn(&server, "two").await;
    assert_eq!(no_message["state"], "failed");
    assert!(
        no_message["error"]
            .as_str()
            .is_some_and(|e| e.contains("not a chat completion")),
        "{no_message}"
    );
    let refused = turn(&server, "three").await;
    assert_eq!(refused["state"], "failed");
    let error = refused["error"].as_str().expect("error");
    assert!(
        error.contains("HTTP 401") && error.contains("[REDACTED]"),
        "{error}"
    );
    let started = std::time::Instant::now();
    let slow = turn(&server, "four").await;
    assert_eq!(slow["state"], "failed");
    assert!(
        slow["error"]
            .as_str()
            .is_some_and(|e| e.contains("did not answer within 1 s")),
        "{slow}"
    );
    assert!(started.elapsed() < Duration::from_secs(30), "no hang");
    let unknown = turn(&server, "five").await;
    assert_eq!(
        unknown["state"], "completed",
        "an unknown tool is the model's mistake"
    );
    let call = &calls(&unknown)[0];
    assert_eq!(call["state"], "skipped");
    assert_eq!(call["name"], "rm_rf_everything");
    assert!(call["outcome"].as_str().is_some_and(
        |o| o.contains("TOOL_NOT_FOUND") && o.contains("Unknown tool 'rm_rf_everything'")
    ));
    assert_eq!(unknown["budget"]["callsUsed"], 0, "it never ran");

    // Stored as answered; the key is in no turn, list, ledger or log line,
    // though every request carried it.
    for turn in [&malformed, &no_message, &refused, &slow, &unknown] {
        let id = turn["id"].as_str().expect("id");
        let stored = get(&server, &format!("/api/cos/mind/turns/{id}")).await;
        assert_eq!(&stored, turn);
        assert!(!stored.to_string().contains(KEY));
    }
    assert!(
        model
            .requests()
            .iter()
            .all(|request| request.authorization.as_deref()
                == Some(format!("Bearer {KEY}").as_str()))
    );
    assert!(
        !get(&server, "/api/cos/mind/turns")
            .await
            .to_string()
            .contains(KEY)
    );
    assert!(
        !get(&server, "/api/user-actions")
            .await
            .to_string()
            .contains(KEY)
    );
    assert!(!server.stderr().contains(KEY), "the log holds the key");
}

#[tokio::test]
async fn an_unreachable_provider_fails_the_turn() {
    // A port that was free a moment ago: nothing listens there.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a port");
    let url = format!("http://{closed}/v1");
    let server = ServerProcess::start(&["--mind-provider-url", &url, "--mind-model", "m"]);
    let turn = turn(&server, "Anyone there?").await;
    assert_eq!(turn["state"], "failed");
    assert!(
        turn["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("the model provider is unreachable")),
        "{turn}"
    );
    assert_eq!(turn["rounds"], 1);
}

#[tokio::test]
async fn the_turn_routes_refuse_what_they_cannot_do() {
    // No model configured: no turn.
    let bare = ServerProcess::start(&[]);
    let (status, error) = send(
        portos_tests::http_client()
            .post(bare.url("/api/cos/mind/turns"))
            .json(&json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{error}");
    assert_eq!(error["code"], "MIND_MODEL_NOT_CONFIGURED");

    let model = ScriptedModel::start(vec![Answer::Hang]).await;
    let server = portos(&model, &["--mind-timeout", "2"]);
    let http = portos_tests::http_client();
    for body in [
        json!({ "prompt": "hi", "shell": "rm" }),
        json!({ "waitSeconds": 121 }),
        json!({ "prompt": "x".repeat(12_001) }),
        json!({ "prompt": 7 }),
    ] {
        let (status, error) = send(http.post(server.url("/api/cos/mind/turns")).json(&body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {error}");
    }
    assert_eq!(
        get(&server, "/api/cos/mind/turns").await["turns"],
        json!([]),
        "a refused request starts nothing"
    );
    let (status, error) = send(http.get(server.url("/api/cos/mind/turns/nope"))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(error["code"], "MIND_TURN_NOT_FOUND");
    let (status, _) = send(http.get(server.url("/api/cos/mind/turns?limit=0"))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // One turn at a time: the first is still waiting for the model.
    let (status, first) = send(
        http.post(server.url("/api/cos/mind/turns"))
            .json(&json!({ "waitSeconds": 0 })),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(first["state"], "running");
    let (status, busy) = send(
        http.post(server.url("/api/cos/mind/turns"))
            .json(&json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{busy}");
    assert_eq!(busy["code"], "MIND_TURN_RUNNING");
    let id = first["id"].as_str().expect("id");
    let mut ended = Value::Null;
    for _ in 0..100 {
        ended = get(&server, &format!("/api/cos/mind/turns/{id}")).await;
        if ended["state"] != "running" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(ended["state"], "failed", "{ended}");
    assert!(ended["finishedAt"].is_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mind_turn_runs_one_turn_from_the_command_line() {
    let model = ScriptedModel::start(vec![
        Answer::calls(&[("c1", "time_now", json!({}))]),
        Answer::text("It is noon."),
    ])
    .await;
    let dir = tempfile::tempdir().expect("temp dir");
    let store = portos_tests::open_store(dir.path());
    store
        .run_blocking(|connection| {
            portos_server::settings::set_json(
                connection,
                portos::MIND_GRANTS_KEY,
                &json!({ "readPortos": true }),
            )
        })
        .expect("grants stored");
    drop(store);

    let data_dir = dir.path().to_owned();
    let url = model.url.clone();
    let output = tokio::task::spawn_blocking(move || {
        portos_tests::portos_command()
            .arg("--data-dir")
            .arg(&data_dir)
            .args(test_postgres::database_args(&data_dir))
            .args([
                "--mind-provider-url",
                &url,
                "--mind-model",
                "scripted-model",
            ])
            .args(["--mind-turn", "What time is it?"])
            .env("PORTOS_MIND_API_KEY", KEY)
            .env("RUST_LOG", "info")
            .output()
            .expect("portos runs")
    })
    .await
    .expect("joined");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let turn: Value = serde_json::from_slice(&output.stdout).expect("the turn as JSON");
    assert_eq!(turn["state"], "completed");
    assert_eq!(turn["prompt"], "What time is it?");
    assert_eq!(turn["answer"], "It is noon.");
    assert_eq!(turn["calls"][0]["name"], "time.now");
    assert_eq!(turn["calls"][0]["state"], "completed");
    assert!(!stderr.contains(KEY) && !turn.to_string().contains(KEY));

    // Without a model it says what to configure; with a dump flag it is refused.
    for args in [
        vec!["--mind-turn", "hi"],
        vec!["--mind-turn", "hi", "--dump-routes"],
    ] {
        let output = portos_tests::portos_command()
            .arg("--data-dir")
            .arg(dir.path())
            .args(test_postgres::database_args(dir.path()))
            .args(&args)
            .env_remove("PORTOS_MIND_PROVIDER_URL")
            .env_remove("PORTOS_MIND_MODEL")
            .output()
            .expect("portos runs");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        if args.len() == 2 {
            assert!(stderr.contains("--mind-provider-url"), "{stderr}");
        }
    }
}

#[tokio::test]
async fn a_turn_is_announced_on_socket_io() {
    let model = ScriptedModel::start(vec![
        Answer::calls(&[("c1", "time_now", json!({}))]),
        Answer::text("Done."),
    ])
    .await;
    let server = portos(&model, &[]);
    put(
        &server,
        "/api/cos/mind/capabilities",
        json!({ "readPortos": true }),
    )
    .await;
    let socket = crate::socket_events::Polling::connect(&server).await;

    let turn = turn(&server, "Tick").await;
    let id = turn["id"].clone();
    let started = socket.expect_event("cos:mind:turn-started").await;
    assert_eq!(started, json!({ "turnId": id, "model": "scripted-model" }));
    let call = socket.expect_event("cos:mind:turn-call").await;
    assert_eq!(call["turnId"], id);
    assert_eq!(call["name"], "time.now");
    assert_eq!(call["state"], "completed");
    assert_eq!(call["requestId"], turn["calls"][0]["requestId"]);
    assert_eq!(call["budget"]["callsUsed"], 1);
    let finished = socket.expect_event("cos:mind:turn-finished").await;
    assert_eq!(
        finished,
        json!({
            "turnId": id, "state": "completed", "rounds": 2,
            "budget": { "callsUsed": 1, "tasksUsed": 0, "callsRefused": 0 }
        })
    );
}
