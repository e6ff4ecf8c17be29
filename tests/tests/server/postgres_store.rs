//! The shared store on a real PostgreSQL server (a throwaway cluster of
//! Debian's package, tests/test-postgres): two servers on one database are
//! one store; an unreachable database stops the start with a clear error
//! and a non-zero exit; a database lost while serving is 503 with the
//! contract's error body, and the server recovers when it is back; a
//! database a newer build migrated is refused, naming the component.

use std::time::{Duration, Instant};

use portos_tests::{ServerProcess, portos_command};
use reqwest::StatusCode;
use serde_json::{Value, json};
use test_postgres::PgCluster;

fn server_on(url: &str) -> ServerProcess {
    ServerProcess::start(&["--database-url", url])
}

/// Runs `portos` on the database at `url`, which must refuse to serve; what
/// it said.
fn refused_start(url: &str) -> String {
    let output = portos_command()
        .args(["--bind", "127.0.0.1:0", "--database-url", url])
        .output()
        .expect("portos runs");
    assert!(!output.status.success(), "it must not serve");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

async fn post_call(server: &ServerProcess, call: &Value) -> (StatusCode, Value) {
    let response = portos_tests::http_client()
        .post(server.url("/api/cos/tools/call"))
        .json(call)
        .send()
        .await
        .expect("request");
    let status = response.status();
    (status, response.json().await.expect("JSON body"))
}

async fn get(url: &str) -> (StatusCode, Value) {
    let response = portos_tests::http_client()
        .get(url)
        .send()
        .await
        .expect("request");
    let status = response.status();
    (status, response.json().await.expect("JSON body"))
}

#[tokio::test]
async fn two_servers_on_one_database_are_one_store() {
    let cluster = PgCluster::start();
    let url = cluster.url(&cluster.create_database());
    let first = server_on(&url);
    let second = server_on(&url);

    let created = portos_tests::http_client()
        .post(first.url("/api/goals"))
        .json(&json!({ "title": "Run a marathon", "urgency": 0.75, "progress": 10 }))
        .send()
        .await
        .expect("created");
    assert_eq!(created.status(), StatusCode::CREATED);
    let goal: Value = created.json().await.expect("JSON");

    let (status, listed) = get(&second.url("/api/goals")).await;
    assert_eq!(status, StatusCode::OK);
    let goals = listed["goals"].as_array().expect("goals");
    assert_eq!(goals.len(), 1, "{listed}");
    assert_eq!(goals[0]["id"], goal["id"]);
    assert_eq!(goals[0]["title"], "Run a marathon");
    assert_eq!(goals[0]["urgency"], 0.75);
    assert_eq!(goals[0]["progress"], 10);
}

#[test]
fn an_unreachable_database_stops_the_start_with_a_clear_error() {
    // A loopback port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a port")
        .port();
    let stderr = refused_start(&format!("postgres://postgres@127.0.0.1:{port}/portos"));
    assert!(
        stderr.contains("the database is unavailable"),
        "says why: {stderr}"
    );
}

#[tokio::test]
async fn a_lost_database_is_503_and_the_server_recovers_when_it_is_back() {
    let mut cluster = PgCluster::start();
    let url = cluster.url(&cluster.create_database());
    let server = server_on(&url);
    let (status, _) = get(&server.url("/api/goals")).await;
    assert_eq!(status, StatusCode::OK);

    cluster.halt();
    for _ in 0..2 {
        // The first call finds the connection gone, the next one cannot
        // connect: both are the same clear refusal.
        let (status, body) = get(&server.url("/api/goals")).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert_eq!(body["code"], "SERVICE_UNAVAILABLE");
        assert!(
            body["error"]
                .as_str()
                .is_some_and(|e| e.contains("unavailable"))
        );
        assert!(body["timestamp"].is_i64());
    }
    // A tool call is refused the same way, and nothing of it runs.
    let call = json!({ "requestId": "while-down", "name": "goals.list" });
    let (status, body) = post_call(&server, &call).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["code"], "SERVICE_UNAVAILABLE");

    cluster.resume();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, body) = get(&server.url("/api/goals")).await;
        if status == StatusCode::OK {
            assert_eq!(body, json!({ "goals": [] }));
            break;
        }
        assert!(
            Instant::now() < deadline,
            "did not recover: {status} {body}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // The refused requestId was kept nowhere: sent again, it runs once.
    let (status, body) = post_call(&server, &call).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["duplicate"], false);
    let (_, again) = post_call(&server, &call).await;
    assert_eq!(again["duplicate"], true);
}

