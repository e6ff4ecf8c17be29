//! The homelab over HTTP, as its user drives it: tools called through the
//! registry (writes need a session once a password is set), the REST route,
//! the `lab:host-added` Socket.IO event, the site name from its flag,
//! environment variable and TOML key, and its store holding only its own
//! tables beside the runtime's.

use crate::support;

use std::collections::BTreeSet;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use support::{Server, call, get, http_client, login};

/// Enough Engine.IO v4 long-polling and Socket.IO v5 to hear one event.
struct Polling<'a> {
    client: reqwest::Client,
    server: &'a Server,
    token: &'a str,
    sid: String,
}

impl<'a> Polling<'a> {
    async fn connect(server: &'a Server, token: &'a str) -> Polling<'a> {
        let client = support::http_client_builder()
            // Longer than the ping interval (25 s): an idle poll ends with a ping.
            .timeout(Duration::from_secs(35))
            .build()
            .expect("client");
        let open = client
            .get(server.url("/socket.io/?EIO=4&transport=polling"))
            .bearer_auth(token)
            .send()
            .await
            .expect("handshake")
            .text()
            .await
            .expect("body");
        let handshake: Value =
            serde_json::from_str(open.strip_prefix('0').expect("an OPEN packet")).expect("JSON");
        let polling = Polling {
            client,
            server,
            token,
            sid: handshake["sid"].as_str().expect("sid").to_owned(),
        };
        polling.send("40").await;
        polling.wait_for(|packet| packet.starts_with("40")).await;
        polling
    }

    fn url(&self) -> String {
        self.server.url(&format!(
            "/socket.io/?EIO=4&transport=polling&sid={}",
            self.sid
        ))
    }

    async fn send(&self, packet: &str) {
        let response = self
            .client
            .post(self.url())
            .bearer_auth(self.token)
            .body(packet.to_owned())
            .send()
            .await
            .expect("send");
        assert_eq!(response.status(), StatusCode::OK);
    }

    /// Polls (answering pings) until a packet passes `wanted`; an idle poll
    /// lasts one ping interval (25 s), so a missing packet fails in minutes.
    async fn wait_for(&self, wanted: impl Fn(&str) -> bool) -> String {
        for _ in 0..4 {
            let body = self
                .client
                .get(self.url())
                .bearer_auth(self.token)
                .send()
                .await
                .expect("poll")
                .text()
                .await
                .expect("body");
            for packet in body.split('\u{1e}') {
                if packet == "2" {
                    self.send("3").await;
                } else if wanted(packet) {
                    return packet.to_owned();
                }
            }
        }
        panic!("the awaited packet never came");
    }

    /// The payload of the next `event`.
    async fn event(&self, event: &str) -> Value {
        let prefix = format!("42[{}", Value::from(event));
        let packet = self.wait_for(|packet| packet.starts_with(&prefix)).await;
        let items: Value = serde_json::from_str(&packet[2..]).expect("an EVENT packet");
        items[1].clone()
    }
}

fn uptime_now() -> u64 {
    let text = std::fs::read_to_string("/proc/uptime").expect("Linux procfs");
    homelab_server::uptime::parse(&text).expect("an uptime")
}

