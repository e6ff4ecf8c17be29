//! Starting the real `homelab` binary for the black-box tests: on an
//! ephemeral loopback port with a fresh data directory, its address read from
//! the "listening on" line it logs. (PortOS's own helper in tests/src starts
//! `portos` and links PortOS's crate; this server must not.)

#![allow(dead_code)] // not every helper is used by every test module

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

pub const PASSWORD: &str = "rack mounted kettle";

/// The `homelab` binary Cargo built for these tests.
pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_homelab")
}

/// The binary without the settings a developer's shell may carry.
pub fn command() -> Command {
    let mut command = Command::new(binary());
    for variable in [
        "HOMELAB_BIND",
        "HOMELAB_DATA_DIR",
        "HOMELAB_CONFIG",
        "HOMELAB_PASSWORD",
        "HOMELAB_TIMEZONE",
        "HOMELAB_SITE_NAME",
    ] {
        command.env_remove(variable);
    }
    command
}

/// Runs `homelab ARGS…` to completion.
pub fn run(args: &[&str]) -> Output {
    let data_dir = args
        .iter()
        .position(|arg| *arg == "--data-dir")
        .and_then(|at| args.get(at + 1));
    command()
        .args(
            data_dir
                .map(test_postgres::database_args)
                .unwrap_or_default(),
        )
        .args(args)
        .output()
        .expect("homelab runs")
}

/// The JSON a `--dump-*` run prints (it must succeed).
pub fn dump(args: &[&str]) -> Value {
    let output = run(args);
    assert!(
        output.status.success(),
        "homelab {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("a dump is JSON")
}

/// `homelab --set-password --data-dir DIR` with `password` on stdin.
pub fn set_password(data_dir: &Path, password: &str) {
    set_password_with(data_dir, &test_postgres::database_args(data_dir), password);
}

/// [`PASSWORD`] set on the PostgreSQL database at `url`.
pub fn set_password_on(url: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let database = ["--database-url".to_owned(), url.to_owned()];
    set_password_with(dir.path(), &database, PASSWORD);
}

fn set_password_with(data_dir: &Path, database: &[String], password: &str) {
    let mut child = command()
        .args(["--set-password", "--data-dir"])
        .arg(data_dir)
        .args(database)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("homelab runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(format!("{password}\n").as_bytes())
        .expect("password written");
    let output = child.wait_with_output().expect("homelab exits");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A `homelab` process serving on an ephemeral loopback port, killed on drop.
#[derive(Debug)]
pub struct Server {
    child: Child,
    pub base_url: String,
    pub data_dir: tempfile::TempDir,
}

impl Server {
    pub fn start(args: &[&str]) -> Server {
        Server::start_in(tempfile::tempdir().expect("temp dir"), args, &[])
    }

    pub fn start_in(data_dir: tempfile::TempDir, args: &[&str], env: &[(&str, &str)]) -> Server {
        let database = test_postgres::database_args(data_dir.path());
        Server::spawn(data_dir, &database, args, env)
    }

    /// A server on the PostgreSQL database at `url` (several may share it).
    pub fn start_on(url: &str) -> Server {
        let database = ["--database-url".to_owned(), url.to_owned()];
        Server::spawn(tempfile::tempdir().expect("temp dir"), &database, &[], &[])
    }

    fn spawn(
        data_dir: tempfile::TempDir,
        database: &[String],
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Server {
        let mut child = command()
            .args(["--bind", "127.0.0.1:0", "--data-dir"])
            .arg(data_dir.path())
            .args(database)
            .args(args)
            .env("RUST_LOG", "info")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("homelab starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let mut sent = false;
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if !sent && let Some(url) = line.split("listening on ").nth(1) {
                    let url = url.split_whitespace().next().unwrap_or_default();
                    let _ = sender.send(url.to_owned());
                    sent = true;
                }
            }
        });
        let base_url = receiver
            .recv_timeout(Duration::from_secs(60))
            .expect("homelab reports its address on stderr");
        Server {
            child,
            base_url,
            data_dir,
        }
    }

    /// A server with the instance password [`PASSWORD`] set.
    pub fn start_locked(args: &[&str]) -> Server {
        let dir = tempfile::tempdir().expect("temp dir");
        set_password(dir.path(), PASSWORD);
        Server::start_in(dir, args, &[])
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// Kills the server with SIGKILL (no shutdown of any kind) and hands
    /// back its data directory, for a restart on the same data.
    pub fn kill(mut self) -> tempfile::TempDir {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::mem::replace(&mut self.data_dir, tempfile::tempdir().expect("temp dir"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP client. Workspace feature unification may give reqwest rustls
/// without a crypto provider: install one first, as PortOS's tests do.
pub fn http_client() -> reqwest::Client {
    http_client_builder().build().expect("an HTTP client")
}

pub fn http_client_builder() -> reqwest::ClientBuilder {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest::Client::builder()
}

/// Logs in with [`PASSWORD`]; the session's bearer token.
pub async fn login(client: &reqwest::Client, server: &Server) -> String {
    let response = client
        .post(server.url("/api/auth/login"))
        .json(&json!({ "password": PASSWORD }))
        .send()
        .await
        .expect("login");
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.expect("json");
    body["token"].as_str().expect("a token").to_owned()
}

/// GET `path` (with a bearer token, if any): status and JSON body.
pub async fn get(
    client: &reqwest::Client,
    server: &Server,
    path: &str,
    token: Option<&str>,
) -> (StatusCode, Value) {
    let mut request = client.get(server.url(path));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("request");
    let status = response.status();
    (status, response.json().await.expect("a JSON body"))
}

/// GET `path` as text (the exact bytes served).
pub async fn get_text(client: &reqwest::Client, server: &Server, path: &str) -> String {
    let response = client.get(server.url(path)).send().await.expect("request");
    assert_eq!(response.status(), StatusCode::OK, "GET {path}");
    response.text().await.expect("body")
}

/// `POST /api/tools/call`: status and the result envelope (or error).
pub async fn call(
    client: &reqwest::Client,
    server: &Server,
    token: Option<&str>,
    request_id: &str,
    name: &str,
    arguments: Value,
) -> (StatusCode, Value) {
    let mut request = client
        .post(server.url("/api/tools/call"))
        .json(&json!({ "requestId": request_id, "name": name, "arguments": arguments }));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("call");
    let status = response.status();
    (status, response.json().await.expect("a JSON body"))
}

/// PUT JSON to `path` on a passwordless server; it must answer 200.
pub async fn put(client: &reqwest::Client, server: &Server, path: &str, body: &Value) {
    let response = client
        .put(server.url(path))
        .json(body)
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::OK, "PUT {path} {body}");
}
