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
