//! Three servers on one PostgreSQL database behave as one (issue 12):
//! a requestId runs once in the whole cluster, whichever replicas its
//! duplicates reach and however many arrive at once; a replica killed with
//! SIGKILL mid-write loses nothing that was acknowledged and doubles
//! nothing that a client sent again.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use portos_tests::ServerProcess;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use test_postgres::PgCluster;
use tokio::sync::Semaphore;

const PASSWORD: &str = "one cluster, one view";

/// A database with a password set (writes from the UI need a session).
fn protected_database(cluster: &PgCluster) -> String {
    let url = cluster.url(&cluster.create_database());
    let dir = tempfile::tempdir().expect("temp dir");
    let output = portos_tests::set_password(dir.path(), &["--database-url", &url], PASSWORD);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    url
}

/// A replica and a session token of its own.
struct Replica {
    server: ServerProcess,
    token: String,
}

async fn replica(client: &Client, url: &str) -> Replica {
    let server = ServerProcess::start(&["--database-url", url]);
    let token = portos_tests::login(client, &server, PASSWORD).await;
    Replica { server, token }
}

fn capture(request_id: &str) -> Value {
    json!({
        "requestId": request_id,
        "name": "brain.capture",
        "arguments": { "text": format!("thought {request_id}") },
    })
}

/// Posts one call; `None` when the replica could not be reached.
async fn call(
    client: &Client,
    url: &str,
    token: &str,
    body: &Value,
) -> Option<(StatusCode, Value)> {
    let response = client
        .post(url)
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .ok()?;
    let status = response.status();
    Some((status, response.json().await.ok()?))
}

