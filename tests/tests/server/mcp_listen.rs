//! Listening for changes (docs/mcp.md "Listening for changes"): a
//! 2026-07-28 `subscriptions/listen` stream starts with its
//! acknowledgement, names what the server agreed to send (resources only
//! if the client may read them), tags every notification with its
//! subscription and carries only what was asked for; a 2025 session's GET
//! stream carries the list changes, `resources/subscribe` is governed as a
//! read, and the stream ends with the session.

use std::time::Duration;

use portos_tests::ServerProcess;
use reqwest::{Client, Response, StatusCode};
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";
const ACCEPT: &str = "application/json, text/event-stream";
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

async fn server(client: &Client) -> ServerProcess {
    let server = ServerProcess::start(&[]);
    grant(client, &server, json!({"readPortos": true})).await;
    server
}

/// Saves the Agent Tools settings: a change of what agents may list.
async fn grant(client: &Client, server: &ServerProcess, actions: Value) {
    let response = client
        .put(server.url("/api/settings/agent-context"))
        .json(&json!({"enabled": true, "scopes": ["navigation"], "actions": actions}))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK);
}

/// Opens a 2026-07-28 subscription asking for `notifications`.
async fn listen(
    client: &Client,
    server: &ServerProcess,
    id: u64,
    notifications: Value,
) -> Response {
    client
        .post(server.url("/api/agent-context/mcp"))
        .header("accept", ACCEPT)
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "subscriptions/listen")
        .json(
            &json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": MODERN,
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
                "notifications": notifications,
            }}),
        )
        .send()
        .await
        .expect("request")
}

/// The JSON-RPC messages of an event stream, read until `count` arrived or
/// `wait` passed without one.
async fn messages(response: &mut Response, count: usize, wait: Duration) -> Vec<Value> {
    let mut buffer = String::new();
    let mut out = Vec::new();
    while out.len() < count {
        let Ok(chunk) = tokio::time::timeout(wait, response.chunk()).await else {
            break;
        };
        let Some(chunk) = chunk.expect("stream") else {
            break;
        };
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            if let Some(data) = event.trim().strip_prefix("data: ") {
                out.push(serde_json::from_str(data).expect("one JSON message per event"));
            }
        }
    }
    out
}

fn methods(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .filter_map(|message| message["method"].as_str())
        .collect()
}

#[tokio::test]
async fn a_subscription_hears_what_it_asked_for_tagged_with_its_id() {
    let client = portos_tests::http_client();
    let server = server(&client).await;
    let mut everything = listen(
        &client,
        &server,
        41,
        json!({
            "toolsListChanged": true,
            "promptsListChanged": true,
            "resourcesListChanged": true,
            "resourceSubscriptions": [
                "portos-context://scope/navigation",
                "portos-context://scope/nowhere",
            ],
        }),
    )
    .await;
    assert_eq!(everything.status(), StatusCode::OK);
    assert_eq!(
        everything.headers()["content-type"]
            .to_str()
            .expect("ASCII"),
        "text/event-stream"
    );
    let mut prompts_only = listen(&client, &server, 42, json!({"promptsListChanged": true})).await;

    // The acknowledgement comes first, naming what was agreed: the lists,
    // and of the resources only the one the client may read.
    let ack = messages(&mut everything, 1, Duration::from_secs(5)).await;
    assert_eq!(ack[0]["method"], "notifications/subscriptions/acknowledged");
    // The subscription is named by its request's id.
    assert_eq!(ack[0]["params"]["_meta"][SUBSCRIPTION_ID], 41);
    assert_eq!(
        ack[0]["params"]["notifications"],
        json!({
            "toolsListChanged": true,
            "promptsListChanged": true,
            "resourcesListChanged": true,
            "resourceSubscriptions": ["portos-context://scope/navigation"],
        })
    );
    let ack = messages(&mut prompts_only, 1, Duration::from_secs(5)).await;
    assert_eq!(
        ack[0]["params"]["notifications"],
        json!({"promptsListChanged": true})
    );

    // A grant changes what agents may list: each listener hears of the
    // lists it asked for, and nothing else.
    grant(
        &client,
        &server,
        json!({"readPortos": true, "writePortos": true}),
    )
    .await;
    let heard = messages(&mut everything, 3, Duration::from_secs(5)).await;
    assert_eq!(
        methods(&heard),
        [
            "notifications/tools/list_changed",
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed",
        ]
    );
    assert!(
        heard
            .iter()
            .all(|message| message["params"]["_meta"][SUBSCRIPTION_ID] == 41),
        "{heard:?}"
    );
    // Only the prompts list: one notice, or (on a loaded machine, where
    // two announcements of the one change are not coalesced) the same
    // notice again, and nothing else.
    let heard = messages(&mut prompts_only, 3, Duration::from_millis(700)).await;
    assert!(!heard.is_empty(), "the prompts listener heard nothing");
    assert!(
        methods(&heard)
            .iter()
            .all(|method| *method == "notifications/prompts/list_changed"),
        "{heard:?}"
    );
}

