//! The Persistent Mind's own state over REST against the real binary: its
//! memories (list, add), its identity, and the owner's thinking presets and
//! local context memory estimate — strict bodies that change nothing when
//! refused, the settings changes in the ledger, and a restart keeping it
//! all. (The Mind's tools are `mind`-only, so they are exercised through
//! the registry in `tests/adapters/mind_self.rs`.)

use portos_tests::ServerProcess;
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().await.expect("request");
    let status = response.status();
    (status, response.json().await.expect("JSON body"))
}

#[tokio::test]
async fn people_add_memories_for_the_mind() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let (status, listed) = send(client.get(server.url("/api/cos/mind/memories"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed, json!({ "memories": [] }));

    let (status, plain) = send(
        client
            .post(server.url("/api/cos/mind/memories"))
            .json(&json!({ "text": "  The user prefers tea.  " })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{plain}");
    assert_eq!(plain["text"], "The user prefers tea.");
    assert_eq!(plain["protection"], "standard");
    assert_eq!(plain["kind"], "note");
    assert_eq!(plain["archived"], false);
    assert!(plain["id"].as_str().is_some_and(|id| id.len() <= 128));

    let (status, important) = send(
        client
            .post(server.url("/api/cos/mind/memories"))
            .json(&json!({ "text": "Birthday: 4 May", "protection": "important" })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{important}");
    assert_eq!(important["protection"], "important");

    for body in [
        json!({ "text": "   " }),
        json!({ "text": "x".repeat(2001) }),
        json!({ "text": "fine", "protection": "secret" }),
        json!({ "text": "fine", "archived": true }),
        json!({}),
    ] {
        let (status, error) = send(
            client
                .post(server.url("/api/cos/mind/memories"))
                .json(&body),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {error}");
        assert_eq!(error["code"], "VALIDATION_ERROR", "{body}");
    }

    let (_, listed) = send(client.get(server.url("/api/cos/mind/memories"))).await;
    let texts: Vec<&str> = listed["memories"]
        .as_array()
        .expect("memories")
        .iter()
        .map(|memory| memory["text"].as_str().expect("text"))
        .collect();
    assert_eq!(
        texts,
        ["The user prefers tea.", "Birthday: 4 May"],
        "oldest first, refusals stored nothing"
    );
    let (_, archived) = send(client.get(server.url("/api/cos/mind/memories?state=archived"))).await;
    assert_eq!(archived, json!({ "memories": [] }));
    let (_, all) = send(client.get(server.url("/api/cos/mind/memories?state=all"))).await;
    assert_eq!(all["memories"].as_array().expect("memories").len(), 2);
    let (status, error) = send(client.get(server.url("/api/cos/mind/memories?state=gone"))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");

    let (status, identity) = send(client.get(server.url("/api/cos/mind/identity"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        identity,
        json!({ "name": null, "memoryId": null, "chosenAt": null }),
        "no name until the Mind chooses one"
    );

    let dir = server.kill();
    let restarted = ServerProcess::start_in(dir, &[]);
    let (_, listed) = send(client.get(restarted.url("/api/cos/mind/memories"))).await;
    assert_eq!(
        listed["memories"][1]["id"], important["id"],
        "kept across a restart"
    );
}

#[tokio::test]
async fn the_owner_approves_the_thinking_presets() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let url = server.url("/api/cos/mind/thinking-presets");
    let (status, view) = send(client.get(&url)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        view["presets"],
        json!([
            { "id": "quick", "label": "Quick", "model": "", "effort": "low" },
            { "id": "balanced", "label": "Balanced", "model": "", "effort": "medium" },
            { "id": "deep", "label": "Deep", "model": "", "effort": "high" },
        ])
    );
    assert_eq!(view["pending"], Value::Null);
    assert_eq!(view["recent"], json!([]));

    let (status, view) = send(client.put(&url).json(&json!({
        "presets": [
            { "id": " local-8b ", "model": "qwen3:8b", "effort": "" },
            { "id": "think", "label": "Think hard", "model": "qwen3:32b", "effort": "xhigh" },
        ]
    })))
    .await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert_eq!(
        view["presets"],
        json!([
            { "id": "local-8b", "label": "local-8b", "model": "qwen3:8b", "effort": "" },
            { "id": "think", "label": "Think hard", "model": "qwen3:32b", "effort": "xhigh" },
        ])
    );

    let many: Vec<Value> = (0..21).map(|i| json!({ "id": format!("p{i}") })).collect();
    for body in [
        json!({ "presets": [{ "id": "a" }, { "id": "a" }] }),
        json!({ "presets": [{ "id": "-a" }] }),
        json!({ "presets": [{ "id": "a", "effort": "huge" }] }),
        json!({ "presets": [{ "id": "a", "endpoint": "http://10.0.0.2:11434" }] }),
        json!({ "presets": many }),
        json!({}),
    ] {
        let (status, error) = send(client.put(&url).json(&body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {error}");
        assert_eq!(error["code"], "VALIDATION_ERROR", "{body}");
    }
    let (_, view) = send(client.get(&url)).await;
    assert_eq!(
        view["presets"][1]["id"], "think",
        "refusals changed nothing"
    );

    let (_, actions) = send(client.get(server.url("/api/user-actions?type=settings.update"))).await;
    let summaries: Vec<&str> = actions["events"]
        .as_array()
        .expect("actions")
        .iter()
        .filter_map(|action| action["summary"].as_str())
        .collect();
    assert_eq!(
        summaries,
        ["Persistent Mind thinking presets: local-8b, think"],
        "{actions}"
    );

    let dir = server.kill();
    let restarted = ServerProcess::start_in(dir, &[]);
    let (_, view) = send(client.get(restarted.url("/api/cos/mind/thinking-presets"))).await;
    assert_eq!(
        view["presets"][0]["id"], "local-8b",
        "kept across a restart"
    );
}

#[tokio::test]
async fn the_local_context_ceiling_follows_the_memory_estimate() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let url = server.url("/api/cos/mind/local-context");
    let (status, read) = send(client.get(&url)).await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["numCtx"], Value::Null);
    assert_eq!(read["min"], 512);
    assert_eq!(read["max"], 131_072);
    assert_eq!(
        read["estimate"],
        json!({ "kvBytesPerToken": 131_072, "modelBytes": 5_368_709_120_u64, "reservedBytes": 2_684_354_560_u64 })
    );
    let total = read["host"]["totalBytes"].as_u64().expect("RAM");
    assert!(total > 0);
    let usable = read["host"]["cgroupLimitBytes"]
        .as_u64()
        .map_or(total, |limit| limit.min(total));

    // One mebibyte a token and nothing else: the ceiling is the memory in MiB.
    let (status, read) = send(client.put(&url).json(&json!({
        "kvBytesPerToken": 1_048_576, "modelBytes": 0, "reservedBytes": 0
    })))
    .await;
    assert_eq!(status, StatusCode::OK, "{read}");
    let expected = i64::try_from(usable / 1_048_576)
        .expect("fits")
        .min(131_072);
    assert_eq!(read["ceiling"], expected);

    // Keys left out keep their defaults.
    let (status, read) = send(client.put(&url).json(&json!({ "modelBytes": 0 }))).await;
    assert_eq!(status, StatusCode::OK, "{read}");
    assert_eq!(read["estimate"]["kvBytesPerToken"], 131_072);
    assert_eq!(read["estimate"]["reservedBytes"], 2_684_354_560_u64);

    for body in [
        json!({ "kvBytesPerToken": 0 }),
        json!({ "modelBytes": -1 }),
        json!({ "modelBytes": 1_099_511_627_777_u64 }),
        json!({ "numCtx": 8192 }),
    ] {
        let (status, error) = send(client.put(&url).json(&body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {error}");
        assert_eq!(error["code"], "VALIDATION_ERROR", "{body}");
    }
    let (_, read) = send(client.get(&url)).await;
    assert_eq!(
        read["estimate"]["modelBytes"], 0,
        "refusals changed nothing"
    );
}
