//! The homelab through `portos_server::testing`: built in process over an
//! in-memory store, no binary and no port, as a framework user tests an
//! application (the HTTP tool route, the catalogs, MCP at both revisions,
//! a password and a session).

use homelab_server::{FileKeys, Flags, Homelab};
use portos_server::Config;
use portos_server::cli::Application;
use portos_server::testing::{Mcp, TestServer};
use serde_json::{Value, json};

fn builder() -> portos_server::ServerBuilder {
    Homelab::builder(
        Config::new(Homelab::COMMAND),
        &Flags::default(),
        FileKeys::default(),
    )
    .expect("the homelab builds")
}

fn names(tools: &Value, key: &str) -> Vec<String> {
    let mut names: Vec<String> = tools
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool[key].as_str().map(str::to_owned))
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn a_framework_user_tests_the_homelab_in_process() {
    let server = TestServer::start(builder()).expect("started");

    // The catalog is at the runtime's default place for the tools mount.
    let catalog = server.catalog("operator", "portos").await;
    assert_eq!(catalog.status, 200, "{}", catalog.body);
    assert_eq!(names(&catalog.body["tools"], "name").len(), 7);

    // Reads are open; a write needs a signed-in operator.
    let uptime = server.call_tool("lab.uptime", json!({})).await;
    assert_eq!(uptime.status, 200, "{}", uptime.body);
    assert_eq!(uptime.body["state"], "completed");
    let refused = server
        .call_tool(
            "lab.hosts.add",
            json!({"name": "nas", "address": "10.0.0.2"}),
        )
        .await;
    assert_eq!(refused.status, 403);
    assert_eq!(refused.body["code"], "TOOL_AUTH_REQUIRED");

    // MCP is off until the owner grants the assistant; then it lists
    // exactly the granted tools, at both revisions.
    let off = server.mcp(Mcp::Modern, "tools/list", json!({})).await;
    assert_eq!(off.status, 403, "{}", off.body);
    let granted = server.grant_mcp(&json!({ "readLab": true })).await;
    assert_eq!(granted.status, 200, "{}", granted.body);
    for revision in [Mcp::Modern, Mcp::Legacy] {
        let listed = server.mcp(revision, "tools/list", json!({})).await;
        assert_eq!(listed.status, 200, "{revision:?}: {}", listed.body);
        assert_eq!(
            names(&listed.body["result"]["tools"], "name"),
            [
                "lab_hosts_audit",
                "lab_hosts_list",
                "lab_hosts_probe",
                "lab_uptime"
            ],
            "{revision:?}"
        );
        let called = server
            .mcp(
                revision,
                "tools/call",
                json!({ "name": "lab_uptime", "arguments": {} }),
            )
            .await;
        assert_eq!(called.status, 200, "{revision:?}: {}", called.body);
        assert_ne!(called.body["result"]["isError"], true, "{}", called.body);
        assert_eq!(
            called.body["result"]["structuredContent"]["state"], "completed",
            "{}",
            called.body
        );
    }
}

#[tokio::test]
async fn a_signed_in_operator_writes() {
    let server = TestServer::start_locked(builder(), "rack mounted kettle").expect("started");
    let anonymous = server.catalog("all", "portos").await;
    assert_eq!(anonymous.status, 401, "the gate asks for credentials");
    let session = server.sign_in("rack mounted kettle").await;
    assert_eq!(session.status, 200, "{}", session.body);
    let added = server
        .call_tool(
            "lab.hosts.add",
            json!({"name": "nas", "address": "10.0.0.2"}),
        )
        .await;
    assert_eq!(added.status, 200, "{}", added.body);
    assert_eq!(added.body["state"], "completed");
    let hosts = server.get("/api/lab/hosts").await;
    assert_eq!(hosts.status, 200);
    assert_eq!(hosts.body["hosts"][0]["name"], "nas", "{}", hosts.body);
}

