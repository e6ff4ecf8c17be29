//! Telemetry of the real binary (docs/observability.md): spans exported
//! over OTLP/HTTP to a stand-in collector that decodes them with the
//! official protobuf definitions, checked against OpenTelemetry's HTTP, MCP
//! and GenAI conventions (names, kinds, parents, links, attributes); and
//! `/metrics` read after known calls. No argument or result of any call
//! may appear in a span or a metric.

use std::time::Duration;

use portos_server::testing::otlp::{OtlpReceiver, ReceivedSpan};
use portos_tests::ServerProcess;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

use crate::mind_turns::{KEY, put, send};
use crate::scripted_model::{Answer, COMPLETION_TOKENS, PROMPT_TOKENS, ScriptedModel};

const ACCEPT: &str = "application/json, text/event-stream";
/// A note's text: personal, so never in telemetry.
const SECRET_NOTE: &str = "Ask zelda@example.com about the falcon-7c1e plan";
/// The caller's trace contexts (W3C `traceparent`).
const HTTP_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const HTTP_PARENT: &str = "00f067aa0ba902b7";
const MCP_TRACE: &str = "0af7651916cd43dd8448eb211c80319c";
const MCP_PARENT: &str = "b7ad6b7169203331";
const MODERN_TRACE: &str = "5d8f0a7e2c9b4f1e8a6d3c2b1a0f9e8d";
const MODERN_PARENT: &str = "1a2b3c4d5e6f7a8b";

fn traceparent(trace: &str, parent: &str) -> String {
    format!("00-{trace}-{parent}-01")
}

/// PortOS exporting to `receiver` (flushing every 100 ms), its Mind
/// pointed at `model`, Agent Tools on with reads and writes granted.
async fn exporting(receiver: &OtlpReceiver, model: &ScriptedModel) -> ServerProcess {
    let server = ServerProcess::start_with_env(
        tempfile::tempdir().expect("temp dir"),
        &[
            "--otlp-endpoint",
            &receiver.endpoint,
            "--mind-provider-url",
            &model.url,
            "--mind-model",
            "scripted-model",
        ],
        &[
            ("PORTOS_MIND_API_KEY", KEY),
            ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ],
    );
    model.set_portos(&server.base_url);
    put(
        &server,
        "/api/settings/agent-context",
        json!({"enabled": true, "scopes": ["brain"], "actions": {"readPortos": true, "writePortos": true}}),
    )
    .await;
    server
}

async fn mcp(
    client: &Client,
    server: &ServerProcess,
    headers: &[(&str, &str)],
    body: &Value,
) -> Value {
    let mut request = client
        .post(server.url("/api/agent-context/mcp"))
        .header("accept", ACCEPT)
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.body(body.to_string()).send().await.expect("sent");
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.expect("JSON")
}

fn named<'a>(spans: &'a [ReceivedSpan], name: &str) -> Vec<&'a ReceivedSpan> {
    spans.iter().filter(|span| span.name == name).collect()
}

fn one<'a>(spans: &'a [ReceivedSpan], name: &str, trace: &str) -> &'a ReceivedSpan {
    let found: Vec<_> = named(spans, name)
        .into_iter()
        .filter(|span| span.trace_id == trace)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one `{name}` in trace {trace}: {:#?}",
        spans
            .iter()
            .map(|s| (&s.name, &s.trace_id))
            .collect::<Vec<_>>()
    );
    found[0]
}

fn child_of<'a>(spans: &'a [ReceivedSpan], parent: &ReceivedSpan, name: &str) -> &'a ReceivedSpan {
    spans
        .iter()
        .find(|span| span.name == name && span.parent_span_id == parent.span_id)
        .unwrap_or_else(|| panic!("`{name}` under `{}`", parent.name))
}

