//! Authentication (docs/reference.md#authentication-gate) against the real
//! binary: anonymous without a password; with one, sessions (cookie, Bearer),
//! Basic, the always-public paths, 401 AUTH_REQUIRED, 403 CROSS_ORIGIN_BLOCKED,
//! expiry and logout.

use portos_tests::ServerProcess;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

const PASSWORD: &str = "correct horse battery";

fn set_password(data_dir: &std::path::Path, password: &str) -> std::process::Output {
    portos_tests::set_password(data_dir, &[], password)
}

fn protected_server(extra: &[&str]) -> ServerProcess {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = set_password(dir.path(), PASSWORD);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    ServerProcess::start_in(dir, extra)
}

async fn login(client: &Client, server: &ServerProcess, password: &str) -> reqwest::Response {
    client
        .post(server.url("/api/auth/login"))
        .json(&json!({ "password": password }))
        .send()
        .await
        .expect("request")
}

async fn login_token(client: &Client, server: &ServerProcess) -> String {
    let response = login(client, server, PASSWORD).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.expect("json");
    body["token"].as_str().expect("a token").to_owned()
}

fn capture(text: &str, id: &str) -> Value {
    json!({"requestId": id, "name": "brain.capture", "arguments": {"text": text}})
}

#[tokio::test]
async fn without_a_password_reads_are_anonymous_and_writes_refused() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let status: Value = client
        .get(server.url("/api/auth/status"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(status, json!({"enabled": false, "authenticated": false}));
    let response = client
        .post(server.url("/api/cos/tools/call"))
        .json(&capture("x", "w1"))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["code"], "TOOL_AUTH_REQUIRED");
    assert_eq!(
        body["error"],
        "Mutating tool calls require an authenticated PortOS session"
    );
}

