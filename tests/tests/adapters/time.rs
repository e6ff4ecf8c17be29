//! time.now in the configured time zone (docs/reference.md#semantic-adapters
//! row 17).

use portos::build_registry;
use portos_core::{ToolCall, ToolState};
use portos_server::Config;
use portos_tests as _;

async fn time_now(zone: &str) -> serde_json::Value {
    let config = Config {
        timezone: Some(zone.to_owned()),
        ..portos::config()
    };
    let registry = build_registry(
        config.clone(),
        &portos::Options::default(),
        &portos::store::open_in_memory().expect("store"),
    )
    .expect("registry");
    let result = registry
        .call(
            &portos_words::principal::voice(),
            ToolCall::new("t", "time_now", serde_json::Map::new()),
        )
        .await
        .expect("allowed");
    assert_eq!(result.state, ToolState::Completed);
    serde_json::Value::clone(&result.result.expect("result"))
}

#[tokio::test]
async fn reports_the_configured_zone() {
    for zone in ["Pacific/Kiritimati", "America/Los_Angeles", "UTC"] {
        let body = time_now(zone).await;
        assert_eq!(body["ok"], true);
        assert_eq!(body["timezone"], zone);
        let iso = body["iso"].as_str().expect("iso");
        let parsed: jiff::Timestamp = iso.parse().expect("RFC 3339");
        let local = parsed.to_zoned_datetime(jiff::tz::TimeZone::get(zone).expect("zone"));
        assert_eq!(body["date"], local.strftime("%Y-%m-%d").to_string());
        assert_eq!(body["dayOfWeek"], local.strftime("%A").to_string());
        assert_eq!(body["time"], local.strftime("%-I:%M %p").to_string());
        // The offset in `iso` is the zone's offset at that instant.
        assert!(iso.ends_with(&local.strftime("%:z").to_string()), "{iso}");
        assert!(body["summary"].as_str().is_some_and(|s| s.contains(zone)));
    }
}

#[test]
fn an_unknown_zone_is_refused_at_start() {
    let config = Config {
        timezone: Some("Mars/Olympus".to_owned()),
        ..portos::config()
    };
    let error = build_registry(
        config.clone(),
        &portos::Options::default(),
        &portos::store::open_in_memory().expect("store"),
    )
    .expect_err("unknown zone");
    assert!(error.to_string().contains("Mars/Olympus"));
}
