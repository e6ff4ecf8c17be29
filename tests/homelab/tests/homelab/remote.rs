//! The homelab served remotely (docs/remote.md): its MCP endpoint and tool
//! routes take access tokens from an authorization server (a stand-in on
//! loopback serving real RFC 8414 metadata and a JWK Set), with the
//! homelab's own scopes mapped to its capabilities. Every bad token is
//! refused with its RFC 6750 / RFC 9728 challenge, and nothing runs.

use portos_server::testing::issuer::{TestIssuer, TestKey, claims, header, now, sign};
use reqwest::StatusCode;
use reqwest::header::WWW_AUTHENTICATE;
use serde_json::{Value, json};

use crate::support::{Server, get, http_client, login, put, run};

const RESOURCE: &str = "http://127.0.0.1/mcp";
const METADATA_PATH: &str = "/.well-known/oauth-protected-resource/mcp";
const SCOPES: &str = "lab:read=readLab,lab:write=readLab+writeLab";

struct Remote {
    server: Server,
    issuer: TestIssuer,
    key: TestKey,
    client: reqwest::Client,
}

impl Remote {
    async fn start() -> Remote {
        let key = TestKey::es256("lab-key-1");
        let issuer = TestIssuer::start(&[&key]).await;
        let server = Server::start(&[
            "--remote-issuer",
            &issuer.issuer,
            "--remote-resource",
            RESOURCE,
            "--remote-scopes",
            SCOPES,
            "--outbound-only",
            "loopback",
        ]);
        let client = http_client();
        // The owner grants the assistant both capabilities; tokens narrow.
        put(
            &client,
            &server,
            "/api/settings/mcp",
            &json!({"enabled": true, "actions": {"readLab": true, "writeLab": true}}),
        )
        .await;
        Remote {
            server,
            issuer,
            key,
            client,
        }
    }

    fn token(&self, scope: &str) -> String {
        self.issuer.token(&self.key, RESOURCE, scope)
    }

    /// An MCP request (2025-11-25) with `authorization` as given.
    async fn mcp(&self, authorization: Option<&str>, method: &str, params: Value) -> Answer {
        let mut request = self
            .client
            .post(self.server.url("/mcp"))
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }));
        if let Some(authorization) = authorization {
            request = request.header("authorization", authorization);
        }
        Answer::of(request.send().await.expect("answered")).await
    }

    async fn hosts(&self) -> Vec<String> {
        let answer = self
            .mcp(
                Some(&format!("Bearer {}", self.token("lab:read"))),
                "tools/call",
                json!({ "name": "lab.hosts.list", "arguments": {} }),
            )
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        answer.body["result"]["structuredContent"]["result"]["hosts"]
            .as_array()
            .unwrap_or_else(|| panic!("hosts: {}", answer.body))
            .iter()
            .filter_map(|host| host["name"].as_str().map(str::to_owned))
            .collect()
    }
}

struct Answer {
    status: StatusCode,
    challenge: Option<String>,
    body: Value,
}

impl Answer {
    async fn of(response: reqwest::Response) -> Answer {
        let status = response.status();
        let challenge = response
            .headers()
            .get(WWW_AUTHENTICATE)
            .map(|value| value.to_str().expect("ASCII").to_owned());
        let body = response.json().await.unwrap_or(Value::Null);
        Answer {
            status,
            challenge,
            body,
        }
    }
}

fn add_nas() -> Value {
    json!({ "name": "lab.hosts.add", "arguments": {"name": "nas-01", "address": "192.168.1.20", "role": "nas"} })
}

#[tokio::test]
async fn the_metadata_points_clients_to_the_issuer() {
    let remote = Remote::start().await;
    // The manifest says token holders on other machines are admitted.
    let manifest: Value = remote
        .client
        .get(remote.server.url("/mcp/manifest"))
        .send()
        .await
        .expect("answered")
        .json()
        .await
        .expect("JSON");
    assert_eq!(manifest["transport"]["loopbackOnly"], false, "{manifest}");
    assert_eq!(manifest["transport"]["endpoint"], "/mcp");
    for path in [METADATA_PATH, "/.well-known/oauth-protected-resource"] {
        let response = remote
            .client
            .get(remote.server.url(path))
            .send()
            .await
            .expect("answered");
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let metadata: Value = response.json().await.expect("JSON");
        assert_eq!(
            metadata,
            json!({
                "resource": RESOURCE,
                "authorization_servers": [remote.issuer.issuer],
                "scopes_supported": ["lab:read", "lab:write"],
                "bearer_methods_supported": ["header"],
                "resource_name": "Homelab",
            })
        );
    }
    // The internal OpenAPI document says so (and only in remote mode).
    let (status, document) = get(
        &remote.client,
        &remote.server,
        "/api/docs/internal/openapi.json",
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(document["paths"][METADATA_PATH]["get"].is_object());
    assert_eq!(
        document["paths"]["/mcp"]["post"]["security"],
        json!([{ "remoteAccessToken": [] }])
    );
    assert!(
        document["paths"]["/api/tools/call"]["post"]["responses"]["403"]["x-portos-error-codes"]
            .as_array()
            .is_some_and(|codes| codes.contains(&json!("TOOL_CAPABILITY_DENIED")))
    );
    // Without a token: 401 naming the metadata and the scopes.
    let answer = remote.mcp(None, "tools/list", json!({})).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        answer.challenge.as_deref(),
        Some(
            r#"Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp", scope="lab:read lab:write""#
        )
    );
    assert_eq!(answer.body["code"], "AUTH_REQUIRED");
}

