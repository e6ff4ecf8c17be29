//! feeds.digest / feeds.mark-read through the registry, on a real SQLite
//! store in a temporary directory, with feeds parsed from the RSS and Atom
//! fixtures (docs/reference.md#semantic-adapters rows 13–14).

use portos::domains::feeds;
use portos_core::{Capabilities, ErrorCode, ToolState};
use portos_tests as _;
use serde_json::json;
use support::{read_write, result};

use crate::support;

type Fixture = support::RegistryFixture;

fn fixture() -> Fixture {
    Fixture::new("Pacific/Auckland", read_write())
}

fn fixture_file(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/feeds-calendar")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

impl Fixture {
    /// Subscribes to a fixture and stores its parsed items, as a refresh does.
    async fn subscribe(&self, fixture: &str) -> feeds::Feed {
        let parsed = feeds::parse::parse(&fixture_file(fixture)).expect("fixture parses");
        let source = format!("/fixtures/{fixture}");
        self.store
            .run(move |connection| {
                let now = jiff::Timestamp::now();
                let feed = feeds::store::subscribe(connection, &source, None, now)?
                    .expect("new subscription");
                Ok(
                    feeds::store::store_refresh(connection, &feed.id, &parsed, now)?
                        .expect("feed exists")
                        .feed,
                )
            })
            .await
            .expect("store")
    }

    async fn unread(&self) -> i64 {
        self.store
            .run(|connection| feeds::store::unread_count(connection))
            .await
            .expect("store")
    }
}

#[tokio::test]
async fn digest_lists_newest_unread_with_feed_and_local_date() {
    let f = fixture();
    let empty = f.call("feeds.digest", json!({})).await;
    assert_eq!(empty.state, ToolState::Completed);
    assert_eq!(result(&empty)["totalUnread"], 0);
    assert_eq!(result(&empty)["summary"], "No unread feed items.");

    let news = f.subscribe("news.rss").await;
    assert_eq!(news.title, "Harbor Town News");
    let blog = f.subscribe("blog.atom").await;
    assert_eq!(blog.title, "Rust Compiler Notes");

    let r = f.call("feeds.digest", json!({})).await;
    assert_eq!(r.name, "feeds.digest");
    let body = result(&r);
    assert_eq!(body["ok"], true);
    assert_eq!(body["totalUnread"], 5);
    assert_eq!(body["count"], 5);
    // Newest first across feeds. 2026-12-02T20:00Z is already 12-03 in Auckland.
    assert_eq!(
        body["items"][0],
        json!({"title": "Faster incremental builds", "feed": "Rust Compiler Notes", "date": "2026-12-03"})
    );
    assert_eq!(
        body["items"][1]["title"],
        "Ferry schedule changes for winter"
    );
    assert_eq!(body["items"][1]["feed"], "Harbor Town News");
    assert_eq!(body["items"][1]["date"], "2026-12-02");
    let summary = body["summary"].as_str().expect("summary");
    assert!(
        summary
            .starts_with("5 unread items. Latest: Faster incremental builds (Rust Compiler Notes)"),
        "{summary}"
    );
}

#[tokio::test]
async fn digest_clamps_its_limit() {
    let f = fixture();
    f.subscribe("news.rss").await;
    f.subscribe("blog.atom").await;
    for (limit, expected) in [
        (json!(2), 2),
        (json!(0), 5),
        (json!(-4), 5),
        (json!(500), 5),
    ] {
        let r = f.call("feeds.digest", json!({ "limit": limit })).await;
        assert_eq!(result(&r)["count"], expected, "limit {limit}");
        assert_eq!(result(&r)["totalUnread"], 5);
    }
    // More unread than the maximum of 10: twelve items in one feed.
    let items: String = (0..12)
        .map(|n| format!("<item><title>Item {n}</title><guid>g{n}</guid></item>"))
        .collect();
    let parsed = feeds::parse::parse(
        format!("<rss version=\"2.0\"><channel><title>Many</title>{items}</channel></rss>")
            .as_bytes(),
    )
    .expect("rss");
    f.store
        .run(move |connection| {
            let now = jiff::Timestamp::now();
            let feed = feeds::store::subscribe(connection, "/many.rss", None, now)?.expect("new");
            feeds::store::store_refresh(connection, &feed.id, &parsed, now)?;
            Ok(())
        })
        .await
        .expect("store");
    let r = f.call("feeds.digest", json!({ "limit": 50 })).await;
    assert_eq!(result(&r)["count"], 10);
    assert_eq!(result(&r)["totalUnread"], 17);
}

#[tokio::test]
async fn a_refresh_adds_only_new_items_and_keeps_read_state() {
    let f = fixture();
    let news = f.subscribe("news.rss").await;
    let r = f
        .call("feeds.mark-read", json!({ "query": "repair cafe" }))
        .await;
    assert_eq!(result(&r)["title"], "Library opens a repair cafe");
    let parsed = feeds::parse::parse(&fixture_file("news.rss")).expect("parses");
    let outcome = f
        .store
        .run(move |connection| {
            Ok(
                feeds::store::store_refresh(connection, &news.id, &parsed, jiff::Timestamp::now())?
                    .expect("exists"),
            )
        })
        .await
        .expect("store");
    assert_eq!(outcome.added, 0);
    assert_eq!(outcome.seen, 3);
    assert_eq!(outcome.feed.items, 3);
    assert_eq!(outcome.feed.unread, 2);
}

#[tokio::test]
async fn mark_read_matches_one_unread_title() {
    let f = fixture();
    f.subscribe("news.rss").await;
    f.subscribe("blog.atom").await;
    let r = f
        .call(
            "feeds.mark-read",
            json!({ "query": "borrow checker messages" }),
        )
        .await;
    assert_eq!(r.state, ToolState::Completed);
    let body = result(&r);
    assert_eq!(body["ok"], true);
    assert_eq!(body["title"], "Borrow checker error messages, revisited");
    assert_eq!(
        body["summary"],
        "Marked \"Borrow checker error messages, revisited\" read."
    );
    assert_eq!(f.unread().await, 4);

    // Already read: it is no longer a candidate.
    let again = f
        .call(
            "feeds.mark-read",
            json!({ "query": "borrow checker messages" }),
        )
        .await;
    assert_eq!(again.state, ToolState::Failed);
    assert_eq!(result(&again)["ok"], false);
    assert_eq!(f.unread().await, 4);
}

#[tokio::test]
async fn mark_read_all_and_all_of_one_feed() {
    let f = fixture();
    f.subscribe("news.rss").await;
    f.subscribe("blog.atom").await;
    let r = f
        .call(
            "feeds.mark-read",
            json!({ "all": true, "feedQuery": "harbor town" }),
        )
        .await;
    let body = result(&r);
    assert_eq!(body["ok"], true);
    assert_eq!(body["marked"], 3);
    assert_eq!(body["summary"], "Marked 3 items read in Harbor Town News.");
    assert_eq!(f.unread().await, 2);

    let r = f.call("feeds.mark-read", json!({ "all": true })).await;
    assert_eq!(result(&r)["marked"], 2);
    assert_eq!(result(&r)["summary"], "Marked 2 items read.");
    assert_eq!(f.unread().await, 0);

    let r = f.call("feeds.mark-read", json!({ "all": true })).await;
    assert_eq!(r.state, ToolState::Completed);
    assert_eq!(result(&r)["marked"], 0);
}

#[tokio::test]
async fn mark_read_failures_change_nothing() {
    let f = fixture();
    f.subscribe("news.rss").await;

    let unknown_feed = f
        .call(
            "feeds.mark-read",
            json!({ "all": true, "feedQuery": "gardening weekly" }),
        )
        .await;
    assert_eq!(unknown_feed.state, ToolState::Failed);
    assert_eq!(result(&unknown_feed)["ok"], false);
    let error = unknown_feed.error.as_deref().expect("error");
    assert!(
        error.contains("No feed matches \"gardening weekly\""),
        "{error}"
    );
    assert!(error.contains("Harbor Town News"), "{error}");

    let no_item = f
        .call("feeds.mark-read", json!({ "query": "volcano" }))
        .await;
    assert_eq!(no_item.state, ToolState::Failed);
    assert_eq!(
        no_item.error.as_deref(),
        Some("No unread item matches \"volcano\".")
    );

    for neither in [json!({}), json!({ "all": false }), json!({ "query": "  " })] {
        let r = f.call("feeds.mark-read", neither.clone()).await;
        assert_eq!(r.state, ToolState::Failed, "{neither}");
        assert_eq!(result(&r)["ok"], false);
        assert!(r.error.as_deref().is_some_and(|e| e.contains("all")));
    }
    assert_eq!(f.unread().await, 3);
}

#[tokio::test]
async fn schema_violations_are_refused_before_the_adapter() {
    let f = fixture();
    for (name, arguments) in [
        ("feeds.digest", json!({ "limit": "five" })),
        ("feeds.digest", json!({ "since": "today" })),
        ("feeds.mark-read", json!({ "all": "yes" })),
        ("feeds.mark-read", json!({ "title": "x" })),
    ] {
        let error = f
            .call_as(read_write(), name, arguments.clone())
            .await
            .expect_err("refused");
        assert_eq!(
            error.code,
            ErrorCode::ToolValidationError,
            "{name} {arguments}"
        );
    }
}

#[tokio::test]
async fn grants_decide_and_aliases_resolve() {
    let f = fixture();
    let read_only =
        portos_words::principal::agent(Capabilities::NONE.with(portos_words::READ_PORTOS));
    let digest = f
        .call_as(read_only.clone(), "feeds_digest", json!({}))
        .await;
    assert_eq!(digest.expect("granted").name, "feeds.digest");
    let refused = f
        .call_as(read_only, "feeds_mark_read", json!({ "all": true }))
        .await
        .expect_err("write refused");
    assert_eq!(refused.code, ErrorCode::ToolCapabilityDenied);
    let none = f
        .call_as(
            portos_words::principal::agent(Capabilities::NONE),
            "feeds.digest",
            json!({}),
        )
        .await
        .expect_err("read refused");
    assert_eq!(none.code, ErrorCode::ToolCapabilityDenied);

    // Voice has only the scope check; an anonymous UI may read, not write.
    let voice = f
        .call_as(
            portos_words::principal::voice(),
            "feeds.mark-read",
            json!({ "all": true }),
        )
        .await;
    assert_eq!(voice.map(|r| r.state).ok(), Some(ToolState::Completed));
    let anonymous = f
        .call_as(
            portos_words::principal::ui(false),
            "feeds.mark-read",
            json!({ "all": true }),
        )
        .await
        .expect_err("anonymous write refused");
    assert_eq!(anonymous.code, ErrorCode::ToolAuthRequired);
    let read = f
        .call_as(
            portos_words::principal::ui(false),
            "feeds.digest",
            json!({}),
        )
        .await;
    assert_eq!(read.map(|r| r.state).ok(), Some(ToolState::Completed));
}
