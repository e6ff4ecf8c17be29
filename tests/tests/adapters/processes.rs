//! system.processes.status through the registry
//! (docs/reference.md#semantic-adapters row 12): the real process table of this
//! machine, or a configured watch list.

use std::process::{Child, Command};

use portos::build_registry;
use portos_core::{Authority, Capabilities, ErrorCode, Registry, ToolCall, ToolResult, ToolState};
use portos_server::Config;
use portos_tests as _;
use serde_json::{Map, Value, json};

fn registry(watch: &[&str]) -> (std::sync::Arc<Registry>, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = Config {
        data_dir: dir.path().to_owned(),
        timezone: Some("UTC".to_owned()),
        ..portos::config()
    };
    let options = portos::Options {
        watch_processes: watch.iter().map(|name| (*name).to_owned()).collect(),
        ..portos::Options::default()
    };
    let registry = build_registry(
        config,
        &options,
        &portos::store::open(dir.path()).expect("store"),
    )
    .expect("registry");
    (registry, dir)
}

async fn status(
    registry: &Registry,
    authority: &Authority,
) -> Result<ToolResult, portos_core::ToolError> {
    registry
        .call(
            authority,
            ToolCall::new(next_request_id(), "system.processes.status", Map::new()),
        )
        .await
}

fn next_request_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("p-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

fn reader() -> Authority {
    portos_words::principal::agent(Capabilities::NONE.with(portos_words::READ_PORTOS))
}

/// A `sleep` child, killed on drop.
struct Sleeper(Child);

impl Sleeper {
    fn start() -> Sleeper {
        Sleeper(
            Command::new("sleep")
                .arg("300")
                .spawn()
                .expect("sleep starts"),
        )
    }
}

impl Drop for Sleeper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn the_machine_view_counts_real_processes() {
    let (registry, _dir) = registry(&[]);
    let r = status(&registry, &reader()).await.expect("allowed");
    assert_eq!(r.state, ToolState::Completed);
    assert_eq!(r.name, "system.processes.status");
    let body = r.result.as_ref().expect("result");
    assert_eq!(body["ok"], true);
    let total = body["total"].as_u64().expect("total");
    let online = body["online"].as_u64().expect("online");
    // At least this test process and its runner are alive.
    assert!(total >= 2 && online >= 1 && online <= total, "{body}");
    assert!(body["unhealthy"].is_array() && body["desktopExited"].is_array());
    let listed = body["unhealthy"].as_array().map_or(0, Vec::len)
        + body["desktopExited"].as_array().map_or(0, Vec::len);
    assert_eq!(u64::try_from(listed).ok(), Some(total - online), "{body}");
    let summary = body["summary"].as_str().expect("summary");
    assert!(
        summary.starts_with(&format!("{total} processes, {online} running")),
        "{summary}"
    );
    assert!(body.get("watched").is_none());
}

#[tokio::test]
async fn stopped_and_exited_processes_are_listed_in_the_machine_view() {
    let (registry, _dir) = registry(&[]);
    // A suspended process is unhealthy ("stopped")…
    let sleeper = Sleeper::start();
    let pid = sleeper.0.id().to_string();
    let stopped = Command::new("kill")
        .args(["-STOP", &pid])
        .status()
        .expect("kill runs");
    assert!(stopped.success());
    // …and a child that exited and was not reaped yet is "exited".
    let mut zombie = Command::new("true").spawn().expect("true starts");
    let zombie_pid = zombie.id();
    let is_zombie = || {
        std::fs::read_to_string(format!("/proc/{zombie_pid}/stat")).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .is_some_and(|rest| rest.trim_start().starts_with('Z'))
        })
    };
    for _ in 0..100 {
        if is_zombie() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(is_zombie(), "the child exited and waits to be reaped");

    let r = status(&registry, &reader()).await.expect("allowed");
    let _ = zombie.wait();
    let body = r.result.as_ref().expect("result");
    let listed = |key: &str, name: &str, state: &str| {
        body[key].as_array().is_some_and(|rows| {
            rows.iter()
                .any(|row| row["name"] == name && row["status"] == state)
        })
    };
    assert!(listed("unhealthy", "sleep", "stopped"), "{body}");
    assert!(listed("desktopExited", "true", "exited"), "{body}");
    let summary = body["summary"].as_str().expect("summary");
    assert!(
        summary.contains(" stopped") && summary.contains(" exited, not yet reaped"),
        "{summary}"
    );
    drop(sleeper);
}

#[tokio::test]
async fn watched_names_are_online_or_stopped() {
    let sleeper = Sleeper::start();
    let me = std::env::current_exe()
        .expect("exe")
        .file_name()
        .expect("file name")
        .to_string_lossy()
        .into_owned();
    let (registry, _dir) = registry(&["sleep", &me, "portos-no-such-daemon"]);
    let r = status(&registry, &reader()).await.expect("allowed");
    assert_eq!(r.state, ToolState::Completed);
    let body = r.result.as_ref().expect("result");
    assert_eq!(body["total"], 3);
    assert_eq!(body["online"], 2, "{body}");
    assert_eq!(
        body["unhealthy"],
        json!([{"name": "portos-no-such-daemon", "status": "stopped", "restarts": 0}])
    );
    assert_eq!(body["desktopExited"], json!([]));
    assert_eq!(
        body["watched"],
        json!(["sleep", me, "portos-no-such-daemon"])
    );
    assert_eq!(
        body["summary"],
        "2 of 3 watched processes online; not running: portos-no-such-daemon."
    );

    // Once the sleeper is gone, `sleep` is stopped too (unless another
    // `sleep` runs on this machine).
    drop(sleeper);
    let others = Command::new("pgrep")
        .args(["-x", "sleep"])
        .output()
        .map(|out| !out.stdout.is_empty())
        .unwrap_or(true);
    if !others {
        let r = status(&registry, &reader()).await.expect("allowed");
        let body = r.result.as_ref().expect("result");
        assert_eq!(body["online"], 1, "{body}");
        assert_eq!(body["unhealthy"][0]["name"], "sleep");
    }
}

#[tokio::test]
async fn grants_scopes_alias_and_no_arguments() {
    let (registry, _dir) = registry(&["sleep"]);
    let error = status(
        &registry,
        &portos_words::principal::agent(Capabilities::NONE),
    )
    .await
    .expect_err("agent needs readPortos");
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
    for authority in [
        portos_words::principal::voice(),
        portos_words::principal::ui(false),
    ] {
        let r = registry
            .call(
                &authority,
                ToolCall::new(next_request_id(), "pm2_status", Map::new()),
            )
            .await
            .expect("reads are open");
        assert_eq!(r.name, "system.processes.status");
    }
    let Value::Object(extra) = json!({"name": "x"}) else {
        unreachable!()
    };
    let error = registry
        .call(
            &reader(),
            ToolCall::new(next_request_id(), "system.processes.status", extra),
        )
        .await
        .expect_err("the tool takes no arguments");
    assert_eq!(error.code, ErrorCode::ToolValidationError);
}
