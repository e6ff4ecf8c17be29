//! Agent Tools MCP over real HTTP against the real binary
//! (docs/reference.md#manifest, docs/reference.md#mcp-transport,
//! docs/reference.md#mcp-results, docs/reference.md#mcp-request-ids,
//! docs/reference.md#mcp-gating): every status and code of the transport, the
//! JSON-RPC errors, the result shapes, grants and idempotency.

use std::io::{BufRead, BufReader};
use std::net::IpAddr;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use portos_tests::{ServerProcess, portos_command};
use reqwest::{Client, RequestBuilder, StatusCode};
use serde_json::{Value, json};

const ACCEPT: &str = "application/json, text/event-stream";

fn assert_error_body(body: &Value, code: &str) {
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{body}"
    );
    assert!(
        body["timestamp"]
            .as_i64()
            .is_some_and(|t| t > 1_600_000_000_000),
        "{body}"
    );
}

async fn put_settings(
    client: &Client,
    server: &ServerProcess,
    settings: &Value,
) -> (StatusCode, Value) {
    let response = client
        .put(server.url("/api/settings/agent-context"))
        .json(settings)
        .send()
        .await
        .expect("request");
    let status = response.status();
    (status, response.json().await.expect("JSON body"))
}

fn mcp(client: &Client, server: &ServerProcess) -> RequestBuilder {
    client
        .post(server.url("/api/agent-context/mcp"))
        .header("accept", ACCEPT)
        .header("content-type", "application/json")
}

async fn rpc(client: &Client, server: &ServerProcess, message: &Value) -> Value {
    let response = mcp(client, server)
        .body(message.to_string())
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with("application/json")
    );
    response.json().await.expect("JSON body")
}

async fn call_tool(
    client: &Client,
    server: &ServerProcess,
    name: &str,
    arguments: &Value,
) -> Value {
    let answer = rpc(client, server, &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name, "arguments": arguments}}),
    )
    .await;
    assert_eq!(answer["id"], 7);
    assert!(
        answer.get("error").is_none(),
        "tool errors are results: {answer}"
    );
    answer["result"].clone()
}

fn error_text(result: &Value) -> &str {
    assert_eq!(result["isError"], true, "{result}");
    result["content"][0]["text"].as_str().expect("text")
}

/// A server with Agent Tools enabled and `readPortos` granted.
async fn enabled_server(client: &Client, extra: &Value) -> ServerProcess {
    let server = ServerProcess::start(&[]);
    let mut settings = json!({"enabled": true, "actions": {"readPortos": true}});
    if let (Some(base), Some(extra)) = (settings.as_object_mut(), extra.as_object()) {
        base.extend(extra.clone());
    }
    let (status, body) = put_settings(client, &server, &settings).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    server
}

fn tool_names(tools: &Value) -> Vec<String> {
    tools
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect()
}

