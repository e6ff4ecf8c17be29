//! A real visit between two `portos` processes on loopback
//! (docs/reference.md#tool-families): A's presence visits B through A's
//! `POST /api/cos/tools/call` (the `ui` principal, signed in), and A's server
//! talks to B's guest routes over HTTP. Both instances have a password; B's
//! guest routes answer A without it, and only while B accepts guests.

use portos_tests::ServerProcess;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

const PASSWORD: &str = "correct horse battery staple";

/// A server with a password, and a signed-in session token for it.
async fn protected_server(client: &Client) -> (ServerProcess, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = ServerProcess::start_with_env(dir, &[], &[("PORTOS_PASSWORD", PASSWORD)]);
    let response = client
        .post(server.url("/api/auth/login"))
        .json(&json!({ "password": PASSWORD }))
        .send()
        .await
        .expect("login");
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.expect("json");
    let token = body["token"].as_str().expect("a token").to_owned();
    (server, token)
}

struct Owner<'a> {
    client: &'a Client,
    server: &'a ServerProcess,
    token: &'a str,
}

impl Owner<'_> {
    async fn call(&self, request_id: &str, name: &str, arguments: Value) -> (StatusCode, Value) {
        let response = self
            .client
            .post(self.server.url("/api/cos/tools/call"))
            .bearer_auth(self.token)
            .json(&json!({"requestId": request_id, "name": name, "arguments": arguments}))
            .send()
            .await
            .expect("request");
        let status = response.status();
        (status, response.json().await.expect("json"))
    }

    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut request = self
            .client
            .request(method, self.server.url(path))
            .bearer_auth(self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("request");
        let status = response.status();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    async fn accept_guests(&self, accept: bool) {
        let (status, body) = self
            .send(
                reqwest::Method::PUT,
                "/api/eidoverse/settings",
                Some(json!({"acceptGuests": accept})),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["acceptGuests"], accept);
    }

    async fn add_peer(&self, id: &str, url: &str, name: &str) {
        let (status, body) = self
            .send(
                reqwest::Method::POST,
                "/api/eidoverse/peers",
                Some(json!({"id": id, "url": url, "name": name})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
}

#[tokio::test]
async fn a_visit_to_a_peer_world_over_http() {
    let client = portos_tests::http_client();
    let (a, a_token) = protected_server(&client).await;
    let (b, b_token) = protected_server(&client).await;
    let a_owner = Owner {
        client: &client,
        server: &a,
        token: &a_token,
    };
    let b_owner = Owner {
        client: &client,
        server: &b,
        token: &b_token,
    };

    b_owner.accept_guests(true).await;
    a_owner
        .add_peer("world-b", &format!("{}/", b.base_url), "World B")
        .await;

    // B's guest door answers without B's password.
    let door = client
        .get(b.url("/api/eidoverse/travel/guest/world"))
        .send()
        .await
        .expect("request");
    assert_eq!(door.status(), StatusCode::OK);
    // The rest of B's eidoverse API still needs it.
    let peers = client
        .get(b.url("/api/eidoverse/peers"))
        .send()
        .await
        .expect("request");
    assert_eq!(peers.status(), StatusCode::UNAUTHORIZED);

    let (status, destinations) = a_owner
        .call("d-1", "eidoverse.destinations", json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{destinations}");
    let listed = &destinations["result"]["destinations"][0];
    assert_eq!(listed["peerId"], "world-b");
    assert_eq!(listed["door"], "open");
    assert_eq!(listed["world"]["name"], "PortOS world");
    assert_eq!(destinations["result"]["accepting"], 1);

    let (status, visit) = a_owner
        .call("v-1", "eidoverse.visit", json!({"peerId": "world-b"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{visit}");
    let visit_id = visit["result"]["visitId"]
        .as_str()
        .expect("a visit id")
        .to_owned();
    assert_eq!(visit_id.len(), 48);
    assert!(
        visit_id
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    );
    assert_eq!(visit["result"]["host"], "Chief of Staff");

    // B's own chat has a line before the guest speaks.
    let (status, _) = b_owner
        .send(
            reqwest::Method::POST,
            "/api/eidoverse/chat",
            Some(json!({"text": "welcome, traveller"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);

    let (status, chat) = a_owner
        .call(
            "vc-1",
            "eidoverse.visit-chat",
            json!({"visitId": visit_id, "text": "hello from A"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{chat}");
    assert_eq!(chat["result"]["posted"]["text"], "hello from A");
    assert_eq!(chat["result"]["posted"]["authorKind"], "guest");
    let texts: Vec<&str> = chat["result"]["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["text"].as_str())
        .collect();
    assert_eq!(texts, ["welcome, traveller", "hello from A"]);

    // The line is in B's world chat, written by A's presence.
    let (status, b_chat) = b_owner
        .send(reqwest::Method::GET, "/api/eidoverse/chat", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let last = &b_chat["messages"][1];
    assert_eq!(last["text"], "hello from A");
    assert_eq!(last["author"], "Chief of Staff (from PortOS world)");
    assert_eq!(last["authorKind"], "guest");
    // A's own world chat is untouched.
    let (_, a_chat) = a_owner
        .send(reqwest::Method::GET, "/api/eidoverse/chat", None)
        .await;
    assert_eq!(a_chat["messages"], json!([]));
    let (_, b_world) = b_owner
        .send(reqwest::Method::GET, "/api/eidoverse/world", None)
        .await;
    assert_eq!(b_world["counts"]["activeGuests"], 1);

    // Reading on from the cursor gives nothing new.
    let cursor = chat["result"]["cursor"].as_i64().expect("cursor");
    let (_, quiet) = a_owner
        .call(
            "vc-2",
            "eidoverse.visit-chat",
            json!({"visitId": visit_id, "after": cursor}),
        )
        .await;
    assert_eq!(quiet["result"]["messages"], json!([]));

    let (status, left) = a_owner
        .call("l-1", "eidoverse.leave", json!({"visitId": visit_id}))
        .await;
    assert_eq!(status, StatusCode::OK, "{left}");
    let (_, b_world) = b_owner
        .send(reqwest::Method::GET, "/api/eidoverse/world", None)
        .await;
    assert_eq!(b_world["counts"]["activeGuests"], 0);
    // The visit is over on both sides.
    let (status, again) = a_owner
        .call(
            "vc-3",
            "eidoverse.visit-chat",
            json!({"visitId": visit_id, "text": "still here?"}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{again}");
    let stale = client
        .post(b.url(&format!(
            "/api/eidoverse/travel/guest/visits/{visit_id}/chat"
        )))
        .json(&json!({"text": "sneaking back"}))
        .send()
        .await
        .expect("request");
    assert_eq!(stale.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_world_that_does_not_accept_guests_refuses_the_visit() {
    let client = portos_tests::http_client();
    let (a, a_token) = protected_server(&client).await;
    let (b, _b_token) = protected_server(&client).await;
    let a_owner = Owner {
        client: &client,
        server: &a,
        token: &a_token,
    };
    a_owner.add_peer("world-b", &b.base_url, "World B").await;

    let (status, destinations) = a_owner
        .call("d-1", "eidoverse.destinations", json!({}))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(destinations["result"]["destinations"][0]["door"], "closed");
    assert_eq!(destinations["result"]["accepting"], 0);

    let (status, visit) = a_owner
        .call("v-1", "eidoverse.visit", json!({"peerId": "world-b"}))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{visit}");
    assert_eq!(visit["state"], "failed");
    let error = visit["error"].as_str().expect("an error");
    assert!(error.contains("World B refused (403)"), "{error}");
    assert!(error.contains("does not accept guests"), "{error}");

    // B's guest routes refuse every guest request, strictly shaped or not.
    let knock = client
        .post(b.url("/api/eidoverse/travel/guest/visits"))
        .json(&json!({"guestName": "someone", "fromWorld": "elsewhere"}))
        .send()
        .await
        .expect("request");
    assert_eq!(knock.status(), StatusCode::FORBIDDEN);
    let body: Value = knock.json().await.expect("json");
    assert_eq!(body["code"], "GUESTS_NOT_ACCEPTED");
}

#[tokio::test]
async fn guest_routes_validate_what_guests_send() {
    let client = portos_tests::http_client();
    let (b, b_token) = protected_server(&client).await;
    let b_owner = Owner {
        client: &client,
        server: &b,
        token: &b_token,
    };
    b_owner.accept_guests(true).await;
    let knock = |body: Value| {
        client
            .post(b.url("/api/eidoverse/travel/guest/visits"))
            .json(&body)
            .send()
    };
    for bad in [
        json!({"guestName": "x", "fromWorld": "y", "admin": true}),
        json!({"guestName": "", "fromWorld": "y"}),
        json!({"guestName": "n".repeat(81), "fromWorld": "y"}),
        json!({"guestName": "x"}),
    ] {
        let response = knock(bad.clone()).await.expect("request");
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{bad}");
    }
    let bad_id = client
        .get(b.url("/api/eidoverse/travel/guest/visits/NOT-A-VISIT/chat"))
        .send()
        .await
        .expect("request");
    assert_eq!(bad_id.status(), StatusCode::BAD_REQUEST);
    let unknown = client
        .delete(b.url(&format!(
            "/api/eidoverse/travel/guest/visits/{}",
            "ab".repeat(24)
        )))
        .send()
        .await
        .expect("request");
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    let ok = knock(json!({"guestName": "Ada", "fromWorld": "Elsewhere"}))
        .await
        .expect("request");
    assert_eq!(ok.status(), StatusCode::CREATED);
    let welcome: Value = ok.json().await.expect("json");
    let visit_id = welcome["visitId"].as_str().expect("visit id");
    let empty = client
        .post(b.url(&format!(
            "/api/eidoverse/travel/guest/visits/{visit_id}/chat"
        )))
        .json(&json!({"text": "   "}))
        .send()
        .await
        .expect("request");
    assert_eq!(empty.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn an_unreachable_peer_is_a_failed_result() {
    let client = portos_tests::http_client();
    let (a, a_token) = protected_server(&client).await;
    let a_owner = Owner {
        client: &client,
        server: &a,
        token: &a_token,
    };
    // A port that was just free: bind, note it, close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    a_owner
        .add_peer("gone", &format!("http://127.0.0.1:{port}"), "Gone World")
        .await;
    let (status, visit) = a_owner
        .call("v-1", "eidoverse.visit", json!({"peerId": "gone"}))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{visit}");
    let error = visit["error"].as_str().expect("an error");
    assert!(
        error.starts_with("could not reach Gone World at http://127.0.0.1:"),
        "{error}"
    );
    let (status, destinations) = a_owner
        .call("d-1", "eidoverse.destinations", json!({}))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        destinations["result"]["destinations"][0]["door"],
        "unreachable"
    );
}

#[tokio::test]
async fn peers_and_settings_routes_check_what_people_send() {
    let client = portos_tests::http_client();
    let (a, a_token) = protected_server(&client).await;
    let owner = Owner {
        client: &client,
        server: &a,
        token: &a_token,
    };
    let post = reqwest::Method::POST;
    // One status for validation failures: a rule of the world broken
    // (scheme, query, id) is the same 400 as a malformed body.
    for (body, status) in [
        (
            json!({"id": "p1", "url": "ftp://example.org"}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"id": "p1", "url": "not a url"}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"id": "p1", "url": "http://h:1/?q=1"}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"id": "a/b", "url": "http://h:1"}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"id": "p1", "url": "http://h:1", "extra": 1}),
            StatusCode::BAD_REQUEST,
        ),
        (json!({"id": "p1"}), StatusCode::BAD_REQUEST),
    ] {
        let (got, answer) = owner
            .send(post.clone(), "/api/eidoverse/peers", Some(body.clone()))
            .await;
        assert_eq!(got, status, "{body}: {answer}");
    }
    // A peer whose host is an address the outbound policy refuses (the
    // tests' policy: loopback only) is refused when it is added, naming
    // the rule; it would never be contacted.
    for (url, says) in [
        (
            "http://169.254.169.254",
            "169.254.0.0/16: link-local (cloud metadata)",
        ),
        ("http://[fd00::7]:8080", "fc00::/7: unique local"),
        (
            "https://93.184.215.14",
            "not in this server's outbound allow list",
        ),
    ] {
        let (got, answer) = owner
            .send(
                post.clone(),
                "/api/eidoverse/peers",
                Some(json!({"id": "p1", "url": url})),
            )
            .await;
        assert_eq!(got, StatusCode::BAD_REQUEST, "{url}: {answer}");
        assert_eq!(answer["code"], "VALIDATION_ERROR", "{answer}");
        let message = answer["error"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{url}: {message}");
    }
    let (_, listed) = owner
        .send(reqwest::Method::GET, "/api/eidoverse/peers", None)
        .await;
    assert_eq!(listed["peers"], json!([]), "a refused peer is not stored");
    owner.add_peer("p1", "http://127.0.0.1:9/", "P One").await;
    let (_, listed) = owner
        .send(reqwest::Method::GET, "/api/eidoverse/peers", None)
        .await;
    assert_eq!(
        listed["peers"],
        json!([{"id": "p1", "url": "http://127.0.0.1:9", "name": "P One"}])
    );
    let (status, _) = owner
        .send(reqwest::Method::DELETE, "/api/eidoverse/peers/p1", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = owner
        .send(reqwest::Method::DELETE, "/api/eidoverse/peers/p1", None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["code"], "PEER_NOT_FOUND");

    let (status, settings) = owner
        .send(reqwest::Method::GET, "/api/eidoverse/settings", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        settings,
        json!({"acceptGuests": false}),
        "guests are off by default"
    );
    let (status, _) = owner
        .send(
            reqwest::Method::PUT,
            "/api/eidoverse/settings",
            Some(json!({"acceptGuests": "yes"})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = owner
        .send(post, "/api/eidoverse/chat", Some(json!({"text": "  "})))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = owner
        .send(reqwest::Method::GET, "/api/eidoverse/chat?after=-2", None)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}
