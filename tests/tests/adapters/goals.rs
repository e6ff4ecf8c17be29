//! goals.list / goals.update-progress / goals.log-note through the registry
//! on a real SQLite store in a temporary directory
//! (docs/reference.md#semantic-adapters rows 9–11). Goals are created over
//! REST, so these tests seed them in the store.

use portos::domains::goals::model::{Goal, GoalNote};
use portos::domains::goals::store as goals;
use portos_core::{Capabilities, ErrorCode, SideEffect, ToolResult, ToolState};
use portos_tests as _;
use serde_json::json;
use support::{read_write, result};

use crate::support;

type Fixture = support::RegistryFixture;

fn fixture() -> Fixture {
    Fixture::new("Pacific/Kiritimati", read_write())
}

impl Fixture {
    /// Seeds a goal as the REST route would create it.
    fn goal(&self, title: &str, urgency: f64, progress: i64, status: &str) -> String {
        let id = format!("g-{}", title.to_lowercase().replace(' ', "-"));
        let goal = Goal {
            id: id.clone(),
            title: title.to_owned(),
            horizon: "1-year".to_owned(),
            category: "health".to_owned(),
            urgency,
            progress,
            status: status.to_owned(),
            created_at: "2026-01-01T00:00:00Z".to_owned(),
            updated_at: "2026-01-01T00:00:00Z".to_owned(),
        };
        self.store
            .run_blocking(|connection| goals::insert_goal(connection, &goal))
            .expect("seeded");
        id
    }

    fn stored(&self, id: &str) -> Goal {
        let id = id.to_owned();
        self.store
            .run_blocking(|connection| goals::goal(connection, &id))
            .expect("read")
            .expect("the goal exists")
    }

    fn notes(&self, id: &str) -> Vec<GoalNote> {
        let id = id.to_owned();
        self.store
            .run_blocking(|connection| goals::notes(connection, &id))
            .expect("notes")
    }
}

fn user_today() -> String {
    jiff::Timestamp::now()
        .to_zoned_datetime(jiff::tz::TimeZone::get("Pacific/Kiritimati").expect("zone"))
        .date()
        .to_string()
}

#[tokio::test]
async fn list_shows_active_goals_by_urgency() {
    let f = fixture();
    let r = f.call("goals.list", json!({})).await;
    assert_eq!(result(&r)["count"], 0);
    assert_eq!(result(&r)["summary"], "No active goals.");

    f.goal("Learn Spanish", 0.3, 10, "active");
    f.goal("Run a marathon", 0.9, 40, "active");
    f.goal("Write a novel", 0.95, 100, "completed");
    f.goal("Old dream", 1.0, 0, "archived");
    let r = f.call("goal_list", json!({})).await;
    assert_eq!(r.name, "goals.list");
    let body = result(&r);
    assert_eq!(body["ok"], true);
    assert_eq!(body["count"], 2);
    assert_eq!(
        body["goals"][0],
        json!({ "title": "Run a marathon", "horizon": "1-year", "category": "health", "progress": 40 })
    );
    assert_eq!(body["goals"][1]["title"], "Learn Spanish");
    assert_eq!(
        body["summary"],
        "2 active goals: Run a marathon (40%), Learn Spanish (10%)."
    );
}

#[tokio::test]
async fn list_limit_defaults_to_10_and_clamps_to_20() {
    let f = fixture();
    for n in 0..25 {
        f.goal(
            &format!("Goal number {n}"),
            f64::from(n) / 100.0,
            0,
            "active",
        );
    }
    let count = |r: &ToolResult| result(r)["count"].as_u64();
    assert_eq!(count(&f.call("goals.list", json!({})).await), Some(10));
    assert_eq!(
        count(&f.call("goals.list", json!({ "limit": 0 })).await),
        Some(10)
    );
    assert_eq!(
        count(&f.call("goals.list", json!({ "limit": -4 })).await),
        Some(10)
    );
    assert_eq!(
        count(&f.call("goals.list", json!({ "limit": 3 })).await),
        Some(3)
    );
    assert_eq!(
        count(&f.call("goals.list", json!({ "limit": 99 })).await),
        Some(20)
    );
    let r = f.call("goals.list", json!({ "limit": 1 })).await;
    assert_eq!(result(&r)["goals"][0]["title"], "Goal number 24");
}

