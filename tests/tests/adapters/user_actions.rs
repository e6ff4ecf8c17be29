//! `user-actions.query` through the registry on a real SQLite store in a
//! temporary directory (docs/reference.md#user-actions): limit clamping and
//! truncation, redaction, date failures as failed results, strict input, the
//! readPortos grant, every filter, and captures recorded as they happen.

use portos::build_registry;
use portos::ledger::{self, ActionType, Actor, NewAction, Source};
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
    next_id: std::cell::Cell<u32>,
}

/// A registry whose user lives in `timezone`.
fn fixture_in(timezone: &str) -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = Config {
        data_dir: dir.path().to_owned(),
        timezone: Some(timezone.to_owned()),
        ..portos::config()
    };
    let store = portos::store::open(dir.path()).expect("store");
    let registry =
        build_registry(config.clone(), &portos::Options::default(), &store).expect("registry");
    Fixture {
        registry,
        store,
        _dir: dir,
        next_id: std::cell::Cell::new(0),
    }
}

fn fixture() -> Fixture {
    fixture_in("UTC")
}

fn reader() -> Authority {
    portos_words::principal::agent(
        Capabilities::NONE
            .with(portos_words::READ_PORTOS)
            .with(portos_words::WRITE_PORTOS),
    )
}

impl Fixture {
    async fn call_as(
        &self,
        authority: Authority,
        name: &str,
        arguments: Value,
    ) -> Result<ToolResult, portos_core::ToolError> {
        let id = self.next_id.get() + 1;
        self.next_id.set(id);
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object")
        };
        self.registry
            .call(
                &authority,
                ToolCall::new(format!("u-{id}"), name, arguments),
            )
            .await
    }

    async fn query(&self, arguments: Value) -> ToolResult {
        self.call_as(reader(), "user-actions.query", arguments)
            .await
            .expect("the query is allowed")
    }

    /// The events of a completed query, and its `truncated`.
    async fn events(&self, arguments: Value) -> (Vec<Value>, bool) {
        let result = self.query(arguments).await;
        assert_eq!(result.state, ToolState::Completed, "{:?}", result.error);
        let body = result.result.as_deref().expect("a result").clone();
        let truncated = body["truncated"].as_bool().expect("truncated");
        let events = body["events"].as_array().expect("events").clone();
        (events, truncated)
    }

    fn record(&self, action: NewAction) {
        self.store
            .run_blocking(move |connection| ledger::record(connection, &action))
            .expect("recorded");
    }

    fn record_many(&self, count: usize) {
        for n in 0..count {
            self.record(NewAction::new(
                ActionType::CosTaskCreate,
                Actor::User,
                format!("Created task {n}"),
            ));
        }
    }
}

fn at(text: &str) -> jiff::Timestamp {
    text.parse().expect("instant")
}

fn action_at(kind: ActionType, actor: Actor, when: &str, summary: &str) -> NewAction {
    let mut action = NewAction::new(kind, actor, summary);
    action.happened_at = at(when);
    action
}

fn summaries(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .map(|event| event["summary"].as_str().expect("summary"))
        .collect()
}

#[tokio::test]
async fn a_capture_is_recorded_with_the_actor_of_its_caller() {
    let f = fixture();
    let captured = f
        .call_as(reader(), "brain.capture", json!({"text": "Buy oat milk"}))
        .await
        .expect("allowed");
    assert_eq!(captured.state, ToolState::Completed);
    let id = captured.result.as_deref().expect("result")["id"].clone();
    let mind = portos_words::principal::mind(Capabilities::NONE.with(portos_words::WRITE_PORTOS));
    f.call_as(mind, "brain.capture", json!({"text": "Mind's own note"}))
        .await
        .expect("allowed");

    let (events, truncated) = f.events(json!({})).await;
    assert!(!truncated);
    assert_eq!(events.len(), 2);
    // Newest first.
    assert_eq!(events[0]["actor"], "mind");
    assert_eq!(events[0]["summary"], "Captured \"Mind's own note\"");
    let first = &events[1];
    assert_eq!(first["type"], "brain.capture");
    assert_eq!(first["actor"], "user");
    assert_eq!(first["summary"], "Captured \"Buy oat milk\"");
    assert_eq!(first["target"], id);
    assert_eq!(first["targetName"], "Buy oat milk");
    assert_eq!(first["payload"]["scope"], "agent");
    assert_eq!(first["source"], json!({}));
    let happened = first["happenedAt"].as_str().expect("happenedAt");
    assert!(happened.parse::<jiff::Timestamp>().is_ok(), "{happened}");
    assert!(happened.ends_with("+00:00"), "user-local (UTC): {happened}");

    // A failed capture changes nothing, so nothing is recorded.
    let failed = f
        .call_as(reader(), "brain.capture", json!({"text": "   "}))
        .await
        .expect("allowed");
    assert_eq!(failed.state, ToolState::Failed);
    assert_eq!(f.events(json!({})).await.0.len(), 2);
}