fn count(cluster: &PgCluster, url: &str, sql: &str) -> i64 {
    let database = url.rsplit('/').next().expect("a database name");
    cluster
        .psql(database, sql)
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("a count from {sql}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ten_thousand_calls_over_a_hundred_request_ids_run_a_hundred_times() {
    let cluster = PgCluster::start();
    let url = protected_database(&cluster);
    let client = portos_tests::http_client();
    let replicas = Arc::new(vec![
        replica(&client, &url).await,
        replica(&client, &url).await,
        replica(&client, &url).await,
    ]);

    let in_flight = Arc::new(Semaphore::new(300));
    let mut calls = Vec::with_capacity(10_000);
    for n in 0..10_000_usize {
        let (client, replicas, in_flight) = (client.clone(), replicas.clone(), in_flight.clone());
        calls.push(tokio::spawn(async move {
            let _permit = in_flight.acquire_owned().await.expect("permit");
            let request_id = format!("cluster-{}", n % 100);
            let replica = &replicas[n % 3];
            let answer = call(
                &client,
                &replica.server.url("/api/cos/tools/call"),
                &replica.token,
                &capture(&request_id),
            )
            .await;
            (request_id, answer)
        }));
    }

    let mut results: HashMap<String, Value> = HashMap::new();
    let mut first_runs = 0;
    for handle in calls {
        let (request_id, answer) = handle.await.expect("the call task");
        let (status, body) = answer.expect("every replica answers");
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["state"], "completed", "{body}");
        assert_eq!(body["requestId"], request_id.as_str());
        if body["duplicate"] == false {
            first_runs += 1;
        }
        let result = body["result"].clone();
        let seen = results
            .entry(request_id.clone())
            .or_insert_with(|| result.clone());
        assert_eq!(
            *seen, result,
            "every caller of {request_id} gets the same result"
        );
    }
    assert_eq!(results.len(), 100);
    assert_eq!(
        first_runs, 100,
        "one answer per requestId is the run, the rest replays"
    );
    assert_eq!(
        count(&cluster, &url, "SELECT count(*) FROM brain_captures"),
        100
    );
    assert_eq!(
        count(
            &cluster,
            &url,
            "SELECT count(*) FROM user_actions WHERE type = 'brain.capture'"
        ),
        100,
        "the ledger records each run once"
    );
    let ids: HashSet<&str> = results
        .values()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids.len(), 100);

    // A kept result is readable from every replica, the same everywhere.
    for (n, replica) in replicas.iter().enumerate() {
        let kept: Value = client
            .get(replica.server.url("/api/cos/tools/calls/cluster-7"))
            .bearer_auth(&replica.token)
            .send()
            .await
            .expect("request")
            .json()
            .await
            .expect("JSON");
        assert_eq!(kept["result"], results["cluster-7"], "replica {n}");
        assert_eq!(kept["duplicate"], false);
    }
    // The same requestId with other arguments conflicts on every replica.
    for replica in replicas.iter() {
        let mut other = capture("cluster-7");
        other["arguments"]["text"] = json!("something else");
        let (status, body) = call(
            &client,
            &replica.server.url("/api/cos/tools/call"),
            &replica.token,
            &other,
        )
        .await
        .expect("answered");
        assert_eq!(status, StatusCode::CONFLICT, "{body}");
        assert_eq!(body["code"], "TOOL_IDEMPOTENCY_CONFLICT");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_replica_killed_mid_write_loses_and_doubles_nothing_acknowledged() {
    let cluster = PgCluster::start();
    let url = protected_database(&cluster);
    let client = portos_tests::http_client();
    let replicas: Vec<Option<Replica>> = vec![
        Some(replica(&client, &url).await),
        Some(replica(&client, &url).await),
        Some(replica(&client, &url).await),
    ];
    let endpoints: Arc<Vec<(String, String)>> = Arc::new(
        replicas
            .iter()
            .flatten()
            .map(|r| (r.server.url("/api/cos/tools/call"), r.token.clone()))
            .collect(),
    );
    let mut replicas = replicas;

    let acknowledged = Arc::new(AtomicUsize::new(0));
    let in_flight = Arc::new(Semaphore::new(24));
    let mut writes = Vec::with_capacity(1_000);
    for n in 0..1_000_usize {
        let (client, endpoints, in_flight, acknowledged) = (
            client.clone(),
            endpoints.clone(),
            in_flight.clone(),
            acknowledged.clone(),
        );
        writes.push(tokio::spawn(async move {
            let _permit = in_flight.acquire_owned().await.expect("permit");
            let request_id = format!("write-{n}");
            let body = capture(&request_id);
            // A client that lost its replica (or was told 503) sends the
            // same call to the next one, as a load balancer's retry would.
            for attempt in 0..60 {
                let (url, token) = &endpoints[(n + attempt) % endpoints.len()];
                match call(&client, url, token, &body).await {
                    Some((StatusCode::OK, answer)) => {
                        acknowledged.fetch_add(1, Ordering::SeqCst);
                        return (request_id, answer);
                    }
                    Some((StatusCode::SERVICE_UNAVAILABLE, _)) | None => {
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    }
                    Some((status, answer)) => panic!("{request_id}: {status} {answer}"),
                }
            }
            panic!("{request_id} was never acknowledged");
        }));
    }

    // Kill one replica while writes are going on.
    while acknowledged.load(Ordering::SeqCst) < 300 {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    if let Some(victim) = replicas[0].take() {
        drop(victim.server.kill());
    }

    let mut answers = HashMap::new();
    for write in writes {
        let (request_id, answer) = write.await.expect("the write task");
        answers.insert(request_id, answer);
    }
    assert_eq!(answers.len(), 1_000);
    assert_eq!(
        count(&cluster, &url, "SELECT count(*) FROM brain_captures"),
        1_000,
        "none lost, none doubled"
    );
    assert_eq!(
        count(
            &cluster,
            &url,
            "SELECT count(DISTINCT text) FROM brain_captures"
        ),
        1_000
    );
    assert_eq!(
        count(
            &cluster,
            &url,
            "SELECT count(*) FROM user_actions WHERE type = 'brain.capture'"
        ),
        1_000
    );
    // Every acknowledged capture is the one stored.
    let stored = cluster.psql(
        url.rsplit('/').next().expect("a database"),
        "SELECT id FROM brain_captures",
    );
    let stored: HashSet<&str> = stored
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    for (request_id, answer) in &answers {
        let id = answer["result"]["id"].as_str().expect("an id");
        assert!(stored.contains(id), "{request_id}'s capture {id} is stored");
    }
}

/// Polls `probe` until it answers true (the other server hears a change
/// within moments), for at most ten seconds.
async fn eventually<F: Future<Output = bool>>(mut probe: impl FnMut() -> F) -> bool {
    for _ in 0..200 {
        if probe().await {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    false
}

async fn catalog(client: &Client, server: &ServerProcess, token: &str) -> (String, Value) {
    let response = client
        .get(server.url("/api/cos/tools?scope=mind"))
        .bearer_auth(token)
        .send()
        .await
        .expect("catalog");
    let etag = response.headers()["etag"]
        .to_str()
        .expect("etag")
        .to_owned();
    (etag, response.json().await.expect("JSON"))
}

/// The mind catalog as A and B serve it, which must be the same, ETag
/// included; B's ETag and body.
async fn one_catalog(client: &Client, a: &Replica, b: &Replica) -> (String, Value) {
    let (etag_on_a, on_a) = catalog(client, &a.server, &a.token).await;
    let (etag_on_b, on_b) = catalog(client, &b.server, &b.token).await;
    assert_eq!(etag_on_b, etag_on_a, "one catalog, one ETag");
    assert_eq!(on_a, on_b);
    (etag_on_b, on_b)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_change_on_one_replica_is_seen_by_every_replica() {
    let cluster = PgCluster::start();
    let url = protected_database(&cluster);
    let client = portos_tests::http_client();
    let (a, b) = (replica(&client, &url).await, replica(&client, &url).await);
    let socket = crate::socket_events::Polling::connect_as(&b.server, Some(&b.token)).await;
    socket.send(r#"42["cos:tools:subscribe"]"#).await;
    socket.expect_event("cos:tools:subscribed").await;
    let (etag_before, _) = catalog(&client, &b.server, &b.token).await;

    // A grant given on A changes B's catalog, its ETag, and tells B's
    // Socket.IO subscribers.
    let granted = client
        .put(a.server.url("/api/cos/mind/capabilities"))
        .bearer_auth(&a.token)
        .json(&json!({ "readPortos": true }))
        .send()
        .await
        .expect("grants");
    assert_eq!(granted.status(), StatusCode::OK);
    assert_eq!(
        socket.expect_event("cos:tools:catalog-changed").await,
        json!({ "reason": "persistentMindCapabilities" })
    );
    let (etag, on_b) = one_catalog(&client, &a, &b).await;
    assert_ne!(etag, etag_before);
    assert_eq!(on_b["stats"]["granted"], 16);

    // A recipe saved on A is in B's mind catalog, and B's subscribers hear
    // of it with the reason A's heard (an application's own change kind).
    let saved = client
        .post(a.server.url("/api/cos/mind/recipes"))
        .bearer_auth(&a.token)
        .json(&json!({ "definition": {
            "schemaVersion": 1,
            "name": "recipe.latest-capture",
            "purpose": "The latest brain capture.",
            "parameters": { "type": "object", "properties": {}, "additionalProperties": false },
            "steps": [{ "id": "recent", "tool": "brain.recent", "arguments": { "limit": { "literal": 1 } } }],
            "outputs": { "items": { "step": "recent", "path": ["items"] } }
        } }))
        .send()
        .await
        .expect("recipe");
    assert_eq!(saved.status(), StatusCode::CREATED);
    assert_eq!(
        socket.expect_event("cos:tools:catalog-changed").await,
        json!({ "reason": "recipes" })
    );
    let (_, on_b) = one_catalog(&client, &a, &b).await;
    assert!(on_b.to_string().contains("recipe.latest-capture"), "{on_b}");

    // API Access switched on A answers on B.
    let switched = client
        .put(a.server.url("/api/settings/api-access"))
        .bearer_auth(&a.token)
        .json(&json!({ "clock": { "exposed": true, "requireAuth": false } }))
        .send()
        .await
        .expect("api access");
    assert_eq!(switched.status(), StatusCode::OK);
    assert!(
        eventually(|| async {
            client
                .get(b.server.url("/api/public/clock/now"))
                .send()
                .await
                .is_ok_and(|r| r.status() == StatusCode::OK)
        })
        .await,
        "B serves the group A exposed"
    );

    // A session started on A is good on B; ended on A, it is refused on B
    // (which had remembered it).
    let token = portos_tests::login(&client, &a.server, PASSWORD).await;
    let on_b = |token: String| {
        let (client, url) = (client.clone(), b.server.url("/api/cos/tools"));
        async move {
            client
                .get(url)
                .bearer_auth(token)
                .send()
                .await
                .expect("request")
                .status()
        }
    };
    assert_eq!(on_b(token.clone()).await, StatusCode::OK);
    let logout = client
        .post(a.server.url("/api/auth/logout"))
        .bearer_auth(&token)
        .send()
        .await
        .expect("logout");
    assert_eq!(logout.status(), StatusCode::OK);
    assert!(
        eventually(|| async { on_b(token.clone()).await == StatusCode::UNAUTHORIZED }).await,
        "B refuses the session A ended"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cluster_keeps_the_newest_500_results_and_remembers_the_rest() {
    let cluster = PgCluster::start();
    let url = cluster.url(&cluster.create_database());
    let client = portos_tests::http_client();
    let a = ServerProcess::start(&["--database-url", &url]);
    let b = ServerProcess::start(&["--database-url", &url]);
    let time_now = |n: usize| json!({ "requestId": format!("kept-{n}"), "name": "time.now" });
    for n in 0..501 {
        let (status, body) = call(&client, &a.url("/api/cos/tools/call"), "", &time_now(n))
            .await
            .expect("answered");
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    // 501 calls: the first one's result is gone
    // (docs/reference.md#idempotency), on every replica, and it is not run
    // again.
    let (status, body) = call(&client, &b.url("/api/cos/tools/call"), "", &time_now(0))
        .await
        .expect("answered");
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["code"], "TOOL_IDEMPOTENCY_EXPIRED");
    let mut other = time_now(0);
    other["name"] = json!("goals.list");
    let (_, body) = call(&client, &b.url("/api/cos/tools/call"), "", &other)
        .await
        .expect("answered");
    assert_eq!(body["code"], "TOOL_IDEMPOTENCY_CONFLICT", "{body}");
    let gone = client
        .get(b.url("/api/cos/tools/calls/kept-0"))
        .send()
        .await
        .expect("request");
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
    // The second is the oldest of the 500 kept.
    let (status, body) = call(&client, &b.url("/api/cos/tools/call"), "", &time_now(1))
        .await
        .expect("answered");
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["duplicate"], true);
}

/// The switches of `group` as the settings route of `server` answers them.
async fn exposed(client: &Client, server: &ServerProcess, token: &str, group: &str) -> bool {
    let view: Value = client
        .get(server.url("/api/settings/api-access"))
        .bearer_auth(token)
        .send()
        .await
        .expect("api access")
        .json()
        .await
        .expect("JSON");
    view["apis"]
        .as_array()
        .expect("apis")
        .iter()
        .find(|api| api["id"] == group)
        .expect("the group")["exposed"]
        .as_bool()
        .expect("a switch")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api_access_changes_made_at_once_on_two_replicas_both_land() {
    let cluster = PgCluster::start();
    let url = protected_database(&cluster);
    let client = portos_tests::http_client();
    let (a, b) = (replica(&client, &url).await, replica(&client, &url).await);
    let switch = |replica: &Replica, group: &str, on: bool| {
        client
            .put(replica.server.url("/api/settings/api-access"))
            .bearer_auth(&replica.token)
            .json(&json!({ group: { "exposed": on, "requireAuth": false } }))
            .send()
    };
    // Each round changes one group on A and the other on B at the same
    // moment: a change is made to what is stored, never to a replica's
    // copy that the other's change has not reached yet.
    for round in 0..30 {
        let (brain_on, clock_on) = (round % 2 == 0, round % 3 == 0);
        let (on_a, on_b) =
            tokio::join!(switch(&a, "brain", brain_on), switch(&b, "clock", clock_on));
        assert_eq!(on_a.expect("A").status(), StatusCode::OK);
        assert_eq!(on_b.expect("B").status(), StatusCode::OK);
        let stored = cluster
            .psql(
                url.rsplit('/').next().expect("a database name"),
                "SELECT value FROM settings WHERE key = 'apiAccess'",
            )
            .trim()
            .to_owned();
        let stored: Value = serde_json::from_str(&stored).expect("stored JSON");
        assert_eq!(
            stored["brain"]["exposed"], brain_on,
            "round {round}: {stored}"
        );
        assert_eq!(
            stored["clock"]["exposed"], clock_on,
            "round {round}: {stored}"
        );
    }
    // And both replicas come to answer with what is stored.
    for replica in [&a, &b] {
        assert!(
            eventually(|| async {
                exposed(&client, &replica.server, &replica.token, "brain").await == (29 % 2 == 0)
                    && exposed(&client, &replica.server, &replica.token, "clock").await
                        == (29 % 3 == 0)
            })
            .await
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn subscribers_hear_of_calls_finished_on_any_replica() {
    let cluster = PgCluster::start();
    let url = cluster.url(&cluster.create_database());
    let (a, b) = (
        ServerProcess::start(&["--database-url", &url]),
        ServerProcess::start(&["--database-url", &url]),
    );
    let client = portos_tests::http_client();
    let socket = crate::socket_events::Polling::connect(&b).await;
    socket.send(r#"42["cos:tools:subscribe"]"#).await;
    socket.expect_event("cos:tools:subscribed").await;
    // Calls keep finishing on A (A learns within moments that B has a
    // subscriber); B runs none, so whatever B's subscriber hears, A ran.
    let calling = {
        let (client, url) = (client.clone(), a.url("/api/cos/tools/call"));
        tokio::spawn(async move {
            for n in 0.. {
                let body = json!({ "requestId": format!("on-a-{n}"), "name": "time.now" });
                call(&client, &url, "", &body).await;
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
        })
    };
    let heard = socket.expect_event("cos:tools:called").await;
    calling.abort();
    assert_eq!(heard["name"], "time.now", "{heard}");
    assert_eq!(heard["state"], "completed", "{heard}");
    let request_id = heard["requestId"].as_str().expect("a requestId");
    assert!(request_id.starts_with("on-a-"), "{heard}");
    // It is the call A kept, readable from B.
    let kept = client
        .get(b.url(&format!("/api/cos/tools/calls/{request_id}")))
        .send()
        .await
        .expect("request");
    assert_eq!(kept.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn changes_to_one_goal_made_at_once_on_two_replicas_both_land() {
    let cluster = PgCluster::start();
    let url = protected_database(&cluster);
    let client = portos_tests::http_client();
    let (a, b) = (replica(&client, &url).await, replica(&client, &url).await);
    let created: Value = client
        .post(a.server.url("/api/goals"))
        .bearer_auth(&a.token)
        .json(&json!({ "title": "Run a marathon" }))
        .send()
        .await
        .expect("goal")
        .json()
        .await
        .expect("JSON");
    let id = created["id"].as_str().expect("an id").to_owned();
    let change = |replica: &Replica, body: Value| {
        client
            .put(replica.server.url(&format!("/api/goals/{id}")))
            .bearer_auth(&replica.token)
            .json(&body)
            .send()
    };
    // A changes the title while B changes the progress: each change keeps
    // the other's field, whatever order they commit in.
    for round in 0..30 {
        let title = format!("Run a marathon, take {round}");
        let (on_a, on_b) = tokio::join!(
            change(&a, json!({ "title": title })),
            change(&b, json!({ "progress": round }))
        );
        assert_eq!(on_a.expect("A").status(), StatusCode::OK);
        assert_eq!(on_b.expect("B").status(), StatusCode::OK);
        let stored: Value = client
            .get(a.server.url(&format!("/api/goals/{id}")))
            .bearer_auth(&a.token)
            .send()
            .await
            .expect("goal")
            .json()
            .await
            .expect("JSON");
        assert_eq!(stored["title"], title, "round {round}: {stored}");
        assert_eq!(stored["progress"], round, "round {round}: {stored}");
    }
}

/// Three servers on the database at `url`, without a password, and the
/// call route of each.
fn open_replicas(url: &str) -> (Vec<ServerProcess>, Vec<String>) {
    let replicas: Vec<ServerProcess> = (0..3)
        .map(|_| ServerProcess::start(&["--database-url", url]))
        .collect();
    let urls = replicas
        .iter()
        .map(|replica| replica.url("/api/cos/tools/call"))
        .collect();
    (replicas, urls)
}

/// Past the newest 500 kept results the oldest are gone; calls finishing
/// at once on several replicas must not trip over each other's clearing of
/// them (evictions deadlocked, and some calls failed, under load).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn calls_past_the_kept_limit_on_three_replicas_all_answer() {
    let cluster = PgCluster::start();
    let url = cluster.url(&cluster.create_database());
    let client = portos_tests::http_client();
    let (_replicas, urls) = open_replicas(&url);
    let gate = Arc::new(Semaphore::new(48));
    let mut calls = tokio::task::JoinSet::new();
    for n in 0..3000 {
        let (client, url, gate) = (client.clone(), urls[n % 3].clone(), gate.clone());
        calls.spawn(async move {
            let _permit = gate.acquire_owned().await.expect("gate");
            let body = json!({ "requestId": format!("many-{n}"), "name": "time.now" });
            call(&client, &url, "", &body).await
        });
    }
    let mut failed = Vec::new();
    while let Some(answer) = calls.join_next().await {
        match answer.expect("joined") {
            Some((StatusCode::OK, _)) => {}
            other => failed.push(format!("{other:?}")),
        }
    }
    assert!(
        failed.is_empty(),
        "{} failed, e.g. {:?}",
        failed.len(),
        failed.first()
    );
    // The newest 500 results of the cluster replay, on any replica; the
    // one before them is gone (the order is the table's, as calls that
    // finish at once on three replicas have no other).
    let nth_newest = |n: usize| {
        let database = url.rsplit('/').next().expect("a database name");
        cluster
            .psql(
                database,
                &format!("SELECT request_id FROM tool_calls ORDER BY seq DESC LIMIT 1 OFFSET {n}"),
            )
            .trim()
            .to_owned()
    };
    let (oldest_kept, newest_gone) = (nth_newest(499), nth_newest(500));
    let again = |request_id: &str| json!({ "requestId": request_id, "name": "time.now" });
    let (status, body) = call(&client, &urls[1], "", &again(&oldest_kept))
        .await
        .expect("answered");
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["duplicate"], true, "{oldest_kept} is kept");
    let (status, body) = call(&client, &urls[2], "", &again(&newest_gone))
        .await
        .expect("answered");
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["code"], "TOOL_IDEMPOTENCY_EXPIRED", "{newest_gone}");
    // And what the table holds stays bounded: the output of results past
    // the newest 500 is cleared every 64 calls (a few more may wait for
    // the next clearing), the fingerprint stays.
    let kept = count(
        &cluster,
        &url,
        "SELECT count(*) FROM tool_calls WHERE output IS NOT NULL",
    );
    assert!(
        (500..=500 + 2 * 64 + 48).contains(&kept),
        "{kept} outputs kept"
    );
    let remembered = count(&cluster, &url, "SELECT count(*) FROM tool_calls");
    assert_eq!(remembered, 3000, "every fingerprint is remembered");
}

/// A read is not claimed before it runs: duplicates of one requestId sent
/// at once to three replicas may each run it, and one result is kept. Every
/// caller is answered that one, exactly one of them as the run.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_read_raced_on_three_replicas_answers_every_caller_the_one_kept_result() {
    let cluster = PgCluster::start();
    let url = cluster.url(&cluster.create_database());
    let client = portos_tests::http_client();
    let (replicas, urls) = open_replicas(&url);
    let mut calls = tokio::task::JoinSet::new();
    for n in 0..600 {
        let (client, url) = (client.clone(), urls[n % 3].clone());
        calls.spawn(async move {
            let request_id = format!("raced-{}", n % 50);
            let body = json!({ "requestId": request_id, "name": "time.now" });
            (request_id, call(&client, &url, "", &body).await)
        });
    }
    let mut results: HashMap<String, Value> = HashMap::new();
    let mut runs: HashMap<String, usize> = HashMap::new();
    while let Some(answer) = calls.join_next().await {
        let (request_id, answer) = answer.expect("joined");
        let (status, body) = answer.expect("every replica answers");
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["requestId"], request_id.as_str());
        if body["duplicate"] == false {
            *runs.entry(request_id.clone()).or_default() += 1;
        }
        let seen = results
            .entry(request_id.clone())
            .or_insert_with(|| body["result"].clone());
        assert_eq!(
            *seen, body["result"],
            "every caller of {request_id} gets one result"
        );
    }
    assert_eq!(results.len(), 50);
    assert!(
        runs.len() == 50 && runs.values().all(|&n| n == 1),
        "one answer per requestId is the run: {runs:?}"
    );
    // The kept one is what every replica's retained route answers, and the
    // requestId is taken for any other call.
    for replica in &replicas {
        let kept: Value = client
            .get(replica.url("/api/cos/tools/calls/raced-7"))
            .send()
            .await
            .expect("request")
            .json()
            .await
            .expect("JSON");
        assert_eq!(kept["result"], results["raced-7"]);
        let other = json!({ "requestId": "raced-7", "name": "goals.list" });
        let (status, body) = call(&client, &replica.url("/api/cos/tools/call"), "", &other)
            .await
            .expect("answered");
        assert_eq!(status, StatusCode::CONFLICT, "{body}");
        assert_eq!(body["code"], "TOOL_IDEMPOTENCY_CONFLICT");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn guests_arriving_at_once_on_two_replicas_never_exceed_the_cap() {
    let cluster = PgCluster::start();
    let url = protected_database(&cluster);
    let client = portos_tests::http_client();
    let (a, b) = (replica(&client, &url).await, replica(&client, &url).await);
    let opened = client
        .put(a.server.url("/api/eidoverse/settings"))
        .bearer_auth(&a.token)
        .json(&json!({ "acceptGuests": true }))
        .send()
        .await
        .expect("settings");
    assert_eq!(opened.status(), StatusCode::OK);
    // 60 guests knock at once, half at each replica: the world holds 20.
    let mut knocks = tokio::task::JoinSet::new();
    for n in 0..60 {
        let url = [&a, &b][n % 2]
            .server
            .url("/api/eidoverse/travel/guest/visits");
        let client = client.clone();
        knocks.spawn(async move {
            client
                .post(url)
                .json(&json!({ "guestName": format!("Guest {n}"), "fromWorld": "Elsewhere" }))
                .send()
                .await
                .expect("knock")
                .status()
        });
    }
    let mut welcomed = 0;
    while let Some(status) = knocks.join_next().await {
        if status.expect("joined") == StatusCode::CREATED {
            welcomed += 1;
        }
    }
    assert_eq!(welcomed, 20);
    assert_eq!(
        count(
            &cluster,
            &url,
            "SELECT count(*) FROM eidoverse_guest_visits WHERE left_at IS NULL"
        ),
        20
    );
}
