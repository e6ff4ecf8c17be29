//! journal.append / journal.read through the registry on a real SQLite
//! store in a temporary directory (docs/reference.md#semantic-adapters rows
//! 15–16).

use portos_core::{Capabilities, ErrorCode, SideEffect, ToolState};
use portos_tests as _;
use serde_json::json;
use support::{read_write, result};

use crate::support;

const ZONE: &str = "America/Los_Angeles";

type Fixture = support::RegistryFixture;

fn fixture() -> Fixture {
    Fixture::new(ZONE, read_write())
}

fn user_today() -> String {
    jiff::Timestamp::now()
        .to_zoned_datetime(jiff::tz::TimeZone::get(ZONE).expect("zone"))
        .date()
        .to_string()
}

#[tokio::test]
async fn append_then_read_a_day() {
    let f = fixture();
    let today = user_today();
    let r = f.call("journal.read", json!({})).await;
    assert_eq!(r.state, ToolState::Completed);
    assert_eq!(
        result(&r),
        &json!({ "ok": true, "date": today, "empty": true, "summary": format!("Nothing in your journal for {today}.") })
    );

    let r = f
        .call("journal.append", json!({ "text": "  Slept well. " }))
        .await;
    assert_eq!(r.state, ToolState::Completed);
    assert_eq!(
        result(&r),
        &json!({
            "ok": true,
            "date": today,
            "segments": 1,
            "summary": format!("Added to your journal for {today} (1 entry that day).")
        })
    );
    let r = f
        .call("daily_log_append", json!({ "text": "Long walk at lunch." }))
        .await;
    assert_eq!(r.name, "journal.append");
    assert_eq!(result(&r)["segments"], 2);

    let r = f.call("daily_log_read", json!({})).await;
    assert_eq!(r.name, "journal.read");
    let body = result(&r);
    assert_eq!(body["ok"], true);
    assert_eq!(body["date"], today);
    assert_eq!(body["content"], "Slept well.\n\nLong walk at lunch.");
    assert_eq!(body["segments"], 2);
    assert!(body.get("empty").is_none());
    assert_eq!(
        body["summary"],
        format!("Journal for {today} (2 entries): Slept well.\n\nLong walk at lunch.")
    );
}

#[tokio::test]
async fn days_are_kept_apart_by_date() {
    let f = fixture();
    let r = f
        .call(
            "journal.append",
            json!({ "text": "Pi day.", "date": "2026-03-14" }),
        )
        .await;
    assert_eq!(result(&r)["date"], "2026-03-14");
    assert_eq!(result(&r)["segments"], 1);
    let r = f
        .call("journal.read", json!({ "date": "2026-03-14" }))
        .await;
    assert_eq!(result(&r)["content"], "Pi day.");
    let r = f
        .call("journal.read", json!({ "date": "2026-03-15" }))
        .await;
    assert_eq!(result(&r)["empty"], true);
    let r = f.call("journal.read", json!({})).await;
    assert_eq!(result(&r)["empty"], true, "today is another day");
}

#[tokio::test]
async fn the_read_summary_quotes_at_most_200_characters() {
    let f = fixture();
    let text = "x".repeat(250);
    f.call(
        "journal.append",
        json!({ "text": text, "date": "2026-01-02" }),
    )
    .await;
    let r = f
        .call("journal.read", json!({ "date": "2026-01-02" }))
        .await;
    let expected = format!("Journal for 2026-01-02 (1 entry): {}…", "x".repeat(200));
    assert_eq!(result(&r)["summary"], expected);
    assert_eq!(result(&r)["content"], "x".repeat(250));
}

#[tokio::test]
async fn empty_text_and_bad_dates_fail_and_store_nothing() {
    let f = fixture();
    for (name, arguments, mentions) in [
        (
            "journal.append",
            json!({ "text": " \n " }),
            "text must not be empty",
        ),
        (
            "journal.append",
            json!({ "text": "x", "date": "2026-02-30" }),
            "YYYY-MM-DD",
        ),
        (
            "journal.append",
            json!({ "text": "x", "date": "yesterday" }),
            "YYYY-MM-DD",
        ),
        (
            "journal.read",
            json!({ "date": "03/14/2026" }),
            "YYYY-MM-DD",
        ),
    ] {
        let r = f.call(name, arguments.clone()).await;
        assert_eq!(r.state, ToolState::Failed, "{arguments}");
        assert!(
            r.error.as_deref().unwrap_or_default().contains(mentions),
            "{:?}",
            r.error
        );
    }
    let r = f.call("journal.read", json!({})).await;
    assert_eq!(result(&r)["empty"], true);
}

#[tokio::test]
async fn schema_violations_are_refused_before_the_adapter() {
    let f = fixture();
    for (name, arguments) in [
        ("journal.append", json!({})),
        ("journal.append", json!({ "text": 5 })),
        ("journal.append", json!({ "text": "x", "mood": "good" })),
        ("journal.read", json!({ "date": 20260101 })),
        ("journal.read", json!({ "day": "2026-01-01" })),
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
async fn grants_and_scopes_govern_the_journal() {
    let f = fixture();
    let read_only =
        portos_words::principal::agent(Capabilities::NONE.with(portos_words::READ_PORTOS));
    let error = f
        .call_as(read_only, "journal.append", json!({ "text": "x" }))
        .await
        .expect_err("writes need writePortos");
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
    let error = f
        .call_as(
            portos_words::principal::agent(Capabilities::NONE),
            "journal.read",
            json!({}),
        )
        .await
        .expect_err("reads need readPortos");
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
    let error = f
        .call_as(
            portos_words::principal::ui(false),
            "journal.append",
            json!({ "text": "x" }),
        )
        .await
        .expect_err("anonymous ui writes are refused");
    assert_eq!(error.code, ErrorCode::ToolAuthRequired);
    let r = f
        .call_as(
            portos_words::principal::voice(),
            "journal.append",
            json!({ "text": "from voice" }),
        )
        .await;
    assert_eq!(r.map(|r| r.state).ok(), Some(ToolState::Completed));
    let r = f
        .call_as(
            portos_words::principal::ui(false),
            "journal.read",
            json!({}),
        )
        .await
        .expect("anonymous ui reads pass");
    assert_eq!(result(&r)["content"], "from voice");
}

#[test]
fn the_catalog_describes_the_journal_tools() {
    let f = fixture();
    let append = f.registry.resolve("daily_log_append").expect("alias");
    assert_eq!(append.name(), "journal.append");
    assert_eq!(append.descriptor.provider_name, "journal_append");
    assert_eq!(append.policy.scopes, portos_words::ALL_SCOPES);
    assert_eq!(
        append.policy.required_capabilities,
        [portos_words::WRITE_PORTOS]
    );
    assert_eq!(append.descriptor.policy.side_effect, SideEffect::Write);
    // Ungrouped (always listed), but hidden when the intent fills a form.
    assert_eq!(append.descriptor.intent.group, None);
    assert!(append.descriptor.intent.suppress_on_form_fill);
    let read = f.registry.resolve("daily_log_read").expect("alias");
    assert_eq!(read.name(), "journal.read");
    assert_eq!(read.descriptor.provider_name, "journal_read");
    assert_eq!(
        read.policy.required_capabilities,
        [portos_words::READ_PORTOS]
    );
    assert_eq!(read.descriptor.policy.side_effect, SideEffect::Read);
    assert_eq!(read.descriptor.intent.group, Some("dailylog"));
    assert!(f.registry.resolve("journal_append").is_some());
    assert!(f.registry.resolve("journal_read").is_some());
}