#[tokio::test]
async fn a_token_narrows_the_agent_to_its_scopes() {
    let remote = Remote::start().await;
    let reader = format!("Bearer {}", remote.token("lab:read"));
    let listed = remote.mcp(Some(&reader), "tools/list", json!({})).await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.body);
    let names: Vec<&str> = listed.body["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .filter(|name| name.starts_with("lab"))
        .collect();
    assert!(names.contains(&"lab_hosts_list"), "{names:?}");
    assert!(!names.iter().any(|name| name.contains("add")), "{names:?}");

    // A write with a read token: 403 and the scope that grants it.
    let refused = remote.mcp(Some(&reader), "tools/call", add_nas()).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    let challenge = refused.challenge.expect("a challenge");
    assert!(
        challenge.contains(r#"scope="lab:write""#)
            && challenge.contains(r#"error="insufficient_scope""#),
        "{challenge}"
    );
    assert!(remote.hosts().await.is_empty(), "nothing ran");

    // The same call with the write scope runs.
    let writer = format!("Bearer {}", remote.token("lab:write"));
    let added = remote.mcp(Some(&writer), "tools/call", add_nas()).await;
    assert_eq!(added.status, StatusCode::OK, "{}", added.body);
    assert_eq!(
        added.body["result"]["structuredContent"]["state"],
        "completed"
    );
    assert_eq!(remote.hosts().await, ["nas-01"]);
}

#[tokio::test]
async fn the_tool_routes_take_tokens_too() {
    let remote = Remote::start().await;
    let call = |token: String, request_id: &'static str| {
        let client = remote.client.clone();
        let url = remote.server.url("/api/tools/call");
        async move {
            let response = client
                .post(url)
                .bearer_auth(token)
                .json(&json!({
                    "requestId": request_id,
                    "name": "lab.hosts.add",
                    "arguments": {"name": "nas-01", "address": "192.168.1.20", "role": "nas"},
                }))
                .send()
                .await
                .expect("answered");
            Answer::of(response).await
        }
    };
    let refused = call(remote.token("lab:read"), "remote-1").await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(refused.body["code"], "TOOL_CAPABILITY_DENIED");
    assert!(
        refused
            .challenge
            .as_deref()
            .is_some_and(|c| c.contains(r#"scope="lab:write""#)),
        "{:?}",
        refused.challenge
    );
    let anonymous = remote
        .client
        .get(remote.server.url("/api/tools"))
        .send()
        .await
        .expect("answered");
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    // The catalog's `granted` at the agent's scope is what the owner
    // granted and the token allows.
    let reader = remote.token("lab:read");
    let (status, catalog) = get(
        &remote.client,
        &remote.server,
        "/api/tools?scope=assistant",
        Some(&reader),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let granted = |name: &str| {
        catalog["tools"]
            .as_array()
            .and_then(|tools| tools.iter().find(|tool| tool["name"] == name))
            .map(|tool| tool["granted"].clone())
    };
    assert_eq!(granted("lab.hosts.list"), Some(json!(true)));
    assert_eq!(granted("lab.hosts.add"), Some(json!(false)));
    let added = call(remote.token("lab:write"), "remote-2").await;
    assert_eq!(added.status, StatusCode::OK, "{}", added.body);
    assert_eq!(added.body["state"], "completed");
}

#[tokio::test]
async fn every_bad_token_is_refused_and_nothing_runs() {
    let remote = Remote::start().await;
    let issuer = &remote.issuer.issuer;
    let key = &remote.key;
    let stranger = TestKey::es256("lab-key-1");
    let unknown = TestKey::ed25519("someone-elses-key");
    let t = now();
    let mut expired = claims(issuer, RESOURCE, t - 3600, "lab:write");
    expired["exp"] = json!(t - 600);
    let cases: Vec<(&str, String, StatusCode, &str)> = vec![
        (
            "another resource",
            sign(
                key,
                &header(key),
                &claims(issuer, "https://elsewhere.example/mcp", t, "lab:write"),
            ),
            StatusCode::UNAUTHORIZED,
            "invalid_token",
        ),
        (
            "expired",
            sign(key, &header(key), &expired),
            StatusCode::UNAUTHORIZED,
            "invalid_token",
        ),
        (
            "signed by a stranger's key under our kid",
            remote.issuer.token(&stranger, RESOURCE, "lab:write"),
            StatusCode::UNAUTHORIZED,
            "invalid_token",
        ),
        (
            "signed by an unknown key",
            remote.issuer.token(&unknown, RESOURCE, "lab:write"),
            StatusCode::UNAUTHORIZED,
            "invalid_token",
        ),
        (
            "alg none",
            sign(
                key,
                &json!({"alg": "none", "typ": "at+jwt"}),
                &claims(issuer, RESOURCE, t, "lab:write"),
            ),
            StatusCode::UNAUTHORIZED,
            "invalid_token",
        ),
        (
            "another issuer",
            sign(
                key,
                &header(key),
                &claims("http://127.0.0.2:1", RESOURCE, t, "lab:write"),
            ),
            StatusCode::UNAUTHORIZED,
            "invalid_token",
        ),
    ];
    for (what, token, status, error) in &cases {
        let answer = remote
            .mcp(Some(&format!("Bearer {token}")), "tools/call", add_nas())
            .await;
        assert_eq!(answer.status, *status, "{what}: {}", answer.body);
        let challenge = answer.challenge.unwrap_or_default();
        assert!(
            challenge.contains(&format!(r#"error="{error}""#)),
            "{what}: {challenge}"
        );
        assert!(
            challenge.contains("resource_metadata="),
            "{what}: {challenge}"
        );
    }
    // A good token in the query string: refused, header or not.
    let good = remote.token("lab:write");
    let in_query = remote
        .client
        .post(remote.server.url(&format!("/mcp?access_token={good}")))
        .header("accept", "application/json, text/event-stream")
        .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": add_nas() }))
        .send()
        .await
        .expect("answered");
    let in_query = Answer::of(in_query).await;
    assert_eq!(in_query.status, StatusCode::BAD_REQUEST);
    assert!(
        in_query
            .challenge
            .is_some_and(|c| c.contains(r#"error="invalid_request""#))
    );
    assert!(remote.hosts().await.is_empty(), "no bad token ran anything");
}

/// A person at the web UI keeps working on the tool routes in remote mode
/// with the session cookie of this server's own sign-in; the same session
/// sent as a Bearer token is not an access token, and is refused.
#[tokio::test]
async fn a_session_cookie_still_works_on_the_tool_routes() {
    let key = TestKey::es256("lab-key-1");
    let issuer = TestIssuer::start(&[&key]).await;
    let server = Server::start_locked(&[
        "--remote-issuer",
        &issuer.issuer,
        "--remote-resource",
        RESOURCE,
        "--outbound-only",
        "loopback",
    ]);
    let client = http_client();
    let session = login(&client, &server).await;
    let with_cookie = client
        .get(server.url("/api/tools"))
        .header("cookie", format!("homelab_session={session}"))
        .send()
        .await
        .expect("answered");
    assert_eq!(with_cookie.status(), StatusCode::OK);
    let as_bearer = Answer::of(
        client
            .get(server.url("/api/tools"))
            .bearer_auth(&session)
            .send()
            .await
            .expect("answered"),
    )
    .await;
    assert_eq!(as_bearer.status, StatusCode::UNAUTHORIZED);
    assert!(
        as_bearer
            .challenge
            .is_some_and(|c| c.contains(r#"error="invalid_token""#))
    );
    // Off the remote surface the password gate is as it was.
    let (status, _) = get(&client, &server, "/api/settings/mcp", Some(&session)).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = get(&client, &server, "/api/settings/mcp", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

/// Remote mode from the environment (`HOMELAB_REMOTE_*`), and a bad value
/// refused at start-up with its flag named.
#[tokio::test]
async fn remote_mode_reads_its_environment_and_names_a_bad_value() {
    let key = TestKey::es256("lab-key-1");
    let issuer = TestIssuer::start(&[&key]).await;
    let server = Server::start_in(
        tempfile::tempdir().expect("temp dir"),
        &["--outbound-only", "loopback"],
        &[
            ("HOMELAB_REMOTE_ISSUER", &issuer.issuer),
            ("HOMELAB_REMOTE_RESOURCE", RESOURCE),
            ("HOMELAB_REMOTE_SCOPES", "lab:everything=readLab+writeLab"),
        ],
    );
    let client = http_client();
    let (status, metadata) = get(&client, &server, METADATA_PATH, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(metadata["scopes_supported"], json!(["lab:everything"]));

    let refused = run(&[
        "--remote-issuer",
        "http://auth.example",
        "--remote-resource",
        RESOURCE,
        "--dump-routes",
    ]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("--remote-issuer") && stderr.contains("https"),
        "{stderr}"
    );
    let unknown = run(&[
        "--remote-issuer",
        "https://auth.example",
        "--remote-resource",
        RESOURCE,
        "--remote-scopes",
        "lab:fly=fly",
        "--dump-routes",
    ]);
    assert_eq!(unknown.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        stderr.contains("`fly`") && stderr.contains("readLab"),
        "{stderr}"
    );
}