#[tokio::test]
async fn with_a_password_everything_but_the_public_paths_needs_credentials() {
    let server = protected_server(&[]);
    let client = portos_tests::http_client();
    let refused = client
        .get(server.url("/api/cos/tools"))
        .send()
        .await
        .expect("request");
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    let body: Value = refused.json().await.expect("json");
    assert_eq!(body["code"], "AUTH_REQUIRED");
    assert_eq!(body["error"], "Authentication required");

    for path in ["/api/system/health", "/api/auth/status", "/api/auth/whoami"] {
        let response = client.get(server.url(path)).send().await.expect("request");
        assert_eq!(response.status(), StatusCode::OK, "{path}");
    }
    let status: Value = client
        .get(server.url("/api/auth/status"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(status, json!({"enabled": true, "authenticated": false}));

    let wrong = login(&client, &server, "not the password").await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    let body: Value = wrong.json().await.expect("json");
    assert_eq!(body["code"], "INVALID_CREDENTIALS");
}

#[tokio::test]
async fn sessions_by_bearer_and_cookie_authenticate_writes() {
    let server = protected_server(&[]);
    let client = portos_tests::http_client();
    let response = login(&client, &server, PASSWORD).await;
    let cookie = response.headers()["set-cookie"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
    let token = response.json::<Value>().await.expect("json")["token"]
        .as_str()
        .expect("token")
        .to_owned();

    let bearer = client
        .post(server.url("/api/cos/tools/call"))
        .bearer_auth(&token)
        .json(&capture("from bearer", "b1"))
        .send()
        .await
        .expect("request");
    assert_eq!(bearer.status(), StatusCode::OK);
    let whoami: Value = client
        .get(server.url("/api/auth/whoami"))
        .header("cookie", format!("portos_session={token}"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(
        whoami,
        json!({"enabled": true, "authenticated": true, "method": "session"})
    );

    let recent = client
        .post(server.url("/api/cos/tools/call"))
        .header("cookie", format!("other=1; portos_session={token}"))
        .json(&json!({"requestId": "r1", "name": "brain.recent"}))
        .send()
        .await
        .expect("request");
    let body: Value = recent.json().await.expect("json");
    assert_eq!(body["result"]["items"][0]["text"], "from bearer");
}

#[tokio::test]
async fn basic_auth_uses_the_instance_password() {
    let server = protected_server(&[]);
    let client = portos_tests::http_client();
    let ok = client
        .post(server.url("/api/cos/tools/call"))
        .basic_auth("anyone", Some(PASSWORD))
        .json(&capture("from basic", "basic-1"))
        .send()
        .await
        .expect("request");
    assert_eq!(ok.status(), StatusCode::OK);
    let bad = client
        .get(server.url("/api/cos/tools"))
        .basic_auth("anyone", Some("wrong password"))
        .send()
        .await
        .expect("request");
    assert_eq!(bad.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn cross_origin_browser_requests_are_refused_first() {
    let server = protected_server(&[]);
    let client = portos_tests::http_client();
    let token = login_token(&client, &server).await;
    for (name, value) in [
        ("origin", "http://evil.example"),
        ("sec-fetch-site", "cross-site"),
    ] {
        let response = client
            .get(server.url("/api/cos/tools"))
            .bearer_auth(&token)
            .header(name, value)
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{name}");
        let body: Value = response.json().await.expect("json");
        assert_eq!(body["code"], "CROSS_ORIGIN_BLOCKED");
    }
    let same_origin = client
        .get(server.url("/api/cos/tools"))
        .bearer_auth(&token)
        .header("origin", server.base_url.as_str())
        .send()
        .await
        .expect("request");
    assert_eq!(same_origin.status(), StatusCode::OK);
}

#[tokio::test]
async fn logout_revokes_and_sessions_expire() {
    let server = protected_server(&[]);
    let client = portos_tests::http_client();
    let token = login_token(&client, &server).await;
    let logout = client
        .post(server.url("/api/auth/logout"))
        .bearer_auth(&token)
        .send()
        .await
        .expect("request");
    assert_eq!(logout.status(), StatusCode::OK);
    let after = client
        .get(server.url("/api/cos/tools"))
        .bearer_auth(&token)
        .send()
        .await
        .expect("request");
    assert_eq!(after.status(), StatusCode::UNAUTHORIZED);

    let short = protected_server(&["--session-hours", "0"]);
    let short_token = login_token(&client, &short).await;
    let expired = client
        .get(short.url("/api/cos/tools"))
        .bearer_auth(&short_token)
        .send()
        .await
        .expect("request");
    assert_eq!(expired.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_password_can_come_from_the_environment() {
    let dir = tempfile::tempdir().expect("temp dir");
    let short = set_password(dir.path(), "short");
    assert!(!short.status.success(), "a too-short password is refused");

    let server = ServerProcess::start_with_env(dir, &[], &[("PORTOS_PASSWORD", PASSWORD)]);
    let client = portos_tests::http_client();
    let status: Value = client
        .get(server.url("/api/auth/status"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(status["enabled"], true);
    let token = login_token(&client, &server).await;

    // A restart with the same environment keeps sessions alive.
    let dir = server.kill();
    let again = ServerProcess::start_with_env(dir, &[], &[("PORTOS_PASSWORD", PASSWORD)]);
    let response = client
        .get(again.url("/api/cos/tools"))
        .bearer_auth(&token)
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn an_answered_write_survives_a_kill() {
    let server = protected_server(&[]);
    let client = portos_tests::http_client();
    let response = client
        .post(server.url("/api/cos/tools/call"))
        .basic_auth("me", Some(PASSWORD))
        .json(&capture("survives a crash", "crash-1"))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK);
    let dir = server.kill();
    let restarted = ServerProcess::start_in(dir, &[]);
    let body: Value = client
        .post(restarted.url("/api/cos/tools/call"))
        .basic_auth("me", Some(PASSWORD))
        .json(&json!({"requestId": "after", "name": "brain.recent"}))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(body["result"]["items"][0]["text"], "survives a crash");
}
