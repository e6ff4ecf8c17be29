//! Socket.IO on the server's port, spoken at the wire level (Engine.IO v4
//! long-polling, Socket.IO v5 packets): subscribe, then see a finished tool
//! call and a catalog change announced; events.json and AsyncAPI list them.

use std::time::Duration;

use portos_tests::ServerProcess;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

/// A minimal polling client: enough protocol to prove the server's side.
pub(crate) struct Polling<'a> {
    client: Client,
    server: &'a ServerProcess,
    sid: String,
    /// Packets received in a batch after the one a caller waited for.
    pending: std::cell::RefCell<std::collections::VecDeque<String>>,
}

impl<'a> Polling<'a> {
    pub(crate) async fn connect(server: &'a ServerProcess) -> Polling<'a> {
        Polling::connect_as(server, None).await
    }

    /// Connects with a session token (a server with a password).
    pub(crate) async fn connect_as(server: &'a ServerProcess, token: Option<&str>) -> Polling<'a> {
        let mut headers = reqwest::header::HeaderMap::new();
        if let Some(token) = token {
            headers.insert(
                reqwest::header::AUTHORIZATION,
                format!("Bearer {token}").parse().expect("a header value"),
            );
        }
        let client = portos_tests::http_client_builder()
            // Longer than the ping interval (25 s): an idle long-poll ends with a ping.
            .timeout(Duration::from_secs(35))
            .default_headers(headers)
            .build()
            .expect("client");
        let open = client
            .get(server.url("/socket.io/?EIO=4&transport=polling"))
            .send()
            .await
            .expect("handshake")
            .text()
            .await
            .expect("body");
        let handshake: Value =
            serde_json::from_str(open.strip_prefix('0').expect("an OPEN packet")).expect("JSON");
        let sid = handshake["sid"].as_str().expect("sid").to_owned();
        let polling = Polling {
            client,
            server,
            sid,
            pending: Default::default(),
        };
        polling.send("40").await;
        // The CONNECT ack may come after a ping; answer pings until it does.
        let mut seen = Vec::new();
        for _ in 0..10 {
            let packets = polling.receive().await;
            if packets.iter().any(|p| p == "2") {
                polling.send("3").await;
            }
            let connected = packets.iter().any(|p| p.starts_with("40"));
            seen.extend(packets);
            if connected {
                return polling;
            }
        }
        panic!("no namespace connect ack: {seen:?}");
    }

    fn url(&self) -> String {
        self.server.url(&format!(
            "/socket.io/?EIO=4&transport=polling&sid={}",
            self.sid
        ))
    }

    pub(crate) async fn send(&self, packet: &str) {
        let response = self
            .client
            .post(self.url())
            .body(packet.to_owned())
            .send()
            .await
            .expect("send");
        assert_eq!(response.status(), StatusCode::OK);
    }

    /// One long-poll: the packets the server had queued (separated by 0x1e).
    async fn receive(&self) -> Vec<String> {
        let body = self
            .client
            .get(self.url())
            .send()
            .await
            .expect("poll")
            .text()
            .await
            .expect("body");
        body.split('\u{1e}').map(str::to_owned).collect()
    }

    /// Polls until an EVENT packet named `event` arrives; returns its data.
    pub(crate) async fn expect_event(&self, event: &str) -> Value {
        for _ in 0..10 {
            if self.pending.borrow().is_empty() {
                let batch = self.receive().await;
                self.pending.borrow_mut().extend(batch);
            }
            loop {
                let next = self.pending.borrow_mut().pop_front();
                let Some(packet) = next else { break };
                if packet == "2" {
                    // Answer the server's ping so the session stays open.
                    self.send("3").await;
                    continue;
                }
                if let Some(payload) = packet.strip_prefix("42")
                    && let Ok(Value::Array(items)) = serde_json::from_str::<Value>(payload)
                    && items.first() == Some(&Value::from(event))
                {
                    return items.get(1).cloned().unwrap_or(Value::Null);
                }
            }
        }
        panic!("no `{event}` event arrived");
    }
}

#[tokio::test]
async fn subscribers_hear_finished_calls_and_catalog_changes() {
    let server = ServerProcess::start(&[]);
    let socket = Polling::connect(&server).await;
    socket.send(r#"42["cos:tools:subscribe"]"#).await;
    assert_eq!(
        socket.expect_event("cos:tools:subscribed").await,
        json!({"room": "cos:tools"})
    );

    let http = portos_tests::http_client();
    let response = http
        .post(server.url("/api/cos/tools/call"))
        .json(&json!({"requestId": "sock-1", "name": "time.now"}))
        .send()
        .await
        .expect("call");
    assert_eq!(response.status(), StatusCode::OK);
    let called = socket.expect_event("cos:tools:called").await;
    assert_eq!(
        called,
        json!({"requestId": "sock-1", "name": "time.now", "state": "completed"})
    );

    let response = http
        .put(server.url("/api/cos/mind/capabilities"))
        .json(&json!({"readPortos": true}))
        .send()
        .await
        .expect("grants");
    assert_eq!(response.status(), StatusCode::OK);
    let changed = socket.expect_event("cos:tools:catalog-changed").await;
    assert_eq!(changed, json!({"reason": "persistentMindCapabilities"}));

    // The change is real: the mind catalog now reports the grant.
    let catalog: Value = http
        .get(server.url("/api/cos/tools?scope=mind"))
        .send()
        .await
        .expect("catalog")
        .json()
        .await
        .expect("json");
    // Every read that needs only readPortos: 13 shared adapters,
    // eidoverse.status and eidoverse.chat, user-actions.query.
    assert_eq!(catalog["stats"]["granted"], 16);
}

#[tokio::test]
async fn bad_grants_are_refused_and_change_nothing() {
    let server = ServerProcess::start(&[]);
    let http = portos_tests::http_client();
    for body in [
        json!({"shell": true}),
        json!({"readPortos": "yes"}),
        json!([true]),
    ] {
        let response = http
            .put(server.url("/api/cos/mind/capabilities"))
            .json(&body)
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{body}");
        let error: Value = response.json().await.expect("json");
        assert_eq!(error["code"], "VALIDATION_ERROR");
    }
    let grants: Value = http
        .get(server.url("/api/cos/mind/capabilities"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    // Every grant still off; the lists unrestricted; the current version.
    let object = grants.as_object().expect("object");
    assert_eq!(grants["schemaVersion"], 10, "{grants}");
    assert_eq!(grants["taskModelAllowlist"], json!([]));
    assert_eq!(grants["allowedAppIds"], Value::Null);
    assert!(
        object
            .iter()
            .filter(
                |(key, _)| !["schemaVersion", "taskModelAllowlist", "allowedAppIds"]
                    .contains(&key.as_str())
            )
            .all(|(_, v)| v == false),
        "{grants}"
    );
}

#[tokio::test]
async fn with_a_password_the_event_stream_needs_credentials() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server =
        ServerProcess::start_with_env(dir, &[], &[("PORTOS_PASSWORD", "correct horse battery")]);
    let response = portos_tests::http_client()
        .get(server.url("/socket.io/?EIO=4&transport=polling"))
        .send()
        .await
        .expect("handshake");
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_event_documents_list_what_is_emitted() {
    let server = ServerProcess::start(&[]);
    let http = portos_tests::http_client();
    let events: Value = http
        .get(server.url("/api/api-docs/events.json"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    let names: Vec<&str> = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["event"].as_str())
        .collect();
    for name in [
        "cos:tools:called",
        "cos:tools:catalog-changed",
        "cos:tools:subscribe",
        "cos:tools:subscribed",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    let called = events["events"]
        .as_array()
        .and_then(|all| all.iter().find(|e| e["event"] == "cos:tools:called"))
        .expect("called");
    assert_eq!(called["directions"], json!(["server-to-client"]));
    assert_eq!(
        called["payloadSchemas"]["server-to-client"]["properties"]["requestId"]["type"],
        "string"
    );

    let asyncapi: Value = http
        .get(server.url("/api/api-docs/asyncapi.json"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(asyncapi["asyncapi"], "3.0.0");
    assert_eq!(asyncapi["servers"]["local"]["protocol"], "socket.io");
    let channels = asyncapi["channels"].as_object().expect("channels");
    assert_eq!(channels.len(), names.len());
    let actions: Vec<&str> = asyncapi["operations"]
        .as_object()
        .expect("operations")
        .values()
        .filter_map(|op| op["action"].as_str())
        .collect();
    assert!(actions.contains(&"send") && actions.contains(&"receive"));
}

/// Remote mode (docs/remote.md): a call made with an access token is
/// announced with whom the token names; a local call without.
#[tokio::test]
async fn a_remote_callers_call_is_announced_with_its_subject() {
    use portos_server::testing::issuer::{TestIssuer, TestKey};
    const RESOURCE: &str = "http://127.0.0.1/api/agent-context/mcp";
    let key = TestKey::es256("k1");
    let issuer = TestIssuer::start(&[&key]).await;
    let server = ServerProcess::start(&[
        "--remote-issuer",
        &issuer.issuer,
        "--remote-resource",
        RESOURCE,
    ]);
    let socket = Polling::connect(&server).await;
    socket.send(r#"42["cos:tools:subscribe"]"#).await;
    socket.expect_event("cos:tools:subscribed").await;

    let http = portos_tests::http_client();
    let response = http
        .post(server.url("/api/cos/tools/call"))
        .bearer_auth(issuer.token(&key, RESOURCE, "readPortos"))
        .json(&json!({"requestId": "remote-sock-1", "name": "time.now"}))
        .send()
        .await
        .expect("call");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        socket.expect_event("cos:tools:called").await,
        json!({"requestId": "remote-sock-1", "name": "time.now", "state": "completed", "subject": "user-1"})
    );
    // The documents of a server in remote mode say the field may be there.
    let asyncapi: Value = http
        .get(server.url("/api/api-docs/asyncapi.json"))
        .send()
        .await
        .expect("asyncapi")
        .json()
        .await
        .expect("json");
    assert_eq!(
        asyncapi["components"]["schemas"]["ToolCalled"]["properties"]["subject"]["type"],
        "string"
    );
}
