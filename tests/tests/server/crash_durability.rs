//! Nothing acknowledged is lost: the server is killed with SIGKILL while
//! writes are in flight, restarted on the same data directory, and every
//! write it acknowledged is there exactly once; a write cut off before its
//! answer is there at most once. Then the remaining writes run to 1,000
//! acknowledged and each of those is there exactly once too.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use portos_tests::ServerProcess;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use tokio::sync::Mutex;

const WRITES: usize = 1_000;
const WRITERS: usize = 8;
/// Acknowledged writes before the kill.
const KILL_AFTER: usize = 400;

#[derive(Default)]
struct Ledger {
    acknowledged: BTreeSet<usize>,
    /// Sent, but the connection died before an answer.
    cut_off: BTreeSet<usize>,
}

async fn create(client: &Client, base: &str, n: usize) -> Result<StatusCode, reqwest::Error> {
    client
        .post(format!("{base}/api/goals"))
        .json(&json!({ "title": format!("durable {n:04}") }))
        .send()
        .await
        .map(|response| response.status())
}

/// How many goals carry each title.
async fn titles(client: &Client, server: &ServerProcess) -> BTreeMap<String, usize> {
    let body: Value = client
        .get(server.url("/api/goals"))
        .send()
        .await
        .expect("list")
        .json()
        .await
        .expect("json");
    let mut counts = BTreeMap::new();
    for goal in body["goals"].as_array().into_iter().flatten() {
        if let Some(title) = goal["title"].as_str() {
            *counts.entry(title.to_owned()).or_insert(0) += 1;
        }
    }
    counts
}