#[test]
fn a_server_without_the_state_its_route_takes_does_not_start() {
    // The builder the homelab's own would be, minus its `LabConfig`.
    let bare = portos_server::ServerBuilder::new("Homelab", "0.0.0", Config::new(Homelab::COMMAND));
    let error = TestServer::start(bare).expect_err("refused at start-up");
    let message = error.to_string();
    assert!(
        message.contains("`GET /api/lab/hosts`")
            && message.contains("Shared<homelab_server::config::LabConfig>"),
        "the route is named with the state it takes: {message}"
    );
}

/// The test client speaks each revision as a client must, against the
/// real endpoint: `Mcp-Name` from a read's `uri`, a call's notifications
/// read off its event stream, a 2025 session held and ended, and both
/// ways of listening.
#[tokio::test]
async fn the_test_client_reads_calls_and_listens_at_both_revisions() {
    let server = TestServer::start(builder()).expect("started");
    let granted = server.grant_mcp(&json!({ "readLab": true })).await;
    assert_eq!(granted.status, 200, "{}", granted.body);

    // resources/read names its target by `uri`, mirrored in Mcp-Name.
    for revision in [Mcp::Modern, Mcp::Legacy] {
        let read = server
            .mcp(revision, "resources/read", json!({ "uri": "lab://hosts" }))
            .await;
        assert_eq!(read.status, 200, "{revision:?}: {}", read.body);
        let text = read.body["result"]["contents"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(text.contains("| name | address | role |"), "{}", read.body);
    }

    // A progress token: the call answers as an event stream, its progress
    // ahead of the response.
    for revision in [Mcp::Modern, Mcp::Legacy] {
        let audited = server
            .mcp(
                revision,
                "tools/call",
                json!({ "name": "lab_hosts_audit", "arguments": {}, "_meta": { "progressToken": "audit-1" } }),
            )
            .await;
        assert_eq!(audited.status, 200, "{revision:?}: {}", audited.body);
        assert_ne!(audited.body["result"]["isError"], true, "{}", audited.body);
        let progress: Vec<&Value> = audited
            .notifications
            .iter()
            .filter(|message| message["method"] == "notifications/progress")
            .collect();
        assert!(
            !progress.is_empty(),
            "{revision:?}: {:?}",
            audited.notifications
        );
        assert_eq!(progress[0]["params"]["progressToken"], "audit-1");
    }

    // The 2025 requests above ran in a session the server issued; ending
    // it is a 204, and the next request opens another.
    let ended = server.mcp_end_session().await.expect("a session was held");
    assert_eq!(ended.status, 204, "{}", ended.body);
    assert!(server.mcp_end_session().await.is_none());
    let again = server.mcp(Mcp::Legacy, "tools/list", json!({})).await;
    assert_eq!(again.status, 200, "{}", again.body);

    // Listening: a 2026 subscription is acknowledged, a 2025 session's
    // stream opens; a change of grants reaches both.
    let wait = std::time::Duration::from_secs(5);
    let mut modern = server
        .mcp_listen(
            Mcp::Modern,
            json!({ "notifications": { "toolsListChanged": true } }),
        )
        .await;
    assert_eq!(modern.status, 200);
    let acknowledged = modern.next(wait).await.expect("the acknowledgement");
    assert_eq!(
        acknowledged["method"], "notifications/subscriptions/acknowledged",
        "{acknowledged}"
    );
    let mut legacy = server.mcp_listen(Mcp::Legacy, json!({})).await;
    assert_eq!(legacy.status, 200);
    let regranted = server
        .grant_mcp(&json!({ "readLab": true, "writeLab": true }))
        .await;
    assert_eq!(regranted.status, 200, "{}", regranted.body);
    for stream in [&mut modern, &mut legacy] {
        let heard = stream.next(wait).await.expect("a list change");
        assert_eq!(
            heard["method"], "notifications/tools/list_changed",
            "{heard}"
        );
    }
}
