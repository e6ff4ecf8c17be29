//! brain.capture / brain.search / brain.recent through the registry, on a
//! real SQLite store in a temporary directory
//! (docs/reference.md#semantic-adapters rows 1–3).

use portos_core::{Capabilities, ErrorCode, ToolResult, ToolState};
use portos_tests as _;
use serde_json::json;
use support::{read_write, result};

use crate::support;

type Fixture = support::RegistryFixture;

fn fixture() -> Fixture {
    Fixture::new("UTC", read_write())
}

impl Fixture {
    async fn capture(&self, text: &str) -> ToolResult {
        self.call("brain.capture", json!({ "text": text })).await
    }
}

#[tokio::test]
async fn capture_trims_stores_and_summarizes() {
    let f = fixture();
    let r = f.capture("  buy oat milk  ").await;
    assert_eq!(r.state, ToolState::Completed);
    assert_eq!(r.name, "brain.capture");
    let body = result(&r);
    assert_eq!(body["ok"], true);
    assert_eq!(body["summary"], "Captured \"buy oat milk\"");
    assert!(body["id"].as_str().is_some_and(|id| !id.is_empty()));

    let recent = f.call("brain.recent", json!({})).await;
    assert_eq!(result(&recent)["items"][0]["text"], "buy oat milk");
}

#[tokio::test]
async fn capture_summary_shows_the_first_60_characters() {
    let f = fixture();
    let text = "a".repeat(59) + "bcdef";
    let r = f.capture(&text).await;
    let expected = format!("Captured \"{}b…\"", "a".repeat(59));
    assert_eq!(result(&r)["summary"], expected);
}

#[tokio::test]
async fn empty_capture_fails_and_stores_nothing() {
    let f = fixture();
    let r = f.capture("   ").await;
    assert_eq!(r.state, ToolState::Failed);
    assert_eq!(r.error.as_deref(), Some("text must not be empty"));
    assert!(r.result.is_none());
    let recent = f.call("brain.recent", json!({})).await;
    assert_eq!(result(&recent)["count"], 0);
    assert_eq!(result(&recent)["summary"], "Brain inbox is empty.");
}

#[tokio::test]
async fn search_is_case_insensitive_beyond_ascii_and_newest_first() {
    let f = fixture();
    f.capture("L'ÉCOLE starts Monday").await;
    f.capture("nothing relevant").await;
    f.capture("pick up école forms").await;
    let r = f.call("brain.search", json!({ "query": "école" })).await;
    let body = result(&r);
    assert_eq!(body["count"], 2);
    assert_eq!(body["hits"][0]["text"], "pick up école forms");
    assert_eq!(body["hits"][1]["text"], "L'ÉCOLE starts Monday");
    let today = jiff::Timestamp::now()
        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .strftime("%Y-%m-%d")
        .to_string();
    assert_eq!(body["hits"][0]["date"], today);
    assert!(body["hits"][0]["id"].is_string());
}

#[tokio::test]
async fn search_limit_defaults_to_5_and_clamps_to_10() {
    let f = fixture();
    for n in 0..12 {
        f.capture(&format!("note {n}")).await;
    }
    let count = |r: &ToolResult| result(r)["count"].as_u64();
    assert_eq!(
        count(&f.call("brain.search", json!({"query": "note"})).await),
        Some(5)
    );
    assert_eq!(
        count(
            &f.call("brain.search", json!({"query": "note", "limit": 0}))
                .await
        ),
        Some(5)
    );
    assert_eq!(
        count(
            &f.call("brain.search", json!({"query": "note", "limit": -2}))
                .await
        ),
        Some(5)
    );
    assert_eq!(
        count(
            &f.call("brain.search", json!({"query": "note", "limit": 7}))
                .await
        ),
        Some(7)
    );
    assert_eq!(
        count(
            &f.call("brain.search", json!({"query": "note", "limit": 500}))
                .await
        ),
        Some(10)
    );
}

#[tokio::test]
async fn search_without_matches_says_so_and_empty_query_fails() {
    let f = fixture();
    f.capture("something").await;
    let r = f.call("brain.search", json!({ "query": "zebra" })).await;
    assert_eq!(r.state, ToolState::Completed);
    assert_eq!(result(&r)["count"], 0);
    assert_eq!(result(&r)["summary"], "No matches.");
    let r = f.call("brain.search", json!({ "query": "  " })).await;
    assert_eq!(r.state, ToolState::Failed);
}

#[tokio::test]
async fn schema_violations_are_refused_before_the_adapter() {
    let f = fixture();
    for arguments in [
        json!({}),
        json!({"query": 3}),
        json!({"query": "x", "limit": "5"}),
        json!({"query": "x", "sql": "drop"}),
    ] {
        let error = f
            .call_as(read_write(), "brain.search", arguments.clone())
            .await
            .expect_err("invalid arguments are refused");
        assert_eq!(error.code, ErrorCode::ToolValidationError, "{arguments}");
        assert!(
            error
                .message
                .starts_with("Invalid arguments for 'brain.search': ")
        );
    }
}

#[tokio::test]
async fn recent_lists_newest_first_with_limits() {
    let f = fixture();
    for n in 1..=12 {
        f.capture(&format!("item {n}")).await;
    }
    let r = f.call("brain_list_recent", json!({})).await;
    assert_eq!(r.name, "brain.recent");
    let body = result(&r);
    assert_eq!(body["count"], 5);
    assert_eq!(body["items"][0]["text"], "item 12");
    let r = f.call("brain_recent", json!({"limit": 50})).await;
    assert_eq!(result(&r)["count"], 10);
}

#[tokio::test]
async fn grants_and_scopes_govern_the_brain() {
    let f = fixture();
    let read_only =
        portos_words::principal::agent(Capabilities::NONE.with(portos_words::READ_PORTOS));
    let error = f
        .call_as(read_only, "brain.capture", json!({"text": "x"}))
        .await
        .expect_err("writes need writePortos");
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
    let error = f
        .call_as(
            portos_words::principal::ui(false),
            "brain.capture",
            json!({"text": "x"}),
        )
        .await
        .expect_err("anonymous ui writes are refused");
    assert_eq!(error.code, ErrorCode::ToolAuthRequired);
    // The voice pipeline has only the scope check.
    let r = f
        .call_as(
            portos_words::principal::voice(),
            "brain.capture",
            json!({"text": "from voice"}),
        )
        .await;
    assert_eq!(r.map(|r| r.state).ok(), Some(ToolState::Completed));
    let r = f
        .call_as(
            portos_words::principal::ui(false),
            "brain.search",
            json!({"query": "voice"}),
        )
        .await;
    assert_eq!(
        r.ok().and_then(|r| r.result).map(|b| b["count"].clone()),
        Some(json!(1))
    );
}