#[tokio::test]
async fn a_sigkill_during_writes_loses_nothing_acknowledged() {
    let client = portos_tests::http_client();
    let server = ServerProcess::start(&[]);
    let base = server.url("");
    let base = base.trim_end_matches('/').to_owned();
    let ledger = Arc::new(Mutex::new(Ledger::default()));
    let next = Arc::new(AtomicUsize::new(0));
    let acknowledged = Arc::new(AtomicUsize::new(0));

    let writers: Vec<_> = (0..WRITERS)
        .map(|_| {
            let (client, base, ledger, next, acknowledged) = (
                client.clone(),
                base.clone(),
                ledger.clone(),
                next.clone(),
                acknowledged.clone(),
            );
            tokio::spawn(async move {
                loop {
                    let n = next.fetch_add(1, Ordering::SeqCst);
                    if n >= WRITES {
                        return;
                    }
                    match create(&client, &base, n).await {
                        Ok(StatusCode::CREATED) => {
                            ledger.lock().await.acknowledged.insert(n);
                            acknowledged.fetch_add(1, Ordering::SeqCst);
                        }
                        Ok(status) => panic!("write {n} answered {status}"),
                        Err(_) => {
                            // The server is gone: this one may or may not
                            // have been written; stop writing.
                            ledger.lock().await.cut_off.insert(n);
                            return;
                        }
                    }
                }
            })
        })
        .collect();

    while acknowledged.load(Ordering::SeqCst) < KILL_AFTER {
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    let data_dir = server.kill();
    for writer in writers {
        writer.await.expect("writer");
    }

    let restarted = ServerProcess::start_in(data_dir, &[]);
    let counts = titles(&client, &restarted).await;
    let ledger = Arc::try_unwrap(ledger)
        .map(Mutex::into_inner)
        .unwrap_or_default();
    assert!(ledger.acknowledged.len() >= KILL_AFTER);
    for n in &ledger.acknowledged {
        assert_eq!(
            counts.get(&format!("durable {n:04}")),
            Some(&1),
            "acknowledged write {n}"
        );
    }
    for n in &ledger.cut_off {
        assert!(
            counts.get(&format!("durable {n:04}")).copied().unwrap_or(0) <= 1,
            "cut-off write {n}"
        );
    }
    assert!(counts.values().all(|count| *count == 1), "no write doubled");

    // The rest, to 1,000 acknowledged: every one that was not stored
    // (never sent, or cut off before it was written) is sent again.
    let restarted_base = restarted.url("");
    let restarted_base = restarted_base.trim_end_matches('/');
    let mut stored: BTreeSet<usize> = ledger.acknowledged.clone();
    for n in &ledger.cut_off {
        if counts.contains_key(&format!("durable {n:04}")) {
            stored.insert(*n);
        }
    }
    for n in (0..WRITES).filter(|n| !stored.contains(n)) {
        let status = create(&client, restarted_base, n).await.expect("write");
        assert_eq!(status, StatusCode::CREATED);
    }
    let counts = titles(&client, &restarted).await;
    assert_eq!(counts.len(), WRITES);
    assert!(counts.values().all(|count| *count == 1));
}

/// The tool-call test's password: writes over HTTP need a session, and the
/// session outlives a restart (it is in the store).
const PASSWORD: &str = "durable calls password";

/// `brain.capture` of write `n` with requestId `capture-{n}`: the status
/// and the envelope, or `None` when the server was gone.
async fn capture(
    client: &Client,
    base: &str,
    token: &str,
    n: usize,
) -> Option<(StatusCode, Value)> {
    let text = format!("durable capture {n:04}");
    try_capture(client, base, token, n, &text).await
}

/// `brain.capture` of `text` under requestId `capture-{n}`, or `None` when
/// the server was gone.
async fn try_capture(
    client: &Client,
    base: &str,
    token: &str,
    n: usize,
    text: &str,
) -> Option<(StatusCode, Value)> {
    let response = client
        .post(format!("{base}/api/cos/tools/call"))
        .bearer_auth(token)
        .json(&json!({
            "requestId": format!("capture-{n}"),
            "name": "brain.capture",
            "arguments": { "text": text },
        }))
        .send()
        .await
        .ok()?;
    let status = response.status();
    Some((status, response.json().await.ok()?))
}

/// How many inbox captures carry each text.
async fn captures(client: &Client, server: &ServerProcess, token: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    let mut offset = 0;
    loop {
        let page: Value = client
            .get(server.url(&format!("/api/brain/inbox?limit=100&offset={offset}")))
            .bearer_auth(token)
            .send()
            .await
            .expect("inbox")
            .json()
            .await
            .expect("json");
        let items = page["items"].as_array().cloned().unwrap_or_default();
        if items.is_empty() {
            return counts;
        }
        offset += items.len();
        for item in items {
            if let Some(text) = item["text"].as_str() {
                *counts.entry(text.to_owned()).or_insert(0) += 1;
            }
        }
    }
}

/// docs/reference.md#idempotency across a crash: tool writes are killed
/// mid-flight with SIGKILL, the server restarts on its data, and every one
/// of the 1,000 requestIds is sent again. Every write acknowledged before
/// the kill replays its kept result (`duplicate: true`, the same output,
/// and `GET /calls/:requestId` answers it); nothing is written twice.
#[tokio::test]
async fn a_sigkill_during_tool_writes_keeps_every_acknowledged_result() {
    let client = portos_tests::http_client();
    let server = ServerProcess::start_protected(PASSWORD);
    let token = portos_tests::login(&client, &server, PASSWORD).await;
    let base = server.url("").trim_end_matches('/').to_owned();
    let answered = Arc::new(Mutex::new(BTreeMap::<usize, Value>::new()));
    let next = Arc::new(AtomicUsize::new(0));

    let writers: Vec<_> = (0..WRITERS)
        .map(|_| {
            let (client, base, token, answered, next) = (
                client.clone(),
                base.clone(),
                token.clone(),
                answered.clone(),
                next.clone(),
            );
            tokio::spawn(async move {
                loop {
                    let n = next.fetch_add(1, Ordering::SeqCst);
                    if n >= WRITES {
                        return;
                    }
                    match capture(&client, &base, &token, n).await {
                        Some((StatusCode::OK, envelope)) => {
                            assert_eq!(envelope["state"], "completed", "{envelope}");
                            assert_eq!(envelope["duplicate"], false, "{envelope}");
                            answered.lock().await.insert(n, envelope);
                        }
                        Some((status, body)) => panic!("write {n} answered {status}: {body}"),
                        // The server is gone: stop writing.
                        None => return,
                    }
                }
            })
        })
        .collect();
    while answered.lock().await.len() < KILL_AFTER {
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    let data_dir = server.kill();
    for writer in writers {
        writer.await.expect("writer");
    }
    let answered = Arc::try_unwrap(answered)
        .map(Mutex::into_inner)
        .unwrap_or_default();
    assert!(answered.len() >= KILL_AFTER);

    let restarted = ServerProcess::start_in(data_dir, &[]);
    let base = restarted.url("").trim_end_matches('/').to_owned();
    // The retained-result route answers every acknowledged write as it
    // was (all of them: fewer than the 500 results kept).
    assert!(answered.len() < 500, "{} acknowledged", answered.len());
    for (n, first) in &answered {
        let kept: Value = client
            .get(restarted.url(&format!("/api/cos/tools/calls/capture-{n}")))
            .bearer_auth(&token)
            .send()
            .await
            .expect("retained")
            .json()
            .await
            .expect("json");
        assert_eq!(kept["result"], first["result"], "retained {n}: {kept}");
    }
    for n in 0..WRITES {
        let (status, envelope) = capture(&client, &base, &token, n)
            .await
            .expect("the restarted server answers");
        assert_eq!(status, StatusCode::OK, "retry of {n}: {envelope}");
        assert_eq!(envelope["state"], "completed", "{envelope}");
        if let Some(first) = answered.get(&n) {
            assert_eq!(
                envelope["duplicate"], true,
                "an acknowledged write replays: {envelope}"
            );
            assert_eq!(envelope["result"], first["result"], "write {n}");
        }
    }
    let counts = captures(&client, &restarted, &token).await;
    assert_eq!(counts.len(), WRITES, "every write is there");
    assert!(
        counts.values().all(|count| *count == 1),
        "nothing written twice: {:?}",
        counts
            .iter()
            .filter(|(_, count)| **count > 1)
            .collect::<Vec<_>>()
    );

    // Once more after another SIGKILL: the refusals survive as well. The
    // oldest call's result is past the 500 kept, its fingerprint is not
    // (EXPIRED, nothing runs); the newest under other arguments is a
    // CONFLICT; the newest as it was replays.
    let data_dir = restarted.kill();
    let again = ServerProcess::start_in(data_dir, &[]);
    let base = again.url("").trim_end_matches('/').to_owned();
    let (status, expired) = capture(&client, &base, &token, 0).await.expect("answered");
    assert_eq!(status, StatusCode::CONFLICT, "{expired}");
    assert_eq!(expired["code"], "TOOL_IDEMPOTENCY_EXPIRED", "{expired}");
    let newest = WRITES - 1;
    let (status, conflict) = try_capture(&client, &base, &token, newest, "other words")
        .await
        .expect("answered");
    assert_eq!(status, StatusCode::CONFLICT, "{conflict}");
    assert_eq!(conflict["code"], "TOOL_IDEMPOTENCY_CONFLICT", "{conflict}");
    let (status, replay) = capture(&client, &base, &token, newest)
        .await
        .expect("answered");
    assert_eq!(status, StatusCode::OK, "{replay}");
    assert_eq!(replay["duplicate"], true, "{replay}");
    assert_eq!(captures(&client, &again, &token).await.len(), WRITES);
}