#[test]
fn a_database_a_newer_build_migrated_is_refused_naming_the_component() {
    let cluster = PgCluster::start();
    let name = cluster.create_database();
    let url = cluster.url(&name);
    drop(server_on(&url));
    cluster.psql(
        &name,
        "UPDATE store_migrations SET version = 99 WHERE component = 'goals'",
    );
    let stderr = refused_start(&url);
    assert!(
        stderr.contains("`goals` tables are at schema version 99"),
        "names the component and version: {stderr}"
    );
}

/// A table the SQL layer's test migrates on both engines (through the same
/// translation every component's steps take).
const KINDS: portos_server::store::Schema = portos_server::store::Schema {
    component: "sql-kinds",
    migrations: &["CREATE TABLE sql_kinds (
        name TEXT NOT NULL,
        n    INTEGER,
        r    REAL NOT NULL,
        flag INTEGER NOT NULL
    )"],
};

/// What the project's SQL relies on, on `store`: values of each kind in
/// and out, text ordered byte by byte, insertion order by `rowid`, a
/// parameter first bound to a null, a dropped transaction rolled back, and
/// the project's SQL functions.
fn the_sql_layer_reads_the_same(store: &portos_server::store::Store) {
    use portos_server::store::sql::{OptionalExtension, params};
    store
        .run_blocking(|connection| {
            for (name, n, r, flag) in [
                ("b", Some(2_i64), 1.5_f64, true),
                ("B", None, 0.0, false),
                ("a", Some(1), 2.0, true),
            ] {
                connection.execute(
                    "INSERT INTO sql_kinds (name, n, r, flag) VALUES (?1, ?2, ?3, ?4)",
                    params![name, n, r, flag],
                )?;
            }
            let names = |sql: &str, n: Option<i64>| {
                connection
                    .prepare_cached(sql)?
                    .query_map([n], |row| row.get::<_, String>(0))?
                    .collect::<Result<Vec<_>, _>>()
            };
            let by_name = "SELECT name FROM sql_kinds WHERE ?1 IS NULL OR n = ?1 ORDER BY name";
            assert_eq!(names(by_name, None)?, ["B", "a", "b"], "byte order");
            assert_eq!(
                names(by_name, Some(2))?,
                ["b"],
                "the null's statement, reused"
            );
            let inserted = connection
                .prepare_cached("SELECT name FROM sql_kinds ORDER BY rowid")?
                .query_map([], |row| row.get::<_, String>(0))?
                .collect::<Result<Vec<_>, _>>()?;
            assert_eq!(inserted, ["b", "B", "a"], "insertion order");
            let (r, flag, n): (f64, bool, Option<i64>) = connection.query_row(
                "SELECT r, flag, n FROM sql_kinds WHERE name = ?1",
                ["b"],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
            )?;
            assert!((r - 1.5).abs() < f64::EPSILON && flag && n == Some(2));

            {
                let transaction = connection.transaction()?;
                transaction.execute("DELETE FROM sql_kinds", [])?;
            }
            let count: i64 =
                connection.query_row("SELECT count(*) FROM sql_kinds", [], |row| row.get(0))?;
            assert_eq!(count, 3, "a dropped transaction is rolled back");
            {
                let insert = "INSERT INTO sql_kinds (name, n, r, flag) VALUES (?1, 0, 0.0, 0)";
                let mut outer = connection.transaction()?;
                outer.execute(insert, ["kept"])?;
                {
                    let inner = outer.savepoint()?;
                    inner.execute(insert, ["undone"])?;
                }
                {
                    let inner = outer.savepoint()?;
                    assert!(
                        inner
                            .execute("INSERT INTO no_such_table VALUES (1)", [])
                            .is_err()
                    );
                }
                // A savepoint nothing ran in, committed and dropped.
                outer.savepoint()?.commit()?;
                drop(outer.savepoint()?);
                {
                    let mut inner = outer.savepoint()?;
                    inner.execute(insert, ["nested"])?;
                    inner.savepoint()?.commit()?;
                    inner.commit()?;
                }
                outer.commit()?;
                // And a transaction nothing ran in.
                connection.transaction()?.commit()?;
                drop(connection.transaction()?);
            }
            let saved = connection
                .prepare_cached("SELECT name FROM sql_kinds WHERE n = 0 ORDER BY name")?
                .query_map([], |row| row.get::<_, String>(0))?
                .collect::<Result<Vec<_>, _>>()?;
            assert_eq!(
                saved,
                ["kept", "nested"],
                "a dropped or failed savepoint undoes only its own work"
            );
            let none = connection
                .query_row("SELECT name FROM sql_kinds WHERE name = ?1", ["z"], |row| {
                    row.get::<_, String>(0)
                })
                .optional()?;
            assert_eq!(none, None);

            let (folded, at, hex, now): (String, i64, String, String) = connection.query_row(
                "SELECT portos_fold(?1), instr(?2, ?3), portos_random_hex(4), portos_utc_now()",
                params!["ÄB", "haystack", "st"],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
            )?;
            assert_eq!((folded.as_str(), at), ("äb", 4));
            assert!(
                hex.len() == 8 && hex.bytes().all(|b| b.is_ascii_hexdigit()),
                "{hex}"
            );
            assert!(now.len() == 20 && now.ends_with('Z'), "{now}");
            Ok(())
        })
        .expect("the SQL layer's checks");
}