#[tokio::test]
async fn update_progress_finds_the_goal_by_words_and_rounds() {
    let f = fixture();
    let marathon = f.goal("Run a marathon", 0.9, 40, "active");
    let half = f.goal("Run a half marathon", 0.5, 0, "active");
    f.goal("Learn Spanish", 0.3, 10, "active");

    let r = f
        .call(
            "goals.update-progress",
            json!({ "goalQuery": "marathon", "progress": 55.4 }),
        )
        .await;
    assert_eq!(r.state, ToolState::Completed);
    let body = result(&r);
    assert_eq!(body["ok"], true);
    assert_eq!(
        body["title"], "Run a marathon",
        "equal scores: the more urgent goal"
    );
    assert_eq!(body["previous"], 40);
    assert_eq!(body["current"], 55);
    assert_eq!(body["alternatives"], json!(["Run a half marathon"]));
    assert_eq!(
        body["summary"],
        "Updated \"Run a marathon\" from 40% to 55%. Also matched: Run a half marathon."
    );
    assert_eq!(f.stored(&marathon).progress, 55);
    assert_eq!(f.stored(&half).progress, 0);

    // The exact title wins over a title that merely contains the words.
    let r = f
        .call(
            "goal_update_progress",
            json!({ "goalQuery": "run a HALF marathon", "progress": 99.5 }),
        )
        .await;
    assert_eq!(r.name, "goals.update-progress");
    assert_eq!(result(&r)["title"], "Run a half marathon");
    assert_eq!(result(&r)["current"], 100);
    assert_eq!(f.stored(&half).progress, 100);

    // Word overlap: "spanish lessons" has half its words in the title.
    let r = f
        .call(
            "goals.update-progress",
            json!({ "goalQuery": "spanish lessons", "progress": 0 }),
        )
        .await;
    assert_eq!(result(&r)["title"], "Learn Spanish");
    assert_eq!(result(&r)["alternatives"], json!([]));
    assert_eq!(result(&r)["current"], 0);
}

#[tokio::test]
async fn an_unknown_goal_is_a_failed_result_that_changes_nothing() {
    let f = fixture();
    let r = f
        .call(
            "goals.update-progress",
            json!({ "goalQuery": "marathon", "progress": 10 }),
        )
        .await;
    assert_eq!(r.state, ToolState::Failed);
    assert_eq!(result(&r)["ok"], false);
    assert_eq!(result(&r)["summary"], "You have no active goals yet.");

    let id = f.goal("Learn Spanish", 0.3, 10, "active");
    f.goal("Write a novel", 0.9, 100, "completed");
    let r = f
        .call(
            "goals.update-progress",
            json!({ "goalQuery": "piano practice", "progress": 10 }),
        )
        .await;
    assert_eq!(r.state, ToolState::Failed);
    let body = result(&r);
    assert_eq!(
        body,
        &json!({
            "ok": false,
            "summary": "No active goal matches \"piano practice\". Say words from its title, e.g. Learn Spanish."
        })
    );
    assert_eq!(r.error.as_deref(), body["summary"].as_str());
    // Completed goals are not matched.
    let r = f
        .call(
            "goals.log-note",
            json!({ "goalQuery": "write a novel", "note": "chapter 1" }),
        )
        .await;
    assert_eq!(r.state, ToolState::Failed);
    assert_eq!(result(&r)["ok"], false);
    assert_eq!(f.stored(&id).progress, 10);
    assert!(f.notes(&id).is_empty());
}

#[tokio::test]
async fn progress_and_text_are_checked() {
    let f = fixture();
    let id = f.goal("Learn Spanish", 0.3, 10, "active");
    for (arguments, mentions) in [
        (
            json!({ "goalQuery": "spanish", "progress": 100.5 }),
            "progress must be between 0 and 100",
        ),
        (
            json!({ "goalQuery": "spanish", "progress": -1 }),
            "progress",
        ),
        (
            json!({ "goalQuery": "  ", "progress": 50 }),
            "goalQuery must not be empty",
        ),
    ] {
        let r = f.call("goals.update-progress", arguments.clone()).await;
        assert_eq!(r.state, ToolState::Failed, "{arguments}");
        assert!(
            r.error.as_deref().unwrap_or_default().contains(mentions),
            "{:?}",
            r.error
        );
    }
    for (arguments, mentions) in [
        (
            json!({ "goalQuery": "spanish", "note": " " }),
            "note must not be empty",
        ),
        (
            json!({ "goalQuery": "", "note": "x" }),
            "goalQuery must not be empty",
        ),
        (
            json!({ "goalQuery": "spanish", "note": "x", "durationMinutes": 0 }),
            "durationMinutes",
        ),
        (
            json!({ "goalQuery": "spanish", "note": "x", "durationMinutes": 1441 }),
            "at most 1440",
        ),
    ] {
        let r = f.call("goals.log-note", arguments.clone()).await;
        assert_eq!(r.state, ToolState::Failed, "{arguments}");
        assert!(
            r.error.as_deref().unwrap_or_default().contains(mentions),
            "{:?}",
            r.error
        );
    }
    assert_eq!(f.stored(&id).progress, 10);
    assert!(f.notes(&id).is_empty());
}

