//! `GET`/`PUT /api/cos/providers` against the real binary: none until the
//! owner configures some, the list normalized, every rule refused with
//! nothing stored, and the change in the ledger.

use portos_tests::ServerProcess;
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().await.expect("request");
    let status = response.status();
    (status, response.json().await.expect("JSON body"))
}

#[tokio::test]
async fn the_owner_configures_the_coding_providers() {
    let server = ServerProcess::start(&[]);
    let http = portos_tests::http_client();
    let url = server.url("/api/cos/providers");
    let (status, none) = send(http.get(&url)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        none,
        json!({ "providers": [] }),
        "no provider until configured"
    );

    let (status, stored) = send(http.put(&url).json(&json!({ "providers": [
        { "id": " codex ", "name": "Codex CLI", "kind": "cli", "enabled": true,
          "models": ["gpt-5", "gpt-5"], "efforts": ["high", "low"] },
        { "id": "claude-code", "name": "Claude Code", "kind": "tui", "enabled": false },
        { "id": "openai", "name": "OpenAI API", "kind": "api", "enabled": true }
    ] })))
    .await;
    assert_eq!(status, StatusCode::OK, "{stored}");
    assert_eq!(stored["providers"][0]["id"], "codex", "trimmed");
    assert_eq!(
        stored["providers"][0]["models"],
        json!(["gpt-5"]),
        "deduplicated"
    );
    assert_eq!(stored["providers"][1]["models"], json!([]));
    let (_, read) = send(http.get(&url)).await;
    assert_eq!(read, stored);

    for (body, says) in [
        (
            json!({ "providers": [{ "id": "a b", "name": "A", "kind": "cli", "enabled": true }] }),
            "id",
        ),
        (
            json!({ "providers": [{ "id": "a", "name": " ", "kind": "cli", "enabled": true }] }),
            "name",
        ),
        (
            json!({ "providers": [{ "id": "a", "name": "A", "kind": "shell", "enabled": true }] }),
            "shell",
        ),
        (
            json!({ "providers": [{ "id": "a", "name": "A", "kind": "cli", "enabled": true, "efforts": ["enormous"] }] }),
            "enormous",
        ),
        (
            json!({ "providers": [{ "id": "a", "name": "A", "kind": "cli", "enabled": true, "command": "rm" }] }),
            "command",
        ),
        (
            json!({ "providers": [
            { "id": "a", "name": "A", "kind": "cli", "enabled": true },
            { "id": "a", "name": "B", "kind": "tui", "enabled": true }
        ] }),
            "used twice",
        ),
        (json!({ "list": [] }), "list"),
    ] {
        let (status, error) = send(http.put(&url).json(&body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(error["code"], "VALIDATION_ERROR");
        assert!(
            error.to_string().contains(says),
            "{error} should say {says}"
        );
    }
    let (_, unchanged) = send(http.get(&url)).await;
    assert_eq!(unchanged, stored, "a refused list changes nothing");

    let (_, actions) = send(http.get(server.url("/api/user-actions?type=settings.update"))).await;
    let events = actions["events"].as_array().cloned().unwrap_or_default();
    assert_eq!(events.len(), 1, "{actions}");
    assert_eq!(events[0]["target"], "cosCodingProviders");
    assert_eq!(
        events[0]["summary"],
        "Coding providers: codex, claude-code, openai"
    );
}