#[test]
fn the_sql_layer_reads_the_same_on_both_engines() {
    use portos_server::store::Store;
    the_sql_layer_reads_the_same(&Store::open_in_memory(&[KINDS]).expect("SQLite"));
    let cluster = PgCluster::start();
    let url = cluster.url(&cluster.create_database());
    the_sql_layer_reads_the_same(&Store::connect(&url, &[KINDS]).expect("PostgreSQL"));
}

/// `portos --copy-to-database URL` with the data directory of `dir`.
fn copy_command(dir: &std::path::Path, url: &str) -> std::process::Output {
    portos_command()
        .args(["--copy-to-database", url, "--data-dir"])
        .arg(dir)
        .output()
        .expect("portos runs")
}

#[tokio::test]
async fn a_sqlite_store_is_copied_into_postgresql_and_served_from_there() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sqlite = ServerProcess::start_on_sqlite(dir);
    let client = portos_tests::http_client();
    for title in ["Run a marathon", "Learn the cello"] {
        let created = client
            .post(sqlite.url("/api/goals"))
            .json(&json!({ "title": title, "urgency": 0.5, "progress": 20 }))
            .send()
            .await
            .expect("created");
        assert_eq!(created.status(), StatusCode::CREATED);
    }
    let granted = client
        .put(sqlite.url("/api/cos/mind/capabilities"))
        .json(&json!({ "readPortos": true }))
        .send()
        .await
        .expect("grants");
    assert_eq!(granted.status(), StatusCode::OK);
    let (_, goals_before) = get(&sqlite.url("/api/goals")).await;
    let (_, actions_before) = get(&sqlite.url("/api/user-actions?limit=100")).await;
    let (_, catalog_before) = get(&sqlite.url("/api/cos/tools?scope=mind")).await;
    let dir = sqlite.kill();

    let cluster = PgCluster::start();
    let url = cluster.url(&cluster.create_database());
    let copied = copy_command(dir.path(), &url);
    let said = String::from_utf8_lossy(&copied.stdout);
    assert!(
        copied.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&copied.stderr)
    );
    assert!(said.contains("goals: 2"), "{said}");

    // Served from PostgreSQL, the store reads as it did.
    let served = server_on(&url);
    let (_, goals_after) = get(&served.url("/api/goals")).await;
    assert_eq!(goals_after, goals_before);
    let (_, actions_after) = get(&served.url("/api/user-actions?limit=100")).await;
    assert_eq!(actions_after, actions_before);
    let (_, catalog_after) = get(&served.url("/api/cos/tools?scope=mind")).await;
    assert_eq!(
        catalog_after["stats"], catalog_before["stats"],
        "the grants came along"
    );
    // Counters go on after the copied rows: new rows do not collide.
    let created = client
        .post(served.url("/api/goals"))
        .json(&json!({ "title": "Plant a tree", "urgency": 0.25, "progress": 0 }))
        .send()
        .await
        .expect("created");
    assert_eq!(created.status(), StatusCode::CREATED);
    let granted = client
        .put(served.url("/api/cos/mind/capabilities"))
        .json(&json!({ "readPortos": true, "writePortos": true }))
        .send()
        .await
        .expect("grants");
    assert_eq!(granted.status(), StatusCode::OK);
    let (_, actions) = get(&served.url("/api/user-actions?limit=100")).await;
    assert_eq!(
        actions["events"].as_array().map(Vec::len),
        actions_before["events"]
            .as_array()
            .map(|events| events.len() + 1)
    );

    // A database that holds a store is not written over.
    let again = copy_command(dir.path(), &url);
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already holds a PortOS store"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
}

