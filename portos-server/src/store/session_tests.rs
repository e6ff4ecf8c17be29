//! A write call's session on SQLite: one transaction for its work and its
//! kept result, the rest of the store's work after it, and a rollback for a
//! session that holds the store too long.

use std::time::Duration;

use super::{Store, StoreError};
use crate::store::sql::Connection;

async fn store_with_table() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("test.db"), &[]).expect("store");
    store
        .run(|c| {
            c.execute_batch("CREATE TABLE notes (text TEXT NOT NULL)")?;
            Ok(())
        })
        .await
        .expect("created");
    (dir, store)
}

async fn insert(store: &Store, text: &'static str) -> Result<usize, StoreError> {
    store
        .run(move |c| Ok(c.execute("INSERT INTO notes (text) VALUES (?1)", [text])?))
        .await
}

async fn notes(store: &Store) -> Vec<String> {
    store
        .run(|c| {
            let mut statement = c.prepare("SELECT text FROM notes ORDER BY rowid")?;
            let rows = statement.query_map([], |row| row.get(0))?;
            Ok(rows.collect::<Result<Vec<String>, _>>()?)
        })
        .await
        .expect("listed")
}

fn keep_note(text: &'static str) -> super::work::Keep {
    Box::new(move |c: &mut Connection| {
        c.execute("INSERT INTO notes (text) VALUES (?1)", [text])?;
        Ok(())
    })
}

#[tokio::test]
async fn a_sessions_work_and_its_kept_result_commit_together_and_others_wait() {
    let (_dir, store) = store_with_table().await;
    let (go_on, wait) = tokio::sync::oneshot::channel::<()>();
    let (changed, has_changed) = tokio::sync::oneshot::channel::<()>();
    let session_store = store.clone();
    let session = tokio::spawn(async move {
        let call = async {
            insert(&session_store, "call's change").await.expect("in");
            let _ = changed.send(());
            // Work of another task, meanwhile: it waits for the commit.
            wait.await.expect("told to go on");
            insert(&session_store, "call's second change")
                .await
                .expect("in")
        };
        session_store
            .write_session(call, |_| keep_note("kept result"))
            .await
    });
    has_changed.await.expect("the call changed something");
    // Past the window in which other work joins the call's transaction.
    tokio::time::sleep(Duration::from_millis(20)).await;
    let outside = tokio::spawn({
        let store = store.clone();
        async move { notes(&store).await }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!outside.is_finished(), "work outside waits for the session");
    go_on.send(()).expect("the call waits");
    assert_eq!(session.await.expect("ran").expect("kept"), 1);
    assert_eq!(
        outside.await.expect("ran"),
        ["call's change", "call's second change", "kept result"],
        "what waited sees the whole call, committed"
    );
}

#[tokio::test]
async fn a_result_that_cannot_be_kept_undoes_the_call() {
    let (_dir, store) = store_with_table().await;
    let call = async { insert(&store, "undone").await.expect("in") };
    let failed = store
        .write_session(call, |_| {
            Box::new(|c: &mut Connection| {
                c.execute("INSERT INTO missing_table (x) VALUES (1)", [])?;
                Ok(())
            })
        })
        .await;
    assert!(failed.is_err(), "{failed:?}");
    assert!(notes(&store).await.is_empty(), "nothing of the call stays");
    // A call that only reads keeps its result all the same.
    let read = store
        .write_session(notes(&store), |_| keep_note("kept"))
        .await;
    assert_eq!(read.expect("kept"), Vec::<String>::new());
    assert_eq!(notes(&store).await, ["kept"]);
}

#[tokio::test]
async fn a_failed_piece_is_undone_alone() {
    let (_dir, store) = store_with_table().await;
    let call = async {
        insert(&store, "stays").await.expect("in");
        let failed = store
            .run(|c| {
                c.execute("INSERT INTO notes (text) VALUES ('goes')", [])?;
                Err::<(), _>(StoreError::Worker("the piece fails".to_owned()))
            })
            .await;
        assert!(failed.is_err());
    };
    store
        .write_session(call, |()| keep_note("kept"))
        .await
        .expect("kept");
    assert_eq!(notes(&store).await, ["stays", "kept"]);
}

#[tokio::test]
async fn a_session_holding_the_store_too_long_is_rolled_back() {
    let (_dir, store) = store_with_table().await;
    let call = async {
        insert(&store, "too slow").await.expect("in");
        tokio::time::sleep(super::work::SESSION_LIMIT * 2).await;
        insert(&store, "after the rollback").await
    };
    let started = std::time::Instant::now();
    let outside = tokio::spawn({
        let store = store.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            insert(&store, "outside").await
        }
    });
    let result = store.write_session(call, |_| keep_note("kept")).await;
    assert!(
        result.is_err(),
        "the call is told it did not happen: {result:?}"
    );
    assert!(outside.await.expect("ran").is_ok());
    assert!(started.elapsed() >= super::work::SESSION_LIMIT);
    assert_eq!(
        notes(&store).await,
        ["outside"],
        "nothing of the call stays"
    );
}

#[tokio::test]
async fn run_blocking_waits_for_an_open_session() {
    let (_dir, store) = store_with_table().await;
    let (go_on, wait) = tokio::sync::oneshot::channel::<()>();
    let (changed, has_changed) = tokio::sync::oneshot::channel::<()>();
    let session = tokio::spawn({
        let store = store.clone();
        async move {
            let call = async {
                insert(&store, "call").await.expect("in");
                let _ = changed.send(());
                wait.await.expect("go on");
            };
            store.write_session(call, |()| keep_note("kept")).await
        }
    });
    has_changed.await.expect("the call changed something");
    let blocking = std::thread::spawn({
        let store = store.clone();
        move || {
            store.run_blocking(|c| {
                Ok(c.query_row("SELECT count(*) FROM notes", [], |row| row.get::<_, i64>(0))?)
            })
        }
    });
    std::thread::sleep(Duration::from_millis(50));
    assert!(!blocking.is_finished(), "it waits for the session's end");
    go_on.send(()).expect("the call waits");
    session.await.expect("ran").expect("kept");
    assert_eq!(blocking.join().expect("joined").expect("counted"), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_share_batches_and_each_keeps_all_or_nothing() {
    let (_dir, store) = store_with_table().await;
    let calls: Vec<_> = (0..64)
        .map(|n| {
            let store = store.clone();
            tokio::spawn(async move {
                let call = async {
                    insert(&store, "work").await.expect("in");
                    tokio::task::yield_now().await;
                    insert(&store, "more work").await.expect("in");
                    n
                };
                store.write_session(call, |_| keep_note("kept")).await
            })
        })
        .collect();
    let plain: Vec<_> = (0..16)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { insert(&store, "plain").await })
        })
        .collect();
    for (n, call) in calls.into_iter().enumerate() {
        assert_eq!(call.await.expect("ran").expect("kept"), n);
    }
    for write in plain {
        assert_eq!(write.await.expect("ran").expect("inserted"), 1);
    }
    let notes = notes(&store).await;
    let count = |text: &str| notes.iter().filter(|note| *note == text).count();
    assert_eq!(
        (
            count("work"),
            count("more work"),
            count("kept"),
            count("plain")
        ),
        (64, 64, 64, 16)
    );
}
