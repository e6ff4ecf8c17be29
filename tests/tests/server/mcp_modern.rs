//! Agent Tools MCP at revision 2026-07-28 over real HTTP, beside the 2025
//! revisions on the same endpoint: `server/discover`, the per-request
//! `_meta`, the headers that mirror the body and the order they are checked
//! in, `resultType` and caching hints, the methods the revision removed, and
//! the guards every revision shares.

use portos_tests::ServerProcess;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

const ACCEPT: &str = "application/json, text/event-stream";

/// A request header: (name, value).
type Header<'a> = (&'a str, &'a str);
const VERSION: &str = "2026-07-28";

fn meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "portos-tests", "version": "1"},
    })
}

/// A request as a 2026 client sends it; `headers` are (name, value) pairs
/// on top of Accept and Content-Type.
async fn post(
    client: &Client,
    server: &ServerProcess,
    headers: &[(&str, &str)],
    body: &Value,
) -> (StatusCode, Value) {
    let mut request = client
        .post(server.url("/api/agent-context/mcp"))
        .header("accept", ACCEPT)
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request
        .body(body.to_string())
        .send()
        .await
        .expect("request");
    let status = response.status();
    let text = response.text().await.expect("body");
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or_else(|error| panic!("{text}: {error}"))
    };
    (status, body)
}

