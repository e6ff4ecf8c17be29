//! `cos.agents.status` through the registry
//! (docs/reference.md#semantic-adapters row 21), on CoS tasks and agent runs in
//! a real SQLite store; the store's task changes in the ledger; the
//! managed-apps listing.

use std::collections::BTreeMap;

use jiff::{SignedDuration, ZonedDateTime};
use portos::build_registry;
use portos::domains::cos::store::{self, RunUpdate, StartOutcome};
use portos::domains::cos::{AgentOutcome, NewTask, Origin, Priority, TaskChanges, TaskStatus};
use portos::ledger::{self, ActionFilter, Actor, Source};
use portos_core::ToolState;
use portos_core::{Authority, Capabilities, ErrorCode, Registry, ToolCall, ToolResult};
use portos_server::Config;
use portos_server::store::Store;
use portos_tests as _;
use serde_json::{Value, json};

struct Fixture {
    registry: std::sync::Arc<Registry>,
    store: Store,
    _dir: tempfile::TempDir,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = Config {
        data_dir: dir.path().to_owned(),
        timezone: Some("UTC".to_owned()),
        ..portos::config()
    };
    let store = portos::store::open(dir.path()).expect("store");
    let registry =
        build_registry(config.clone(), &portos::Options::default(), &store).expect("registry");
    Fixture {
        registry,
        store,
        _dir: dir,
    }
}

fn user() -> Origin {
    Origin {
        actor: Actor::User,
        source: Source::http("POST", "/api/cos/tasks"),
        subject: None,
    }
}

fn now() -> ZonedDateTime {
    jiff::Timestamp::now().to_zoned_datetime(jiff::tz::TimeZone::UTC)
}

fn minutes_ago(minutes: i64) -> ZonedDateTime {
    now()
        .checked_sub(SignedDuration::from_mins(minutes))
        .expect("in range")
}

fn task(description: &str, app: Option<&str>) -> NewTask {
    NewTask {
        description: description.to_owned(),
        app: app.map(str::to_owned),
        priority: None,
        status: None,
    }
    .checked()
    .expect("a valid task")
}

impl Fixture {
    fn create(&self, description: &str, app: Option<&str>) -> String {
        let input = task(description, app);
        self.store
            .run_blocking(|connection| store::create_task(connection, &input, &now(), &user()))
            .expect("created")
            .id
    }

    fn start(&self, task_id: &str, phase: &str, at: &ZonedDateTime) -> String {
        match self
            .store
            .run_blocking(|connection| store::start_agent(connection, task_id, phase, at, &user()))
            .expect("started")
        {
            StartOutcome::Started(run) => run.agent_id,
            other => panic!("not started: {other:?}"),
        }
    }

    async fn status_as(&self, authority: Authority) -> Result<ToolResult, portos_core::ToolError> {
        self.registry
            .call(
                &authority,
                // A fresh requestId each time: a reused one replays the first answer.
                ToolCall::new(
                    format!("s-{}", next_request_number()),
                    "code_agent_status",
                    serde_json::Map::new(),
                ),
            )
            .await
    }

    async fn status(&self) -> Value {
        let result = self
            .status_as(portos_words::principal::agent(
                Capabilities::NONE.with(portos_words::READ_PORTOS),
            ))
            .await
            .expect("allowed");
        assert_eq!(result.state, ToolState::Completed, "{:?}", result.error);
        result.result.as_deref().expect("result").value().clone()
    }

    fn ledger_types(&self) -> Vec<(String, String, String)> {
        let filter = ActionFilter {
            limit: 100,
            ..ActionFilter::default()
        };
        let page = self
            .store
            .run_blocking(|connection| ledger::query(connection, &filter, &jiff::tz::TimeZone::UTC))
            .expect("ledger");
        page.events
            .into_iter()
            .rev()
            .map(|event| (event.kind, event.actor, event.summary))
            .collect()
    }
}

