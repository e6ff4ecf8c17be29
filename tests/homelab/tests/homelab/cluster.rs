//! Durable jobs on servers that share one PostgreSQL database (a
//! throwaway cluster of Debian's package): a job is followed, confirmed
//! and cancelled from any server, whichever runs it; a server that starts
//! leaves the jobs other live servers run alone; the jobs of a server that
//! was killed are taken over by another once its lease runs out.

use crate::jobs::{add_host, events, grant_agent, job, mcp_2026, open_port, post_job, until};
use crate::support::{self, Server, call, http_client, login};

use reqwest::StatusCode;
use serde_json::json;
use test_postgres::PgCluster;

/// A database with [`support::PASSWORD`] set.
fn shared_database(cluster: &PgCluster) -> String {
    let url = cluster.url(&cluster.create_database());
    support::set_password_on(&url);
    url
}

/// Waits until `server` holds the assistant's grant of `tool`. A grant made
/// on another server reaches this one's registry through the database's
/// change notifications, a moment later; a test acting on the grant there
/// waits for it as a client would.
async fn until_granted(client: &reqwest::Client, server: &Server, token: &str, tool: &str) {
    for _ in 0..600 {
        let (status, catalog) =
            support::get(client, server, "/api/tools?scope=assistant", Some(token)).await;
        assert_eq!(status, StatusCode::OK, "{catalog}");
        let granted = catalog["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|listed| listed["name"] == tool && listed["granted"] == true);
        if granted {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("{tool} never became granted on this server");
}

fn is_final(job: &serde_json::Value) -> bool {
    ["completed", "failed", "cancelled"].contains(&job["state"].as_str().unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_is_followed_confirmed_and_cancelled_from_any_server() {
    let cluster = PgCluster::start();
    let url = shared_database(&cluster);
    let (a, b) = (Server::start_on(&url), Server::start_on(&url));
    let client = http_client();
    // A session started on A is good on B.
    let token = login(&client, &a).await;
    let (_listener, port) = open_port().await;
    for (name, role) in [
        ("r1", "router"),
        ("r2", "router"),
        ("s1", "server"),
        ("s2", "server"),
    ] {
        add_host(&client, &a, &token, name, "127.0.0.1", role).await;
    }

    // Followed from B while A runs it: B's stream carries A's progress and
    // ends with A's verdict.
    let (status, created) = call(
        &client,
        &a,
        Some(&token),
        "probe-on-a",
        "lab.hosts.probe",
        json!({ "port": port, "pauseMs": 300 }),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{created}");
    let probe = created["jobId"].as_str().expect("a job").to_owned();
    let (status, stream, text) = events(&client, &b, &token, &probe, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        stream.last().map(|event| event.1.as_str()),
        Some("completed"),
        "{text}"
    );
    assert!(stream.iter().any(|event| event.1 == "progress"), "{text}");

    // Parked on A by an agent, approved on B: A's runner does the work.
    grant_agent(&client, &a, &token, true).await;
    until_granted(&client, &b, &token, "lab.hosts.retire").await;
    let parked = mcp_2026(
        &client,
        &a,
        &token,
        1,
        "tools/call",
        json!({ "name": "lab_hosts_retire", "arguments": { "role": "router" } }),
        true,
    )
    .await;
    let retire = parked["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    until(&client, &b, &token, &retire, |job| {
        job["state"] == "input_required"
    })
    .await;
    let (status, approved) = post_job(
        &client,
        &b,
        Some(&token),
        &retire,
        "confirm",
        Some(json!({ "approve": true })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{approved}");
    let done = until(&client, &a, &token, &retire, is_final).await;
    assert_eq!(done["state"], "completed", "{done}");
    assert_eq!(
        done["result"]["result"]["removed"].as_array().map(Vec::len),
        Some(2),
        "{done}"
    );

    // Cancelled on B while A runs it: A's followers hear it too.
    let (status, created) = call(
        &client,
        &a,
        Some(&token),
        "long-probe-on-a",
        "lab.hosts.probe",
        json!({ "port": port, "pauseMs": 60000 }),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{created}");
    let long = created["jobId"].as_str().expect("a job").to_owned();
    until(&client, &a, &token, &long, |job| {
        job["progress"]["done"] == 0.0
    })
    .await;
    let following = {
        let (client, token, long) = (client.clone(), token.clone(), long.clone());
        let url = a.base_url.clone();
        tokio::spawn(async move {
            client
                .get(format!("{url}/api/tools/jobs/{long}/events"))
                .bearer_auth(token)
                .send()
                .await
                .expect("the stream opens")
                .text()
                .await
                .expect("the stream ends")
        })
    };
    let (status, cancelled) = post_job(&client, &b, Some(&token), &long, "cancel", None).await;
    assert_eq!(status, StatusCode::OK, "{cancelled}");
    let text = tokio::time::timeout(std::time::Duration::from_secs(30), following)
        .await
        .expect("A's stream ends with the cancel made on B")
        .expect("joined");
    assert!(text.contains("event: cancelled"), "{text}");
    assert_eq!(job(&client, &a, &token, &long).await["state"], "cancelled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_starting_server_leaves_running_jobs_alone_and_takes_over_a_killed_ones() {
    let cluster = PgCluster::start();
    let url = shared_database(&cluster);
    let a = Server::start_on(&url);
    let client = http_client();
    let token = login(&client, &a).await;
    let (_listener, port) = open_port().await;
    for name in ["h1", "h2", "h3"] {
        add_host(&client, &a, &token, name, "127.0.0.1", "server").await;
    }
    let probe = |request_id: &'static str, server: &Server| {
        let (client, token) = (client.clone(), token.clone());
        let url = server.base_url.clone();
        async move {
            let response = client
                .post(format!("{url}/api/tools/call"))
                .bearer_auth(token)
                .json(&json!({
                    "requestId": request_id,
                    "name": "lab.hosts.probe",
                    "arguments": { "port": port, "pauseMs": 700 },
                }))
                .send()
                .await
                .expect("call");
            assert_eq!(response.status(), StatusCode::ACCEPTED);
            let created: serde_json::Value = response.json().await.expect("JSON");
            created["jobId"].as_str().expect("a job").to_owned()
        }
    };
    let ran_again = |stream: &[crate::jobs::SseEvent]| {
        stream.iter().any(|(_, kind, data)| {
            kind == "working" && data["statusMessage"] == "Running again after a server restart"
        })
    };

    // B starts while A runs a job: B settles nothing A holds.
    let first = probe("while-b-starts", &a).await;
    until(&client, &a, &token, &first, |job| {
        job["progress"]["done"] == 0.0
    })
    .await;
    let b = Server::start_on(&url);
    let done = until(&client, &b, &token, &first, is_final).await;
    assert_eq!(done["state"], "completed", "{done}");
    let (_, stream, text) = events(&client, &b, &token, &first, None).await;
    assert!(!ran_again(&stream), "run once, by A: {text}");

    // A is killed mid-job: once its lease runs out, B runs the job again
    // (the probe is idempotent) and finishes it.
    let second = probe("while-a-dies", &a).await;
    until(&client, &a, &token, &second, |job| {
        job["progress"]["done"] == 0.0
    })
    .await;
    drop(a.kill());
    let done = until(&client, &b, &token, &second, is_final).await;
    assert_eq!(done["state"], "completed", "{done}");
    assert_eq!(
        done["result"]["result"]["hosts"].as_array().map(Vec::len),
        Some(3),
        "{done}"
    );
    let (_, stream, text) = events(&client, &b, &token, &second, None).await;
    assert!(ran_again(&stream), "taken over by B: {text}");
}

/// The JSON-RPC messages of an event stream, until `count` or a quiet
/// `wait`.
async fn stream_messages(
    response: &mut reqwest::Response,
    count: usize,
    wait: std::time::Duration,
) -> Vec<serde_json::Value> {
    let (mut buffer, mut out) = (String::new(), Vec::new());
    while out.len() < count {
        let Ok(Ok(Some(chunk))) = tokio::time::timeout(wait, response.chunk()).await else {
            break;
        };
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            if let Some(data) = event.trim().strip_prefix("data: ") {
                out.push(serde_json::from_str(data).expect("one JSON message per event"));
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resource_updated_on_one_server_reaches_its_subscribers_on_another() {
    let cluster = PgCluster::start();
    let url = shared_database(&cluster);
    let (a, b) = (Server::start_on(&url), Server::start_on(&url));
    let client = http_client();
    let token = login(&client, &a).await;
    grant_agent(&client, &a, &token, false).await;
    until_granted(&client, &b, &token, "lab.hosts.list").await;

    // An MCP client of B subscribes to the inventory.
    let mut stream = client
        .post(b.url("/mcp"))
        .bearer_auth(&token)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen")
        .json(
            &json!({"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen", "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
            "notifications": {"resourceSubscriptions": ["lab://hosts"]}}}),
        )
        .send()
        .await
        .expect("request");
    assert_eq!(stream.status(), StatusCode::OK);
    let wait = std::time::Duration::from_secs(10);
    let ack = stream_messages(&mut stream, 1, wait).await;
    assert_eq!(
        ack[0]["params"]["notifications"],
        json!({"resourceSubscriptions": ["lab://hosts"]}),
        "{ack:?}"
    );

    // A host is added on A: B's subscriber hears of it.
    add_host(&client, &a, &token, "far-1", "127.0.0.1", "nas").await;
    let heard = stream_messages(&mut stream, 1, wait).await;
    assert_eq!(heard.len(), 1, "nothing reached B's subscriber");
    assert_eq!(heard[0]["method"], "notifications/resources/updated");
    assert_eq!(heard[0]["params"]["uri"], "lab://hosts");
}
