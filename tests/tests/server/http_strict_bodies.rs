//! A body documented as an object is only ever an object: serde would read
//! a struct from an array of its fields in order, which let `[true]` enable
//! Agent Tools. Each refusal is the contract's 400 and changes nothing.

use portos_tests::ServerProcess;
use reqwest::StatusCode;
use serde_json::{Value, json};

#[tokio::test]
async fn arrays_scalars_and_null_are_refused_where_an_object_is_documented() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let before: Value = client
        .get(server.url("/api/settings/agent-context"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    for (method, path) in [
        ("PUT", "/api/settings/agent-context"),
        ("PUT", "/api/eidoverse/settings"),
        ("PUT", "/api/settings/location"),
        ("POST", "/api/health/drinks"),
        ("POST", "/api/goals"),
        ("PUT", "/api/cos/mind/capabilities"),
    ] {
        for body in [
            json!([true]),
            json!(["wine", 2]),
            json!([]),
            json!(true),
            json!(3),
            Value::Null,
        ] {
            let request = match method {
                "PUT" => client.put(server.url(path)),
                _ => client.post(server.url(path)),
            };
            let response = request.json(&body).send().await.expect("request");
            let status = response.status();
            let error: Value = response.json().await.expect("json");
            assert_eq!(
                status,
                StatusCode::BAD_REQUEST,
                "{method} {path} {body}: {error}"
            );
            assert_eq!(error["code"], "VALIDATION_ERROR", "{method} {path} {body}");
        }
    }
    let after: Value = client
        .get(server.url("/api/settings/agent-context"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(after, before, "nothing changed");
    assert_eq!(after["enabled"], false);
    let goals: Value = client
        .get(server.url("/api/goals"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(goals["goals"], json!([]));
}