#[tokio::test]
async fn the_limit_is_clamped_to_100_and_one_more_row_tells_truncation() {
    let f = fixture();
    f.record_many(3);
    // limit 2 → 3 rows read: two shown, the third says "truncated".
    let (events, truncated) = f.events(json!({"limit": 2})).await;
    assert_eq!(summaries(&events), ["Created task 2", "Created task 1"]);
    assert!(truncated);
    let (events, truncated) = f.events(json!({"limit": 3})).await;
    assert_eq!(events.len(), 3);
    assert!(!truncated);

    // limit 500 → clamped to 100, 101 read.
    f.record_many(97);
    let (events, truncated) = f.events(json!({"limit": 500})).await;
    assert_eq!(events.len(), 100);
    assert!(!truncated, "exactly 100 rows are not truncated");
    f.record_many(1);
    let (events, truncated) = f.events(json!({"limit": 500})).await;
    assert_eq!(events.len(), 100);
    assert!(truncated);
    // The default is the maximum.
    let (events, truncated) = f.events(json!({})).await;
    assert_eq!(events.len(), 100);
    assert!(truncated);
}

#[tokio::test]
async fn secret_looking_values_are_redacted() {
    let f = fixture();
    f.call_as(
        reader(),
        "brain.capture",
        json!({"text": "new key sk-proj-abcdefghijklmnopqrstuvwx"}),
    )
    .await
    .expect("allowed");
    f.record(
        NewAction::new(
            ActionType::SettingsUpdate,
            Actor::User,
            "Set password=hunter22 for the mail bridge",
        )
        .target(
            "mail",
            Some("token ghp_0123456789abcdefghijABCDEFGHIJ".to_owned()),
        )
        .payload(json!({
            "apiKey": "plain-looking",
            "note": "Authorization: Bearer abcdef123456789",
            "nested": [{"client_secret": "s3"}],
            "enabled": true,
        }))
        .source(Source::http("PUT", "/api/settings/mail")),
    );
    // A row written without masking is still masked on the way out.
    f.store
        .run_blocking(|connection| {
            connection.execute_batch(
                "INSERT INTO user_actions (happened_at_ms, type, actor, summary, payload)
                 VALUES (0, 'settings.update', 'system', 'raw AKIAABCDEFGHIJKLMNOP', '{}')",
            )?;
            Ok(())
        })
        .expect("raw row");

    let (events, _) = f.events(json!({})).await;
    let all = serde_json::to_string(&events).expect("json");
    for secret in [
        "sk-proj-abc",
        "hunter22",
        "ghp_0123",
        "plain-looking",
        "abcdef123456789",
        "s3\"",
        "AKIAABCD",
    ] {
        assert!(!all.contains(secret), "{secret} leaked: {all}");
    }
    let settings = &events[0];
    assert_eq!(
        settings["summary"],
        "Set password=[REDACTED] for the mail bridge"
    );
    assert_eq!(settings["targetName"], "token [REDACTED]");
    assert_eq!(settings["target"], "mail");
    assert_eq!(
        settings["payload"],
        json!({
            "apiKey": "[REDACTED]",
            "note": "Authorization: Bearer [REDACTED]",
            "nested": [{"client_secret": "[REDACTED]"}],
            "enabled": true,
        })
    );
    assert_eq!(
        settings["source"],
        json!({"route": "/api/settings/mail", "method": "PUT"})
    );
    assert_eq!(events[1]["summary"], "Captured \"new key [REDACTED]\"");
    assert_eq!(events[2]["summary"], "raw [REDACTED]");
}

#[tokio::test]
async fn an_unparseable_date_is_a_failed_result_not_a_400() {
    let f = fixture();
    for (key, value) in [
        ("from", "last tuesday"),
        ("to", "2026-02-30"),
        ("from", "12/01/2026"),
    ] {
        let result = f.query(json!({ key: value })).await;
        assert_eq!(result.state, ToolState::Failed, "{key}={value}");
        assert_eq!(
            result.error.as_deref(),
            Some(format!(
                "Invalid '{key}' for 'user-actions.query': must be a parseable date/timestamp"
            ))
            .as_deref()
        );
    }
    let backwards = f
        .query(json!({"from": "2026-03-02", "to": "2026-03-01"}))
        .await;
    assert_eq!(backwards.state, ToolState::Failed);
}