/// What a write announces while it runs (its Socket.IO events) goes out
/// once its transaction commits, and never if it does not: nobody hears of
/// a change other servers cannot read yet, or ever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_announces_only_what_commits() {
    use portos_core::contract::{OutputJson, ToolResult};
    use portos_core::registry::{CallLedger, Claim, Claimed, Fingerprint, RegistryLimits};
    use portos_server::store::{SharedCalls, Store, after_commit};
    use tokio::sync::oneshot;

    let cluster = PgCluster::start();
    let url = cluster.url(&cluster.create_database());
    let store = tokio::task::spawn_blocking(move || Store::connect(&url, &[]))
        .await
        .expect("connects")
        .expect("PostgreSQL");
    let ledger = SharedCalls::of(&store).expect("a shared store has a ledger");
    let claim = |request_id: &str| Claim {
        request_id: request_id.into(),
        fingerprint: Fingerprint::of_call(
            "lab.write",
            &json!({ "id": request_id }),
            portos_words::UI,
        ),
        write: true,
        limits: RegistryLimits::default(),
    };
    // The adapter announces, and the announcement waits.
    let run_announcing = |call: &mut Box<dyn portos_core::registry::ClaimedCall>| {
        let (heard, hearing) = oneshot::channel::<()>();
        let adapter = Box::pin(async move {
            let held_back = after_commit(Box::pin(async move {
                let _ = heard.send(());
            }));
            assert!(held_back.is_none(), "a write's announcement waits");
            OutputJson::from_text(r#"{"ok":true}"#.to_owned()).map_err(|e| e.to_string())
        });
        (call.run(adapter), hearing)
    };

    let Claimed::Fresh(mut call) = ledger.claim(claim("committed")).await.expect("claimed") else {
        panic!("a new requestId is this server's to run");
    };
    let (run, mut hearing) = run_announcing(&mut call);
    let output = run.await.expect("the adapter's output");
    assert!(
        hearing.try_recv().is_err(),
        "nothing is heard before the commit"
    );
    let result =
        ToolResult::from_adapter_output("committed".to_owned(), "lab.write".to_owned(), output);
    call.keep(&result).await.expect("kept");
    tokio::time::timeout(Duration::from_secs(5), hearing)
        .await
        .expect("heard after the commit")
        .expect("sent");

    let Claimed::Fresh(mut call) = ledger.claim(claim("abandoned")).await.expect("claimed") else {
        panic!("a new requestId is this server's to run");
    };
    let (run, hearing) = run_announcing(&mut call);
    run.await.expect("the adapter's output");
    drop(call); // stopped before its end: the transaction rolls back
    assert!(
        hearing.await.is_err(),
        "a rolled-back write announces nothing"
    );

    // Outside a write, an announcement is handed back to be sent now.
    assert!(after_commit(Box::pin(async {})).is_some());
    tokio::task::spawn_blocking(move || drop((ledger, store)))
        .await
        .expect("closed");
}