#[tokio::test]
async fn disabled_by_default_manifest_readable_without_semantic_tools() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let settings: Value = client
        .get(server.url("/api/settings/agent-context"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(
        settings,
        json!({"enabled": false, "profile": "metadata", "scopes": ["navigation", "workspaces"],
               "actions": {"readPortos": false, "writePortos": false, "callToolRecipes": false,
                           "manageEidoverse": false, "visitEidoversePeers": false},
               "configurationValid": true})
    );
    // A grant saved while disabled is not advertised (the contract's finding 5).
    let (status, _) = put_settings(
        &client,
        &server,
        &json!({"enabled": false, "actions": {"readPortos": true}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let manifest: Value = client
        .get(server.url("/api/agent-context/manifest"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(manifest["kind"], "portos-agent-context");
    assert_eq!(manifest["schemaVersion"], 5);
    assert_eq!(manifest["protocolVersion"], "2025-11-25");
    assert_eq!(manifest["enabled"], false);
    assert_eq!(manifest["configurationValid"], true);
    assert_eq!(manifest["actions"]["readPortos"], true);
    assert_eq!(
        manifest["transport"],
        json!({"type": "streamable-http", "endpoint": "/api/agent-context/mcp", "loopbackOnly": true, "stateful": true, "sessionRequired": false})
    );
    assert_eq!(manifest["exclusions"].as_array().map(Vec::len), Some(5));
    assert_eq!(manifest["limits"]["maxResponseChars"], 20000);
    assert_eq!(
        tool_names(&manifest["tools"]),
        [
            "search_context",
            "get_context",
            "list_context",
            "resolve_navigation",
            "context_profile"
        ]
    );
    // The endpoint is closed, for every method (disabled comes before 405).
    for method in [
        reqwest::Method::POST,
        reqwest::Method::GET,
        reqwest::Method::DELETE,
    ] {
        let response = client
            .request(method.clone(), server.url("/api/agent-context/mcp"))
            .header("accept", ACCEPT)
            .header("content-type", "application/json")
            .body(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string())
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{method}");
        assert_error_body(
            &response.json().await.expect("json"),
            "AGENT_CONTEXT_DISABLED",
        );
    }
}

#[tokio::test]
async fn settings_are_strict_and_an_unknown_stored_key_revokes_everything() {
    let client = portos_tests::http_client();
    let server = enabled_server(&client, &json!({})).await;
    for bad in [
        json!({"enabled": true, "actions": {"shell": true}}),
        json!({"scopes": []}),
        json!({"scopes": ["brain", "brain"]}),
        json!({"scopes": ["vault"]}),
        json!({"profile": "everything"}),
        json!({"enabled": "yes"}),
        json!({"other": 1}),
    ] {
        let (status, body) = put_settings(&client, &server, &bad).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        assert_error_body(&body, "VALIDATION_ERROR");
    }
    let still: Value = client
        .get(server.url("/api/settings/agent-context"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(still["enabled"], true);
    assert_eq!(still["actions"]["readPortos"], true);

    // A stored value with an unknown key (written behind the server's back)
    // makes the whole configuration invalid: disabled, no grants.
    let data_dir = server.kill();
    let store = portos_tests::open_store(data_dir.path());
    store
        .run_blocking(|connection| {
            portos_server::settings::set_json(
                connection,
                portos_server::settings::AGENT_CONTEXT,
                &json!({"enabled": true, "actions": {"readPortos": true, "shell": true}}),
            )
        })
        .expect("stored");
    drop(store);
    let server = ServerProcess::start_in(data_dir, &[]);
    let manifest: Value = client
        .get(server.url("/api/agent-context/manifest"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(manifest["configurationValid"], false);
    assert_eq!(manifest["enabled"], false);
    assert_eq!(manifest["actions"]["readPortos"], false);
    let response = mcp(&client, &server)
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string())
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert_error_body(
        &response.json().await.expect("json"),
        "AGENT_CONTEXT_DISABLED",
    );
    let catalog: Value = client
        .get(server.url("/api/cos/tools?scope=agent"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(catalog["stats"]["granted"], 0, "{}", catalog["stats"]);
}

#[tokio::test]
async fn transport_statuses_in_order() {
    let client = portos_tests::http_client();
    let server = enabled_server(&client, &json!({})).await;

    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let response = client
            .request(method.clone(), server.url("/api/agent-context/mcp"))
            .send()
            .await
            .expect("request");
        assert_eq!(
            response.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{method}"
        );
        assert_eq!(response.headers()["allow"], "POST");
        // docs/reference.md#mcp-transport step 4: an empty body.
        assert!(response.bytes().await.expect("body").is_empty(), "{method}");
    }

    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    for accept in [
        None,
        Some("application/json"),
        Some("text/event-stream"),
        Some("*/*"),
    ] {
        let mut request = client
            .post(server.url("/api/agent-context/mcp"))
            .header("content-type", "application/json")
            .body(ping.clone());
        if let Some(accept) = accept {
            request = request.header("accept", accept);
        }
        let response = request.send().await.expect("request");
        assert_eq!(response.status(), StatusCode::NOT_ACCEPTABLE, "{accept:?}");
        assert_eq!(
            response.json::<Value>().await.expect("json"),
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Accept must include application/json and text/event-stream"}})
        );
    }

    // The 2025 revisions are served; a revision this server does not speak,
    // old or unknown, over a body that names no version the 2026 way, is
    // step 6's refusal.
    let unsupported = ["2024-11-05", "1900-01-01", "2099-01-01", "not a version"];
    for version in ["2025-03-26", "2025-06-18", "2025-11-25"]
        .into_iter()
        .chain(unsupported)
    {
        let response = mcp(&client, &server)
            .header("mcp-protocol-version", version)
            .body(ping.clone())
            .send()
            .await
            .expect("request");
        if !unsupported.contains(&version) {
            assert_eq!(response.status(), StatusCode::OK, "{version}");
            continue;
        }
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{version}");
        assert_eq!(
            response.json::<Value>().await.expect("json"),
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Unsupported MCP-Protocol-Version"}}),
            "{version}"
        );
    }

    // Malformed, batched and invalid messages.
    let cases: [(&str, i64); 6] = [
        ("{not json", -32700),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, -32600),
        (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#, -32600),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}"#,
            -32600,
        ),
        (r#"{"jsonrpc":"2.0","id":1,"method":"ping","x":1}"#, -32600),
    ];
    for (body, code) in cases {
        let response = mcp(&client, &server)
            .body(body)
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{body}");
        let answer: Value = response.json().await.expect("json");
        assert_eq!(answer["error"]["code"], code, "{body}");
        assert_eq!(answer["id"], Value::Null);
    }

    // Oversized: the server's body limit (1 MiB by default).
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x".repeat(1_100_000)}});
    let response = mcp(&client, &server)
        .body(big.to_string())
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_error_body(&response.json().await.expect("json"), "PAYLOAD_TOO_LARGE");

    // Notifications and responses: 202, empty.
    for body in [
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": "s1", "result": {}}),
        json!({"jsonrpc": "2.0", "id": "s2", "error": {"code": -1, "message": "no"}}),
    ] {
        let response = mcp(&client, &server)
            .body(body.to_string())
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), StatusCode::ACCEPTED, "{body}");
        assert!(response.bytes().await.expect("body").is_empty());
    }
}

#[tokio::test]
async fn methods_and_json_rpc_errors() {
    let client = portos_tests::http_client();
    let server = enabled_server(&client, &json!({})).await;
    let init = |version: &str| {
        json!({"jsonrpc": "2.0", "id": "i", "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}})
    };
    for version in ["2025-03-26", "2025-06-18", "2025-11-25"] {
        let answer = rpc(&client, &server, &init(version)).await;
        assert_eq!(answer["result"]["protocolVersion"], version);
    }
    let answer = rpc(&client, &server, &init("1999-01-01")).await;
    assert_eq!(answer["id"], "i");
    let result = &answer["result"];
    assert_eq!(result["protocolVersion"], "2025-11-25");
    // Log messages reach a session that asks for them; PortOS offers its
    // context items as resources and the brain review as a prompt; its
    // session stream tells of list changes and subscribed resources.
    assert_eq!(
        result["capabilities"],
        json!({"tools": {"listChanged": true}, "logging": {},
               "resources": {"listChanged": true, "subscribe": true},
               "prompts": {"listChanged": true}})
    );
    assert_eq!(
        result["serverInfo"],
        json!({"name": "PortOS Agent Tools", "version": "1"})
    );
    assert!(
        result["instructions"]
            .as_str()
            .is_some_and(|t| t.contains("context_profile"))
    );

    let bad_init = json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": ""}}});
    let answer = rpc(&client, &server, &bad_init).await;
    assert_eq!(
        answer["error"],
        json!({"code": -32602, "message": "Invalid initialize params"})
    );

    let answer = rpc(
        &client,
        &server,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}),
    )
    .await;
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 3, "result": {}}));

    // A 2025 subscription needs its uri (docs/mcp.md "Listening for changes").
    let answer = rpc(
        &client,
        &server,
        &json!({"jsonrpc": "2.0", "id": 4, "method": "resources/subscribe"}),
    )
    .await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");

    for method in ["resources/watch", "server/discover", "tools/unknown"] {
        let answer = rpc(
            &client,
            &server,
            &json!({"jsonrpc": "2.0", "id": 4, "method": method}),
        )
        .await;
        assert_eq!(
            answer["error"],
            json!({"code": -32601, "message": "Method not found"}),
            "{method}"
        );
        assert_eq!(answer["id"], 4);
    }

    let answer = rpc(
        &client,
        &server,
        &json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"cursor": "next"}}),
    )
    .await;
    assert_eq!(
        answer["error"],
        json!({"code": -32602, "message": "Invalid tools/list params"})
    );

    let answer = rpc(
        &client,
        &server,
        &json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}),
    )
    .await;
    let names = tool_names(&answer["result"]["tools"]);
    assert_eq!(
        &names[..5],
        [
            "search_context",
            "get_context",
            "list_context",
            "resolve_navigation",
            "context_profile"
        ]
    );
    assert!(names.contains(&"time_now".to_owned()), "{names:?}");
    assert!(
        !names.contains(&"brain_capture".to_owned()),
        "writePortos is not granted: {names:?}"
    );
    let context_tool = &answer["result"]["tools"][0];
    assert_eq!(
        context_tool["annotations"],
        json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
    );
    assert!(context_tool["outputSchema"].is_object() && context_tool["title"].is_string());

    for params in [
        json!({}),
        json!({"name": ""}),
        json!({"name": "time_now", "arguments": [1]}),
        json!({"name": "time_now", "x": 1}),
    ] {
        let answer = rpc(
            &client,
            &server,
            &json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": params}),
        )
        .await;
        assert_eq!(
            answer["error"],
            json!({"code": -32602, "message": "Invalid tools/call params"}),
            "{params}"
        );
    }
}

