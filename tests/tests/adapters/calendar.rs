//! calendar.today / calendar.next through the registry, on a real SQLite
//! store in a temporary directory, with events from iCalendar documents run
//! through the real parser (docs/reference.md#semantic-adapters rows 18–19).
//! The user's zone is America/Los_Angeles, where 23:30 is already tomorrow in
//! UTC.

use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::{Timestamp, ZonedDateTime};
use portos::domains::calendar;
use portos_core::{Authority, Capabilities, ErrorCode, ToolState};
use portos_tests as _;
use serde_json::{Value, json};
use support::result;

use crate::support;

const ZONE: &str = "America/Los_Angeles";

type Fixture = support::RegistryFixture;

fn fixture() -> Fixture {
    Fixture::new(ZONE, granted())
}

fn granted() -> Authority {
    portos_words::principal::agent(Capabilities::NONE.with(portos_words::READ_PORTOS))
}

fn user_now() -> ZonedDateTime {
    Timestamp::now().to_zoned_datetime(TimeZone::get(ZONE).expect("zone"))
}

fn user_today() -> Date {
    user_now().date()
}

/// `YYYYMMDD`, iCalendar's basic date form.
fn basic(date: Date) -> String {
    date.strftime("%Y%m%d").to_string()
}

fn days(n: i64) -> jiff::Span {
    jiff::Span::new().days(n)
}

/// One VEVENT with the given property lines.
fn event(uid: &str, lines: &[String]) -> String {
    let mut text = format!("BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20261120T100000Z\r\n");
    for line in lines {
        text.push_str(line);
        text.push_str("\r\n");
    }
    text.push_str("END:VEVENT\r\n");
    text
}

impl Fixture {
    /// Stores a calendar made of `events` as one source, as a refresh does.
    async fn calendar(&self, events: &[String]) -> calendar::RefreshOutcome {
        let text = format!(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//portos tests//EN\r\n{}END:VCALENDAR\r\n",
            events.concat()
        );
        let parsed = calendar::ics::parse(&text).expect("calendar parses");
        let source = format!("/calendars/{}.ics", self.calls.get());
        self.calls.set(self.calls.get() + 1);
        self.store
            .run(move |connection| {
                let now = Timestamp::now();
                let added =
                    calendar::store::add_source(connection, &source, None, now)?.expect("new");
                Ok(
                    calendar::store::store_refresh(connection, &added.id, parsed, now)?
                        .expect("exists"),
                )
            })
            .await
            .expect("store")
    }
}