/// A write running on one server is not visible to another until it
/// commits; asked for its result meanwhile, the other server waits for it
/// (as one server does) instead of answering
/// that there is none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_running_elsewhere_is_waited_for_not_missed() {
    use portos_core::contract::{OutputJson, ToolResult};
    use portos_core::registry::{CallLedger, Claim, Claimed, Fingerprint, RegistryLimits};
    use portos_server::store::{SharedCalls, Store};

    let cluster = PgCluster::start();
    let url = cluster.url(&cluster.create_database());
    let open = |url: String| async move {
        tokio::task::spawn_blocking(move || Store::connect(&url, &[]))
            .await
            .expect("connects")
            .expect("PostgreSQL")
    };
    let (here, there) = (open(url.clone()).await, open(url).await);
    let (running, asking) = (
        SharedCalls::of(&here).expect("a ledger"),
        SharedCalls::of(&there).expect("a ledger"),
    );
    let claim = Claim {
        request_id: "slow-write".into(),
        fingerprint: Fingerprint::of_call("lab.write", &json!({}), portos_words::UI),
        write: true,
        limits: RegistryLimits::default(),
    };
    let Claimed::Fresh(mut call) = running.claim(claim).await.expect("claimed") else {
        panic!("a new requestId is this server's to run");
    };
    let output = call
        .run(Box::pin(async {
            OutputJson::from_text(r#"{"slow":true}"#.to_owned()).map_err(|e| e.to_string())
        }))
        .await
        .expect("the adapter's output");

    let asked = tokio::spawn(asking.retained("slow-write".into(), RegistryLimits::default()));
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(!asked.is_finished(), "the other server waits for the write");
    let result =
        ToolResult::from_adapter_output("slow-write".to_owned(), "lab.write".to_owned(), output);
    call.keep(&result).await.expect("kept");
    let answered = tokio::time::timeout(Duration::from_secs(5), asked)
        .await
        .expect("answered once the write commits")
        .expect("joined")
        .expect("no error")
        .expect("the kept result");
    assert_eq!(answered.result, result.result);

    // Nothing running and nothing kept: none.
    assert!(
        asking
            .retained("never-sent".into(), RegistryLimits::default())
            .await
            .expect("no error")
            .is_none()
    );
    tokio::task::spawn_blocking(move || drop((running, asking, here, there)))
        .await
        .expect("closed");
}

/// `sslmode=require` in the URL: the server's connections are encrypted,
/// and the database's certificate is verified against `sslrootcert` (or
/// the system's roots, which do not know the test's authority: refused at
/// start, saying why).
#[tokio::test]
async fn a_database_asked_for_tls_is_reached_over_tls_with_its_certificate_verified() {
    let cluster = PgCluster::start_with_tls();
    let database = cluster.create_database();
    let url = cluster.url(&database);
    let ca = cluster.ca_file();
    let server = server_on(&format!(
        "{url}?sslmode=require&sslrootcert={}",
        ca.display()
    ));
    let (status, body) = post_call(
        &server,
        &json!({ "requestId": "over-tls", "name": "time.now" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let connections = |ssl: bool| {
        cluster
            .psql(
                &database,
                &format!(
                    "SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
                     WHERE a.datname = '{database}' AND a.pid <> pg_backend_pid()
                     AND s.ssl = {ssl}"
                ),
            )
            .trim()
            .parse::<i64>()
            .expect("a count")
    };
    assert!(connections(true) > 0, "the server's connections use TLS");
    assert_eq!(connections(false), 0, "none is plain");

    let refused = refused_start(&format!("{url}?sslmode=verify-full"));
    assert!(refused.contains("certificate"), "{refused}");
    let refused = refused_start(&format!(
        "{url}?sslmode=require&sslrootcert=/nonexistent/ca.pem"
    ));
    assert!(refused.contains("/nonexistent/ca.pem"), "{refused}");
}
