//! Shared helpers for the black-box tests in `tests/tests/`.
//!
//! Linking `portos_extra_tools` here proves a tool crate contributes to the
//! link-time list only when it is named (DESIGN "Link-time registration").

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::Duration;

portos_core::link_tools!(portos_extra_tools);
// PortOS's capabilities and scopes, which the registry tests' own tools
// use, without PortOS's domains.
portos_core::link_tools!(portos_words);

pub mod forge_standin;

/// Runs `portos --set-password` with `password` on standard input, on
/// `data_dir` (and its database when the suite runs on PostgreSQL, unless
/// `extra_args` names one).
pub fn set_password(
    data_dir: &std::path::Path,
    extra_args: &[&str],
    password: &str,
) -> std::process::Output {
    use std::io::Write as _;
    let mut command = portos_command();
    if !extra_args.contains(&"--database-url") {
        command.args(test_postgres::database_args(data_dir));
    }
    let mut child = command
        .arg("--set-password")
        .arg("--data-dir")
        .arg(data_dir)
        .args(extra_args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("portos runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(format!("{password}\n").as_bytes())
        .expect("password written");
    child.wait_with_output().expect("portos exits")
}

/// `portos` as every test runs it: its outbound requests reach loopback (the
/// tests' stand-in servers) and nothing else, so no test can make it
/// connect to, or look up, anything outside this machine.
pub fn portos_command() -> Command {
    let mut command = Command::new(portos_binary());
    command.env("PORTOS_OUTBOUND_ONLY", "loopback");
    command
}

/// The `portos` binary of this build (`cargo test --workspace` builds it).
pub fn portos_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary has a path");
    // target/<profile>/deps/<test> → target/<profile>/portos
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("test binaries live in target/<profile>/deps");
    let binary = profile_dir.join(format!("portos{}", std::env::consts::EXE_SUFFIX));
    assert!(
        binary.exists(),
        "{} is missing: run the tests with `cargo test --workspace` (or build -p portos first)",
        binary.display()
    );
    binary
}

/// A `portos` process serving on an ephemeral loopback port, killed on drop.
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    pub base_url: String,
    pub data_dir: tempfile::TempDir,
    /// Every line the server wrote to stderr (its log) so far.
    log: Arc<Mutex<Vec<String>>>,
}

impl ServerProcess {
    /// Starts the real binary with a fresh data directory.
    pub fn start(extra_args: &[&str]) -> ServerProcess {
        let data_dir = tempfile::tempdir().expect("temp dir");
        ServerProcess::start_in(data_dir, extra_args)
    }

    /// Starts the real binary with a fresh data directory whose instance
    /// password is `password` (writes over HTTP need a session).
    pub fn start_protected(password: &str) -> ServerProcess {
        let data_dir = tempfile::tempdir().expect("temp dir");
        let output = set_password(data_dir.path(), &[], password);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        ServerProcess::start_in(data_dir, &[])
    }

    /// Starts the binary on an existing data directory (restart tests).
    pub fn start_in(data_dir: tempfile::TempDir, extra_args: &[&str]) -> ServerProcess {
        ServerProcess::start_with_env(data_dir, extra_args, &[])
    }

    /// Starts the binary with extra environment variables.
    pub fn start_with_env(
        data_dir: tempfile::TempDir,
        extra_args: &[&str],
        env: &[(&str, &str)],
    ) -> ServerProcess {
        ServerProcess::spawn(data_dir, extra_args, env, true)
    }

    /// Starts the binary on its embedded SQLite store whatever engine the
    /// suite runs on (tests of moving a SQLite store elsewhere).
    pub fn start_on_sqlite(data_dir: tempfile::TempDir) -> ServerProcess {
        ServerProcess::spawn(data_dir, &[], &[], false)
    }

    fn spawn(
        data_dir: tempfile::TempDir,
        extra_args: &[&str],
        env: &[(&str, &str)],
        suite_engine: bool,
    ) -> ServerProcess {
        let mut command = portos_command();
        // On PostgreSQL (PORTOS_TEST_ENGINE=postgres) each data directory
        // has a database of its own in the suite's cluster.
        let chosen = !suite_engine || extra_args.contains(&"--database-url");
        if !chosen && let Some(url) = test_postgres::database_for(data_dir.path()) {
            command.arg("--database-url").arg(url);
        }
        let mut child = command
            .arg("--bind")
            .arg("127.0.0.1:0")
            .arg("--data-dir")
            .arg(data_dir.path())
            .args(extra_args)
            .env("RUST_LOG", "info")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("portos starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (sender, receiver) = mpsc::channel();
        let log = Arc::new(Mutex::new(Vec::new()));
        let kept = log.clone();
        std::thread::spawn(move || {
            let mut sent = false;
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if !sent && let Some(url) = line.split("listening on ").nth(1) {
                    let url = url.split_whitespace().next().unwrap_or_default().to_owned();
                    let _ = sender.send(url);
                    sent = true;
                }
                kept.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(line);
            }
        });
        let base_url = receiver
            .recv_timeout(Duration::from_secs(60))
            .expect("portos reports its address on stderr");
        ServerProcess {
            child,
            base_url,
            data_dir,
            log,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base_url, path)
    }

    /// What the server has written to stderr so far (with `RUST_LOG=info`).
    pub fn stderr(&self) -> String {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .join("\n")
    }

    /// Kills the process without letting it shut down (a crash).
    pub fn kill(mut self) -> tempfile::TempDir {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let dir = tempfile::tempdir().expect("temp dir");
        std::mem::replace(&mut self.data_dir, dir)
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Signs in to `server` with `password`; the session's bearer token.
pub async fn login(client: &reqwest::Client, server: &ServerProcess, password: &str) -> String {
    let login: serde_json::Value = client
        .post(server.url("/api/auth/login"))
        .json(&serde_json::json!({ "password": password }))
        .send()
        .await
        .expect("login")
        .json()
        .await
        .expect("a JSON body");
    login["token"].as_str().expect("a token").to_owned()
}

/// An HTTP client for the tests. The server's outbound client brings rustls
/// without a built-in crypto provider, and features are unified across the
/// workspace, so a bare `reqwest::Client::new()` would panic: build clients here.
pub fn http_client() -> reqwest::Client {
    http_client_builder().build().expect("an HTTP client")
}

/// [`http_client`]'s builder, for tests that set cookies, redirects or timeouts.
pub fn http_client_builder() -> reqwest::ClientBuilder {
    // The same provider as `portos::shared::outbound`, installed here rather
    // than through it: naming the server's crate from this library would link
    // its tools into every test binary, and the registry tests count tools.
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest::Client::builder()
}

/// The store of a test server's data directory, opened in-process (to
/// seed or inspect it): the directory's PostgreSQL database when the suite
/// runs there (`PORTOS_TEST_ENGINE=postgres`), else its SQLite file. Every
/// schema linked into the test binary is migrated.
pub fn open_store(data_dir: &std::path::Path) -> portos_server::store::Store {
    use portos_server::store::{Store, linked_schemas};
    match test_postgres::database_for(data_dir) {
        Some(url) => Store::connect(&url, &linked_schemas()),
        // The portos binary's store: `portos.db` in its data directory.
        None => Store::open(&data_dir.join("portos.db"), &linked_schemas()),
    }
    .expect("the test server's store")
}
