//! Long-running tools as durable jobs, as their callers meet them: the
//! homelab's `lab.hosts.probe` (a read) and `lab.hosts.retire` (a
//! destructive write an agent's call parks until a person confirms) over
//! HTTP — 202 and the job, its event stream resumed with `Last-Event-ID`,
//! cancel and confirm with the contract's codes — and over MCP (tasks at
//! 2026-07-28 and 2025-11-25), across a SIGKILL and a restart.

use crate::support;

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use support::{Server, call, get, http_client, login};

/// A port on 127.0.0.1 that accepts connections (the probe's "up" host),
/// kept open for the test's life.
pub(crate) async fn open_port() -> (tokio::net::TcpListener, u16) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a listener");
    let port = listener.local_addr().expect("address").port();
    (listener, port)
}

pub(crate) async fn add_host(
    client: &reqwest::Client,
    server: &Server,
    token: &str,
    name: &str,
    address: &str,
    role: &str,
) {
    let (status, body) = call(
        client,
        server,
        Some(token),
        &format!("add-{name}"),
        "lab.hosts.add",
        json!({ "name": name, "address": address, "role": role }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

/// One Server-Sent Event: (id, event, data).
pub(crate) type SseEvent = (i64, String, Value);

/// Reads a job's event stream to its end (it ends after the final event).
pub(crate) async fn events(
    client: &reqwest::Client,
    server: &Server,
    token: &str,
    job_id: &str,
    last_event_id: Option<&str>,
) -> (StatusCode, Vec<SseEvent>, String) {
    let mut request = client
        .get(server.url(&format!("/api/tools/jobs/{job_id}/events")))
        .bearer_auth(token);
    if let Some(last) = last_event_id {
        request = request.header("last-event-id", last);
    }
    let response = tokio::time::timeout(Duration::from_secs(30), request.send())
        .await
        .expect("the stream opens")
        .expect("request");
    let status = response.status();
    let text = tokio::time::timeout(Duration::from_secs(30), response.text())
        .await
        .expect("the stream ends with the job")
        .expect("body");
    let mut parsed = Vec::new();
    for block in text.split("\n\n").filter(|block| !block.trim().is_empty()) {
        let field = |name: &str| {
            block
                .lines()
                .find_map(|line| line.strip_prefix(&format!("{name}:")))
                .map(str::trim)
        };
        let (Some(id), Some(event), Some(data)) = (field("id"), field("event"), field("data"))
        else {
            continue; // a keep-alive comment
        };
        parsed.push((
            id.parse().expect("a numeric id"),
            event.to_owned(),
            serde_json::from_str(data).expect("data is the job as JSON"),
        ));
    }
    (status, parsed, text)
}

pub(crate) async fn job(
    client: &reqwest::Client,
    server: &Server,
    token: &str,
    job_id: &str,
) -> Value {
    let (status, body) = get(
        client,
        server,
        &format!("/api/tools/jobs/{job_id}"),
        Some(token),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

/// Polls the job until `done` says so (for at least 30 s: on a shared
/// database a job whose server was killed is taken over once its lease,
/// 10 s, runs out).
pub(crate) async fn until(
    client: &reqwest::Client,
    server: &Server,
    token: &str,
    job_id: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    for _ in 0..600 {
        let body = job(client, server, token, job_id).await;
        if done(&body) {
            return body;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("job {job_id} never got there");
}

pub(crate) async fn post_job(
    client: &reqwest::Client,
    server: &Server,
    token: Option<&str>,
    job_id: &str,
    action: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = client.post(server.url(&format!("/api/tools/jobs/{job_id}/{action}")));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("request");
    let status = response.status();
    (status, response.json().await.expect("a JSON body"))
}

#[tokio::test]
async fn a_probe_runs_as_a_job_that_reports_each_host_and_keeps_its_result() {
    let (_listener, port) = open_port().await;
    let server = Server::start_locked(&[]);
    let client = http_client();
    let token = login(&client, &server).await;
    add_host(&client, &server, &token, "up", "127.0.0.1", "server").await;
    // Nothing listens on 127.0.0.2 at that port: refused at once.
    add_host(&client, &server, &token, "down", "127.0.0.2", "server").await;

    let response = client
        .post(server.url("/api/tools/call"))
        .bearer_auth(&token)
        .json(&json!({ "requestId": "probe-1", "name": "lab.hosts.probe", "arguments": { "port": port, "pauseMs": 50 } }))
        .send()
        .await
        .expect("call");
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    let location = response.headers()["location"]
        .to_str()
        .expect("text")
        .to_owned();
    let created: Value = response.json().await.expect("json");
    assert_eq!(created["type"], "portos_tool_job");
    assert_eq!(created["name"], "lab.hosts.probe");
    assert_eq!(created["principal"], "operator");
    assert_eq!(created["duplicate"], false);
    assert_eq!(created["state"], "working");
    let job_id = created["jobId"].as_str().expect("an id").to_owned();
    assert_eq!(location, format!("/api/tools/jobs/{job_id}"));

    let (status, stream, _) = events(&client, &server, &token, &job_id, None).await;
    assert_eq!(status, StatusCode::OK);
    let kinds: Vec<&str> = stream.iter().map(|(_, kind, _)| kind.as_str()).collect();
    assert_eq!(kinds.first(), Some(&"working"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"completed"), "{kinds:?}");
    assert!(kinds.contains(&"progress"), "{kinds:?}");
    assert!(
        stream.windows(2).all(|pair| pair[0].0 < pair[1].0),
        "ids increase"
    );
    assert!(
        stream
            .iter()
            .any(|(_, _, data)| data["progress"]["total"] == 2.0
                && data["progress"]["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("Probing"))),
        "progress names the host being probed"
    );
    // The last report ("Done") comes just before the end, as the job stood
    // then (it is recorded in the same commit as the end).
    let (_, kind, done) = &stream[stream.len() - 2];
    assert_eq!(kind, "progress", "{kinds:?}");
    assert_eq!(done["progress"]["message"], "Done");
    assert_eq!(done["progress"]["done"], 2.0, "{done}");
    assert_eq!(done["state"], "working");
    let (_, _, last) = stream.last().expect("events");
    let hosts = &last["result"]["result"]["hosts"];
    assert_eq!(hosts[0]["name"], "down");
    assert_eq!(hosts[0]["reachable"], false);
    assert_eq!(hosts[1]["name"], "up");
    assert_eq!(hosts[1]["reachable"], true);
    assert_eq!(last["result"]["state"], "completed");

    // The record says the same, and keeps it.
    let record = job(&client, &server, &token, &job_id).await;
    assert_eq!(record["state"], "completed");
    assert_eq!(record["result"], last["result"]);

    // The same requestId is the same job, not a second probe.
    let (status, again) = call(
        &client,
        &server,
        Some(&token),
        "probe-1",
        "lab.hosts.probe",
        json!({ "port": port, "pauseMs": 50 }),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(again["jobId"], job_id.as_str());
    assert_eq!(again["duplicate"], true);
    assert_eq!(again["result"], last["result"]);
    // …and another call under it is refused.
    let (status, conflict) = call(
        &client,
        &server,
        Some(&token),
        "probe-1",
        "lab.hosts.probe",
        json!({ "port": port }),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{conflict}");
    assert_eq!(conflict["code"], "TOOL_IDEMPOTENCY_CONFLICT");

    // A stream resumes after the last event its client saw.
    let second = stream[1].0.to_string();
    let (status, resumed, _) = events(&client, &server, &token, &job_id, Some(&second)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(resumed.len(), stream.len() - 2);
    assert_eq!(resumed.first().map(|event| event.0), Some(stream[2].0));
    let after_all = stream
        .last()
        .map(|event| event.0.to_string())
        .expect("events");
    let (_, none, _) = events(&client, &server, &token, &job_id, Some(&after_all)).await;
    assert!(none.is_empty(), "nothing after the final event");

    // Bad input: a Last-Event-ID that is no id, an unknown job.
    let bad = client
        .get(server.url(&format!("/api/tools/jobs/{job_id}/events")))
        .bearer_auth(&token)
        .header("last-event-id", "yesterday")
        .send()
        .await
        .expect("request");
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    let bad: Value = bad.json().await.expect("json");
    assert_eq!(bad["code"], "VALIDATION_ERROR");
    for path in [
        "/api/tools/jobs/no-such-job",
        "/api/tools/jobs/no-such-job/events",
    ] {
        let (status, body) = get(&client, &server, path, Some(&token)).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(body["code"], "TOOL_JOB_NOT_FOUND");
    }
}

/// Callers that hang up while their call is being answered: every job whose
/// record was committed still runs to its end (none is left `working` with
/// nothing running it), and its `requestId` answers the finished job.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caller_that_hangs_up_leaves_no_job_behind() {
    use tokio::io::AsyncWriteExt;

    const CALLS: usize = 120;
    let server = Server::start(&[]);
    let address = server
        .base_url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let hang_ups: Vec<_> = (0..CALLS)
        .map(|index| {
            let address = address.clone();
            tokio::spawn(async move {
                let body = format!(
                    r#"{{"requestId":"gone-{index}","name":"lab.hosts.probe","arguments":{{"port":9}}}}"#
                );
                let request = format!(
                    "POST /api/tools/call HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
                let mut stream = tokio::net::TcpStream::connect(&address)
                    .await
                    .expect("connects");
                stream.write_all(request.as_bytes()).await.expect("sends");
                // Gone at a different moment of each answer.
                tokio::time::sleep(Duration::from_micros(50 * (index as u64 % 40))).await;
                drop(stream);
            })
        })
        .collect();
    for hang_up in hang_ups {
        hang_up.await.expect("the caller ran");
    }

    // Every job recorded ends (a probe of no hosts is quick).
    let dir = server.data_dir.path();
    let unfinished = || -> i64 {
        let sql = "SELECT count(*) FROM tool_jobs WHERE state IN ('working', 'input_required')";
        if let Some(rows) = test_postgres::query(dir, sql) {
            return rows.first().and_then(|n| n.parse().ok()).expect("a count");
        }
        let connection = rusqlite::Connection::open_with_flags(
            dir.join("homelab.db"),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .expect("the store");
        connection
            .query_row(sql, [], |row| row.get(0))
            .expect("count")
    };
    let mut left = unfinished();
    for _ in 0..100 {
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        left = unfinished();
    }
    assert_eq!(left, 0, "jobs recorded but never run");

    // Each requestId answers a finished job (or starts its first one, for
    // a call the server never read), which completes.
    let client = http_client();
    for index in 0..CALLS {
        let (status, job) = call(
            &client,
            &server,
            None,
            &format!("gone-{index}"),
            "lab.hosts.probe",
            json!({ "port": 9 }),
        )
        .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{job}");
        if job["duplicate"] == true {
            // A hung-up call the server read only after the count above
            // (a loaded machine) may still be running: it must finish.
            let path = format!("/api/tools/jobs/{}", job["jobId"].as_str().expect("jobId"));
            let mut state = job["state"].clone();
            for _ in 0..100 {
                if state != "working" {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
                state = get(&client, &server, &path, None).await.1["state"].clone();
            }
            assert_eq!(state, "completed", "{job}");
        }
    }

    // One job per requestId, listed in pages, newest first.
    let (_, first) = get(&client, &server, "/api/tools/jobs?limit=100", None).await;
    let (_, second) = get(
        &client,
        &server,
        "/api/tools/jobs?limit=100&offset=100",
        None,
    )
    .await;
    assert_eq!(first["hasMore"], true);
    assert_eq!(second["hasMore"], false);
    let listed: Vec<&Value> = first["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .chain(second["jobs"].as_array().expect("jobs"))
        .collect();
    assert_eq!(listed.len(), CALLS);
    let ids: std::collections::BTreeSet<&str> = listed
        .iter()
        .filter_map(|job| job["requestId"].as_str())
        .collect();
    assert_eq!(ids.len(), CALLS, "each requestId once");
    // Times are RFC 3339 UTC with milliseconds, always three digits.
    assert!(
        listed.iter().all(|job| job["createdAt"]
            .as_str()
            .is_some_and(|at| at.len() == 24 && at.ends_with('Z'))),
        "{listed:?}"
    );
    assert!(
        listed
            .windows(2)
            .all(|pair| pair[0]["createdAt"].as_str() >= pair[1]["createdAt"].as_str()),
        "newest first"
    );
}

#[tokio::test]
async fn a_cancelled_probe_stops_between_hosts_and_stays_cancelled() {
    let (_listener, port) = open_port().await;
    let server = Server::start_locked(&[]);
    let client = http_client();
    let token = login(&client, &server).await;
    for name in ["a", "b", "c"] {
        add_host(&client, &server, &token, name, "127.0.0.1", "server").await;
    }
    let (status, created) = call(
        &client,
        &server,
        Some(&token),
        "slow-probe",
        "lab.hosts.probe",
        json!({ "port": port, "pauseMs": 60000 }),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{created}");
    let job_id = created["jobId"].as_str().expect("id").to_owned();
    // The first host is probed, then the job pauses for a minute.
    until(&client, &server, &token, &job_id, |job| {
        job["progress"]["done"] == 0.0
    })
    .await;

    let (status, cancelled) =
        post_job(&client, &server, Some(&token), &job_id, "cancel", None).await;
    assert_eq!(status, StatusCode::OK, "{cancelled}");
    assert_eq!(cancelled["state"], "cancelled");
    assert_eq!(cancelled["result"]["state"], "failed");
    assert_eq!(cancelled["result"]["error"], "Cancelled by the caller");
    let (_, stream, _) = events(&client, &server, &token, &job_id, None).await;
    assert_eq!(
        stream.last().map(|event| event.1.as_str()),
        Some("cancelled")
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let record = job(&client, &server, &token, &job_id).await;
    assert_eq!(
        record["state"], "cancelled",
        "a cancelled job never moves again"
    );

    let (status, again) = post_job(&client, &server, Some(&token), &job_id, "cancel", None).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(again["code"], "TOOL_JOB_FINISHED");
    let (status, confirm) = post_job(
        &client,
        &server,
        Some(&token),
        &job_id,
        "confirm",
        Some(json!({ "approve": true })),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(confirm["code"], "TOOL_JOB_FINISHED");
    let (status, unknown) = post_job(
        &client,
        &server,
        Some(&token),
        "no-such-job",
        "cancel",
        None,
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(unknown["code"], "TOOL_JOB_NOT_FOUND");
}

/// An MCP request at 2026-07-28; `tasks` declares the tasks extension.
pub(crate) async fn mcp_2026(
    client: &reqwest::Client,
    server: &Server,
    token: &str,
    id: u64,
    method: &str,
    mut params: Value,
    tasks: bool,
) -> Value {
    let capabilities = if tasks {
        json!({ "extensions": { "io.modelcontextprotocol/tasks": {} } })
    } else {
        json!({})
    };
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    let name = params
        .get("name")
        .or_else(|| params.get("taskId"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut request = client
        .post(server.url("/mcp"))
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .json(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    request
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("JSON-RPC")
}

/// An MCP request at 2025-11-25 (no session: the endpoint is stateless).
async fn mcp_2025(
    client: &reqwest::Client,
    server: &Server,
    token: &str,
    id: u64,
    method: &str,
    params: Value,
) -> Value {
    client
        .post(server.url("/mcp"))
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .json(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("JSON-RPC")
}

pub(crate) async fn grant_agent(
    client: &reqwest::Client,
    server: &Server,
    token: &str,
    write: bool,
) {
    let response = client
        .put(server.url("/api/settings/mcp"))
        .bearer_auth(token)
        .json(&json!({ "enabled": true, "actions": { "readLab": true, "writeLab": write } }))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK);
}

/// On a server without a password nobody is authenticated: anyone may
/// follow a job, but changing a write's job (cancel, confirm) is
/// `403 TOOL_AUTH_REQUIRED`, the contract's rule for people's writes.
#[tokio::test]
async fn without_a_password_a_writes_job_cannot_be_changed_over_http() {
    let server = Server::start(&[]);
    let client = http_client();
    support::put(
        &client,
        &server,
        "/api/settings/mcp",
        &json!({ "enabled": true, "actions": { "readLab": true, "writeLab": true } }),
    )
    .await;
    let created: Value = client
        .post(server.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "lab_hosts_retire")
        .json(
            &json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "lab_hosts_retire", "arguments": { "role": "camera" },
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {
                    "extensions": { "io.modelcontextprotocol/tasks": {} }
                }
            }
        } }),
        )
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("JSON-RPC");
    assert_eq!(created["result"]["status"], "input_required", "{created}");
    let job_id = created["result"]["taskId"].as_str().expect("id").to_owned();

    for (action, body) in [
        ("confirm", Some(json!({ "approve": true }))),
        ("cancel", None),
    ] {
        let (status, refused) = post_job(&client, &server, None, &job_id, action, body).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{action}: {refused}");
        assert_eq!(refused["code"], "TOOL_AUTH_REQUIRED", "{action}");
    }
    let (status, parked) = get(&client, &server, &format!("/api/tools/jobs/{job_id}"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        parked["state"], "input_required",
        "nothing changed: {parked}"
    );
}

#[tokio::test]
async fn an_agents_retirement_waits_for_a_person_who_must_hold_the_grant() {
    let server = Server::start_locked(&[]);
    let client = http_client();
    let token = login(&client, &server).await;
    for name in ["cam-1", "cam-2"] {
        add_host(&client, &server, &token, name, "127.0.0.1", "camera").await;
    }
    add_host(&client, &server, &token, "nas", "127.0.0.1", "nas").await;
    grant_agent(&client, &server, &token, true).await;

    let created = mcp_2026(
        &client,
        &server,
        &token,
        1,
        "tools/call",
        json!({ "name": "lab_hosts_retire", "arguments": { "role": "camera" } }),
        true,
    )
    .await;
    let task = &created["result"];
    assert_eq!(task["resultType"], "task", "{created}");
    assert_eq!(task["status"], "input_required");
    let task_id = task["taskId"].as_str().expect("id").to_owned();
    // The person finds what waits for them in the job list.
    let (status, waiting) = get(
        &client,
        &server,
        "/api/tools/jobs?state=input_required",
        Some(&token),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{waiting}");
    assert_eq!(waiting["jobs"][0]["jobId"], task_id.as_str(), "{waiting}");
    assert_eq!(waiting["jobs"][0]["principal"], "assistant");
    assert_eq!(waiting["jobs"].as_array().map(Vec::len), Some(1));
    assert_eq!(waiting["hasMore"], false);
    let (_, working) = get(
        &client,
        &server,
        "/api/tools/jobs?state=working",
        Some(&token),
    )
    .await;
    assert_eq!(working["jobs"], json!([]), "{working}");
    for bad in [
        "limit=0",
        "limit=101",
        "offset=-1",
        "state=parked",
        "page=2",
    ] {
        let (status, refused) = get(
            &client,
            &server,
            &format!("/api/tools/jobs?{bad}"),
            Some(&token),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {refused}");
        assert_eq!(refused["code"], "VALIDATION_ERROR", "{bad}");
    }
    let detailed = mcp_2026(
        &client,
        &server,
        &token,
        2,
        "tasks/get",
        json!({ "taskId": task_id }),
        true,
    )
    .await;
    let request = &detailed["result"]["inputRequests"]["confirm"];
    assert_eq!(request["method"], "elicitation/create", "{detailed}");
    assert_eq!(
        request["params"]["requestedSchema"]["required"],
        json!(["confirm"])
    );

    // The person: without a session (the gate), with a malformed answer.
    let (status, _) = post_job(
        &client,
        &server,
        None,
        &task_id,
        "confirm",
        Some(json!({ "approve": true })),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, malformed) = post_job(
        &client,
        &server,
        Some(&token),
        &task_id,
        "confirm",
        Some(json!({ "approve": "yes" })),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(malformed["code"], "VALIDATION_ERROR");
    // The agent lost the grant since: approval is refused, the job waits on.
    grant_agent(&client, &server, &token, false).await;
    let (status, denied) = post_job(
        &client,
        &server,
        Some(&token),
        &task_id,
        "confirm",
        Some(json!({ "approve": true })),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{denied}");
    assert_eq!(denied["code"], "TOOL_CAPABILITY_DENIED");
    assert_eq!(
        job(&client, &server, &token, &task_id).await["state"],
        "input_required"
    );

    grant_agent(&client, &server, &token, true).await;
    let (status, confirmed) = post_job(
        &client,
        &server,
        Some(&token),
        &task_id,
        "confirm",
        Some(json!({ "approve": true })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{confirmed}");
    assert_eq!(confirmed["state"], "working");
    let done = until(&client, &server, &token, &task_id, |job| {
        job["state"] == "completed"
    })
    .await;
    assert_eq!(
        done["result"]["result"]["removed"].as_array().map(Vec::len),
        Some(2)
    );
    let (_, hosts) = get(&client, &server, "/api/lab/hosts", Some(&token)).await;
    assert_eq!(
        hosts.to_string().matches("\"camera\"").count(),
        0,
        "{hosts}"
    );
    // The agent reads the result of its task.
    let polled = mcp_2026(
        &client,
        &server,
        &token,
        3,
        "tasks/get",
        json!({ "taskId": task_id }),
        true,
    )
    .await;
    assert_eq!(polled["result"]["status"], "completed");
    assert_eq!(
        polled["result"]["result"]["structuredContent"]["result"]["removed"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    let (status, late) = post_job(
        &client,
        &server,
        Some(&token),
        &task_id,
        "confirm",
        Some(json!({ "approve": true })),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(late["code"], "TOOL_JOB_FINISHED");

    // Refused over MCP (the elicitation declined): cancelled, nothing removed.
    let created = mcp_2026(
        &client,
        &server,
        &token,
        4,
        "tools/call",
        json!({ "name": "lab_hosts_retire", "arguments": { "role": "nas" } }),
        true,
    )
    .await;
    let task_id = created["result"]["taskId"].as_str().expect("id").to_owned();
    let ack = mcp_2026(
        &client,
        &server,
        &token,
        5,
        "tasks/update",
        json!({ "taskId": task_id, "inputResponses": { "confirm": { "action": "decline" } } }),
        true,
    )
    .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let refused = job(&client, &server, &token, &task_id).await;
    assert_eq!(refused["state"], "cancelled");
    assert_eq!(refused["statusMessage"], "A person refused the call");
    let (_, hosts) = get(&client, &server, "/api/lab/hosts", Some(&token)).await;
    assert_eq!(hosts["total"], 1, "{hosts}");

    // A job that waits for nobody: confirming it is refused. (Two hosts,
    // so the probe pauses between them.)
    add_host(&client, &server, &token, "spare", "127.0.0.1", "server").await;
    let (status, running) = call(
        &client,
        &server,
        Some(&token),
        "probe-wait",
        "lab.hosts.probe",
        json!({ "port": 9, "pauseMs": 60000 }),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{running}");
    let running_id = running["jobId"].as_str().expect("id");
    let (status, not_waiting) = post_job(
        &client,
        &server,
        Some(&token),
        running_id,
        "confirm",
        Some(json!({ "approve": true })),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(not_waiting["code"], "TOOL_JOB_NOT_AWAITING_INPUT");

    // The agent cannot read or cancel the person's job, at either era.
    let other = mcp_2026(
        &client,
        &server,
        &token,
        6,
        "tasks/get",
        json!({ "taskId": running_id }),
        true,
    )
    .await;
    assert_eq!(other["error"]["code"], -32602, "{other}");
    let other = mcp_2026(
        &client,
        &server,
        &token,
        7,
        "tasks/cancel",
        json!({ "taskId": running_id }),
        true,
    )
    .await;
    assert_eq!(other["error"]["code"], -32602, "{other}");
    let other = mcp_2025(
        &client,
        &server,
        &token,
        8,
        "tasks/cancel",
        json!({ "taskId": running_id }),
    )
    .await;
    assert_eq!(other["error"]["code"], -32602, "{other}");
    assert_eq!(
        job(&client, &server, &token, running_id).await["state"],
        "working"
    );
}

#[tokio::test]
async fn mcp_clients_follow_jobs_as_tasks_at_both_eras_or_wait_for_the_result() {
    let (_listener, port) = open_port().await;
    let server = Server::start_locked(&[]);
    let client = http_client();
    let token = login(&client, &server).await;
    add_host(&client, &server, &token, "web", "127.0.0.1", "server").await;
    grant_agent(&client, &server, &token, false).await;
    let probe = json!({ "name": "lab_hosts_probe", "arguments": { "port": port } });

    // 2026 without the extension: the call waits and answers the result.
    let direct = mcp_2026(
        &client,
        &server,
        &token,
        1,
        "tools/call",
        probe.clone(),
        false,
    )
    .await;
    assert_eq!(direct["result"]["resultType"], "complete", "{direct}");
    assert_eq!(
        direct["result"]["structuredContent"]["result"]["hosts"][0]["reachable"],
        true
    );
    // The server says it has the extension.
    let discover = mcp_2026(
        &client,
        &server,
        &token,
        2,
        "server/discover",
        json!({}),
        false,
    )
    .await;
    assert_eq!(
        discover["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );

    // 2025-11-25: declared in initialize and on the tool; a task on request.
    let init = mcp_2025(&client, &server, &token, 3, "initialize", json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } })).await;
    assert_eq!(
        init["result"]["capabilities"]["tasks"]["requests"]["tools"]["call"],
        json!({}),
        "{init}"
    );
    let list = mcp_2025(&client, &server, &token, 4, "tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().expect("tools");
    let probe_tool = tools
        .iter()
        .find(|tool| tool["name"] == "lab_hosts_probe")
        .expect("listed");
    assert_eq!(probe_tool["execution"]["taskSupport"], "optional");
    let list_tool = tools
        .iter()
        .find(|tool| tool["name"] == "lab_hosts_list")
        .expect("listed");
    assert!(list_tool.get("execution").is_none());

    let mut with_task = probe.clone();
    with_task["task"] = json!({ "ttl": 60000 });
    let created = mcp_2025(&client, &server, &token, 5, "tools/call", with_task).await;
    let task_id = created["result"]["task"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    assert_eq!(created["result"]["task"]["status"], "working");
    let result = mcp_2025(
        &client,
        &server,
        &token,
        6,
        "tasks/result",
        json!({ "taskId": task_id }),
    )
    .await;
    assert_eq!(
        result["result"]["structuredContent"]["result"]["hosts"][0]["reachable"], true,
        "{result}"
    );
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        task_id.as_str()
    );
    let again = mcp_2025(
        &client,
        &server,
        &token,
        7,
        "tasks/cancel",
        json!({ "taskId": task_id }),
    )
    .await;
    assert_eq!(
        again["error"]["code"], -32602,
        "a finished task cannot be cancelled"
    );
    let listed = mcp_2025(&client, &server, &token, 8, "tasks/list", json!({})).await;
    assert!(
        listed["result"]["tasks"]
            .as_array()
            .expect("tasks")
            .iter()
            .any(|task| task["taskId"] == task_id.as_str())
    );
    // A tool that is not long-running cannot be a task.
    let refused = mcp_2025(
        &client,
        &server,
        &token,
        9,
        "tools/call",
        json!({ "name": "lab_hosts_list", "arguments": {}, "task": {} }),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");

    // 2026 with the extension: a task, cancelled while it pauses.
    let slow =
        json!({ "name": "lab_hosts_probe", "arguments": { "port": port, "pauseMs": 60000 } });
    add_host(&client, &server, &token, "db", "127.0.0.1", "server").await;
    let created = mcp_2026(&client, &server, &token, 10, "tools/call", slow, true).await;
    let task_id = created["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let ack = mcp_2026(
        &client,
        &server,
        &token,
        11,
        "tasks/cancel",
        json!({ "taskId": task_id }),
        true,
    )
    .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let polled = mcp_2026(
        &client,
        &server,
        &token,
        12,
        "tasks/get",
        json!({ "taskId": task_id }),
        true,
    )
    .await;
    assert_eq!(polled["result"]["status"], "cancelled");
    // The task methods belong to the extension: a request that does not
    // declare it is told which capability it lacks (SEP-2575).
    for (id, method, params) in [
        (20, "tasks/get", json!({ "taskId": task_id })),
        (
            21,
            "tasks/update",
            json!({ "taskId": task_id, "inputResponses": {} }),
        ),
        (22, "tasks/cancel", json!({ "taskId": task_id })),
    ] {
        let refused = mcp_2026(&client, &server, &token, id, method, params, false).await;
        assert_eq!(refused["error"]["code"], -32021, "{method}: {refused}");
        assert_eq!(
            refused["error"]["data"]["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
            json!({}),
            "{method}: {refused}"
        );
    }
    // Cancelling a task that ended is acknowledged too (the extension's rule).
    let ack = mcp_2026(
        &client,
        &server,
        &token,
        13,
        "tasks/cancel",
        json!({ "taskId": task_id }),
        true,
    )
    .await;
    assert_eq!(ack["result"]["resultType"], "complete");
    let unknown = mcp_2026(
        &client,
        &server,
        &token,
        14,
        "tasks/get",
        json!({ "taskId": "no-such-task" }),
        true,
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32602);
}

#[tokio::test]
async fn jobs_survive_a_sigkill_and_a_restart() {
    let (_listener, port) = open_port().await;
    let server = Server::start_locked(&[]);
    let client = http_client();
    let token = login(&client, &server).await;
    for name in ["r1", "r2", "r3"] {
        add_host(&client, &server, &token, name, "127.0.0.1", "router").await;
    }
    grant_agent(&client, &server, &token, true).await;
    let arguments = json!({ "port": port, "pauseMs": 700 });
    let (status, created) = call(
        &client,
        &server,
        Some(&token),
        "survivor",
        "lab.hosts.probe",
        arguments.clone(),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{created}");
    let probe_id = created["jobId"].as_str().expect("id").to_owned();
    let parked = mcp_2026(
        &client,
        &server,
        &token,
        1,
        "tools/call",
        json!({ "name": "lab_hosts_retire", "arguments": { "role": "router" } }),
        true,
    )
    .await;
    let parked_id = parked["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    until(&client, &server, &token, &probe_id, |job| {
        job["progress"]["done"] == 0.0
    })
    .await;

    // Killed mid-run, then started again on the same data.
    let data_dir = server.kill();
    let server = Server::start_in(data_dir, &[], &[]);
    let token = login(&client, &server).await;

    let done = until(&client, &server, &token, &probe_id, |job| {
        job["state"] != "working"
    })
    .await;
    assert_eq!(done["state"], "completed", "{done}");
    assert_eq!(
        done["result"]["result"]["hosts"].as_array().map(Vec::len),
        Some(3)
    );
    let (_, stream, _) = events(&client, &server, &token, &probe_id, None).await;
    assert!(
        stream.iter().any(|(_, kind, data)| kind == "working"
            && data["statusMessage"] == "Running again after a server restart"),
        "the restart is in the job's history"
    );
    // The same requestId still names it.
    let (_, again) = call(
        &client,
        &server,
        Some(&token),
        "survivor",
        "lab.hosts.probe",
        arguments,
    )
    .await;
    assert_eq!(again["jobId"], probe_id.as_str());
    assert_eq!(again["duplicate"], true);

    // The parked job still waits, and a person can still answer it.
    assert_eq!(
        job(&client, &server, &token, &parked_id).await["state"],
        "input_required"
    );
    let (status, _) = post_job(
        &client,
        &server,
        Some(&token),
        &parked_id,
        "confirm",
        Some(json!({ "approve": true })),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let retired = until(&client, &server, &token, &parked_id, |job| {
        job["state"] == "completed"
    })
    .await;
    assert_eq!(
        retired["result"]["result"]["removed"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );
}

/// A 2026-07-28 `tools/call` from a client that declares `capabilities`,
/// carrying `round` (its `inputResponses` and `requestState`).
async fn mcp_2026_round(
    client: &reqwest::Client,
    server: &Server,
    token: &str,
    capabilities: Value,
    call: Value,
    round: Value,
) -> Value {
    let mut params = call;
    if let (Some(params), Some(round)) = (params.as_object_mut(), round.as_object()) {
        params.extend(round.clone());
    }
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    let name = params["name"].as_str().expect("a tool").to_owned();
    client
        .post(server.url("/mcp"))
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", name)
        .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params }))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("JSON-RPC")
}

#[tokio::test]
async fn a_client_that_can_ask_its_person_confirms_a_retirement_in_the_call() {
    let server = Server::start_locked(&[]);
    let client = http_client();
    let token = login(&client, &server).await;
    add_host(&client, &server, &token, "cam-9", "127.0.0.1", "camera").await;
    grant_agent(&client, &server, &token, true).await;
    let elicits = json!({ "elicitation": {} });
    let retire = json!({ "name": "lab_hosts_retire", "arguments": { "role": "camera" } });

    // The client can ask its person and does not follow tasks: the call
    // asks, with the words a parked job would show.
    let asked = mcp_2026_round(
        &client,
        &server,
        &token,
        elicits.clone(),
        retire.clone(),
        json!({}),
    )
    .await;
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let question = &result["inputRequests"]["confirmation"];
    assert_eq!(question["method"], "elicitation/create", "{asked}");
    let message = question["params"]["message"].as_str().expect("a message");
    assert!(message.contains("lab.hosts.retire"), "{message}");
    let state = result["requestState"].clone();

    // Refused: no job, nothing removed.
    let refused = mcp_2026_round(
        &client,
        &server,
        &token,
        elicits.clone(),
        retire.clone(),
        json!({ "requestState": state, "inputResponses": { "confirmation": {
            "action": "accept", "content": { "confirm": false } } } }),
    )
    .await;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert_eq!(
        refused["result"]["content"][0]["text"],
        "A person refused the call"
    );
    let (_, jobs) = get(&client, &server, "/api/tools/jobs", Some(&token)).await;
    assert_eq!(jobs["jobs"], json!([]), "{jobs}");

    // Confirmed: the job runs at once, and the call answers its result.
    let confirmed = mcp_2026_round(
        &client,
        &server,
        &token,
        elicits,
        retire,
        json!({ "requestState": state, "inputResponses": { "confirmation": {
            "action": "accept", "content": { "confirm": true } } } }),
    )
    .await;
    let removed = &confirmed["result"]["structuredContent"]["result"]["removed"];
    assert_eq!(removed.as_array().map(Vec::len), Some(1), "{confirmed}");
    let (_, jobs) = get(&client, &server, "/api/tools/jobs", Some(&token)).await;
    assert_eq!(jobs["jobs"][0]["state"], "completed", "{jobs}");
}
