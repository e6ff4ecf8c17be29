//! The homelab's telemetry, which it gets from the runtime without a line
//! of its own: a long-running tool's job exported as a span of its own
//! trace, linked to the HTTP call that started it, with its tool's name;
//! and its tools and jobs on `/metrics` (docs/observability.md).

use crate::jobs::{add_host, open_port, until};
use crate::support;

use std::time::Duration;

use portos_server::testing::otlp::OtlpReceiver;
use reqwest::StatusCode;
use serde_json::{Value, json};
use support::{Server, http_client, login};

#[tokio::test]
async fn a_job_is_a_trace_of_its_own_linked_to_the_call_that_started_it() {
    let receiver = OtlpReceiver::start().await;
    let (_listener, port) = open_port().await;
    let dir = tempfile::tempdir().expect("temp dir");
    support::set_password(dir.path(), support::PASSWORD);
    let server = Server::start_in(
        dir,
        &["--otlp-endpoint", &receiver.endpoint],
        &[
            ("OTEL_BSP_SCHEDULE_DELAY", "100"),
            ("OTEL_SERVICE_NAME", "lab-east"),
        ],
    );
    let client = http_client();
    let token = login(&client, &server).await;
    add_host(&client, &server, &token, "up", "127.0.0.1", "server").await;

    let response = client
        .post(server.url("/api/tools/call"))
        .bearer_auth(&token)
        .json(&json!({ "requestId": "otel-probe-1", "name": "lab.hosts.probe", "arguments": { "port": port } }))
        .send()
        .await
        .expect("call");
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    let created: Value = response.json().await.expect("json");
    let job_id = created["jobId"].as_str().expect("an id").to_owned();
    until(&client, &server, &token, &job_id, |job| {
        job["state"] == "completed"
    })
    .await;

    let spans = receiver
        .wait_for(Duration::from_secs(20), |spans| {
            spans.iter().any(|span| span.name == "job lab.hosts.probe")
        })
        .await;
    assert!(
        spans
            .iter()
            .all(|span| span.service_name.as_deref() == Some("lab-east"))
    );
    let job = spans
        .iter()
        .find(|span| span.name == "job lab.hosts.probe")
        .expect("the job's span");
    assert_eq!(job.parent_span_id, "", "a job is a trace of its own");
    assert_eq!(job.text("tool.job.id"), Some(job_id.as_str()));
    assert_eq!(job.text("gen_ai.tool.name"), Some("lab.hosts.probe"));
    assert_eq!(job.text("gen_ai.tool.call.id"), Some("otel-probe-1"));
    let started_by = spans
        .iter()
        .find(|span| {
            job.links
                .contains(&(span.trace_id.clone(), span.span_id.clone()))
        })
        .expect("the job links the call that started it");
    assert_eq!(started_by.name, "POST /api/tools/call");
    assert_eq!(started_by.kind, "server");
    // The job's own work (its store writes) is beneath it.
    assert!(
        spans
            .iter()
            .any(|span| span.trace_id == job.trace_id && span.parent_span_id == job.span_id),
        "the job's work is in its trace"
    );

    let metrics = client
        .get(server.url("/metrics"))
        .bearer_auth(&token)
        .send()
        .await
        .expect("metrics");
    assert_eq!(metrics.status(), StatusCode::OK);
    let text = metrics.text().await.expect("text");
    assert!(
        text.contains(
            r#"tool_jobs{gen_ai_tool_name="lab.hosts.probe",tool_job_state="completed"} 1"#
        ),
        "{text}"
    );
    assert!(
        text.contains(r#"tool_calls_total{gen_ai_tool_name="lab.hosts.add",tool_scope="operator",tool_state="completed"} 1"#),
        "{text}"
    );
}

#[tokio::test]
async fn metrics_are_behind_the_password_gate() {
    let server = Server::start_locked(&[]);
    let client = http_client();
    let anonymous = client
        .get(server.url("/metrics"))
        .send()
        .await
        .expect("metrics");
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    // A scraper signs in with HTTP Basic (Prometheus's `basic_auth`).
    let scraped = client
        .get(server.url("/metrics"))
        .basic_auth("prometheus", Some(support::PASSWORD))
        .send()
        .await
        .expect("metrics");
    assert_eq!(scraped.status(), StatusCode::OK);
    assert!(
        scraped
            .text()
            .await
            .expect("text")
            .contains("# TYPE tool_calls_total counter")
    );
}