#[tokio::test]
async fn tool_results_grants_and_idempotency() {
    let client = portos_tests::http_client();
    let server = enabled_server(&client, &json!({})).await;

    // A granted semantic tool, by provider name and by canonical name.
    let result = call_tool(&client, &server, "time_now", &json!({})).await;
    assert!(result.get("isError").is_none(), "{result}");
    let envelope = &result["structuredContent"];
    assert_eq!(envelope["type"], "portos_tool_result");
    assert_eq!(envelope["name"], "time.now");
    assert_eq!(envelope["state"], "completed");
    assert!(
        envelope["requestId"]
            .as_str()
            .is_some_and(|id| id.starts_with("agent-mcp:") && id.len() > 40)
    );
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().expect("text"))
        .expect("json text");
    assert_eq!(&text, envelope);
    let result = call_tool(&client, &server, "time.now", &json!({})).await;
    assert_eq!(result["structuredContent"]["state"], "completed");

    // Ungranted and unknown tools.
    let result = call_tool(&client, &server, "brain_capture", &json!({"text": "x"})).await;
    assert_eq!(
        error_text(&result),
        "Unknown or ungranted tool: brain_capture"
    );
    let result = call_tool(&client, &server, "no_such_tool", &json!({})).await;
    assert_eq!(
        error_text(&result),
        "Unknown or ungranted tool: no_such_tool"
    );
    // Registry refusals (schema) are results with the registry's message.
    let result = call_tool(&client, &server, "time_now", &json!({"bogus": 1})).await;
    assert!(
        error_text(&result).contains("Invalid arguments"),
        "{result}"
    );

    // Idempotency-Key: the same key replays, another call is fresh.
    let send = |key: &'static str| {
        mcp(&client, &server)
            .header("idempotency-key", key)
            .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "time_now"}}).to_string())
            .send()
    };
    let first: Value = send("key-1")
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    let second: Value = send("key-1")
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    let first = &first["result"]["structuredContent"];
    let second = &second["result"]["structuredContent"];
    assert_eq!(first["requestId"], "agent-mcp:key-1");
    assert_eq!(first["duplicate"], false);
    assert_eq!(second["duplicate"], true);
    assert_eq!(first["result"], second["result"]);
    // An Idempotency-Key that cannot be a requestId: refused as a result.
    let bad: Value = send("bad key!")
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert!(error_text(&bad["result"]).contains("requestId"), "{bad}");

    // Context tools.
    let profile = call_tool(&client, &server, "context_profile", &json!({})).await;
    assert_eq!(profile["structuredContent"]["profile"], "metadata");
    assert_eq!(profile["structuredContent"]["actions"]["readPortos"], true);
    let result = call_tool(&client, &server, "context_profile", &json!({"x": 1})).await;
    assert_eq!(error_text(&result), "Invalid tool input at: x");
    let result = call_tool(
        &client,
        &server,
        "search_context",
        &json!({"query": " ", "limit": 99}),
    )
    .await;
    assert_eq!(error_text(&result), "Invalid tool input at: query, limit");
    let result = call_tool(
        &client,
        &server,
        "search_context",
        &json!({"query": "openapi", "scopes": ["brain"]}),
    )
    .await;
    assert_eq!(
        error_text(&result),
        "Context source unavailable for this request."
    );
    let found = call_tool(
        &client,
        &server,
        "search_context",
        &json!({"query": "openapi"}),
    )
    .await;
    let found = &found["structuredContent"];
    assert_eq!(found["total"], 2, "{found}");
    assert_eq!(found["truncated"], false);
    assert_eq!(found["sourceTruncated"], false);
    assert_eq!(found["sourceStatus"], "fresh");
    let reference = found["items"][0]["ref"].as_str().expect("ref").to_owned();
    let got = call_tool(&client, &server, "get_context", &json!({"ref": reference})).await;
    assert_eq!(got["structuredContent"]["item"], found["items"][0]);
    let got = call_tool(
        &client,
        &server,
        "get_context",
        &json!({"ref": "brain:inbox:abc"}),
    )
    .await;
    assert_eq!(
        got["structuredContent"],
        json!({"item": null, "sourceTruncated": false, "sourceStatus": "fresh"})
    );
    let page = call_tool(
        &client,
        &server,
        "list_context",
        &json!({"scope": "navigation", "limit": 5}),
    )
    .await;
    assert_eq!(page["structuredContent"]["nextCursor"], 5);
    assert_eq!(
        page["structuredContent"]["items"].as_array().map(Vec::len),
        Some(5)
    );
    let workspaces = call_tool(
        &client,
        &server,
        "list_context",
        &json!({"scope": "workspaces"}),
    )
    .await;
    assert_eq!(workspaces["structuredContent"]["total"], 0);
    assert_eq!(workspaces["structuredContent"]["nextCursor"], Value::Null);
    let resolved = call_tool(
        &client,
        &server,
        "resolve_navigation",
        &json!({"query": "api explorer"}),
    )
    .await;
    assert_eq!(resolved["structuredContent"]["match"]["path"], "/explorer");
    let none = call_tool(
        &client,
        &server,
        "resolve_navigation",
        &json!({"query": "quantum flux"}),
    )
    .await;
    assert_eq!(
        none["structuredContent"],
        json!({"match": null, "sourceStatus": "fresh"})
    );
}