#[tokio::test]
async fn log_note_attaches_a_note_dated_the_users_today() {
    let f = fixture();
    let id = f.goal("Learn Spanish", 0.3, 10, "active");
    let r = f
        .call(
            "goal_log_note",
            json!({ "goalQuery": "spanish", "note": "  Duolingo lesson 12 ", "durationMinutes": 25 }),
        )
        .await;
    assert_eq!(r.name, "goals.log-note");
    let body = result(&r);
    assert_eq!(body["ok"], true);
    assert_eq!(body["title"], "Learn Spanish");
    let today = user_today();
    assert_eq!(
        body["summary"],
        format!("Noted on \"Learn Spanish\" (25 min) for {today}.")
    );
    let notes = f.notes(&id);
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].note, "Duolingo lesson 12");
    assert_eq!(notes[0].date, today);
    assert_eq!(notes[0].duration_minutes, Some(25.0));
    let r = f
        .call(
            "goals.log-note",
            json!({ "goalQuery": "learn spanish", "note": "podcast" }),
        )
        .await;
    assert_eq!(r.state, ToolState::Completed);
    assert_eq!(f.notes(&id)[1].duration_minutes, None);
}

#[tokio::test]
async fn schema_violations_are_refused_before_the_adapter() {
    let f = fixture();
    for (name, arguments) in [
        ("goals.list", json!({ "limit": "5" })),
        ("goals.list", json!({ "status": "active" })),
        ("goals.update-progress", json!({ "goalQuery": "x" })),
        ("goals.update-progress", json!({ "progress": 5 })),
        (
            "goals.update-progress",
            json!({ "goalQuery": "x", "progress": "50%" }),
        ),
        ("goals.log-note", json!({ "goalQuery": "x" })),
        (
            "goals.log-note",
            json!({ "goalQuery": "x", "note": "y", "date": "2026-01-01" }),
        ),
    ] {
        let error = f
            .call_as(read_write(), name, arguments.clone())
            .await
            .expect_err("invalid arguments are refused");
        assert_eq!(
            error.code,
            ErrorCode::ToolValidationError,
            "{name} {arguments}"
        );
    }
}

#[tokio::test]
async fn grants_and_scopes_govern_goals() {
    let f = fixture();
    let id = f.goal("Learn Spanish", 0.3, 10, "active");
    let read_only =
        portos_words::principal::agent(Capabilities::NONE.with(portos_words::READ_PORTOS));
    let error = f
        .call_as(
            read_only.clone(),
            "goals.update-progress",
            json!({ "goalQuery": "spanish", "progress": 90 }),
        )
        .await
        .expect_err("writes need writePortos");
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
    let error = f
        .call_as(
            read_only.clone(),
            "goals.log-note",
            json!({ "goalQuery": "spanish", "note": "x" }),
        )
        .await
        .expect_err("writes need writePortos");
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
    let error = f
        .call_as(
            portos_words::principal::mind(Capabilities::NONE),
            "goals.list",
            json!({}),
        )
        .await
        .expect_err("reads need readPortos");
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
    let r = f.call_as(read_only, "goals.list", json!({})).await;
    assert_eq!(r.map(|r| r.state).ok(), Some(ToolState::Completed));
    let error = f
        .call_as(
            portos_words::principal::ui(false),
            "goals.update-progress",
            json!({ "goalQuery": "spanish", "progress": 90 }),
        )
        .await
        .expect_err("anonymous ui writes are refused");
    assert_eq!(error.code, ErrorCode::ToolAuthRequired);
    assert_eq!(f.stored(&id).progress, 10);
    let r = f
        .call_as(
            portos_words::principal::voice(),
            "goals.update-progress",
            json!({ "goalQuery": "spanish", "progress": 90 }),
        )
        .await;
    assert_eq!(r.map(|r| r.state).ok(), Some(ToolState::Completed));
    assert_eq!(f.stored(&id).progress, 90);
}

#[test]
fn the_catalog_describes_the_goal_tools() {
    let f = fixture();
    for (name, alias, side_effect, capability) in [
        (
            "goals.list",
            "goal_list",
            SideEffect::Read,
            portos_words::READ_PORTOS,
        ),
        (
            "goals.update-progress",
            "goal_update_progress",
            SideEffect::Write,
            portos_words::WRITE_PORTOS,
        ),
        (
            "goals.log-note",
            "goal_log_note",
            SideEffect::Write,
            portos_words::WRITE_PORTOS,
        ),
    ] {
        let tool = f
            .registry
            .resolve(alias)
            .expect("the legacy alias resolves");
        assert_eq!(tool.name(), name);
        let provider_name = name.replace(['.', '-'], "_");
        assert_eq!(tool.descriptor.provider_name, provider_name);
        assert!(f.registry.resolve(&provider_name).is_some());
        assert_eq!(tool.policy.scopes, portos_words::ALL_SCOPES);
        assert_eq!(tool.policy.required_capabilities, [capability]);
        assert_eq!(tool.descriptor.policy.side_effect, side_effect);
        assert_eq!(tool.descriptor.intent.group, Some("goals"));
        let schema = tool.input_schema.to_string();
        assert!(
            !schema.contains("minimum") && !schema.contains("maximum"),
            "{schema}"
        );
    }
}