fn titles(body: &Value) -> Vec<String> {
    body["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["title"].as_str().expect("title").to_owned())
        .collect()
}

#[tokio::test]
async fn today_is_the_users_local_day() {
    let f = fixture();
    let today = user_today();
    let tomorrow = today.tomorrow().expect("date");
    let la = TimeZone::get(ZONE).expect("zone");
    // 23:30 in the user's zone, written in UTC (the next UTC day).
    let late_utc = today
        .at(23, 30, 0, 0)
        .to_zoned_datetime(la.clone())
        .expect("zoned")
        .timestamp();
    let after_midnight_utc = tomorrow
        .at(0, 30, 0, 0)
        .to_zoned_datetime(la)
        .expect("zoned")
        .timestamp();
    let utc_form = |at: Timestamp| at.strftime("%Y%m%dT%H%M%SZ").to_string();
    let outcome = f
        .calendar(&[
            event(
                "a",
                &[
                    "SUMMARY:Late call".into(),
                    format!("DTSTART;TZID={ZONE}:{}T233000", basic(today)),
                    "LOCATION:Study".into(),
                ],
            ),
            event(
                "b",
                &[
                    "SUMMARY:Written in UTC".into(),
                    format!("DTSTART:{}", utc_form(late_utc)),
                ],
            ),
            event(
                "c",
                &[
                    "SUMMARY:Just after midnight".into(),
                    format!("DTSTART:{}", utc_form(after_midnight_utc)),
                ],
            ),
            event(
                "d",
                &[
                    "SUMMARY:Whole day".into(),
                    format!("DTSTART;VALUE=DATE:{}", basic(today)),
                ],
            ),
            event(
                "e",
                &[
                    "SUMMARY:Tomorrow all day".into(),
                    format!("DTSTART;VALUE=DATE:{}", basic(tomorrow)),
                ],
            ),
            event(
                "f",
                &[
                    "SUMMARY:Weekly review".into(),
                    format!(
                        "DTSTART;TZID=Europe/London:{}T180000",
                        basic(today.checked_sub(days(21)).expect("date"))
                    ),
                    "RRULE:FREQ=WEEKLY".into(),
                ],
            ),
            event(
                "g",
                &[
                    "SUMMARY:Ended series".into(),
                    format!(
                        "DTSTART;TZID={ZONE}:{}T080000",
                        basic(today.checked_sub(days(21)).expect("date"))
                    ),
                    "RRULE:FREQ=WEEKLY;COUNT=2".into(),
                ],
            ),
        ])
        .await;
    assert_eq!(outcome.events, 7);
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);

    let r = f.call("calendar.today", json!({})).await;
    assert_eq!(r.state, ToolState::Completed);
    let body = result(&r);
    assert_eq!(body["ok"], true);
    assert_eq!(body["date"], today.to_string());
    let listed = titles(body);
    assert!(listed.contains(&"Late call".to_owned()), "{listed:?}");
    assert!(listed.contains(&"Written in UTC".to_owned()), "{listed:?}");
    assert!(listed.contains(&"Whole day".to_owned()), "{listed:?}");
    assert!(
        !listed.contains(&"Just after midnight".to_owned()),
        "{listed:?}"
    );
    assert!(
        !listed.contains(&"Tomorrow all day".to_owned()),
        "{listed:?}"
    );
    assert!(!listed.contains(&"Ended series".to_owned()), "{listed:?}");
    // 18:00 London repeats weekly; today it falls on today's date in Los
    // Angeles (10:00 or 11:00 there, whatever the DST state).
    assert!(listed.contains(&"Weekly review".to_owned()), "{listed:?}");
    assert_eq!(body["count"], 4);

    // All-day first, then by start time.
    assert_eq!(body["events"][0]["title"], "Whole day");
    assert_eq!(body["events"][0]["allDay"], true);
    assert_eq!(body["events"][0]["time"], "All day");
    assert_eq!(body["events"][0]["startTime"], today.to_string());
    let late = body["events"]
        .as_array()
        .expect("events")
        .iter()
        .find(|e| e["title"] == "Late call")
        .expect("late call");
    assert_eq!(late["time"], "11:30 PM");
    assert_eq!(late["location"], "Study");
    assert_eq!(late["allDay"], false);
    let start = late["startTime"].as_str().expect("start");
    assert!(start.starts_with(&format!("{today}T23:30:00-0")), "{start}");
    let summary = body["summary"].as_str().expect("summary");
    assert!(
        summary.starts_with("4 events today: All day Whole day;"),
        "{summary}"
    );
}

#[tokio::test]
async fn today_with_nothing_and_clamping() {
    let f = fixture();
    let r = f.call("calendar.today", json!({})).await;
    let body = result(&r);
    assert_eq!(body["count"], 0);
    assert_eq!(body["summary"], "Nothing on your calendar today.");

    let today = user_today();
    let many: Vec<String> = (0..25)
        .map(|n| {
            event(
                &format!("m{n}"),
                &[
                    format!("SUMMARY:Slot {n:02}"),
                    format!(
                        "DTSTART;TZID={ZONE}:{}T{:02}{:02}00",
                        basic(today),
                        8 + n / 4,
                        (n % 4) * 15
                    ),
                ],
            )
        })
        .collect();
    f.calendar(&many).await;
    for (limit, expected) in [
        (None, 10),
        (Some(json!(3)), 3),
        (Some(json!(0)), 10),
        (Some(json!(99)), 20),
    ] {
        let arguments = limit.clone().map_or(json!({}), |l| json!({ "limit": l }));
        let r = f.call("calendar.today", arguments).await;
        assert_eq!(result(&r)["count"], expected, "limit {limit:?}");
    }
    let r = f.call("calendar.today", json!({ "limit": 3 })).await;
    assert_eq!(titles(result(&r)), ["Slot 00", "Slot 01", "Slot 02"]);
    let summary = result(&r)["summary"].as_str().expect("summary").to_owned();
    assert!(
        summary.starts_with("25 events today (showing 3): 8:00 AM Slot 00;"),
        "{summary}"
    );
}

