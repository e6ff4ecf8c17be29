//! The Persistent Mind's authority over REST against the real binary
//! (docs/reference.md#capability-keys, docs/reference.md#mind-inventory): its
//! capabilities with their schema version and limits, and the authority view of
//! `GET /api/cos/mind/tools`.

use portos_tests::ServerProcess;
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().await.expect("request");
    let status = response.status();
    (status, response.json().await.expect("JSON body"))
}

#[tokio::test]
async fn capabilities_are_strict_versioned_and_all_off_by_default() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let (status, current) = send(client.get(server.url("/api/cos/mind/capabilities"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(current["schemaVersion"], 10);
    for key in [
        "createTasks",
        "fileIssues",
        "manageMind",
        "callUser",
        "manageToolRecipes",
    ] {
        assert_eq!(current[key], false, "{key}");
    }

    for body in [
        json!({ "callToolRecipes": true }),
        json!({ "schemaVersion": 11 }),
        json!({ "createTasks": "true" }),
        json!({ "allowedAppIds": (0..51).map(|i| format!("app-{i}")).collect::<Vec<_>>() }),
        json!({ "taskModelAllowlist": [{ "providerId": "codex" }] }),
        json!({ "taskModelAllowlist": [{ "providerId": "codex", "model": "x", "extra": 1 }] }),
    ] {
        let (status, error) = send(
            client
                .put(server.url("/api/cos/mind/capabilities"))
                .json(&body),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {error}");
        assert_eq!(error["code"], "VALIDATION_ERROR");
    }
    let (_, unchanged) = send(client.get(server.url("/api/cos/mind/capabilities"))).await;
    assert_eq!(unchanged, current, "refusals change nothing");

    // An older version is accepted and written as the current one.
    let (status, saved) = send(
        client
            .put(server.url("/api/cos/mind/capabilities"))
            .json(&json!({
                "schemaVersion": 5,
                "createTasks": true,
                "callUser": true,
                "allowedAppIds": ["portos", " portos "],
                "taskModelAllowlist": [{ "providerId": "codex", "model": "" }],
            })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    assert_eq!(saved["schemaVersion"], 10);
    assert_eq!(saved["allowedAppIds"], json!(["portos"]));
    assert_eq!(saved["createTasks"], true);
    assert_eq!(saved["fileIssues"], false, "keys left out are off");

    // The grant reaches the registry: the mind catalog marks cos.create-task
    // granted and the issue tools (fileIssues, left out) not.
    let (_, view) = send(client.get(server.url("/api/cos/mind/tools"))).await;
    assert_eq!(view["schemaVersion"], 10);
    assert_eq!(view["capabilities"], saved);
    assert_eq!(view["boundaries"].as_array().map(Vec::len), Some(3));
    let typed: Vec<(&str, bool)> = view["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|tool| (tool["id"].as_str().expect("id"), tool["granted"] == true))
        .collect();
    assert_eq!(
        typed,
        [
            ("cos.create-task", true),
            ("portos.read", false),
            ("portos.write", false),
            ("eidoverse.manage", false),
            ("mind.cleanup", false),
            ("voice.call-user", true),
        ]
    );
    assert!(
        view["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .all(|t| t["defaultEnabled"] == false)
    );
    // voice.call-user is a typed action this server does not connect:
    // granted and shown, never a tool the Mind is offered.
    let call_user = view["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|tool| tool["id"] == "voice.call-user")
        .cloned()
        .expect("voice.call-user");
    assert_eq!(call_user["capability"], "callUser");
    assert_eq!(call_user["kind"], "typed-action");
    assert!(
        call_user["guardrails"]
            .as_array()
            .expect("guardrails")
            .iter()
            .any(|line| line
                .as_str()
                .is_some_and(|l| l.starts_with("Not connected in this server"))),
        "{call_user}"
    );
    let semantic = view["semanticTools"].as_array().expect("semantic tools");
    assert!(!semantic.is_empty());
    assert!(
        semantic.iter().all(|tool| !tool["name"]
            .as_str()
            .unwrap_or_default()
            .starts_with("voice.")),
        "no voice tool is in the mind catalog"
    );
    assert!(
        semantic.iter().all(|tool| tool.get("granted").is_some()),
        "{view}"
    );
}

#[tokio::test]
async fn the_task_catalog_lists_runnable_apps_and_marks_revoked_ones() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let (_, view) = send(client.get(server.url("/api/cos/mind/tools"))).await;
    assert_eq!(view["taskCatalog"], Value::Null, "null without createTasks");

    for (id, path) in [("alpha", "/srv/alpha"), ("beta", "/srv/beta")] {
        let (status, _) = send(client.post(server.url("/api/apps")).json(&json!({
            "id": id, "name": id, "repoPath": path,
        })))
        .await;
        assert_eq!(status, StatusCode::CREATED);
    }
    let (status, _) = send(
        client
            .put(server.url("/api/cos/mind/capabilities"))
            .json(&json!({
                "createTasks": true, "allowedAppIds": ["alpha"],
            })),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, view) = send(client.get(server.url("/api/cos/mind/tools"))).await;
    let apps: Vec<(&str, bool)> = view["taskCatalog"]["apps"]
        .as_array()
        .expect("apps")
        .iter()
        .map(|app| (app["id"].as_str().expect("id"), app["granted"] == true))
        .collect();
    assert_eq!(apps, [("alpha", true), ("beta", false)]);
}