#[tokio::test]
async fn brain_records_metadata_never_shows_text_and_summary_redacts() {
    let client = portos_tests::http_client();
    let server = enabled_server(
        &client,
        &json!({"scopes": ["brain", "identity"], "actions": {"readPortos": true, "writePortos": true}}),
    )
    .await;
    let captured = call_tool(
        &client,
        &server,
        "brain_capture",
        &json!({"text": "Call zelda@example.com about the falcon plan"}),
    )
    .await;
    assert_eq!(
        captured["structuredContent"]["state"], "completed",
        "{captured}"
    );

    // resolve_navigation is not advertised without the navigation scope.
    let list = rpc(
        &client,
        &server,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    )
    .await;
    assert!(!tool_names(&list["result"]["tools"]).contains(&"resolve_navigation".to_owned()));
    let refused = call_tool(
        &client,
        &server,
        "resolve_navigation",
        &json!({"query": "x"}),
    )
    .await;
    assert_eq!(error_text(&refused), "Tool requires the navigation scope.");

    let found = call_tool(
        &client,
        &server,
        "search_context",
        &json!({"query": "FALCON"}),
    )
    .await;
    let text = found["content"][0]["text"]
        .as_str()
        .expect("text")
        .to_owned();
    assert_eq!(found["structuredContent"]["total"], 1);
    let item = &found["structuredContent"]["items"][0];
    assert_eq!(item["kind"], "inbox");
    assert_eq!(item["title"], "inbox record");
    assert_eq!(item["summary"], "Read-only inbox record metadata.");
    assert!(
        item["ref"]
            .as_str()
            .is_some_and(|r| r.starts_with("brain:inbox:") && r.len() == "brain:inbox:".len() + 20)
    );
    assert!(
        !text.contains("falcon") && !text.contains("zelda"),
        "{text}"
    );

    let identity = call_tool(
        &client,
        &server,
        "get_context",
        &json!({"ref": "identity:section:brain-inbox"}),
    )
    .await;
    assert_eq!(
        identity["structuredContent"]["item"]["summary"],
        "Present in the local identity export; raw records are excluded."
    );

    let (status, _) = put_settings(
        &client,
        &server,
        &json!({"enabled": true, "profile": "summary", "scopes": ["brain"], "actions": {"readPortos": true}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let found = call_tool(
        &client,
        &server,
        "search_context",
        &json!({"query": "falcon"}),
    )
    .await;
    let item = &found["structuredContent"]["items"][0];
    assert_eq!(
        item["summary"],
        "Call [REDACTED EMAIL] about the falcon plan"
    );
    // Revoked grants take effect at once.
    let revoked = call_tool(&client, &server, "brain_capture", &json!({"text": "again"})).await;
    assert_eq!(
        error_text(&revoked),
        "Unknown or ungranted tool: brain_capture"
    );
}

#[tokio::test]
async fn source_cap_and_response_budget() {
    // 1005 long records written to the store before the server starts.
    let data_dir = tempfile::tempdir().expect("temp dir");
    let store = portos_tests::open_store(data_dir.path());
    store
        .run_blocking(|connection| {
            // Backslashes double in JSON: items big enough for the budget.
            let long = "\\".repeat(400);
            for seq in 1..=1005_i64 {
                connection.execute(
                    "INSERT INTO brain_captures (id, text, captured_at, local_date, seq) VALUES (?1, ?2, '2026-01-01T00:00:00Z', '2026-01-01', ?3)",
                    (format!("id-{seq}"), format!("note {seq} lorem {long}"), seq),
                )?;
            }
            Ok(())
        })
        .expect("rows");
    drop(store);
    let server = ServerProcess::start_in(data_dir, &[]);
    let client = portos_tests::http_client();
    let (status, _) = put_settings(
        &client,
        &server,
        &json!({"enabled": true, "profile": "summary", "scopes": ["brain"]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let found = call_tool(
        &client,
        &server,
        "search_context",
        &json!({"query": "lorem", "limit": 25}),
    )
    .await;
    let found = &found["structuredContent"];
    assert_eq!(found["total"], 1000, "capped at maxSourceItems");
    assert_eq!(found["sourceTruncated"], true);
    assert_eq!(found["truncated"], true);
    let items = found["items"].as_array().expect("items");
    let size = serde_json::to_string(items).expect("json").chars().count();
    assert!(
        items.len() < 25 && size <= 20_000,
        "{} items, {size} chars",
        items.len()
    );
    assert!(items.iter().all(|i| {
        i["summary"]
            .as_str()
            .is_some_and(|s| s.chars().count() <= 320)
    }));
}

#[tokio::test]
async fn hostile_origin_and_host_rebinding_are_refused() {
    let client = portos_tests::http_client();
    let server = enabled_server(&client, &json!({})).await;
    for origin in [
        "https://evil.example",
        "null",
        "http://127.0.0.1.evil.example",
        "not a url",
    ] {
        let response = mcp(&client, &server)
            .header("origin", origin)
            .body(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string())
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{origin}");
        assert_error_body(
            &response.json().await.expect("json"),
            "AGENT_CONTEXT_ORIGIN_REJECTED",
        );
        let response = client
            .get(server.url("/api/agent-context/manifest"))
            .header("origin", origin)
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{origin}");
        assert_error_body(
            &response.json().await.expect("json"),
            "AGENT_CONTEXT_ORIGIN_REJECTED",
        );
    }
    // Loopback origins pass.
    for origin in [
        "http://localhost:3000",
        "http://127.0.0.1",
        "http://[::1]:8080",
    ] {
        let response = mcp(&client, &server)
            .header("origin", origin)
            .body(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string())
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), StatusCode::OK, "{origin}");
    }
    // DNS rebinding: a loopback peer, but the request names another host.
    let port = server.base_url.rsplit(':').next().expect("port").to_owned();
    for host in [format!("evil.example:{port}"), "attacker.test".to_owned()] {
        for path in ["/api/agent-context/manifest", "/api/agent-context/mcp"] {
            let request = if path.ends_with("mcp") {
                mcp(&client, &server)
                    .body(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string())
            } else {
                client.get(server.url(path))
            };
            let response = request.header("host", &host).send().await.expect("request");
            assert_eq!(response.status(), StatusCode::FORBIDDEN, "{host} {path}");
            assert_error_body(
                &response.json().await.expect("json"),
                "AGENT_CONTEXT_HOST_REJECTED",
            );
        }
    }
    let response = client
        .get(server.url("/api/agent-context/manifest"))
        .header("host", format!("localhost:{port}"))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn the_password_gate_applies() {
    let data_dir = tempfile::tempdir().expect("temp dir");
    let server =
        ServerProcess::start_with_env(data_dir, &[], &[("PORTOS_PASSWORD", "pw-mcp-test")]);
    let client = portos_tests::http_client();
    let response = client
        .put(server.url("/api/settings/agent-context"))
        .basic_auth("portos", Some("pw-mcp-test"))
        .json(&json!({"enabled": true}))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK);
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    let response = mcp(&client, &server)
        .body(ping.clone())
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert_error_body(&response.json().await.expect("json"), "AUTH_REQUIRED");
    let response = mcp(&client, &server)
        .basic_auth("portos", Some("pw-mcp-test"))
        .body(ping)
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK);
}

/// The machine's first non-loopback IPv4 address (from `ip -4 addr`).
fn non_loopback_address() -> Option<IpAddr> {
    let output = Command::new("ip")
        .args(["-4", "-o", "addr", "show"])
        .output()
        .ok()?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().skip_while(|w| *w != "inet").nth(1))
        .filter_map(|cidr| cidr.split('/').next()?.parse::<IpAddr>().ok())
        .find(|ip| !ip.is_loopback())
}

/// `portos --bind 0.0.0.0:0`, killed on drop.
struct WildcardServer {
    child: Child,
    port: u16,
    _data_dir: tempfile::TempDir,
}

impl WildcardServer {
    fn start() -> WildcardServer {
        WildcardServer::start_with(&[])
    }

    fn start_with(args: &[&str]) -> WildcardServer {
        let data_dir = tempfile::tempdir().expect("temp dir");
        let mut child = portos_command()
            .args(["--bind", "0.0.0.0:0", "--data-dir"])
            .arg(data_dir.path())
            .args(args)
            .args(test_postgres::database_args(data_dir.path()))
            .env("RUST_LOG", "info")
            .env_remove("PORTOS_PASSWORD")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("portos starts");
        let stderr = child.stderr.take().expect("stderr");
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("listening on http://0.0.0.0:").nth(1) {
                    let port: String = rest.chars().take_while(char::is_ascii_digit).collect();
                    let _ = sender.send(port);
                }
            }
        });
        let port = receiver
            .recv_timeout(Duration::from_secs(60))
            .expect("portos reports its port")
            .parse()
            .expect("a port");
        WildcardServer {
            child,
            port,
            _data_dir: data_dir,
        }
    }
}

