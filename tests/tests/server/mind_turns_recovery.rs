//! A turn the server was killed under: it was saved as running, and the
//! next start-up on the same data directory ends it `failed` with a clear
//! error, records it in the Mind's trajectory, and a new turn starts.

use portos_tests::ServerProcess;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::mind_turns::{KEY, get, portos, send, turn};
use crate::scripted_model::{Answer, ScriptedModel};

const STOPPED: &str = "The server stopped while this turn was running";

#[tokio::test]
async fn a_turn_running_when_the_server_died_is_failed_at_start_up() {
    let stuck = ScriptedModel::start(vec![Answer::Hang]).await;
    let server = portos(&stuck, &[]);
    let (status, running) = send(
        portos_tests::http_client()
            .post(server.url("/api/cos/mind/turns"))
            .json(&json!({ "prompt": "Think hard.", "waitSeconds": 0 })),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{running}");
    assert_eq!(running["state"], "running");
    let id = running["id"].as_str().expect("id").to_owned();
    // The model has the request: the turn is in the middle of its round.
    for _ in 0..100 {
        if !stuck.requests().is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(stuck.requests().len(), 1);
    let data_dir = server.kill();

    let model = ScriptedModel::start(vec![Answer::text("Back again.")]).await;
    let server = ServerProcess::start_with_env(
        data_dir,
        &[
            "--mind-provider-url",
            model.url.as_str(),
            "--mind-model",
            "scripted-model",
        ],
        &[("PORTOS_MIND_API_KEY", KEY)],
    );
    let ended = get(&server, &format!("/api/cos/mind/turns/{id}")).await;
    assert_eq!(ended["state"], "failed", "{ended}");
    assert_eq!(ended["error"], STOPPED);
    assert!(ended["finishedAt"].is_string(), "{ended}");
    assert!(
        server.stderr().contains("left running by a stopped server"),
        "logged"
    );

    // Not busy: a new turn runs, and it is told how the last one ended.
    let next = turn(&server, "Where were we?").await;
    assert_eq!(next["state"], "completed", "{next}");
    let system = model.requests()[0].messages()[0]["content"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_default();
    assert!(
        system.contains(&format!(": Failed: {STOPPED}. No tool calls.")),
        "{system}"
    );
    let listed = get(&server, "/api/cos/mind/turns").await;
    let states: Vec<Value> = listed["turns"]
        .as_array()
        .expect("turns")
        .iter()
        .map(|turn| turn["state"].clone())
        .collect();
    assert_eq!(states, [json!("completed"), json!("failed")]);
}