#[tokio::test]
async fn next_finds_the_first_upcoming_event_within_30_days() {
    let f = fixture();
    let r = f.call("calendar.next", json!({})).await;
    assert_eq!(r.state, ToolState::Completed);
    assert_eq!(
        result(&r),
        &json!({"ok": true, "found": false, "summary": "No events in the next 30 days."})
    );

    let today = user_today();
    let in_40_days = today.checked_add(days(40)).expect("date");
    f.calendar(&[event(
        "far",
        &[
            "SUMMARY:Far away".into(),
            format!("DTSTART;TZID={ZONE}:{}T100000", basic(in_40_days)),
        ],
    )])
    .await;
    let r = f.call("calendar.next", json!({})).await;
    assert_eq!(result(&r)["found"], false);

    let tomorrow = today.tomorrow().expect("date");
    let in_3_days = today.checked_add(days(3)).expect("date");
    f.calendar(&[
        event(
            "dentist",
            &[
                "SUMMARY:Dentist".into(),
                format!("DTSTART;TZID={ZONE}:{}T101500", basic(tomorrow)),
                "LOCATION:Main St".into(),
            ],
        ),
        event(
            "later",
            &[
                "SUMMARY:Later".into(),
                format!("DTSTART;VALUE=DATE:{}", basic(in_3_days)),
            ],
        ),
    ])
    .await;
    let r = f.call("calendar.next", json!({})).await;
    let body = result(&r);
    assert_eq!(body["ok"], true);
    assert_eq!(body["found"], true);
    assert_eq!(body["title"], "Dentist");
    assert_eq!(body["location"], "Main St");
    assert_eq!(body["allDay"], false);
    let start = body["startTime"].as_str().expect("start");
    assert!(
        start.starts_with(&format!("{tomorrow}T10:15:00-0")),
        "{start}"
    );
    assert_eq!(
        body["summary"],
        "Next: Dentist tomorrow at 10:15 AM at Main St."
    );
}

#[tokio::test]
async fn grants_scopes_and_schema() {
    let f = fixture();
    let none = f
        .call_as(
            portos_words::principal::agent(Capabilities::NONE),
            "calendar.today",
            json!({}),
        )
        .await
        .expect_err("refused");
    assert_eq!(none.code, ErrorCode::ToolCapabilityDenied);
    let alias = f
        .call_as(portos_words::principal::voice(), "calendar_next", json!({}))
        .await
        .expect("voice may read");
    assert_eq!(alias.name, "calendar.next");
    let ui = f
        .call_as(
            portos_words::principal::ui(false),
            "calendar_today",
            json!({}),
        )
        .await
        .expect("anonymous ui may read");
    assert_eq!(ui.name, "calendar.today");
    for (name, arguments) in [
        ("calendar.today", json!({ "limit": "ten" })),
        ("calendar.today", json!({ "day": "monday" })),
        ("calendar.next", json!({ "days": 3 })),
    ] {
        let error = f
            .call_as(granted(), name, arguments.clone())
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
async fn the_fixture_calendar_parses_with_its_zone_all_day_and_weekly_rule() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/feeds-calendar/calendar.ics");
    let text = std::fs::read_to_string(path).expect("fixture");
    let parsed = calendar::ics::parse(&text).expect("parses");
    assert_eq!(parsed.events.len(), 3);
    let f = fixture();
    let store = f.store.clone();
    let la = TimeZone::get(ZONE).expect("zone");
    let occurrences = store
        .run(move |connection| {
            let now = Timestamp::now();
            let source =
                calendar::store::add_source(connection, "/fixture.ics", None, now)?.expect("new");
            calendar::store::store_refresh(connection, &source.id, parsed, now)?;
            let from: Timestamp = "2026-11-30T08:00:00Z".parse().expect("instant");
            let to: Timestamp = "2026-12-31T08:00:00Z".parse().expect("instant");
            calendar::store::occurrences(connection, &la, from, to)
        })
        .await
        .expect("store");
    let shown: Vec<(String, String)> = occurrences
        .iter()
        .map(|o| (o.title.clone(), o.start.clone()))
        .collect();
    let expected = [
        // 09:15 Berlin is 00:15 in Los Angeles (UTC-8 vs UTC+1).
        ("Team standup", "2026-12-01T00:15:00-08:00"),
        ("Team standup", "2026-12-03T00:15:00-08:00"),
        // 23:30 New York is 20:30 in Los Angeles.
        ("Late call with Tokyo", "2026-12-03T20:30:00-08:00"),
        ("Founders Day", "2026-12-07"),
        ("Team standup", "2026-12-08T00:15:00-08:00"),
        // 12-10 is an EXDATE; it still counts towards COUNT=6.
        ("Team standup", "2026-12-15T00:15:00-08:00"),
        ("Team standup", "2026-12-17T00:15:00-08:00"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(t, s)| ((*t).to_owned(), (*s).to_owned()))
        .collect();
    assert_eq!(shown, expected);
    assert_eq!(
        occurrences[2].end.as_deref(),
        Some("2026-12-03T21:15:00-08:00")
    );
    assert_eq!(occurrences[2].location.as_deref(), Some("Study"));
    assert_eq!(occurrences[3].end.as_deref(), Some("2026-12-08"));
}
