//! The homelab's documents list its route and its event beside the
//! runtime's own, and nothing of PortOS's: the route inventory, the internal
//! and public OpenAPI, tools.min, the event inventory and AsyncAPI, from the
//! `--dump-*` flags and byte for byte the same over HTTP.

use crate::support;

use std::collections::BTreeSet;

use serde_json::Value;
use support::{Server, dump, get, get_text, http_client};

/// Paths PortOS serves (one of each of its domains); none may be here.
const PORTOS_PATHS: [&str; 10] = [
    "/api/goals",
    "/api/brain/inbox",
    "/api/health/today",
    "/api/journal/{date}",
    "/api/feeds",
    "/api/calendar/events",
    "/api/settings/location",
    "/api/system/processes",
    "/api/eidoverse/world",
    "/api/public/clock/now",
];

/// The Socket.IO events the runtime itself declares.
const RUNTIME_EVENTS: [&str; 7] = [
    "tools:called",
    "tools:catalog-changed",
    "tools:job",
    "tools:subscribe",
    "tools:subscribed",
    "tools:unsubscribe",
    "tools:unsubscribed",
];

fn set<'a>(values: impl IntoIterator<Item = &'a str>) -> BTreeSet<&'a str> {
    values.into_iter().collect()
}

#[test]
fn the_route_inventory_holds_the_runtimes_routes_and_the_homelabs() {
    let routes = dump(&["--dump-routes"]);
    let operations = routes["operations"].as_array().expect("operations");
    let lab: Vec<&Value> = operations
        .iter()
        .filter(|operation| {
            operation["path"]
                .as_str()
                .is_some_and(|p| p.starts_with("/api/lab/"))
        })
        .collect();
    assert_eq!(lab.len(), 1, "{lab:?}");
    assert_eq!(lab[0]["method"], "GET");
    assert_eq!(lab[0]["path"], "/api/lab/hosts");
    assert_eq!(lab[0]["summary"], "Lab hosts");
    assert_eq!(
        lab[0]["sources"],
        serde_json::json!(["tests/homelab/src/routes.rs"])
    );
    // Every other operation is the runtime's own: none comes from PortOS.
    for operation in operations {
        let sources: Vec<&str> = operation["sources"]
            .as_array()
            .expect("sources")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(
            sources
                .iter()
                .all(|s| s.starts_with("portos-server/src/") || s.starts_with("tests/homelab/src/")),
            "{} {} comes from {sources:?}",
            operation["method"],
            operation["path"]
        );
        let path = operation["path"].as_str().expect("path");
        assert!(!PORTOS_PATHS.contains(&path), "PortOS's {path} is served");
        // PortOS places the runtime's tool endpoints under `/api/cos/`;
        // the homelab leaves them where the runtime puts them.
        assert!(!path.starts_with("/api/cos/"), "PortOS's place: {path}");
    }
    // The runtime's endpoints are all there.
    let paths = set(operations.iter().filter_map(|o| o["path"].as_str()));
    for path in [
        "/api/tools",
        "/api/tools/call",
        "/mcp",
        "/api/auth/login",
        "/api/docs/openapi.json",
    ] {
        assert!(paths.contains(path), "{path} is missing");
    }
    // No API group can be exposed: the homelab declares none.
    assert_eq!(routes["externallyExposableApis"], serde_json::json!([]));
}

