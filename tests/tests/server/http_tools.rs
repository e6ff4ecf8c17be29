//! The registry endpoints over real HTTP against the real binary
//! (docs/reference.md#endpoints; docs/reference.md#call-pipeline,
//! docs/reference.md#result-envelope, docs/reference.md#idempotency-key,
//! docs/reference.md#catalog-query, docs/reference.md#etag).

use portos_tests::ServerProcess;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

async fn post_call(client: &Client, server: &ServerProcess, body: Value) -> (StatusCode, Value) {
    let response = client
        .post(server.url("/api/cos/tools/call"))
        .json(&body)
        .send()
        .await
        .expect("request");
    let status = response.status();
    (status, response.json().await.expect("JSON body"))
}

fn assert_error_body(body: &Value, code: &str) {
    assert_eq!(body["code"], code, "{body}");
    assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()));
    assert!(
        body["timestamp"]
            .as_i64()
            .is_some_and(|t| t > 1_600_000_000_000)
    );
}

#[tokio::test]
async fn catalog_has_an_etag_and_answers_304_to_a_match() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let response = client
        .get(server.url("/api/cos/tools?scope=voice"))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["cache-control"], "private, no-cache");
    let etag = response.headers()["etag"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(etag.starts_with('"') && etag.ends_with('"') && !etag.contains('='));

    let again = client
        .get(server.url("/api/cos/tools?scope=voice"))
        .header("If-None-Match", &etag)
        .send()
        .await
        .expect("request");
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(again.headers()["etag"], etag.as_str());
    assert!(again.bytes().await.expect("body").is_empty());

    // Another scope is another body, so another ETag; a weak or listed tag never matches.
    let other = client
        .get(server.url("/api/cos/tools?scope=ui"))
        .send()
        .await
        .expect("request");
    assert_ne!(other.headers()["etag"], etag.as_str());
    let weak = client
        .get(server.url("/api/cos/tools?scope=voice"))
        .header("If-None-Match", format!("W/{etag}"))
        .send()
        .await
        .expect("request");
    assert_eq!(weak.status(), StatusCode::OK);
}

/// The served catalog is memoized per query and grants: a grant change must
/// still change the body and the ETag at once, and the old tag stop matching.
#[tokio::test]
async fn a_grant_change_changes_the_mind_catalog_and_its_etag() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let read = async |etag: Option<&str>| {
        let mut request = client.get(server.url("/api/cos/tools?scope=mind"));
        if let Some(etag) = etag {
            request = request.header("If-None-Match", etag);
        }
        let response = request.send().await.expect("request");
        let status = response.status();
        let etag = response.headers()["etag"]
            .to_str()
            .expect("ascii")
            .to_owned();
        let body: Value = if status == StatusCode::OK {
            response.json().await.expect("JSON")
        } else {
            Value::Null
        };
        (status, etag, body)
    };
    let (_, before, body) = read(None).await;
    assert_eq!(body["stats"]["granted"], 0, "{body}");
    assert_eq!(read(Some(&before)).await.0, StatusCode::NOT_MODIFIED);

    let changed = client
        .put(server.url("/api/cos/mind/capabilities"))
        .json(&json!({ "readPortos": true }))
        .send()
        .await
        .expect("request");
    assert_eq!(changed.status(), StatusCode::OK);

    let (status, after, body) = read(Some(&before)).await;
    assert_eq!(status, StatusCode::OK, "the old ETag must not match");
    assert_ne!(after, before);
    assert!(
        body["stats"]["granted"].as_u64().is_some_and(|n| n > 0),
        "{body}"
    );
    assert_eq!(read(Some(&after)).await.0, StatusCode::NOT_MODIFIED);
}

#[tokio::test]
async fn catalog_query_is_strict() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    for query in [
        "scope=root",
        "format=xml",
        "cursor=2",
        "scope=ui&scope=voice",
    ] {
        let response = client
            .get(server.url(&format!("/api/cos/tools?{query}")))
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{query}");
        let body: Value = response.json().await.expect("json");
        assert_error_body(&body, "VALIDATION_ERROR");
        assert!(
            body["context"]["details"]
                .as_array()
                .is_some_and(|d| !d.is_empty())
        );
    }
}