impl Drop for WildcardServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The address to connect from as a non-loopback peer, or `None` when the
/// run asks to skip such tests (said on stderr, so a skipped run is visible
/// in the test log). A machine without one fails the test.
#[allow(clippy::print_stderr)]
fn non_loopback_peer_or_skip() -> Option<IpAddr> {
    if std::env::var_os("PORTOS_TEST_SKIP_NON_LOOPBACK").is_some() {
        eprintln!("skipped: PORTOS_TEST_SKIP_NON_LOOPBACK is set");
        return None;
    }
    let Some(address) = non_loopback_address() else {
        panic!(
            "this machine has no non-loopback IPv4 address to connect from; \
             add one (e.g. a dummy interface) or set PORTOS_TEST_SKIP_NON_LOOPBACK=1"
        );
    };
    Some(address)
}

#[tokio::test]
async fn a_non_loopback_peer_is_refused() {
    let Some(address) = non_loopback_peer_or_skip() else {
        return;
    };
    let server = WildcardServer::start();
    let local = portos_tests::http_client();
    let loopback = format!("http://127.0.0.1:{}", server.port);
    let response = local
        .put(format!("{loopback}/api/settings/agent-context"))
        .json(&json!({"enabled": true}))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK);
    let ok = local
        .get(format!("{loopback}/api/agent-context/manifest"))
        .send()
        .await
        .expect("request");
    assert_eq!(ok.status(), StatusCode::OK);

    // The same server, reached from the machine's own non-loopback address:
    // a real non-loopback peer. Even a loopback Host header does not help.
    let remote = portos_tests::http_client_builder()
        .local_address(address)
        .build()
        .expect("client");
    let base = format!("http://{address}:{}", server.port);
    for (method, path) in [
        (reqwest::Method::GET, "/api/agent-context/manifest"),
        (reqwest::Method::POST, "/api/agent-context/mcp"),
        (reqwest::Method::GET, "/api/agent-context/mcp"),
    ] {
        let response = remote
            .request(method.clone(), format!("{base}{path}"))
            .header("host", format!("127.0.0.1:{}", server.port))
            .header("accept", ACCEPT)
            .body(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string())
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{method} {path}");
        assert_error_body(
            &response.json().await.expect("json"),
            "AGENT_CONTEXT_LOCAL_ONLY",
        );
    }
    // Other routes still answer that peer (only Agent Tools is local-only).
    let health = remote
        .get(format!("{base}/api/system/health"))
        .send()
        .await
        .expect("request");
    assert_eq!(health.status(), StatusCode::OK);
}