#[test]
fn openapi_documents_model_the_homelab_route_only_beside_the_runtime() {
    let internal = dump(&["--dump-openapi"]);
    assert_eq!(internal["openapi"], "3.0.3");
    assert!(
        internal["info"]["title"]
            .as_str()
            .expect("title")
            .contains("Homelab"),
        "{}",
        internal["info"]
    );
    let paths = internal["paths"].as_object().expect("paths");
    let hosts = &paths["/api/lab/hosts"]["get"];
    assert_eq!(hosts["summary"], "Lab hosts");
    let parameters: Vec<&str> = hosts["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(parameters, ["role"]);
    let text = internal.to_string();
    assert!(text.contains("HostsPage"), "the response is modeled");
    for path in PORTOS_PATHS {
        assert!(!paths.contains_key(path), "PortOS's {path} is documented");
    }
    for word in ["brain", "goals", "eidoverse", "Goal"] {
        assert!(
            !paths.keys().any(|path| path.contains(word)),
            "a PortOS path ({word}) is documented"
        );
    }

    let public = dump(&["--dump-openapi-public"]);
    assert_eq!(public["openapi"], "3.0.3");
    assert_eq!(
        public["paths"].as_object().map(serde_json::Map::len),
        Some(0)
    );

    // No `tool` annotations on any homelab route: nothing in tools.min.
    let tools_min = dump(&["--dump-tools-min"]);
    assert_eq!(tools_min["tools"], serde_json::json!([]));
}

#[test]
fn events_and_asyncapi_list_lab_host_added_beside_the_runtimes_events() {
    let events = dump(&["--dump-events"]);
    let names = set(events["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["event"].as_str()));
    let mut expected = set(RUNTIME_EVENTS);
    expected.insert("lab:host-added");
    assert_eq!(names, expected);
    let added = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .find(|e| e["event"] == "lab:host-added")
        .expect("listed");
    assert_eq!(added["directions"], serde_json::json!(["server-to-client"]));
    assert_eq!(added["domain"], "lab");
    let payload = &added["payloadSchemas"]["server-to-client"];
    assert!(payload["properties"]["host"].is_object(), "{payload}");
    assert!(payload["properties"]["site"].is_object(), "{payload}");

    let asyncapi = dump(&["--dump-asyncapi"]);
    assert_eq!(asyncapi["asyncapi"], "3.0.0");
    assert_eq!(asyncapi["info"]["title"], "Homelab Socket.IO API");
    let addresses = set(asyncapi["channels"]
        .as_object()
        .expect("channels")
        .values()
        .filter_map(|channel| channel["address"].as_str()));
    assert_eq!(addresses, expected);
}

#[test]
fn no_document_names_a_portos_word() {
    // The runtime's own descriptions name the application's words (its HTTP
    // scope, its scopes, its tools mount, a grants key), never PortOS's.
    for flag in [
        "--dump-routes",
        "--dump-openapi",
        "--dump-openapi-public",
        "--dump-tools-min",
        "--dump-events",
        "--dump-asyncapi",
    ] {
        let text = dump(&[flag]).to_string();
        for word in [
            "PortOS",
            "/api/cos/",
            "cos:tools",
            "persistentMindCapabilities",
            "Persistent Mind",
            "`ui`",
            "readPortos",
            "{principal",
            "{tools.path}",
            "/api/agent-context/",
            "AGENT_CONTEXT",
            "Agent context",
            "api-docs",
        ] {
            assert!(!text.contains(word), "{flag} names `{word}`");
        }
    }
    let internal = dump(&["--dump-openapi"]).to_string();
    assert!(
        internal.contains("(`operator`, `assistant` or `panel`)"),
        "the job's principal lists the homelab's scopes"
    );
    assert!(internal.contains("POST /api/tools/jobs/{jobId}/confirm"));
    // The MCP endpoint's refusals under the runtime's neutral codes.
    let endpoint = &dump(&["--dump-openapi"])["paths"]["/mcp"]["post"]["responses"]["403"];
    let codes = endpoint["x-portos-error-codes"].as_array().expect("codes");
    for code in [
        "MCP_LOCAL_ONLY",
        "MCP_ORIGIN_REJECTED",
        "MCP_HOST_REJECTED",
        "MCP_DISABLED",
    ] {
        assert!(codes.contains(&Value::from(code)), "{code}: {endpoint}");
    }
}

#[tokio::test]
async fn the_mcp_endpoint_and_its_manifest_use_the_runtimes_neutral_names() {
    let server = Server::start(&[]);
    let client = http_client();
    // The manifest tells where the endpoint is and that it issues sessions.
    let (status, manifest) = get(&client, &server, "/mcp/manifest", None).await;
    assert_eq!(status, 200, "{manifest}");
    assert_eq!(manifest["kind"], "mcp-endpoint");
    assert_eq!(
        manifest["transport"],
        serde_json::json!({
            "type": "streamable-http",
            "endpoint": "/mcp",
            "loopbackOnly": true,
            "stateful": true,
            "sessionRequired": false
        })
    );
    // Off until the owner turns it on: refused under the neutral code.
    let refused = client
        .post(server.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .json(&serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .send()
        .await
        .expect("a POST");
    assert_eq!(refused.status(), 403);
    let body: Value = refused.json().await.expect("JSON");
    assert_eq!(body["code"], "MCP_DISABLED", "{body}");
    assert_eq!(body["error"], "MCP is disabled", "{body}");
    // The old PortOS places are nothing here.
    let (status, _) = get(&client, &server, "/api/agent-context/manifest", None).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn the_dumps_are_what_the_server_serves() {
    let server = Server::start(&[]);
    let client = http_client();
    let dir = server.data_dir.path().to_str().expect("utf-8 path");
    for (flag, path) in [
        ("--dump-routes", "/api/docs/catalog.json"),
        ("--dump-openapi", "/api/docs/internal/openapi.json"),
        ("--dump-openapi-public", "/api/docs/openapi.json"),
        ("--dump-tools-min", "/api/docs/tools.min.json"),
        ("--dump-events", "/api/docs/events.json"),
        ("--dump-asyncapi", "/api/docs/asyncapi.json"),
    ] {
        let output = support::run(&[
            "--data-dir",
            dir,
            "--bind",
            // The documents name the configured address: the server's.
            "127.0.0.1:0",
            flag,
        ]);
        assert!(output.status.success(), "{flag}");
        let dumped = String::from_utf8(output.stdout).expect("utf-8");
        let served = get_text(&client, &server, path).await;
        // Not assert_eq!: a difference would print both documents whole.
        assert!(
            dumped.trim_end() == served.trim_end(),
            "{flag} differs from GET {path}"
        );
    }
    // The API Explorer reads those documents; it carries the server's name.
    let page = get_text(&client, &server, "/explorer").await;
    assert!(page.contains("<title>Homelab API Explorer</title>"));
    assert!(!page.contains("PortOS API Explorer"));
}