#[tokio::test]
async fn bad_input_is_a_tool_validation_error_before_the_adapter() {
    let f = fixture();
    for arguments in [
        json!({"sql": "DROP TABLE user_actions"}),
        json!({"limit": 0}),
        json!({"limit": "5"}),
        json!({"type": "brain.delete"}),
        json!({"types": ["brain.capture", "nope"]}),
        json!({"actor": "robot"}),
        json!({"from": ""}),
        json!({"to": "   "}),
    ] {
        let error = f
            .call_as(reader(), "user-actions.query", arguments.clone())
            .await
            .expect_err("refused");
        assert_eq!(error.code, ErrorCode::ToolValidationError, "{arguments}");
        assert_eq!(error.status(), 400);
    }
}

#[tokio::test]
async fn reading_needs_read_portos_and_a_listed_scope() {
    let f = fixture();
    let error = f
        .call_as(
            portos_words::principal::agent(Capabilities::NONE.with(portos_words::WRITE_PORTOS)),
            "user-actions.query",
            json!({}),
        )
        .await
        .expect_err("refused");
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
    let error = f
        .call_as(
            portos_words::principal::mind(Capabilities::NONE),
            "user-actions.query",
            json!({}),
        )
        .await
        .expect_err("refused");
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
    let error = f
        .call_as(
            portos_words::principal::voice(),
            "user-actions.query",
            json!({}),
        )
        .await
        .expect_err("refused");
    assert_eq!(error.code, ErrorCode::ToolScopeDenied);
    // ui reads need no grant.
    let read = f
        .call_as(
            portos_words::principal::ui(false),
            "user-actions.query",
            json!({}),
        )
        .await
        .expect("allowed");
    assert_eq!(read.state, ToolState::Completed);
    assert_eq!(
        f.registry
            .resolve("user-actions.query")
            .map(|tool| tool.policy.scopes.clone()),
        Some(vec![
            portos_words::AGENT,
            portos_words::MIND,
            portos_words::UI
        ])
    );
}

#[tokio::test]
async fn filters_by_type_types_actor_and_time() {
    // Paris: a bare date is the user's whole day, not UTC's.
    let f = fixture_in("Europe/Paris");
    f.record(action_at(
        ActionType::BrainCapture,
        Actor::User,
        "2026-02-28T22:30:00Z",
        "late capture",
    ));
    f.record(action_at(
        ActionType::SettingsUpdate,
        Actor::User,
        "2026-03-01T09:00:00Z",
        "settings",
    ));
    f.record(action_at(
        ActionType::CosTaskCreate,
        Actor::Mind,
        "2026-03-01T12:00:00Z",
        "mind task",
    ));
    f.record(action_at(
        ActionType::CosScheduleTrigger,
        Actor::Schedule,
        "2026-03-01T22:59:00Z",
        "scheduled",
    ));
    f.record(action_at(
        ActionType::CosTaskDelete,
        Actor::System,
        "2026-03-01T23:00:00Z",
        "next day",
    ));

    let (events, _) = f.events(json!({"type": "settings.update"})).await;
    assert_eq!(summaries(&events), ["settings"]);
    let (events, _) = f
        .events(json!({"types": ["cos.task.create", "cos.task.delete"]}))
        .await;
    assert_eq!(summaries(&events), ["next day", "mind task"]);
    let (events, _) = f
        .events(json!({"type": "brain.capture", "types": ["cos.task.create"]}))
        .await;
    assert_eq!(summaries(&events), ["mind task", "late capture"]);
    let (events, _) = f.events(json!({"actor": "schedule"})).await;
    assert_eq!(summaries(&events), ["scheduled"]);
    let (events, _) = f
        .events(json!({"actor": "user", "type": "brain.capture"}))
        .await;
    assert_eq!(summaries(&events), ["late capture"]);

    // 2026-03-01 in Paris runs from 2026-02-28T23:00Z to 2026-03-01T23:00Z.
    let (events, _) = f
        .events(json!({"from": "2026-03-01", "to": "2026-03-01"}))
        .await;
    assert_eq!(summaries(&events), ["scheduled", "mind task", "settings"]);
    let (events, _) = f.events(json!({"from": "2026-03-01T12:00:00Z"})).await;
    assert_eq!(summaries(&events), ["next day", "scheduled", "mind task"]);
    let (events, _) = f.events(json!({"to": "2026-03-01T10:00"})).await;
    assert_eq!(
        summaries(&events),
        ["settings", "late capture"],
        "local 10:00 = 09:00Z"
    );
    let (events, _) = f.events(json!({"to": "2026-03-01T09:00:00+00:00"})).await;
    assert_eq!(
        summaries(&events),
        ["settings", "late capture"],
        "bounds are inclusive"
    );
    assert_eq!(events[0]["happenedAt"], "2026-03-01T10:00:00.000+01:00");
}