#[tokio::test]
async fn exported_spans_follow_the_conventions_and_carry_nothing_personal() {
    let receiver = OtlpReceiver::start().await;
    let model = ScriptedModel::start(vec![
        Answer::calls(&[("call-1", "time_now", json!({}))]),
        Answer::text("It is time."),
    ])
    .await;
    let server = exporting(&receiver, &model).await;
    let client = portos_tests::http_client();

    // 1. An HTTP tool call, in the caller's trace.
    let (status, called) = send(
        client
            .post(server.url("/api/cos/tools/call"))
            .header("traceparent", traceparent(HTTP_TRACE, HTTP_PARENT))
            .json(&json!({"type": "portos_tool_call", "requestId": "otel-http-1", "name": "time.now", "arguments": {}})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{called}");
    let result_text = called["result"]["summary"]
        .as_str()
        .expect("summary")
        .to_owned();
    // 2. A refused call: its code is the span's error.
    let (status, _) = send(
        client
            .post(server.url("/api/cos/tools/call"))
            .json(&json!({"type": "portos_tool_call", "requestId": "otel-http-2", "name": "time.now", "arguments": {"zone": SECRET_NOTE}})),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // 3. MCP 2025-11-25: a write with a personal text, the trace in `_meta`.
    let captured = mcp(
        &client,
        &server,
        &[("mcp-protocol-version", "2025-11-25")],
        &json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {
            "name": "brain_capture", "arguments": {"text": SECRET_NOTE},
            "_meta": {"traceparent": traceparent(MCP_TRACE, MCP_PARENT)}}}),
    )
    .await;
    assert_eq!(
        captured["result"]["structuredContent"]["state"], "completed",
        "{captured}"
    );
    // A failed tool: a result with `isError`.
    let failed = mcp(
        &client,
        &server,
        &[],
        &json!({"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": {"name": "brain_capture", "arguments": {}}}),
    )
    .await;
    assert_eq!(failed["result"]["isError"], true, "{failed}");

    // 4. MCP 2026-07-28, the trace in `_meta` beside the revision's keys.
    let modern = mcp(
        &client,
        &server,
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "time_now"),
        ],
        &json!({"jsonrpc": "2.0", "id": "m-1", "method": "tools/call", "params": {
        "name": "time_now", "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "traceparent": traceparent(MODERN_TRACE, MODERN_PARENT),
        }}}),
    )
    .await;
    assert_eq!(
        modern["result"]["structuredContent"]["state"], "completed",
        "{modern}"
    );

    // 5. A Mind turn: one model request asking for a call, then the answer.
    put(
        &server,
        "/api/cos/mind/capabilities",
        json!({"readPortos": true}),
    )
    .await;
    let turn = crate::mind_turns::turn(&server, "What time is it?").await;
    assert_eq!(turn["state"], "completed", "{turn}");

    let spans = receiver
        .wait_for(Duration::from_secs(20), |spans| {
            named(spans, "chat scripted-model").len() == 2
                && spans
                    .iter()
                    .any(|span| span.name == "invoke_agent Persistent Mind")
        })
        .await;
    assert_eq!(receiver.refused(), 0, "every export was OTLP protobuf");
    assert!(
        spans
            .iter()
            .all(|span| span.service_name.as_deref() == Some("portos"))
    );

    // The HTTP call: the server span continues the caller's trace, the
    // registry's span and its stages beneath it.
    let request = one(&spans, "POST /api/cos/tools/call", HTTP_TRACE);
    assert_eq!(request.parent_span_id, HTTP_PARENT);
    assert_eq!(request.kind, "server");
    assert_eq!(request.text("http.request.method"), Some("POST"));
    assert_eq!(request.text("http.route"), Some("/api/cos/tools/call"));
    assert_eq!(
        request.attribute("http.response.status_code"),
        Some(&json!(200))
    );
    let tool = child_of(&spans, request, "execute_tool time.now");
    assert_eq!(tool.kind, "internal");
    assert_eq!(tool.text("gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(tool.text("gen_ai.tool.name"), Some("time.now"));
    assert_eq!(tool.text("gen_ai.tool.call.id"), Some("otel-http-1"));
    assert_eq!(tool.status, "unset");
    child_of(&spans, tool, "validate arguments");
    child_of(&spans, tool, "adapter");

    // The refusal: the contract's code as `error.type`.
    let refused = spans
        .iter()
        .find(|span| span.text("gen_ai.tool.call.id") == Some("otel-http-2"))
        .expect("the refused call's span");
    assert_eq!(refused.text("error.type"), Some("TOOL_VALIDATION_ERROR"));
    assert_eq!(refused.status, "error");

    // MCP 2025: the `_meta` context is the parent, the HTTP span a link.
    let call = one(&spans, "tools/call brain_capture", MCP_TRACE);
    assert_eq!(call.parent_span_id, MCP_PARENT);
    assert_eq!(call.kind, "server");
    assert_eq!(call.text("mcp.method.name"), Some("tools/call"));
    assert_eq!(call.text("mcp.protocol.version"), Some("2025-11-25"));
    assert_eq!(call.text("jsonrpc.request.id"), Some("41"));
    assert_eq!(call.text("gen_ai.tool.name"), Some("brain_capture"));
    assert_eq!(call.text("gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(call.text("network.transport"), Some("tcp"));
    let http = spans
        .iter()
        .find(|span| {
            span.name == "POST /api/agent-context/mcp"
                && call
                    .links
                    .contains(&(span.trace_id.clone(), span.span_id.clone()))
        })
        .expect("the MCP span links its HTTP request");
    assert_eq!(http.kind, "server");
    let write = child_of(&spans, call, "execute_tool brain.capture");
    assert!(write.text("error.type").is_none());
    // The failed call: `tool_error`, an error status.
    let failed = spans
        .iter()
        .find(|span| span.text("jsonrpc.request.id") == Some("42"))
        .expect("the failed call's span");
    assert_eq!(failed.text("error.type"), Some("tool_error"));
    assert_eq!(failed.status, "error");

    // MCP 2026-07-28.
    let modern = one(&spans, "tools/call time_now", MODERN_TRACE);
    assert_eq!(modern.parent_span_id, MODERN_PARENT);
    assert_eq!(modern.text("mcp.protocol.version"), Some("2026-07-28"));
    assert_eq!(modern.text("jsonrpc.request.id"), Some("m-1"));
    child_of(&spans, modern, "execute_tool time.now");

    // The Mind's turn: one trace, linked to the request that started it,
    // with a client span per model request and the turn's call beneath.
    let agent = named(&spans, "invoke_agent Persistent Mind")[0];
    assert_eq!(agent.parent_span_id, "", "a turn is a trace of its own");
    assert_eq!(agent.text("gen_ai.operation.name"), Some("invoke_agent"));
    assert_eq!(agent.text("gen_ai.conversation.id"), turn["id"].as_str());
    let started_by = spans
        .iter()
        .find(|span| {
            agent
                .links
                .contains(&(span.trace_id.clone(), span.span_id.clone()))
        })
        .expect("the turn links the request that started it");
    assert_eq!(started_by.name, "POST /api/cos/mind/turns");
    let chats = named(&spans, "chat scripted-model");
    for chat in &chats {
        assert_eq!(chat.trace_id, agent.trace_id);
        assert_eq!(chat.parent_span_id, agent.span_id);
        assert_eq!(chat.kind, "client");
        assert_eq!(chat.text("gen_ai.operation.name"), Some("chat"));
        assert_eq!(chat.text("gen_ai.provider.name"), Some("openai"));
        assert_eq!(chat.text("gen_ai.request.model"), Some("scripted-model"));
        assert_eq!(chat.text("gen_ai.response.model"), Some("scripted-model"));
        assert_eq!(
            chat.attribute("gen_ai.usage.input_tokens"),
            Some(&json!(PROMPT_TOKENS))
        );
        assert_eq!(
            chat.attribute("gen_ai.usage.output_tokens"),
            Some(&json!(COMPLETION_TOKENS))
        );
        // The HTTP request to the model, beneath, carried the context on.
        let outbound = child_of(&spans, chat, "POST");
        assert_eq!(outbound.kind, "client");
        assert_eq!(outbound.text("server.address"), Some("127.0.0.1"));
        assert!(
            model
                .requests()
                .iter()
                .any(|sent| sent.traceparent.as_deref()
                    == Some(&traceparent(&agent.trace_id, &outbound.span_id))),
            "the model was sent the outbound span's context"
        );
    }
    let reasons: Vec<_> = chats
        .iter()
        .filter_map(|chat| chat.text("gen_ai.response.finish_reasons"))
        .collect();
    assert!(
        reasons.contains(&r#"["tool_calls"]"#) && reasons.contains(&r#"["stop"]"#),
        "{reasons:?}"
    );
    let turn_call = child_of(&spans, agent, "execute_tool time.now");
    assert_eq!(turn_call.trace_id, agent.trace_id);

    // Nothing of what was sent or answered is in any span.
    for span in &spans {
        let text = span.all_text();
        for secret in [
            SECRET_NOTE,
            "falcon-7c1e",
            "zelda",
            result_text.as_str(),
            KEY,
            "What time is it?",
            "It is time.",
        ] {
            assert!(
                !text.contains(secret),
                "`{secret}` in span {}: {text}",
                span.name
            );
        }
    }
}

/// The series of `/metrics` that `name` and `labels` select.
fn sample(metrics: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    metrics.lines().find_map(|line| {
        let (series, value) = line.rsplit_once(' ')?;
        let (family, rest) = series.split_once('{').unwrap_or((series, ""));
        let matches = family == name
            && labels
                .iter()
                .all(|(key, wanted)| rest.contains(&format!("{key}=\"{wanted}\"")));
        matches.then(|| value.parse().ok()).flatten()
    })
}

#[tokio::test]
async fn metrics_count_calls_by_tool_scope_and_state_and_name_nothing_personal() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    put(
        &server,
        "/api/settings/agent-context",
        json!({"enabled": true, "scopes": ["brain"], "actions": {"readPortos": true, "writePortos": true}}),
    )
    .await;
    for index in 0..3 {
        let (status, _) = send(client.post(server.url("/api/cos/tools/call")).json(
            &json!({"type": "portos_tool_call", "requestId": format!("m-{index}"), "name": "time.now", "arguments": {}}),
        ))
        .await;
        assert_eq!(status, StatusCode::OK);
    }
    // A replay, a conflict and a refusal.
    let again = json!({"type": "portos_tool_call", "requestId": "m-0", "name": "time.now", "arguments": {}});
    let (status, replayed) =
        send(client.post(server.url("/api/cos/tools/call")).json(&again)).await;
    assert_eq!(
        (status, replayed["duplicate"].clone()),
        (StatusCode::OK, json!(true))
    );
    let conflict = json!({"type": "portos_tool_call", "requestId": "m-0", "name": "goals.list", "arguments": {}});
    let (status, _) = send(
        client
            .post(server.url("/api/cos/tools/call"))
            .json(&conflict),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    let bad = json!({"type": "portos_tool_call", "requestId": "m-9", "name": "time.now", "arguments": {"zone": SECRET_NOTE}});
    let (status, _) = send(client.post(server.url("/api/cos/tools/call")).json(&bad)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // A call to a name nobody answers to, which must not become a label.
    let unknown = json!({"type": "portos_tool_call", "requestId": "m-10", "name": "falcon-7c1e", "arguments": {}});
    let (status, _) = send(
        client
            .post(server.url("/api/cos/tools/call"))
            .json(&unknown),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // MCP at both revisions, and a write with a personal text.
    let captured = mcp(
        &client,
        &server,
        &[("mcp-protocol-version", "2025-06-18")],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "brain_capture", "arguments": {"text": SECRET_NOTE}}}),
    )
    .await;
    assert_eq!(
        captured["result"]["structuredContent"]["state"],
        "completed"
    );
    mcp(
        &client,
        &server,
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/list"),
        ],
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}}),
    )
    .await;
    // The catalog, then the same catalog unchanged (304).
    let listed = client
        .get(server.url("/api/cos/tools"))
        .send()
        .await
        .expect("catalog");
    let etag = listed.headers()["etag"].clone();
    let unchanged = client
        .get(server.url("/api/cos/tools"))
        .header("if-none-match", etag)
        .send()
        .await
        .expect("catalog again");
    assert_eq!(unchanged.status(), StatusCode::NOT_MODIFIED);

    let response = client
        .get(server.url("/metrics"))
        .send()
        .await
        .expect("metrics");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()["content-type"],
        "text/plain; version=0.0.4; charset=utf-8"
    );
    let metrics = response.text().await.expect("text");
    let calls = |labels: &[(&str, &str)]| sample(&metrics, "tool_calls_total", labels);
    let time_now = [("gen_ai_tool_name", "time.now"), ("tool_scope", "ui")];
    assert_eq!(
        calls(&[time_now[0], time_now[1], ("tool_state", "completed")]),
        Some(4.0),
        "three calls and a replay"
    );
    assert_eq!(
        calls(&[
            time_now[0],
            time_now[1],
            ("tool_state", "refused"),
            ("error_type", "TOOL_VALIDATION_ERROR")
        ]),
        Some(1.0)
    );
    assert_eq!(
        calls(&[
            ("gen_ai_tool_name", "(unknown)"),
            ("error_type", "TOOL_NOT_FOUND")
        ]),
        Some(1.0)
    );
    assert_eq!(
        calls(&[
            ("gen_ai_tool_name", "brain.capture"),
            ("tool_scope", "agent"),
            ("tool_state", "completed")
        ]),
        Some(1.0)
    );
    let idempotency = |answer| {
        sample(
            &metrics,
            "tool_idempotency_answers_total",
            &[("answer", answer)],
        )
    };
    assert_eq!(idempotency("replay"), Some(1.0));
    assert_eq!(idempotency("conflict"), Some(1.0));
    assert_eq!(
        sample(&metrics, "tool_call_duration_seconds_count", &time_now),
        Some(4.0)
    );
    let mcp_count = |method, version| {
        sample(
            &metrics,
            "mcp_server_operation_duration_seconds_count",
            &[
                ("mcp_method_name", method),
                ("mcp_protocol_version", version),
            ],
        )
    };
    assert_eq!(mcp_count("tools/call", "2025-06-18"), Some(1.0));
    assert_eq!(mcp_count("tools/list", "2026-07-28"), Some(1.0));
    let catalog = |status| {
        sample(
            &metrics,
            "tool_catalog_requests_total",
            &[
                ("tool_scope", "all"),
                ("catalog_format", "portos"),
                ("http_response_status_code", status),
            ],
        )
    };
    assert_eq!((catalog("200"), catalog("304")), (Some(1.0), Some(1.0)));
    let engine = if test_postgres::suite_on_postgres() {
        "postgresql"
    } else {
        "sqlite"
    };
    assert!(
        sample(
            &metrics,
            "store_operation_duration_seconds_count",
            &[("db_system_name", engine)]
        )
        .is_some_and(|count| count > 0.0)
    );
    // The pool's use and waits, on PostgreSQL only: SQLite has no pool.
    let pool = |state| {
        sample(
            &metrics,
            "store_pool_connections",
            &[("db_system_name", "postgresql"), ("state", state)],
        )
    };
    let waits = sample(&metrics, "store_pool_waits_total", &[]);
    if engine == "postgresql" {
        assert!(pool("idle").is_some_and(|idle| idle >= 1.0), "{metrics}");
        assert!(pool("busy").is_some());
        assert!(waits.is_some());
    } else {
        assert_eq!((pool("idle"), waits), (None, None));
    }
    assert_eq!(
        sample(
            &metrics,
            "outbound_requests_total",
            &[("outcome", "refused")]
        ),
        Some(0.0)
    );
    assert_eq!(
        sample(
            &metrics,
            "portos_mind_turns_total",
            &[("state", "completed")]
        ),
        Some(0.0)
    );
    for secret in [SECRET_NOTE, "falcon-7c1e", "zelda"] {
        assert!(!metrics.contains(secret), "`{secret}` in /metrics");
    }
}