/// Remote mode (docs/remote.md): the same non-loopback peer is served with
/// an access token from the configured issuer, and what its call records
/// names the token's subject.
#[tokio::test]
async fn in_remote_mode_a_token_holder_is_served_from_any_address_and_recorded() {
    use portos_server::testing::issuer::{TestIssuer, TestKey};
    let Some(address) = non_loopback_peer_or_skip() else {
        return;
    };
    let key = TestKey::es256("k1");
    let issuer = TestIssuer::start(&[&key]).await;
    // The resource is this machine's address, as a client elsewhere names it.
    let resource = format!("https://{address}/api/agent-context/mcp");
    let server = WildcardServer::start_with(&[
        "--remote-issuer",
        &issuer.issuer,
        "--remote-resource",
        &resource,
        "--outbound-only",
        "loopback",
    ]);
    let local = portos_tests::http_client();
    let loopback = format!("http://127.0.0.1:{}", server.port);
    let response = local
        .put(format!("{loopback}/api/settings/agent-context"))
        .json(&json!({"enabled": true, "actions": {"readPortos": true, "writePortos": true}}))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK);

    let remote = portos_tests::http_client_builder()
        .local_address(address)
        .build()
        .expect("client");
    let endpoint = format!("http://{address}:{}/api/agent-context/mcp", server.port);
    let capture = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "brain_capture", "arguments": {"text": "Order more coffee"}}});
    let anonymous = remote
        .post(&endpoint)
        .header("accept", ACCEPT)
        .json(&capture)
        .send()
        .await
        .expect("request");
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    assert!(anonymous.headers().contains_key("www-authenticate"));

    let token = issuer.token(&key, &resource, "readPortos writePortos");
    let answer: Value = remote
        .post(&endpoint)
        .bearer_auth(&token)
        .header("accept", ACCEPT)
        .json(&capture)
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("JSON-RPC");
    assert_eq!(
        answer["result"]["structuredContent"]["state"], "completed",
        "{answer}"
    );

    // The ledger row of that capture names the token's subject.
    let actions: Value = local
        .get(format!("{loopback}/api/user-actions?type=brain.capture"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("JSON");
    let listed = actions["events"].as_array().expect("events");
    assert_eq!(listed.len(), 1, "{actions}");
    assert_eq!(listed[0]["payload"]["subject"], "user-1", "{actions}");
}

/// Workspaces are the runnable apps of the roster (not the app names found
/// on tasks), each with how many CoS tasks name it.
#[tokio::test]
async fn workspaces_are_the_runnable_apps_of_the_roster() {
    let client = portos_tests::http_client();
    let server = enabled_server(
        &client,
        &json!({"profile": "summary", "scopes": ["workspaces"]}),
    )
    .await;
    for app in [
        json!({"id": "portos", "name": "PortOS", "repoPath": "/srv/portos"}),
        json!({"id": "idea", "name": "Idea"}),
        json!({"id": "old", "name": "Old", "repoPath": "/srv/old"}),
    ] {
        let response = client
            .post(server.url("/api/apps"))
            .json(&app)
            .send()
            .await
            .expect("app");
        assert_eq!(response.status(), StatusCode::CREATED);
    }
    let response = client
        .put(server.url("/api/apps/old"))
        .json(&json!({"archived": true}))
        .send()
        .await
        .expect("archive");
    assert_eq!(response.status(), StatusCode::OK);
    for (description, app) in [
        ("Ship it", "portos"),
        ("Again", "portos"),
        ("Elsewhere", "ghost"),
    ] {
        let response = client
            .post(server.url("/api/cos/tasks"))
            .json(&json!({"description": description, "app": app}))
            .send()
            .await
            .expect("task");
        assert_eq!(response.status(), StatusCode::CREATED);
    }
    let listed = call_tool(
        &client,
        &server,
        "list_context",
        &json!({"scope": "workspaces"}),
    )
    .await;
    let listed = &listed["structuredContent"];
    assert_eq!(listed["total"], 1, "only the runnable app: {listed}");
    assert_eq!(listed["items"][0]["title"], "PortOS");
    assert_eq!(
        listed["items"][0]["summary"],
        "Active workspace with 2 tasks."
    );
}