/// A well-formed 2026 request: `_meta` in the body, the mirrored headers.
async fn modern(
    client: &Client,
    server: &ServerProcess,
    id: u64,
    method: &str,
    mut params: Value,
) -> (StatusCode, Value) {
    params["_meta"] = meta(VERSION);
    let name = params["name"].as_str().map(str::to_owned);
    let mut headers = vec![("mcp-protocol-version", VERSION), ("mcp-method", method)];
    if let Some(name) = &name {
        headers.push(("mcp-name", name));
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    post(client, server, &headers, &body).await
}

fn assert_rpc_error(status: StatusCode, body: &Value, expected: StatusCode, code: i64, id: u64) {
    assert_eq!(status, expected, "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    assert_eq!(
        body["id"], id,
        "every refusal echoes the request id: {body}"
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{body}"
    );
}

fn server_info_of(result: &Value) -> &Value {
    &result["_meta"]["io.modelcontextprotocol/serverInfo"]
}

async fn enabled_server(client: &Client) -> ServerProcess {
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

#[tokio::test]
async fn discover_lists_and_calls() {
    let client = portos_tests::http_client();
    let server = enabled_server(&client).await;

    let (status, body) = modern(&client, &server, 1, "server/discover", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let discovered = &body["result"];
    assert_eq!(discovered["resultType"], "complete");
    assert_eq!(discovered["supportedVersions"], json!([VERSION]));
    assert!(discovered["capabilities"]["tools"].is_object(), "{body}");
    assert!(discovered["ttlMs"].as_u64().is_some(), "{body}");
    assert_eq!(discovered["cacheScope"], "public");
    assert_eq!(server_info_of(discovered)["name"], "PortOS Agent Tools");
    assert!(server_info_of(discovered)["version"].is_string());
    assert!(discovered["instructions"].is_string());

    // The same tools as a 2025 client sees, in the same order, every time.
    let (status, body) = modern(&client, &server, 2, "tools/list", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let listed = &body["result"];
    assert_eq!(listed["resultType"], "complete");
    assert_eq!(listed["ttlMs"], 0);
    assert_eq!(listed["cacheScope"], "public");
    assert!(server_info_of(listed).is_object());
    let legacy = post(
        &client,
        &server,
        &[],
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
    )
    .await
    .1;
    assert_eq!(listed["tools"], legacy["result"]["tools"]);
    let again = modern(&client, &server, 4, "tools/list", json!({})).await.1;
    assert_eq!(again["result"]["tools"], listed["tools"]);
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(names.contains(&"time_now"), "{names:?}");

    let (status, body) = modern(
        &client,
        &server,
        5,
        "tools/call",
        json!({"name": "time_now", "arguments": {}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let called = &body["result"];
    assert_eq!(called["resultType"], "complete");
    assert!(called.get("isError").is_none(), "{body}");
    assert_eq!(called["structuredContent"]["state"], "completed");
    assert_eq!(called["structuredContent"]["name"], "time.now");
    let text = called["content"][0]["text"].as_str().expect("text");
    assert_eq!(
        serde_json::from_str::<Value>(text).expect("the text is the envelope"),
        called["structuredContent"]
    );
    assert!(server_info_of(called).is_object());

    // A tool that is not granted is a failed result, as in 2025.
    let (status, body) = modern(
        &client,
        &server,
        6,
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["resultType"], "complete");
    assert_eq!(body["result"]["isError"], true);

    // A page cursor was never issued.
    let (status, body) = modern(&client, &server, 7, "tools/list", json!({"cursor": "x"})).await;
    assert_rpc_error(status, &body, StatusCode::BAD_REQUEST, -32602, 7);
}

#[tokio::test]
async fn metadata_then_headers_then_version() {
    let client = portos_tests::http_client();
    let server = enabled_server(&client).await;
    let headers = [
        ("mcp-protocol-version", VERSION),
        ("mcp-method", "server/discover"),
    ];
    let discover = |id: u64, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": "server/discover", "params": params});

    // The metadata every request carries.
    let (status, body) = post(&client, &server, &headers, &discover(101, json!({}))).await;
    assert_rpc_error(status, &body, StatusCode::BAD_REQUEST, -32602, 101);
    let no_version = json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}});
    let (status, body) = post(&client, &server, &headers, &discover(102, no_version)).await;
    assert_rpc_error(status, &body, StatusCode::BAD_REQUEST, -32602, 102);
    let no_capabilities = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": VERSION}});
    let (status, body) = post(&client, &server, &headers, &discover(104, no_capabilities)).await;
    assert_rpc_error(status, &body, StatusCode::BAD_REQUEST, -32602, 104);
    // clientInfo is not required.
    let minimal = json!({"_meta": {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
    }});
    let (status, body) = post(&client, &server, &headers, &discover(105, minimal)).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    // A header naming a served version over a body naming another: a
    // mismatch, checked before the version.
    let v999 = json!({"_meta": meta("v999.0.0")});
    let (status, body) = post(&client, &server, &headers, &discover(106, v999.clone())).await;
    assert_rpc_error(status, &body, StatusCode::BAD_REQUEST, -32020, 106);
    // Both naming an unknown version: refused with the versions served.
    let unknown = [
        ("mcp-protocol-version", "v999.0.0"),
        ("mcp-method", "server/discover"),
    ];
    let (status, body) = post(&client, &server, &unknown, &discover(107, v999)).await;
    assert_rpc_error(status, &body, StatusCode::BAD_REQUEST, -32022, 107);
    assert_eq!(body["error"]["data"]["supported"], json!([VERSION]));
    assert_eq!(body["error"]["data"]["requested"], "v999.0.0");

    // Mcp-Method and Mcp-Name mirror the body; names are decoded from base64.
    let call = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "time_now", "arguments": {}, "_meta": meta(VERSION)}})
    };
    let cases: [(&[Header<'_>], Option<i64>); 6] = [
        (
            &[
                ("mcp-protocol-version", VERSION),
                ("mcp-method", "tools/call"),
                ("mcp-name", "time_now"),
            ],
            None,
        ),
        (
            &[
                ("MCP-PROTOCOL-VERSION", VERSION),
                ("MCP-METHOD", " tools/call "),
                ("MCP-NAME", "=?base64?dGltZV9ub3c=?="),
            ],
            None,
        ),
        (
            &[
                ("mcp-protocol-version", VERSION),
                ("mcp-method", "tools/call"),
            ],
            Some(-32020),
        ),
        (
            &[
                ("mcp-protocol-version", VERSION),
                ("mcp-method", "tools/call"),
                ("mcp-name", "TIME_NOW"),
            ],
            Some(-32020),
        ),
        (
            &[
                ("mcp-protocol-version", VERSION),
                ("mcp-method", "tools/list"),
                ("mcp-name", "time_now"),
            ],
            Some(-32020),
        ),
        (
            &[("mcp-method", "tools/call"), ("mcp-name", "time_now")],
            Some(-32020),
        ),
    ];
    for (index, (headers, refused)) in cases.iter().enumerate() {
        let id = 200 + index as u64;
        let (status, body) = post(&client, &server, headers, &call(id)).await;
        match refused {
            None => {
                assert_eq!(status, StatusCode::OK, "{headers:?}: {body}");
                assert_eq!(body["result"]["structuredContent"]["state"], "completed");
            }
            Some(code) => assert_rpc_error(status, &body, StatusCode::BAD_REQUEST, *code, id),
        }
    }
}

#[tokio::test]
async fn removed_methods_are_not_found_and_2025_stays_served() {
    let client = portos_tests::http_client();
    let server = enabled_server(&client).await;
    for (index, method) in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "tasks/list",
        "unknown/method",
    ]
    .into_iter()
    .enumerate()
    {
        let id = 300 + index as u64;
        let (status, body) = modern(&client, &server, id, method, json!({})).await;
        assert_rpc_error(status, &body, StatusCode::NOT_FOUND, -32601, id);
    }

    // A notification is accepted with nothing to say.
    let (status, body) = post(
        &client,
        &server,
        &[
            ("mcp-protocol-version", VERSION),
            ("mcp-method", "notifications/cancelled"),
        ],
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
    )
    .await;
    assert_eq!((status, body), (StatusCode::ACCEPTED, Value::Null));

    // The 2025 handshake on the same endpoint, with or without its header.
    for headers in [&[][..], &[("mcp-protocol-version", "2025-11-25")][..]] {
        let (status, body) = post(
            &client,
            &server,
            headers,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}}),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["result"]["protocolVersion"], "2025-11-25");
        assert!(body["result"].get("resultType").is_none(), "{body}");
    }
    // A 2025 client probing `server/discover` gets the 2025 answer (method
    // not found, status 200) and falls back to `initialize`.
    let (status, body) = post(
        &client,
        &server,
        &[],
        &json!({"jsonrpc": "2.0", "id": 9, "method": "server/discover"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["error"]["code"], -32601);
    // A 2026 body without its headers is told which header is missing.
    let (status, body) = post(
        &client,
        &server,
        &[],
        &json!({"jsonrpc": "2.0", "id": 10, "method": "server/discover", "params": {"_meta": meta(VERSION)}}),
    )
    .await;
    assert_rpc_error(status, &body, StatusCode::BAD_REQUEST, -32020, 10);
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("MCP-Protocol-Version")),
        "{body}"
    );
}

#[tokio::test]
async fn the_guards_apply_to_every_revision() {
    let client = portos_tests::http_client();
    // Agent Tools off (the default): refused before the revision is looked at.
    let server = ServerProcess::start(&[]);
    let (status, body) = modern(&client, &server, 1, "server/discover", json!({})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "AGENT_CONTEXT_DISABLED");

    let server = enabled_server(&client).await;
    let mut params = json!({"_meta": meta(VERSION)});
    params["_meta"]["x"] = json!(1);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": params});
    let headers = [
        ("mcp-protocol-version", VERSION),
        ("mcp-method", "server/discover"),
        ("origin", "https://evil.example"),
    ];
    let (status, body) = post(&client, &server, &headers, &body).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "AGENT_CONTEXT_ORIGIN_REJECTED");
    // GET and DELETE: no stream, no session, in either era.
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let response = client
            .request(method, server.url("/api/agent-context/mcp"))
            .header("mcp-protocol-version", VERSION)
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    }
}