#[tokio::test]
async fn a_subscription_request_is_checked_like_any_other() {
    let client = portos_tests::http_client();
    let server = server(&client).await;
    // Without a filter.
    let response = client
        .post(server.url("/api/agent-context/mcp"))
        .header("accept", ACCEPT)
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "subscriptions/listen")
        .json(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            }}}),
        )
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["error"]["code"], -32602, "{body}");
    // A filter of the wrong shape.
    let response = listen(&client, &server, 2, json!({"toolsListChanged": "yes"})).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    // The method names another in its header.
    let response = client
        .post(server.url("/api/agent-context/mcp"))
        .header("accept", ACCEPT)
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/list")
        .json(
            &json!({"jsonrpc": "2.0", "id": 3, "method": "subscriptions/listen", "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
            "notifications": {"toolsListChanged": true}}}),
        )
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["error"]["code"], -32020, "{body}");
    // The 2025 revisions have no such method.
    let response = client
        .post(server.url("/api/agent-context/mcp"))
        .header("accept", ACCEPT)
        .json(
            &json!({"jsonrpc": "2.0", "id": 4, "method": "subscriptions/listen", "params": {
            "notifications": {"toolsListChanged": true}}}),
        )
        .send()
        .await
        .expect("request");
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["error"]["code"], -32601, "{body}");
}

/// A 2025 request in `session`.
async fn in_session(
    client: &Client,
    server: &ServerProcess,
    session: &str,
    message: &Value,
) -> Value {
    client
        .post(server.url("/api/agent-context/mcp"))
        .header("accept", ACCEPT)
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .json(message)
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("JSON")
}

