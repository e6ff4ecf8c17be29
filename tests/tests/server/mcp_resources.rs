//! PortOS's context items as MCP resources (docs/mcp.md "Resources,
//! prompts and completions"): each enabled scope is a resource and each
//! item one through `portos-context://item/{ref}`, read through the same
//! settings, scopes and redaction as the context tools, at both revisions.

use portos_tests::ServerProcess;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";

async fn server(client: &Client, settings: &Value) -> ServerProcess {
    let server = ServerProcess::start(&[]);
    let response = client
        .put(server.url("/api/settings/agent-context"))
        .json(settings)
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK);
    server
}

/// A 2025 request (no session), its status and body.
async fn legacy(
    client: &Client,
    server: &ServerProcess,
    method: &str,
    params: Value,
) -> (StatusCode, Value) {
    let response = client
        .post(server.url("/api/agent-context/mcp"))
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .expect("request");
    (response.status(), response.json().await.expect("JSON"))
}

/// A 2026-07-28 request with its mirrored headers.
async fn modern(
    client: &Client,
    server: &ServerProcess,
    method: &str,
    mut params: Value,
) -> (StatusCode, Value) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let mut request = client
        .post(server.url("/api/agent-context/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", method);
    if let Some(named) = params
        .get("uri")
        .or_else(|| params.get("name"))
        .and_then(Value::as_str)
    {
        request = request.header("mcp-name", named);
    }
    let response = request
        .json(&json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": params}))
        .send()
        .await
        .expect("request");
    (response.status(), response.json().await.expect("JSON"))
}

#[tokio::test]
async fn context_items_are_resources_within_the_settings() {
    let client = portos_tests::http_client();
    let server = server(&client, &json!({"enabled": true, "scopes": ["navigation"]})).await;

    let (_, init) = legacy(
        &client,
        &server,
        "initialize",
        json!({
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "resources-test", "version": "1"}}),
    )
    .await;
    assert_eq!(
        init["result"]["capabilities"]["resources"],
        json!({"listChanged": true, "subscribe": true})
    );
    assert_eq!(
        init["result"]["capabilities"]["prompts"],
        json!({"listChanged": true})
    );

    let (_, listed) = legacy(&client, &server, "resources/list", json!({})).await;
    let uris: Vec<&str> = listed["result"]["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .filter_map(|resource| resource["uri"].as_str())
        .collect();
    assert_eq!(uris, ["portos-context://scope/navigation"], "{listed}");
    let (_, templates) = legacy(&client, &server, "resources/templates/list", json!({})).await;
    assert_eq!(
        templates["result"]["resourceTemplates"][0]["uriTemplate"],
        "portos-context://item/{ref}"
    );

    // The scope's page is list_context's first page.
    let (_, page) = legacy(
        &client,
        &server,
        "resources/read",
        json!({"uri": "portos-context://scope/navigation"}),
    )
    .await;
    let contents = &page["result"]["contents"][0];
    assert_eq!(contents["mimeType"], "application/json");
    let listed: Value =
        serde_json::from_str(contents["text"].as_str().expect("text")).expect("JSON");
    let first = listed["items"][0].clone();
    assert_eq!(
        listed["total"].as_u64().map(|total| total > 5),
        Some(true),
        "{listed}"
    );

    // One item through the template is get_context's item, at both eras.
    let reference = first["ref"].as_str().expect("ref");
    let uri = format!("portos-context://item/{}", reference.replace(':', "%3A"));
    let (_, item) = legacy(&client, &server, "resources/read", json!({"uri": uri})).await;
    let text = item["result"]["contents"][0]["text"]
        .as_str()
        .expect("text");
    assert_eq!(
        serde_json::from_str::<Value>(text).ok(),
        Some(first.clone())
    );
    let (status, item) = modern(&client, &server, "resources/read", json!({"uri": uri})).await;
    assert_eq!(status, StatusCode::OK, "{item}");
    assert_eq!(item["result"]["resultType"], "complete");
    assert_eq!(item["result"]["ttlMs"], 0);
    let text = item["result"]["contents"][0]["text"]
        .as_str()
        .expect("text");
    assert_eq!(serde_json::from_str::<Value>(text).ok(), Some(first));

    // A scope the settings do not enable is not found, whatever exists.
    let (_, hidden) = legacy(
        &client,
        &server,
        "resources/read",
        json!({"uri": "portos-context://scope/brain"}),
    )
    .await;
    assert_eq!(hidden["error"]["code"], -32002, "{hidden}");
    assert_eq!(
        hidden["error"]["data"]["uri"],
        "portos-context://scope/brain"
    );
    let (status, missing) = modern(
        &client,
        &server,
        "resources/read",
        json!({"uri": "portos-context://item/brain%3Ainbox%3Aabc"}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    let (_, bad) = legacy(
        &client,
        &server,
        "resources/read",
        json!({"uri": "portos-context://item/%zz"}),
    )
    .await;
    assert_eq!(bad["error"]["code"], -32002, "{bad}");
}

#[tokio::test]
async fn the_brain_review_prompt_embeds_the_newest_captures() {
    let client = portos_tests::http_client();
    let settings = json!({"enabled": true, "actions": {"readPortos": true, "writePortos": true}});
    let server = server(&client, &settings).await;
    let (_, captured) = legacy(
        &client,
        &server,
        "tools/call",
        json!({
        "name": "brain_capture", "arguments": {"text": "renew the passport"}}),
    )
    .await;
    assert_eq!(
        captured["result"]["structuredContent"]["state"], "completed",
        "{captured}"
    );

    let (_, listed) = legacy(&client, &server, "prompts/list", json!({})).await;
    assert_eq!(
        listed["result"]["prompts"],
        json!([{"name": "brain.review", "title": "Review the brain inbox",
                "description": "Review the brain inbox: the newest captures, and what to do with each.",
                "arguments": [{"name": "focus", "description": "What to look for first (e.g. \"errands\"); every capture otherwise.", "required": false}]}])
    );
    let (status, got) = modern(
        &client,
        &server,
        "prompts/get",
        json!({"name": "brain.review", "arguments": {"focus": "papers"}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{got}");
    let messages = &got["result"]["messages"];
    assert_eq!(
        messages[0]["content"]["resource"]["uri"],
        "portos-brain://recent"
    );
    let embedded: Value = serde_json::from_str(
        messages[0]["content"]["resource"]["text"]
            .as_str()
            .expect("text"),
    )
    .expect("JSON");
    assert_eq!(embedded[0]["text"], "renew the passport");
    assert!(
        messages[1]["content"]["text"]
            .as_str()
            .is_some_and(|text| text.contains("papers"))
    );
    // An argument the prompt does not take is refused.
    let (status, refused) = modern(
        &client,
        &server,
        "prompts/get",
        json!({"name": "brain.review", "arguments": {"mood": "x"}}),
    )
    .await;
    assert_eq!(
        (status, &refused["error"]["code"]),
        (StatusCode::BAD_REQUEST, &json!(-32602)),
        "{refused}"
    );

    // Without readPortos the prompt is not there.
    let response = client
        .put(server.url("/api/settings/agent-context"))
        .json(&json!({"enabled": true, "actions": {}}))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK);
    let (_, listed) = legacy(&client, &server, "prompts/list", json!({})).await;
    assert_eq!(listed["result"]["prompts"], json!([]));
    let (_, hidden) = legacy(
        &client,
        &server,
        "prompts/get",
        json!({"name": "brain.review"}),
    )
    .await;
    assert_eq!(hidden["error"]["code"], -32602, "{hidden}");
}

#[tokio::test]
async fn nothing_is_listed_while_agent_tools_is_disabled() {
    let client = portos_tests::http_client();
    let server = server(&client, &json!({"enabled": false})).await;
    let (status, _) = legacy(&client, &server, "resources/list", json!({})).await;
    // The transport's guard answers first (docs/reference.md#mcp-transport).
    assert_eq!(status, StatusCode::FORBIDDEN);
}