#[tokio::test]
async fn a_signed_in_user_adds_lists_and_removes_hosts() {
    let server = Server::start_locked(&["--site-name", "Attic rack"]);
    let client = http_client();

    // The password gate covers the homelab's own route and its writes.
    let (status, body) = get(&client, &server, "/api/lab/hosts", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["code"], "AUTH_REQUIRED");
    let session = login(&client, &server).await;
    let token = Some(session.as_str());

    let socket = Polling::connect(&server, &session).await;

    let nas = json!({"name": "NAS-01", "address": "192.168.1.20", "role": "nas"});
    let (status, added) = call(
        &client,
        &server,
        token,
        "add-1",
        "lab.hosts.add",
        nas.clone(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{added}");
    assert_eq!(added["state"], "completed");
    let host = &added["result"]["host"];
    assert_eq!(host["name"], "nas-01");
    assert_eq!(host["address"], "192.168.1.20");
    assert_eq!(host["role"], "nas");
    assert_eq!(
        added["result"]["summary"],
        "Added nas-01 (192.168.1.20, nas) to Attic rack."
    );

    // Everyone connected hears about it.
    let event = socket.event("lab:host-added").await;
    assert_eq!(event, json!({"site": "Attic rack", "host": host.clone()}));

    // A provider name works as well as the canonical one; the role defaults.
    let (status, router) = call(
        &client,
        &server,
        token,
        "add-2",
        "lab_hosts_add",
        json!({"name": "gw", "address": "Router.LAN."}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{router}");
    assert_eq!(router["result"]["host"]["address"], "router.lan");
    assert_eq!(router["result"]["host"]["role"], "server");

    // A name in use: a failed result that says so, and nothing changes.
    let (status, again) = call(
        &client,
        &server,
        token,
        "add-3",
        "lab.hosts.add",
        json!({"name": "nas-01", "address": "10.0.0.9"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{again}");
    assert_eq!(again["state"], "failed");
    assert_eq!(again["result"]["ok"], false);
    assert_eq!(again["result"]["host"]["address"], "192.168.1.20");

    let (status, listed) = call(
        &client,
        &server,
        token,
        "list-1",
        "lab.hosts.list",
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed["result"]["site"], "Attic rack");
    assert_eq!(listed["result"]["count"], 2);
    assert_eq!(
        listed["result"]["summary"],
        "Attic rack has 2 hosts: gw, nas-01."
    );
    let (_, nases) = call(
        &client,
        &server,
        token,
        "list-2",
        "lab.hosts.list",
        json!({"role": "nas"}),
    )
    .await;
    assert_eq!(nases["result"]["hosts"], json!([host.clone()]));

    // The REST route reads the same table.
    let (status, page) = get(&client, &server, "/api/lab/hosts", token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(page["site"], "Attic rack");
    assert_eq!(page["total"], 2);
    assert_eq!(page["hosts"][1], host.clone());
    let (_, routers) = get(&client, &server, "/api/lab/hosts?role=router", token).await;
    assert_eq!(routers["total"], 0);
    let (status, refused) = get(&client, &server, "/api/lab/hosts?colour=red", token).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(refused["code"], "VALIDATION_ERROR");

    let (status, removed) = call(
        &client,
        &server,
        token,
        "rm-1",
        "lab.hosts.remove",
        json!({"name": "NAS-01"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{removed}");
    assert_eq!(removed["result"]["host"]["name"], "nas-01");
    let (status, gone) = call(
        &client,
        &server,
        token,
        "rm-2",
        "lab.hosts.remove",
        json!({"name": "nas-01"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        gone["result"]["summary"],
        "Attic rack has no host named nas-01."
    );
    let (_, page) = get(&client, &server, "/api/lab/hosts", token).await;
    assert_eq!(page["total"], 1);
    assert_eq!(page["hosts"][0]["name"], "gw");

    // The retained result of a call, as for any tool.
    let (status, retained) = get(&client, &server, "/api/tools/calls/add-1", token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(retained["result"]["host"], host.clone());
}

#[tokio::test]
async fn inputs_are_checked_with_the_contracts_codes() {
    let server = Server::start_locked(&[]);
    let client = http_client();
    let token = login(&client, &server).await;
    let token = Some(token.as_str());

    // What the schema refuses: 400 TOOL_VALIDATION_ERROR, before the adapter.
    for (id, arguments) in [
        ("v1", json!({"name": "nas 01", "address": "10.0.0.2"})),
        ("v2", json!({"name": "-nas", "address": "10.0.0.2"})),
        (
            "v3",
            json!({"name": "nas", "address": "10.0.0.2", "role": "toaster"}),
        ),
        (
            "v4",
            json!({"name": "nas", "address": "10.0.0.2", "owner": "me"}),
        ),
        ("v5", json!({"name": "nas"})),
        ("v6", json!({"name": "nas", "address": "10.0.0.2/24"})),
        ("v7", json!({"name": "x".repeat(64), "address": "10.0.0.2"})),
    ] {
        let (status, body) = call(
            &client,
            &server,
            token,
            id,
            "lab.hosts.add",
            arguments.clone(),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{arguments} → {body}");
        assert_eq!(
            body["code"], "TOOL_VALIDATION_ERROR",
            "{arguments} → {body}"
        );
    }
    // What only the adapter can tell: a failed result saying why (422).
    let (status, body) = call(
        &client,
        &server,
        token,
        "a1",
        "lab.hosts.add",
        json!({"name": "nas", "address": "10.0.0.300"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["state"], "failed");
    assert_eq!(
        body["error"],
        "`10.0.0.300` is neither an IP address nor a DNS name"
    );
    let (_, page) = get(&client, &server, "/api/lab/hosts", token).await;
    assert_eq!(page["total"], 0, "nothing was stored");

    // PortOS's tools are not here.
    let (status, body) = call(
        &client,
        &server,
        token,
        "p1",
        "brain.capture",
        json!({"text": "x"}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["code"], "TOOL_NOT_FOUND");
    // The same request id with other arguments is a conflict, not a rerun.
    let (status, _) = call(&client, &server, token, "same", "lab.hosts.list", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = call(
        &client,
        &server,
        token,
        "same",
        "lab.hosts.list",
        json!({"role": "nas"}),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["code"], "TOOL_IDEMPOTENCY_CONFLICT");
}

#[tokio::test]
async fn without_a_password_reads_work_and_writes_are_refused() {
    let server = Server::start(&[]);
    let client = http_client();
    let (status, body) = call(
        &client,
        &server,
        None,
        "w1",
        "lab.hosts.add",
        json!({"name": "nas", "address": "10.0.0.2"}),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "TOOL_AUTH_REQUIRED");
    let (status, body) = call(&client, &server, None, "r1", "lab.hosts.list", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["summary"], "homelab has no hosts.");

    let before = uptime_now();
    let (status, body) = call(&client, &server, None, "u1", "lab.uptime", json!({})).await;
    let after = uptime_now();
    assert_eq!(status, StatusCode::OK, "{body}");
    let seconds = body["result"]["seconds"].as_u64().expect("seconds");
    assert!(
        (before..=after).contains(&seconds),
        "{before} ≤ {seconds} ≤ {after}"
    );
    let booted: jiff::Timestamp = body["result"]["bootedAt"]
        .as_str()
        .expect("bootedAt")
        .parse()
        .expect("RFC 3339");
    let since = jiff::Timestamp::now().as_second() - booted.as_second();
    assert!(
        since.abs_diff(i64::try_from(seconds).expect("fits")) <= 2,
        "booted {since} s ago, up {seconds} s"
    );
}

#[tokio::test]
async fn the_site_name_comes_from_the_flag_the_environment_or_the_file() {
    let client = http_client();
    let site = async |server: &Server| {
        let (status, page) = get(&client, server, "/api/lab/hosts", None).await;
        assert_eq!(status, StatusCode::OK);
        page["site"].as_str().expect("site").to_owned()
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("homelab.toml");
    std::fs::write(&file, "site-name = \"Garage\"\nsession-hours = 2\n").expect("written");
    let file = file.to_str().expect("utf-8 path");

    let server = Server::start(&["--config", file]);
    assert_eq!(site(&server).await, "Garage");
    drop(server);
    let env = Server::start_in(
        tempfile::tempdir().expect("dir"),
        &["--config", file],
        &[("HOMELAB_SITE_NAME", "Closet")],
    );
    assert_eq!(site(&env).await, "Closet");
    drop(env);
    let flag = Server::start_in(
        tempfile::tempdir().expect("dir"),
        &["--config", file, "--site-name", "Basement"],
        &[("HOMELAB_SITE_NAME", "Closet")],
    );
    assert_eq!(site(&flag).await, "Basement");
    drop(flag);

    // Mistakes stop it before it serves, saying what is wrong.
    let blank = support::run(&["--site-name", "  ", "--dump-routes"]);
    assert_eq!(blank.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&blank.stderr).contains("site name"));
    std::fs::write(dir.path().join("bad.toml"), "site_name = \"Garage\"\n").expect("written");
    let bad = support::run(&[
        "--config",
        dir.path().join("bad.toml").to_str().expect("utf-8"),
        "--dump-routes",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("site_name"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}

#[tokio::test]
async fn the_store_holds_the_runtimes_tables_and_the_homelabs_only() {
    let server = Server::start(&[]);
    let client = http_client();
    // A served request proves the store is open and migrated.
    let (status, _) = get(&client, &server, "/api/lab/hosts", None).await;
    assert_eq!(status, StatusCode::OK);
    let dir = server.data_dir.path();
    let names = |sqlite: &str, postgres: &str| -> BTreeSet<String> {
        if let Some(rows) = test_postgres::query(dir, postgres) {
            return rows.into_iter().collect();
        }
        let connection = rusqlite::Connection::open_with_flags(
            dir.join("homelab.db"),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .expect("the store is homelab.db in the data directory");
        let mut statement = connection.prepare(sqlite).expect("query");
        statement
            .query_map([], |row| row.get::<_, String>(0))
            .expect("rows")
            .map(|name| name.expect("name"))
            .collect()
    };
    let tables = names(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    let expected: BTreeSet<String> = [
        "settings",
        "auth_sessions",
        "store_migrations",
        "tool_jobs",
        "tool_job_events",
        "tool_calls",
        "lab_hosts",
    ]
    .map(str::to_owned)
    .into();
    assert_eq!(tables, expected);
    let components = names(
        "SELECT component FROM store_migrations",
        "SELECT DISTINCT component FROM store_migrations",
    );
    assert_eq!(
        components,
        ["homelab", "portos-server"].map(str::to_owned).into()
    );
}

/// The runtime names everything after the application, not after PortOS:
/// its environment variables, its store's file, its session cookie and the
/// product in what it tells a caller.
#[tokio::test]
async fn the_runtimes_names_are_the_homelabs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "not = [valid").expect("written");
    let bad = bad.to_str().expect("utf-8 path");
    // HOMELAB_CONFIG is read; PortOS's variable is not the homelab's.
    let read = support::command()
        .env("HOMELAB_CONFIG", bad)
        .arg("--dump-routes")
        .output()
        .expect("runs");
    assert_eq!(read.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&read.stderr).contains("bad.toml"));
    let ignored = support::command()
        .env("PORTOS_CONFIG", bad)
        .arg("--dump-routes")
        .output()
        .expect("runs");
    assert!(
        ignored.status.success(),
        "{}",
        String::from_utf8_lossy(&ignored.stderr)
    );

    // A person's write without signing in is refused naming the homelab.
    let open = Server::start(&[]);
    let client = http_client();
    let (status, refused) = call(
        &client,
        &open,
        None,
        "anon-1",
        "lab.hosts.add",
        json!({"name": "nas", "address": "10.0.0.2"}),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert_eq!(refused["code"], "TOOL_AUTH_REQUIRED");
    assert_eq!(
        refused["error"],
        "Mutating tool calls require an authenticated Homelab session"
    );
    if test_postgres::database_for(open.data_dir.path()).is_none() {
        assert!(open.data_dir.path().join("homelab.db").is_file());
        assert!(!open.data_dir.path().join("portos.db").exists());
    }
    drop(open);

    // The session cookie is the homelab's.
    let locked = Server::start_locked(&[]);
    let response = client
        .post(locked.url("/api/auth/login"))
        .json(&json!({ "password": support::PASSWORD }))
        .send()
        .await
        .expect("login");
    assert_eq!(response.status(), StatusCode::OK);
    let cookie = response
        .headers()
        .get("set-cookie")
        .and_then(|value| value.to_str().ok())
        .expect("a session cookie")
        .to_owned();
    assert!(cookie.starts_with("homelab_session="), "{cookie}");
    let token = cookie
        .split(';')
        .next()
        .and_then(|pair| pair.split_once('='))
        .map(|(_, token)| token.to_owned())
        .expect("a token");
    let with_cookie = async |name: &str| {
        client
            .get(locked.url("/api/lab/hosts"))
            .header("cookie", format!("{name}={token}"))
            .send()
            .await
            .expect("request")
            .status()
    };
    assert_eq!(with_cookie("homelab_session").await, StatusCode::OK);
    assert_eq!(
        with_cookie("portos_session").await,
        StatusCode::UNAUTHORIZED
    );
}