#[tokio::test]
async fn a_2025_session_streams_list_changes_until_it_ends() {
    let client = portos_tests::http_client();
    let server = server(&client).await;
    let opened = client
        .post(server.url("/api/agent-context/mcp"))
        .header("accept", ACCEPT)
        .json(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "listen-test", "version": "1"}}}),
        )
        .send()
        .await
        .expect("request");
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .expect("ASCII")
        .to_owned();

    // Subscribing is reading: a resource the client may read, yes; an
    // unknown one is not found; a client without a session is refused.
    let subscribed = in_session(
        &client,
        &server,
        &session,
        &json!({"jsonrpc": "2.0", "id": 2,
        "method": "resources/subscribe", "params": {"uri": "portos-context://scope/navigation"}}),
    )
    .await;
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    let unknown = in_session(
        &client,
        &server,
        &session,
        &json!({"jsonrpc": "2.0", "id": 3,
        "method": "resources/subscribe", "params": {"uri": "portos-context://scope/nowhere"}}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32002, "{unknown}");
    let stateless: Value = client
        .post(server.url("/api/agent-context/mcp"))
        .header("accept", ACCEPT)
        .json(
            &json!({"jsonrpc": "2.0", "id": 4, "method": "resources/subscribe",
            "params": {"uri": "portos-context://scope/navigation"}}),
        )
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("JSON");
    assert_eq!(stateless["error"]["code"], -32600, "{stateless}");
    let unsubscribed = in_session(
        &client,
        &server,
        &session,
        &json!({"jsonrpc": "2.0", "id": 5,
        "method": "resources/unsubscribe", "params": {"uri": "portos-context://scope/navigation"}}),
    )
    .await;
    assert_eq!(unsubscribed["result"], json!({}), "{unsubscribed}");

    let mut stream = client
        .get(server.url("/api/agent-context/mcp"))
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await
        .expect("request");
    assert_eq!(stream.status(), StatusCode::OK);
    // The stream is open once the request is answered; give its task a
    // moment to be listening before the change.
    tokio::time::sleep(Duration::from_millis(200)).await;
    grant(&client, &server, json!({})).await;
    let heard = messages(&mut stream, 3, Duration::from_secs(5)).await;
    assert_eq!(
        methods(&heard),
        [
            "notifications/tools/list_changed",
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed",
        ]
    );
    // No subscription id at this revision.
    assert!(
        heard
            .iter()
            .all(|message| message["params"].get("_meta").is_none())
    );

    // Ending the session ends its stream.
    let ended = client
        .delete(server.url("/api/agent-context/mcp"))
        .header("mcp-session-id", &session)
        .send()
        .await
        .expect("request");
    assert_eq!(ended.status(), StatusCode::NO_CONTENT);
    // A list-changed notification is a hint to list again, and a repeat of
    // one may still be on its way (once, under CI's load, one was); nothing
    // else comes before the stream ends.
    let ending = tokio::time::timeout(Duration::from_secs(5), async {
        let mut late = Vec::new();
        while let Some(chunk) = stream.chunk().await.expect("the stream ends cleanly") {
            late.push(String::from_utf8_lossy(&chunk).into_owned());
        }
        late
    })
    .await
    .expect("the stream ends with the session");
    assert!(
        ending.iter().all(|chunk| chunk.contains("/list_changed")),
        "{ending:?}"
    );
    // An unknown session has no stream.
    let unknown = client
        .get(server.url("/api/agent-context/mcp"))
        .header("mcp-session-id", &session)
        .send()
        .await
        .expect("request");
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_capture_updates_the_brain_resource_for_its_subscribers() {
    let client = portos_tests::http_client();
    let server = ServerProcess::start(&[]);
    let response = client
        .put(server.url("/api/settings/agent-context"))
        .json(&json!({"enabled": true, "scopes": ["brain"],
            "actions": {"readPortos": true, "writePortos": true}}))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK);
    let brain = "portos-context://scope/brain";
    let mut stream = listen(
        &client,
        &server,
        7,
        json!({"resourceSubscriptions": [brain]}),
    )
    .await;
    let ack = messages(&mut stream, 1, Duration::from_secs(5)).await;
    assert_eq!(
        ack[0]["params"]["notifications"],
        json!({"resourceSubscriptions": [brain]})
    );
    // An agent captures (any capture does: they all go through the tool).
    let captured: Value = client
        .post(server.url("/api/agent-context/mcp"))
        .header("accept", ACCEPT)
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/call")
        .header("mcp-name", "brain_capture")
        .json(
            &json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
            "name": "brain_capture", "arguments": {"text": "call the plumber"}}}),
        )
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("JSON");
    assert_eq!(captured["result"]["isError"], Value::Null, "{captured}");
    let heard = messages(&mut stream, 1, Duration::from_secs(5)).await;
    assert_eq!(methods(&heard), ["notifications/resources/updated"]);
    assert_eq!(heard[0]["params"]["uri"], brain);
    assert_eq!(heard[0]["params"]["_meta"][SUBSCRIPTION_ID], 7);
}
