//! Against the real binary: the user-actions ledger over HTTP (a brain
//! capture and a grants change show in `GET /api/user-actions`), CoS task
//! CRUD, agent runs and `cos.agents.status`, and the brain inbox routes.

use portos_tests::ServerProcess;
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};

const PASSWORD: &str = "ledger test password";

/// A signed-in client of one server.
struct Session {
    client: Client,
    server: ServerProcess,
    token: String,
}

impl Session {
    async fn open() -> Session {
        let server = ServerProcess::start_protected(PASSWORD);
        let client = portos_tests::http_client();
        let body: Value = client
            .post(server.url("/api/auth/login"))
            .json(&json!({ "password": PASSWORD }))
            .send()
            .await
            .expect("request")
            .json()
            .await
            .expect("json");
        let token = body["token"].as_str().expect("a token").to_owned();
        Session {
            client,
            server,
            token,
        }
    }

    async fn send(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut request = self
            .client
            .request(method, self.server.url(path))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("request");
        let status = response.status();
        let text = response.text().await.expect("body");
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, body)
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.send(Method::GET, path, None).await
    }
}

fn events(body: &Value) -> &Vec<Value> {
    body["events"].as_array().expect("events")
}

#[tokio::test]
async fn a_capture_and_a_grants_change_show_in_the_ledger() {
    let s = Session::open().await;
    let (status, captured) = s
        .send(
            Method::POST,
            "/api/brain/inbox",
            Some(json!({"text": "Call the plumber"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{captured}");
    assert_eq!(captured["ok"], true);
    let capture_id = captured["id"].clone();
    let (status, body) = s
        .send(
            Method::PUT,
            "/api/cos/mind/capabilities",
            Some(json!({"readPortos": true, "writePortos": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let (status, body) = s.get("/api/user-actions").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["truncated"], false);
    let listed = events(&body);
    assert_eq!(listed.len(), 2, "{body}");
    let grants = &listed[0];
    assert_eq!(grants["type"], "settings.update");
    assert_eq!(grants["actor"], "user");
    assert_eq!(
        grants["summary"],
        "Persistent Mind capabilities: granted readPortos, writePortos"
    );
    assert_eq!(
        grants["source"],
        json!({"route": "/api/cos/mind/capabilities", "method": "PUT"})
    );
    let capture = &listed[1];
    assert_eq!(capture["type"], "brain.capture");
    assert_eq!(capture["actor"], "user");
    assert_eq!(capture["target"], capture_id);
    assert_eq!(capture["summary"], "Captured \"Call the plumber\"");

    // The same filters as the tool, strictly.
    let (_, body) = s.get("/api/user-actions?type=brain.capture").await;
    assert_eq!(events(&body).len(), 1);
    let (_, body) = s
        .get("/api/user-actions?types=brain.capture,settings.update&limit=1")
        .await;
    assert_eq!(events(&body).len(), 1);
    assert_eq!(body["truncated"], true);
    let (_, body) = s.get("/api/user-actions?actor=mind").await;
    assert_eq!(events(&body).len(), 0);
    let (_, body) = s
        .get("/api/user-actions?from=2000-01-01&to=2000-01-02")
        .await;
    assert_eq!(events(&body).len(), 0);
    for bad in [
        "sql=1",
        "from=someday",
        "type=brain.delete",
        "types=brain.capture,nope",
        "actor=robot",
        "limit=0",
        "limit=many",
    ] {
        let (status, body) = s.get(&format!("/api/user-actions?{bad}")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
        assert_eq!(body["code"], "VALIDATION_ERROR", "{bad}");
    }
    let (_, body) = s.get("/api/user-actions?from=someday").await;
    assert_eq!(
        body["error"],
        "Invalid 'from' for 'user-actions.query': must be a parseable date/timestamp"
    );

    // An API Access change is recorded too.
    let (status, body) = s
        .send(
            Method::PUT,
            "/api/settings/api-access",
            Some(json!({"brain": {"exposed": true, "requireAuth": true}})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, body) = s.get("/api/user-actions?limit=1").await;
    assert_eq!(
        events(&body)[0]["summary"],
        "API Access: brain exposed, sign-in required"
    );
    // A refused change records nothing.
    let (status, _) = s
        .send(
            Method::PUT,
            "/api/settings/api-access",
            Some(json!({"nope": {"exposed": true}})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (_, body) = s.get("/api/user-actions").await;
    assert_eq!(events(&body).len(), 3);

    // The tool sees the same ledger.
    let (status, result) = s
        .send(
            Method::POST,
            "/api/cos/tools/call",
            Some(json!({"requestId": "q-1", "name": "user-actions.query", "arguments": {"type": "brain.capture"}})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_eq!(result["result"]["events"][0]["target"], capture_id);
    let (status, result) = s
        .send(
            Method::POST,
            "/api/cos/tools/call",
            Some(json!({"requestId": "q-2", "name": "user-actions.query", "arguments": {"from": "nope"}})),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "a failed result, not a 400"
    );
    assert_eq!(result["state"], "failed");
}

#[tokio::test]
async fn task_crud_answers_201_200_404_400() {
    let s = Session::open().await;
    let (status, task) = s
        .send(
            Method::POST,
            "/api/cos/tasks",
            Some(json!({"description": "  Tidy the docs  ", "app": "portos", "priority": "HIGH"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{task}");
    assert_eq!(task["description"], "Tidy the docs");
    assert_eq!(task["status"], "pending");
    assert_eq!(task["priority"], "HIGH");
    assert_eq!(task["app"], "portos");
    let id = task["id"].as_str().expect("id").to_owned();

    for bad in [
        json!({"description": "   "}),
        json!({"description": "x", "owner": "me"}),
        json!({"description": "x", "priority": "URGENT"}),
        json!({"app": "portos"}),
    ] {
        let (status, body) = s
            .send(Method::POST, "/api/cos/tasks", Some(bad.clone()))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
        assert_eq!(body["code"], "VALIDATION_ERROR");
    }

    let (status, read) = s.get(&format!("/api/cos/tasks/{id}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(read["description"], "Tidy the docs");
    assert_eq!(read["agents"], json!([]));
    let (status, list) = s.get("/api/cos/tasks?app=portos&status=pending").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["tasks"].as_array().map(Vec::len), Some(1));
    let (status, _) = s.get("/api/cos/tasks?status=sleeping").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = s.get("/api/cos/tasks?bogus=1").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    let path = format!("/api/cos/tasks/{id}");
    let (status, updated) = s
        .send(
            Method::PUT,
            &path,
            Some(json!({"status": "blocked", "app": null})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["status"], "blocked");
    assert_eq!(updated["app"], Value::Null);
    let (status, _) = s.send(Method::PUT, &path, Some(json!({}))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = s
        .send(
            Method::PUT,
            "/api/cos/tasks/missing",
            Some(json!({"status": "failed"})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, body) = s.get("/api/cos/tasks/missing").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["code"], "TASK_NOT_FOUND");

    let (status, deleted) = s.send(Method::DELETE, &path, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(deleted, json!({"ok": true, "id": id}));
    let (status, _) = s.send(Method::DELETE, &path, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let (_, body) = s
        .get("/api/user-actions?types=cos.task.create,cos.task.update,cos.task.delete")
        .await;
    let kinds: Vec<&str> = events(&body)
        .iter()
        .map(|event| event["type"].as_str().expect("type"))
        .collect();
    assert_eq!(
        kinds,
        ["cos.task.delete", "cos.task.update", "cos.task.create"]
    );
    assert_eq!(
        events(&body)[1]["source"],
        json!({"route": "/api/cos/tasks/{id}", "method": "PUT"})
    );
}

#[tokio::test]
async fn agents_start_report_and_show_in_the_status_tool() {
    let s = Session::open().await;
    let (_, task) = s
        .send(
            Method::POST,
            "/api/cos/tasks",
            Some(json!({"description": "Port the scheduler", "app": "portos"})),
        )
        .await;
    let id = task["id"].as_str().expect("id").to_owned();
    let agents_path = format!("/api/cos/tasks/{id}/agents");
    let (status, run) = s
        .send(
            Method::POST,
            &agents_path,
            Some(json!({"phase": "planning"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{run}");
    assert_eq!(run["status"], "running");
    let agent_id = run["agentId"].as_str().expect("agentId").to_owned();
    let (status, body) = s.send(Method::POST, &agents_path, Some(json!({}))).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let (status, _) = s
        .send(
            Method::POST,
            "/api/cos/tasks/missing/agents",
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, read) = s.get(&format!("/api/cos/tasks/{id}")).await;
    assert_eq!(read["status"], "in_progress");

    let call = |request_id: &str| json!({"requestId": request_id, "name": "cos.agents.status", "arguments": {}});
    let (status, result) = s
        .send(Method::POST, "/api/cos/tools/call", Some(call("a-1")))
        .await;
    assert_eq!(status, StatusCode::OK, "{result}");
    let status_body = &result["result"];
    assert_eq!(status_body["count"], 1);
    assert_eq!(status_body["agents"][0]["agentId"], agent_id);
    assert_eq!(status_body["agents"][0]["taskId"], id);
    assert_eq!(status_body["agents"][0]["phase"], "planning");
    assert_eq!(status_body["agents"][0]["app"], "portos");
    assert!(
        status_body["agents"][0]["elapsedMs"]
            .as_i64()
            .expect("elapsed")
            >= 0
    );

    let agent_path = format!("/api/cos/agents/{agent_id}");
    let (status, moved) = s
        .send(Method::PUT, &agent_path, Some(json!({"phase": "coding"})))
        .await;
    assert_eq!(status, StatusCode::OK, "{moved}");
    assert_eq!(moved["phase"], "coding");
    let (status, _) = s.send(Method::PUT, &agent_path, Some(json!({}))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = s
        .send(
            Method::PUT,
            &agent_path,
            Some(json!({"outcome": "exploded"})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (_, running) = s.get("/api/cos/agents?running=true").await;
    assert_eq!(running["agents"].as_array().map(Vec::len), Some(1));

    let (status, done) = s
        .send(
            Method::PUT,
            &agent_path,
            Some(json!({"outcome": "completed"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["status"], "finished");
    assert_eq!(done["outcome"], "completed");
    let (status, _) = s
        .send(Method::PUT, &agent_path, Some(json!({"phase": "again"})))
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    let (status, _) = s
        .send(
            Method::PUT,
            "/api/cos/agents/missing",
            Some(json!({"phase": "x"})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let (_, result) = s
        .send(Method::POST, "/api/cos/tools/call", Some(call("a-2")))
        .await;
    assert_eq!(result["result"]["count"], 0);
    assert_eq!(result["result"]["summary"], "No agents are running.");
    let (_, all) = s.get("/api/cos/agents").await;
    assert_eq!(all["agents"].as_array().map(Vec::len), Some(1));
    let (_, running) = s.get("/api/cos/agents?running=true").await;
    assert_eq!(running["agents"], json!([]));
    let (_, read) = s.get(&format!("/api/cos/tasks/{id}")).await;
    assert_eq!(read["status"], "completed");
    assert_eq!(read["agents"][0]["agentId"], agent_id);
    let (status, _) = s.get("/api/cos/agents?running=maybe").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn the_brain_inbox_lists_and_captures() {
    let s = Session::open().await;
    for text in ["first", "second", "third"] {
        let (status, _) = s
            .send(
                Method::POST,
                "/api/brain/inbox",
                Some(json!({ "text": text })),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED);
    }
    let (status, body) = s
        .send(
            Method::POST,
            "/api/brain/inbox",
            Some(json!({"text": "  "})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"], "text must not be empty");
    let (status, body) = s
        .send(
            Method::POST,
            "/api/brain/inbox",
            Some(json!({"text": "x", "tags": []})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["code"], "VALIDATION_ERROR");

    let (status, page) = s.get("/api/brain/inbox?limit=2&offset=1").await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(page["total"], 3);
    let texts: Vec<&str> = page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| item["text"].as_str().expect("text"))
        .collect();
    assert_eq!(texts, ["second", "first"]);
    assert!(
        page["items"][0]["date"]
            .as_str()
            .is_some_and(|d| d.len() == 10)
    );
    for bad in ["limit=0", "limit=101", "offset=-1", "page=2"] {
        let (status, _) = s.get(&format!("/api/brain/inbox?{bad}")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    }
    let (_, body) = s.get("/api/user-actions?type=brain.capture").await;
    assert_eq!(events(&body).len(), 3);
}

#[tokio::test]
async fn without_a_session_an_inbox_capture_is_refused_like_any_ui_write() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let response = client
        .post(server.url("/api/brain/inbox"))
        .json(&json!({"text": "anonymous"}))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["code"], "TOOL_AUTH_REQUIRED");
    let ledger: Value = client
        .get(server.url("/api/user-actions"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(ledger["events"], json!([]));
}