fn next_request_number() -> usize {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

#[tokio::test]
async fn no_running_agents_is_an_empty_list() {
    let f = fixture();
    f.create("Write the README", Some("portos"));
    let status = f.status().await;
    assert_eq!(
        status,
        json!({"ok": true, "count": 0, "agents": [], "summary": "No agents are running."})
    );
}

#[tokio::test]
async fn running_agents_are_listed_with_their_elapsed_time() {
    let f = fixture();
    let readme = f.create("Write the README", Some("portos"));
    let tests = f.create("Fix the flaky test", None);
    let done = f.create("Already done", Some("portos"));
    let readme_agent = f.start(&readme, "planning", &minutes_ago(5));
    let tests_agent = f.start(&tests, "coding", &minutes_ago(2));
    let done_agent = f.start(&done, "coding", &minutes_ago(9));
    let finished = f
        .store
        .run_blocking(|connection| {
            store::update_agent(
                connection,
                &done_agent,
                None,
                Some(AgentOutcome::Completed),
                &now(),
                &Source::http("PUT", "/api/cos/agents/{id}"),
            )
        })
        .expect("finished");
    assert!(matches!(finished, RunUpdate::Updated(_)));

    let status = f.status().await;
    assert_eq!(status["ok"], true);
    assert_eq!(status["count"], 2);
    let agents = status["agents"].as_array().expect("agents");
    // The longest-running first.
    assert_eq!(agents[0]["taskId"], readme);
    assert_eq!(agents[0]["agentId"], readme_agent);
    assert_eq!(agents[0]["description"], "Write the README");
    assert_eq!(agents[0]["phase"], "planning");
    assert_eq!(agents[0]["app"], "portos");
    let elapsed = agents[0]["elapsedMs"].as_i64().expect("elapsedMs");
    assert!((300_000..330_000).contains(&elapsed), "{elapsed}");
    assert_eq!(agents[1]["agentId"], tests_agent);
    assert_eq!(agents[1]["app"], Value::Null);
    let elapsed = agents[1]["elapsedMs"].as_i64().expect("elapsedMs");
    assert!((120_000..150_000).contains(&elapsed), "{elapsed}");
    assert_eq!(
        status["summary"],
        "2 agents running: \"Write the README\" in portos (planning); \"Fix the flaky test\" (coding)."
    );
    let keys: Vec<&String> = agents[0].as_object().expect("object").keys().collect();
    assert_eq!(
        keys,
        [
            "taskId",
            "agentId",
            "description",
            "phase",
            "app",
            "elapsedMs"
        ]
    );

    // A phase change shows; the finished task is completed.
    f.store
        .run_blocking(|connection| {
            store::update_agent(
                connection,
                &tests_agent,
                Some("reviewing"),
                None,
                &now(),
                &Source::default(),
            )
        })
        .expect("moved");
    let status = f.status().await;
    assert_eq!(status["agents"][1]["phase"], "reviewing");
    let done_task = f
        .store
        .run_blocking(|connection| store::get_task(connection, &done))
        .expect("read")
        .expect("exists");
    assert_eq!(done_task.status, TaskStatus::Completed);
}

#[tokio::test]
async fn one_agent_per_task_and_a_finished_run_stays_finished() {
    let f = fixture();
    let id = f.create("Refactor the store", None);
    let agent = f.start(&id, "coding", &now());
    let again = f
        .store
        .run_blocking(|connection| store::start_agent(connection, &id, "coding", &now(), &user()))
        .expect("answered");
    assert!(matches!(again, StartOutcome::AlreadyRunning(ref running) if *running == agent));
    let missing = f
        .store
        .run_blocking(|connection| {
            store::start_agent(connection, "nope", "coding", &now(), &user())
        })
        .expect("answered");
    assert!(matches!(missing, StartOutcome::TaskNotFound));
    let finish = |outcome| {
        f.store
            .run_blocking(|connection| {
                store::update_agent(
                    connection,
                    &agent,
                    None,
                    Some(outcome),
                    &now(),
                    &Source::default(),
                )
            })
            .expect("answered")
    };
    assert!(matches!(
        finish(AgentOutcome::Cancelled),
        RunUpdate::Updated(_)
    ));
    assert!(matches!(
        finish(AgentOutcome::Failed),
        RunUpdate::AlreadyFinished
    ));
    let task = f
        .store
        .run_blocking(|connection| store::get_task(connection, &id))
        .expect("read")
        .expect("exists");
    assert_eq!(
        task.status,
        TaskStatus::Pending,
        "a cancelled run requeues the task"
    );
}

#[tokio::test]
async fn the_status_needs_read_portos_for_granted_principals() {
    let f = fixture();
    let error = f
        .status_as(portos_words::principal::mind(
            Capabilities::NONE.with(portos_words::WRITE_PORTOS),
        ))
        .await
        .expect_err("refused");
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
    for authority in [
        portos_words::principal::voice(),
        portos_words::principal::ui(false),
    ] {
        let result = f.status_as(authority).await.expect("allowed");
        assert_eq!(result.state, ToolState::Completed);
        assert_eq!(result.name, "cos.agents.status");
    }
}

#[tokio::test]
async fn every_task_change_is_in_the_ledger() {
    let f = fixture();
    let id = f.create("Ship the ledger", Some("portos"));
    let changes = TaskChanges {
        status: Some(TaskStatus::Blocked),
        priority: Some(Priority::High),
        ..TaskChanges::default()
    }
    .checked()
    .expect("valid");
    let updated = f
        .store
        .run_blocking(|connection| store::update_task(connection, &id, &changes, &now(), &user()))
        .expect("updated")
        .expect("exists");
    assert_eq!(updated.status, TaskStatus::Blocked);
    assert_eq!(updated.priority, Priority::High);
    let agent = f.start(&id, "coding", &now());
    f.store
        .run_blocking(|connection| {
            store::update_agent(
                connection,
                &agent,
                None,
                Some(AgentOutcome::Failed),
                &now(),
                &Source::default(),
            )
        })
        .expect("finished");
    let deleted = f
        .store
        .run_blocking(|connection| store::delete_task(connection, &id, &user()))
        .expect("deleted");
    assert!(deleted.is_some());
    let none = f
        .store
        .run_blocking(|connection| store::delete_task(connection, &id, &user()))
        .expect("answered");
    assert!(
        none.is_none(),
        "a second delete finds nothing and records nothing"
    );

    let rows = f.ledger_types();
    let expected: Vec<(String, String, String)> = [
        (
            "cos.task.create",
            "user",
            "Created task \"Ship the ledger\"",
        ),
        (
            "cos.task.update",
            "user",
            "Updated task \"Ship the ledger\"",
        ),
        (
            "cos.task.spawn",
            "user",
            "Started an agent on task \"Ship the ledger\"",
        ),
        (
            "cos.task.update",
            "system",
            "Agent failed on task \"Ship the ledger\"",
        ),
        (
            "cos.task.delete",
            "user",
            "Deleted task \"Ship the ledger\"",
        ),
    ]
    .iter()
    .map(|(a, b, c)| ((*a).to_owned(), (*b).to_owned(), (*c).to_owned()))
    .collect();
    assert_eq!(rows, expected);

    // The update row says what changed.
    let filter = ActionFilter {
        types: vec![ledger::ActionType::CosTaskUpdate],
        actor: Some(Actor::User),
        limit: 10,
        ..ActionFilter::default()
    };
    let page = f
        .store
        .run_blocking(|connection| ledger::query(connection, &filter, &jiff::tz::TimeZone::UTC))
        .expect("ledger");
    assert_eq!(
        page.events[0].payload,
        json!({"changes": {
            "status": {"from": "pending", "to": "blocked"},
            "priority": {"from": "MEDIUM", "to": "HIGH"},
        }})
    );
    assert_eq!(page.events[0].target.as_deref(), Some(id.as_str()));
}

#[tokio::test]
async fn managed_apps_count_their_tasks_by_status() {
    let f = fixture();
    let a = f.create("one", Some("portos"));
    f.create("two", Some("portos"));
    f.create("three", Some("eidoverse"));
    f.create("no app", None);
    f.start(&a, "coding", &now());
    let apps = f
        .store
        .run_blocking(|connection| store::managed_apps(connection))
        .expect("listed");
    let listed: Vec<(String, u64, BTreeMap<TaskStatus, u64>)> = apps
        .into_iter()
        .map(|app| (app.app, app.total_tasks, app.tasks_by_status))
        .collect();
    assert_eq!(
        listed,
        [
            (
                "eidoverse".to_owned(),
                1,
                BTreeMap::from([(TaskStatus::Pending, 1)])
            ),
            (
                "portos".to_owned(),
                2,
                BTreeMap::from([(TaskStatus::Pending, 1), (TaskStatus::InProgress, 1)])
            ),
        ]
    );
}

#[test]
fn task_input_is_checked() {
    let blank = NewTask {
        description: "   ".to_owned(),
        app: None,
        priority: None,
        status: None,
    };
    assert_eq!(
        blank.checked().expect_err("refused"),
        "description must not be empty"
    );
    let long = NewTask {
        description: "x".repeat(501),
        app: None,
        priority: None,
        status: None,
    };
    assert!(long.checked().expect_err("refused").contains("at most 500"));
    assert!(
        TaskChanges::default().checked().is_err(),
        "nothing to change"
    );
    let trimmed = task("  Tidy up  ", Some("  portos "));
    assert_eq!(trimmed.description, "Tidy up");
    assert_eq!(trimmed.app.as_deref(), Some("portos"));
}
