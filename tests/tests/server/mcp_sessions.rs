//! Sessions of the 2025 revisions over Streamable HTTP (docs/mcp.md
//! "Sessions"): `initialize` issues an `Mcp-Session-Id`, a request naming a
//! live session shares what the client set for it (its log level), `DELETE`
//! ends it and a request naming an ended or unknown session gets 404. A
//! client that never names one is served as before.

use portos_tests::ServerProcess;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

const ACCEPT: &str = "application/json, text/event-stream";

async fn server(client: &Client) -> ServerProcess {
    let server = ServerProcess::start(&[]);
    let response = client
        .put(server.url("/api/settings/agent-context"))
        .json(&json!({"enabled": true, "actions": {"readPortos": true}}))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK);
    server
}

/// POSTs `message`, naming `session` when given: the status, the session
/// header of the answer, and its body (`Null` when empty).
async fn post(
    client: &Client,
    server: &ServerProcess,
    session: Option<&str>,
    message: &Value,
) -> (StatusCode, Option<String>, Value) {
    let mut request = client
        .post(server.url("/api/agent-context/mcp"))
        .header("accept", ACCEPT)
        .header("content-type", "application/json")
        .body(message.to_string());
    if let Some(session) = session {
        request = request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25");
    }
    let response = request.send().await.expect("request");
    let status = response.status();
    let issued = response
        .headers()
        .get("mcp-session-id")
        .map(|id| id.to_str().expect("visible ASCII").to_owned());
    let text = response.text().await.expect("body");
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    (status, issued, body)
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "session-test", "version": "1"}}})
}

async fn delete(client: &Client, server: &ServerProcess, session: Option<&str>) -> StatusCode {
    let mut request = client.delete(server.url("/api/agent-context/mcp"));
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    request.send().await.expect("request").status()
}

#[tokio::test]
async fn initialize_opens_a_session_that_delete_ends() {
    let client = portos_tests::http_client();
    let server = server(&client).await;
    let (status, issued, body) = post(&client, &server, None, &initialize()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["capabilities"]["logging"], json!({}));
    let session = issued.expect("initialize issues a session id");
    assert!(session.len() >= 16 && session.bytes().all(|b| b.is_ascii_graphic()));

    // Two sessions are two ids.
    let (_, other, _) = post(&client, &server, None, &initialize()).await;
    assert_ne!(other.as_deref(), Some(session.as_str()));

    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (status, again, body) = post(&client, &server, Some(&session), &list).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["result"]["tools"].is_array(), "{body}");
    assert_eq!(again, None, "only initialize issues an id");

    let level = json!({"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel", "params": {"level": "warning"}});
    let (status, _, body) = post(&client, &server, Some(&session), &level).await;
    assert_eq!((status, &body["result"]), (StatusCode::OK, &json!({})));

    assert_eq!(
        delete(&client, &server, Some(&session)).await,
        StatusCode::NO_CONTENT
    );
    let (status, _, body) = post(&client, &server, Some(&session), &list).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["error"]["code"], -32600, "{body}");
    // Ended once: a second DELETE finds nothing.
    assert_eq!(
        delete(&client, &server, Some(&session)).await,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn an_unknown_session_is_not_found_and_no_session_is_served() {
    let client = portos_tests::http_client();
    let server = server(&client).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let (status, _, body) = post(&client, &server, Some("never-issued-0123456789"), &list).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, _, body) = post(&client, &server, None, &list).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // Without a session header there is nothing to end.
    assert_eq!(
        delete(&client, &server, None).await,
        StatusCode::METHOD_NOT_ALLOWED
    );
}

#[tokio::test]
async fn set_level_takes_a_level_mcp_names() {
    let client = portos_tests::http_client();
    let server = server(&client).await;
    let (_, issued, _) = post(&client, &server, None, &initialize()).await;
    let session = issued.expect("a session");
    for params in [
        json!({"level": "loud"}),
        json!({}),
        json!({"level": 3}),
        json!({"level": "info", "extra": 1}),
    ] {
        let message =
            json!({"jsonrpc": "2.0", "id": 4, "method": "logging/setLevel", "params": params});
        let (status, _, body) = post(&client, &server, Some(&session), &message).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["error"]["code"], -32602, "{params}: {body}");
    }
    for level in [
        "debug",
        "info",
        "notice",
        "warning",
        "error",
        "critical",
        "alert",
        "emergency",
    ] {
        let message = json!({"jsonrpc": "2.0", "id": 5, "method": "logging/setLevel", "params": {"level": level}});
        let (_, _, body) = post(&client, &server, Some(&session), &message).await;
        assert_eq!(body["result"], json!({}), "{level}: {body}");
    }
}
