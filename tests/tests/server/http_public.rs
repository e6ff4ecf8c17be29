//! Settings → API Access and the exposable API groups under `/api/public/`
//! (docs/reference.md#route-catalog, docs/reference.md#openapi,
//! docs/reference.md#tool-resource) against the real binary: nothing answers
//! until exposed, exposure decides what the public OpenAPI lists, `requireAuth`
//! keeps the password in front, and bad settings change nothing.

use portos_tests::{ServerProcess, portos_command};
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

const PASSWORD: &str = "correct horse battery staple";

async fn put_access(client: &Client, server: &ServerProcess, body: Value) -> (StatusCode, Value) {
    let response = client
        .put(server.url("/api/settings/api-access"))
        .basic_auth("me", Some(PASSWORD))
        .json(&body)
        .send()
        .await
        .expect("request");
    let status = response.status();
    (status, response.json().await.expect("JSON"))
}

async fn get(client: &Client, server: &ServerProcess, path: &str) -> (StatusCode, Value) {
    let response = client.get(server.url(path)).send().await.expect("request");
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn exposure(body: &Value, id: &str) -> (bool, bool) {
    let api = body["apis"]
        .as_array()
        .and_then(|apis| apis.iter().find(|api| api["id"] == id))
        .unwrap_or_else(|| panic!("{id} listed in {body}"));
    (
        api["exposed"].as_bool().expect("bool"),
        api["requireAuth"].as_bool().expect("bool"),
    )
}

#[tokio::test]
async fn groups_answer_only_once_exposed_and_the_public_document_follows() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();

    let (status, body) = get(&client, &server, "/api/public/clock/now").await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "FORBIDDEN");
    let (_, settings) = get(&client, &server, "/api/settings/api-access").await;
    assert_eq!(exposure(&settings, "clock"), (false, false));
    assert_eq!(exposure(&settings, "brain"), (false, false));
    let (_, public) = get(&client, &server, "/api/api-docs/openapi.json").await;
    assert_eq!(public["paths"], json!({}));

    let (status, settings) = put_access(
        &client,
        &server,
        json!({ "clock": { "exposed": true, "requireAuth": false } }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{settings}");
    assert_eq!(exposure(&settings, "clock"), (true, false));
    assert_eq!(exposure(&settings, "brain"), (false, false));

    let (status, now) = get(&client, &server, "/api/public/clock/now").await;
    assert_eq!(status, StatusCode::OK, "{now}");
    assert_eq!(now["ok"], true);
    assert!(
        now["iso"].as_str().is_some_and(|iso| iso.len() >= 20),
        "{now}"
    );
    // Brain stays closed.
    let (status, _) = get(&client, &server, "/api/public/brain/captures").await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // The public document lists exactly the exposed group, without security.
    let (_, public) = get(&client, &server, "/api/api-docs/openapi.json").await;
    let paths: Vec<&String> = public["paths"].as_object().expect("paths").keys().collect();
    assert_eq!(paths, ["/api/public/clock/now"]);
    let operation = &public["paths"]["/api/public/clock/now"]["get"];
    assert_eq!(operation["tags"], json!(["clock"]));
    assert_eq!(operation["security"], json!([]));
    assert_eq!(operation["x-portos-tool"]["name"], "clock.now");
    assert_eq!(public["tags"][0]["name"], "clock");

    // The route catalog resolves the stored switches too.
    let (_, catalog) = get(&client, &server, "/api/api-docs/catalog.json").await;
    let clock = catalog["externallyExposableApis"]
        .as_array()
        .and_then(|apis| apis.iter().find(|api| api["id"] == "clock"))
        .cloned()
        .expect("clock listed");
    assert_eq!(clock["exposed"], true);

    // The dump reads the same store and prints the same bytes.
    let served = client
        .get(server.url("/api/api-docs/openapi.json"))
        .send()
        .await
        .expect("request")
        .bytes()
        .await
        .expect("body");
    let output = portos_command()
        .arg("--dump-openapi-public")
        .arg("--data-dir")
        .arg(server.data_dir.path())
        .args(test_postgres::database_args(server.data_dir.path()))
        .output()
        .expect("portos runs");
    assert!(output.status.success());
    let mut expected = served.to_vec();
    expected.push(b'\n');
    assert_eq!(output.stdout, expected);
}

#[tokio::test]
async fn require_auth_keeps_the_password_in_front() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = ServerProcess::start_with_env(dir, &[], &[("PORTOS_PASSWORD", PASSWORD)]);
    let client = portos_tests::http_client();
    let (status, _) = put_access(
        &client,
        &server,
        json!({
            "clock": { "exposed": true, "requireAuth": false },
            "brain": { "exposed": true, "requireAuth": true },
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);

    // Exposed without auth: no credentials needed even though a password is set.
    let (status, _) = get(&client, &server, "/api/public/clock/now").await;
    assert_eq!(status, StatusCode::OK);
    // Exposed with auth: the gate asks for the password.
    let (status, body) = get(&client, &server, "/api/public/brain/captures").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert_eq!(body["code"], "AUTH_REQUIRED");
    let authed = client
        .get(server.url("/api/public/brain/captures"))
        .basic_auth("me", Some(PASSWORD))
        .send()
        .await
        .expect("request");
    assert_eq!(authed.status(), StatusCode::OK);

    // And the public document says which needs credentials.
    let public: Value = client
        .get(server.url("/api/api-docs/openapi.json"))
        .basic_auth("me", Some(PASSWORD))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("JSON");
    assert_eq!(
        public["paths"]["/api/public/brain/captures"]["post"]["security"],
        json!([{ "bearerAuth": [] }, { "basicAuth": [] }])
    );
    assert_eq!(
        public["paths"]["/api/public/clock/now"]["get"]["security"],
        json!([])
    );
}

#[tokio::test]
async fn the_brain_group_captures_through_the_registry() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let (status, _) = put_access(
        &client,
        &server,
        json!({ "brain": { "exposed": true, "requireAuth": false } }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);

    let response = client
        .post(server.url("/api/public/brain/captures"))
        .json(&json!({ "text": "  buy oat milk  " }))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::CREATED);
    let captured: Value = response.json().await.expect("JSON");
    assert_eq!(captured["ok"], true);
    assert!(
        captured["summary"]
            .as_str()
            .is_some_and(|s| s.contains("buy oat milk"))
    );

    // Refusals change nothing: empty text (the tool's own rule), unknown key,
    // wrong type.
    for (body, status) in [
        (json!({ "text": "   " }), StatusCode::BAD_REQUEST),
        (json!({ "text": "x", "extra": 1 }), StatusCode::BAD_REQUEST),
        (json!({ "text": 5 }), StatusCode::BAD_REQUEST),
    ] {
        let response = client
            .post(server.url("/api/public/brain/captures"))
            .json(&body)
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), status, "{body}");
        let error: Value = response.json().await.expect("JSON");
        assert!(error["error"].as_str().is_some_and(|e| !e.is_empty()));
    }

    let (status, recent) = get(&client, &server, "/api/public/brain/captures?limit=10").await;
    assert_eq!(status, StatusCode::OK, "{recent}");
    assert_eq!(recent["count"], 1, "{recent}");
    assert_eq!(recent["items"][0]["text"], "buy oat milk");
    let (status, _) = get(&client, &server, "/api/public/brain/captures?sql=1").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn bad_settings_are_refused_and_change_nothing() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    for body in [
        json!({ "sdapi": { "exposed": true, "requireAuth": false } }),
        json!({ "clock": { "exposed": "true", "requireAuth": false } }),
        json!({ "clock": { "exposed": true, "requireAuth": false, "extra": 1 } }),
        json!({ "clock": { "exposed": true } }),
        json!({ "clock": { "exposed": true, "requireAuth": false }, "voice": {} }),
        json!([]),
    ] {
        let (status, error) = put_access(&client, &server, body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(error["code"], "VALIDATION_ERROR", "{body}");
    }
    let (_, settings) = get(&client, &server, "/api/settings/api-access").await;
    assert_eq!(exposure(&settings, "clock"), (false, false));
    let (status, _) = get(&client, &server, "/api/public/clock/now").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}