#[tokio::test]
async fn calls_complete_fail_and_are_retained() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let (status, body) = post_call(
        &client,
        &server,
        json!({"requestId": " h-1 ", "name": "time_now"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["type"], "portos_tool_result");
    assert_eq!(body["requestId"], "h-1");
    assert_eq!(body["name"], "time.now");
    assert_eq!(body["state"], "completed");
    assert_eq!(body["duplicate"], false);

    let (status, replay) = post_call(
        &client,
        &server,
        json!({"requestId": "h-1", "name": "time.now", "arguments": {}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(replay["duplicate"], true);
    assert_eq!(replay["result"], body["result"]);

    // An adapter failure is a result: 422 with the envelope.
    let (status, failed) = post_call(
        &client,
        &server,
        json!({"requestId": "h-2", "name": "brain.search", "arguments": {"query": " "}}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(failed["state"], "failed");
    assert!(failed["error"].is_string());

    let retained = client
        .get(server.url("/api/cos/tools/calls/h-1"))
        .send()
        .await
        .expect("request");
    assert_eq!(retained.status(), StatusCode::OK);
    let retained: Value = retained.json().await.expect("json");
    assert_eq!(retained["duplicate"], false);
    assert_eq!(retained["result"], body["result"]);
    let failed_again = client
        .get(server.url("/api/cos/tools/calls/h-2"))
        .send()
        .await
        .expect("request");
    // docs/reference.md#idempotency: the retained envelope is answered 200 even
    // when it failed.
    assert_eq!(failed_again.status(), StatusCode::OK);
    let failed_again: Value = failed_again.json().await.expect("json");
    assert_eq!(failed_again["state"], "failed");
    assert_eq!(failed_again["error"], failed["error"]);

    let missing = client
        .get(server.url("/api/cos/tools/calls/nope"))
        .send()
        .await
        .expect("request");
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    assert_error_body(&missing.json().await.expect("json"), "TOOL_CALL_NOT_FOUND");
    let bad = client
        .get(server.url("/api/cos/tools/calls/bad%20id"))
        .send()
        .await
        .expect("request");
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    assert_error_body(&bad.json().await.expect("json"), "VALIDATION_ERROR");
}

#[tokio::test]
async fn refusals_carry_their_code_and_status() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let cases = [
        (
            json!({"requestId": "r1", "name": "nope.tool"}),
            StatusCode::NOT_FOUND,
            "TOOL_NOT_FOUND",
        ),
        // A passwordless install is anonymous: every HTTP write is refused.
        (
            json!({"requestId": "r2", "name": "brain.capture", "arguments": {"text": "x"}}),
            StatusCode::FORBIDDEN,
            "TOOL_AUTH_REQUIRED",
        ),
        (
            json!({"requestId": "r3", "name": "brain.search", "arguments": {"query": 1}}),
            StatusCode::BAD_REQUEST,
            "TOOL_VALIDATION_ERROR",
        ),
        (
            json!({"requestId": "r4", "name": "time.now", "version": 2}),
            StatusCode::BAD_REQUEST,
            "VALIDATION_ERROR",
        ),
        (
            json!({"requestId": "r5", "name": "time.now", "scope": "mind"}),
            StatusCode::BAD_REQUEST,
            "VALIDATION_ERROR",
        ),
    ];
    for (body, status, code) in cases {
        let (got, answer) = post_call(&client, &server, body.clone()).await;
        assert_eq!(got, status, "{body}");
        assert_error_body(&answer, code);
    }
    let (status, _) = post_call(
        &client,
        &server,
        json!({"requestId": "c1", "name": "brain.search", "arguments": {"query": "a"}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = post_call(
        &client,
        &server,
        json!({"requestId": "c1", "name": "brain.search", "arguments": {"query": "b"}}),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_error_body(&body, "TOOL_IDEMPOTENCY_CONFLICT");
}

#[tokio::test]
async fn idempotency_key_must_equal_the_trimmed_request_id() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let send = |key: &'static str| {
        client
            .post(server.url("/api/cos/tools/call"))
            .header("Idempotency-Key", key)
            .json(&json!({"requestId": " k-1 ", "name": "time.now"}))
            .send()
    };
    let mismatch = send("k-2").await.expect("request");
    assert_eq!(mismatch.status(), StatusCode::BAD_REQUEST);
    assert_error_body(
        &mismatch.json().await.expect("json"),
        "TOOL_IDEMPOTENCY_MISMATCH",
    );
    let matching = send("k-1").await.expect("request");
    assert_eq!(matching.status(), StatusCode::OK);
}

#[tokio::test]
async fn bad_bodies_get_clear_json_errors() {
    let server = ServerProcess::start(&["--body-limit", "2048"]);
    let client = portos_tests::http_client();
    let malformed = client
        .post(server.url("/api/cos/tools/call"))
        .header("content-type", "application/json")
        .body("{\"requestId\": ")
        .send()
        .await
        .expect("request");
    assert_eq!(malformed.status(), StatusCode::BAD_REQUEST);
    assert_error_body(&malformed.json().await.expect("json"), "VALIDATION_ERROR");

    let text = client
        .post(server.url("/api/cos/tools/call"))
        .header("content-type", "text/plain")
        .body("{}")
        .send()
        .await
        .expect("request");
    assert_eq!(text.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_error_body(&text.json().await.expect("json"), "UNSUPPORTED_MEDIA_TYPE");

    let big = json!({"requestId": "big", "name": "brain.search", "arguments": {"query": "x".repeat(4096)}});
    let (status, body) = post_call(&client, &server, big).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_error_body(&body, "PAYLOAD_TOO_LARGE");
    // Nothing of the refused call was retained.
    let missing = client
        .get(server.url("/api/cos/tools/calls/big"))
        .send()
        .await
        .expect("request");
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);

    let unknown = client
        .get(server.url("/api/nowhere"))
        .send()
        .await
        .expect("request");
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    assert_error_body(&unknown.json().await.expect("json"), "NOT_FOUND");
}
