//! health.log.drink / .log.nicotine / .today / .log.weight / .log.workout
//! through the registry on a real SQLite store in a temporary directory
//! (docs/reference.md#semantic-adapters rows 4–8).

use portos::domains::health::model::{DayEntries, Drink, Nicotine};
use portos::domains::health::store as health;
use portos_core::{Capabilities, ErrorCode, SideEffect, ToolState};
use portos_tests as _;
use serde_json::{Value, json};
use support::{read_write, result};

use crate::support;

type Fixture = support::RegistryFixture;

fn fixture() -> Fixture {
    fixture_in("UTC")
}

fn fixture_in(zone: &str) -> Fixture {
    Fixture::new(zone, read_write())
}

impl Fixture {
    fn today(&self) -> jiff::civil::Date {
        jiff::Timestamp::now()
            .to_zoned_datetime(jiff::tz::TimeZone::get(&self.zone).expect("zone"))
            .date()
    }

    fn entries(&self, date: &str) -> DayEntries {
        let date = date.to_owned();
        self.store
            .run_blocking(|connection| health::entries_on(connection, &date))
            .expect("entries")
    }

    fn entry_count(&self) -> usize {
        let day = self.entries(&self.today().to_string());
        day.drinks.len() + day.nicotine.len() + day.weights.len() + day.workouts.len()
    }
}

/// A failed call whose message names what to fix; nothing was stored.
async fn assert_refused(f: &Fixture, name: &str, arguments: Value, mentions: &str) {
    let before = f.entry_count();
    let r = f.call(name, arguments.clone()).await;
    assert_eq!(r.state, ToolState::Failed, "{arguments}");
    let error = r.error.clone().unwrap_or_default();
    assert!(error.contains(mentions), "{arguments}: {error}");
    assert_eq!(f.entry_count(), before, "{arguments} stored nothing");
}

#[tokio::test]
async fn drinks_use_presets_and_report_the_day_total() {
    let f = fixture();
    let r = f.call("health.log.drink", json!({ "name": "beer" })).await;
    assert_eq!(r.state, ToolState::Completed);
    assert_eq!(r.name, "health.log.drink");
    let body = result(&r);
    assert_eq!(body["ok"], true);
    assert_eq!(body["standardDrinks"], 1.0);
    assert_eq!(
        body["summary"],
        "Logged 1 × beer (12 oz, 5% ABV): 1.0 standard drinks. Today's total: 1.0 standard drinks."
    );
    assert_eq!(body["date"], f.today().to_string());

    let r = f
        .call(
            "health.log.drink",
            json!({ "name": "Glass of red WINE", "count": 2 }),
        )
        .await;
    let body = result(&r);
    // 2 × 5 oz × 13% / 0.6 = 2.1667
    assert!((body["standardDrinks"].as_f64().expect("number") - 2.1667).abs() < 1e-3);
    assert_eq!(
        body["summary"],
        "Logged 2 × Glass of red WINE (5 oz, 13% ABV): 2.2 standard drinks. Today's total: 3.2 standard drinks."
    );

    for (name, oz, abv) in [
        ("whiskey neat", 1.5, 40.0),
        ("tequila shot", 1.5, 40.0),
        ("a cocktail", 3.0, 20.0),
        ("cider", 12.0, 5.0),
    ] {
        f.call("health.log.drink", json!({ "name": name })).await;
        let day = f.entries(&f.today().to_string());
        let drink: &Drink = day.drinks.last().expect("stored");
        assert_eq!((drink.name.as_str(), drink.oz, drink.abv), (name, oz, abv));
    }
}

#[tokio::test]
async fn explicit_serving_and_strength_override_the_preset() {
    let f = fixture();
    let r = f
        .call(
            "meatspace_log_drink",
            json!({ "name": "beer", "oz": 16, "abv": 7.5 }),
        )
        .await;
    assert_eq!(r.name, "health.log.drink");
    // 16 × 7.5% / 0.6 = 2.0
    assert_eq!(result(&r)["standardDrinks"], 2.0);
    // Alcohol-free is 0% and still a drink.
    let r = f
        .call("health_log_drink", json!({ "name": "beer", "abv": 0 }))
        .await;
    assert_eq!(r.state, ToolState::Completed);
    assert_eq!(result(&r)["standardDrinks"], 0.0);
    assert_eq!(result(&r)["dayStandardDrinks"], 2.0);
}

#[tokio::test]
async fn drink_ranges_are_checked_and_nothing_is_stored() {
    let f = fixture();
    for (arguments, mentions) in [
        (
            json!({ "name": "beer", "count": 0 }),
            "count must be more than 0 and at most 50",
        ),
        (json!({ "name": "beer", "count": -1 }), "count"),
        (json!({ "name": "beer", "count": 50.5 }), "count"),
        (
            json!({ "name": "beer", "oz": 0 }),
            "oz must be more than 0 and at most 128",
        ),
        (json!({ "name": "beer", "oz": 129 }), "oz"),
        (
            json!({ "name": "beer", "abv": 101 }),
            "abv must be between 0 and 100",
        ),
        (json!({ "name": "beer", "abv": -0.5 }), "abv"),
        (json!({ "name": "   " }), "name must not be empty"),
    ] {
        assert_refused(&f, "health.log.drink", arguments, mentions).await;
    }
    let r = f
        .call(
            "health.log.drink",
            json!({ "name": "beer", "count": 50, "oz": 128, "abv": 100 }),
        )
        .await;
    assert_eq!(
        r.state,
        ToolState::Completed,
        "the bounds themselves are allowed"
    );
}

#[tokio::test]
async fn nicotine_uses_presets_and_checks_ranges() {
    let f = fixture();
    let r = f
        .call("health.log.nicotine", json!({ "product": "Zyn pouch" }))
        .await;
    assert_eq!(
        result(&r)["summary"],
        "Logged 1 × Zyn pouch (6 mg each): 6 mg of nicotine. Today's total: 6 mg."
    );
    let r = f
        .call(
            "meatspace_log_nicotine",
            json!({ "product": "cigarettes", "count": 3 }),
        )
        .await;
    assert_eq!(r.name, "health.log.nicotine");
    assert_eq!(result(&r)["totalMg"], 3.0);
    assert_eq!(result(&r)["dayMg"], 9.0);
    let r = f
        .call(
            "health.log.nicotine",
            json!({ "product": "vape", "mgPerUnit": 2.5, "count": 2 }),
        )
        .await;
    assert_eq!(result(&r)["totalMg"], 5.0);
    let r = f
        .call("health.log.nicotine", json!({ "product": "cigar" }))
        .await;
    let day = f.entries(&f.today().to_string());
    let last: &Nicotine = day.nicotine.last().expect("stored");
    assert_eq!(
        last.mg_per_unit, 1.0,
        "unknown products count as a cigarette"
    );
    assert_eq!(r.state, ToolState::Completed);

    for (arguments, mentions) in [
        (
            json!({ "product": "vape", "count": 0 }),
            "count must be more than 0 and at most 100",
        ),
        (json!({ "product": "vape", "count": 101 }), "count"),
        (
            json!({ "product": "vape", "mgPerUnit": 201 }),
            "mgPerUnit must be between 0 and 200",
        ),
        (json!({ "product": "vape", "mgPerUnit": -1 }), "mgPerUnit"),
        (json!({ "product": "" }), "product must not be empty"),
    ] {
        assert_refused(&f, "health.log.nicotine", arguments, mentions).await;
    }
}

#[tokio::test]
async fn today_compares_with_the_seven_days_before() {
    let f = fixture();
    let today = f.today();
    let days_ago = |n: i64| {
        today
            .checked_sub(jiff::Span::new().days(n))
            .expect("date")
            .to_string()
    };
    let store = f.store.clone();
    let seeded = [(3, 5.0, 10.0), (7, 2.0, 4.0), (8, 100.0, 100.0)];
    store
        .run_blocking(|connection| {
            for (n, standard_drinks, mg) in seeded {
                health::insert_drink(
                    connection,
                    &Drink {
                        id: format!("d{n}"),
                        date: days_ago(n),
                        logged_at: "2026-01-01T00:00:00Z".to_owned(),
                        name: "beer".to_owned(),
                        count: standard_drinks,
                        oz: 12.0,
                        abv: 5.0,
                        standard_drinks,
                    },
                )?;
                health::insert_nicotine(
                    connection,
                    &Nicotine {
                        id: format!("n{n}"),
                        date: days_ago(n),
                        logged_at: "2026-01-01T00:00:00Z".to_owned(),
                        product: "pouch".to_owned(),
                        count: 1.0,
                        mg_per_unit: mg,
                        total_mg: mg,
                    },
                )?;
            }
            Ok(())
        })
        .expect("seeded");

    let r = f.call("health.today", json!({})).await;
    let body = result(&r);
    assert_eq!(body["ok"], true);
    assert_eq!(body["standardDrinks"], 0.0);
    // Days 1–7 before today: (5 + 2) / 7 drinks, (10 + 4) / 7 mg; day 8 is out.
    assert_eq!(body["averageStandardDrinks"], 1.0);
    assert_eq!(body["averageNicotineMg"], 2.0);

    f.call("health.log.drink", json!({ "name": "wine", "count": 4 }))
        .await;
    f.call("health.log.nicotine", json!({ "product": "pouch" }))
        .await;
    let r = f.call("meatspace_summary_today", json!({})).await;
    assert_eq!(r.name, "health.today");
    assert_eq!(
        result(&r)["summary"],
        "Today: 4.3 standard drinks (7-day average 1.0 a day) and 6 mg of nicotine (7-day average 2 mg a day)."
    );
    assert_eq!(result(&r)["date"], today.to_string());
}

#[tokio::test]
async fn weight_converts_kilograms_and_refuses_the_impossible() {
    let f = fixture();
    let r = f
        .call("health.log.weight", json!({ "weight": 80, "unit": "kg" }))
        .await;
    let body = result(&r);
    assert!((body["pounds"].as_f64().expect("number") - 176.369_809_744).abs() < 1e-6);
    let today = f.today().to_string();
    assert_eq!(
        body["summary"],
        format!("Logged weight 80 kg (176.4 lb) for {today}.")
    );
    assert_eq!(body["date"], today);

    let r = f
        .call(
            "meatspace_log_weight",
            json!({ "weight": 181.5, "date": "2026-01-15" }),
        )
        .await;
    assert_eq!(r.name, "health.log.weight");
    assert_eq!(
        result(&r)["summary"],
        "Logged weight 181.5 lb for 2026-01-15."
    );
    let day = f.entries("2026-01-15");
    assert_eq!(day.weights.len(), 1);
    assert_eq!(day.weights[0].entered_unit, "lb");

    let r = f.call("health.log.weight", json!({ "weight": 800 })).await;
    assert_eq!(
        r.state,
        ToolState::Completed,
        "800 lb is the limit, not over it"
    );
    for (arguments, mentions) in [
        (json!({ "weight": 800.5 }), "weight must be at most 800 lb"),
        // 363 kg is 800.3 lb.
        (
            json!({ "weight": 363, "unit": "kg" }),
            "at most 800 lb (got 800.3 lb)",
        ),
        (json!({ "weight": 0 }), "weight must be more than 0"),
        (json!({ "weight": -70, "unit": "kg" }), "more than 0"),
        (json!({ "weight": 70, "date": "2026-02-30" }), "YYYY-MM-DD"),
        (
            json!({ "weight": 70, "date": "last tuesday" }),
            "YYYY-MM-DD",
        ),
    ] {
        assert_refused(&f, "health.log.weight", arguments, mentions).await;
    }
}

#[tokio::test]
async fn workouts_check_their_duration_and_date() {
    let f = fixture();
    let r = f
        .call(
            "health.log.workout",
            json!({
                "type": "run",
                "durationMinutes": 42,
                "intensity": "vigorous",
                "notes": "  hill repeats ",
                "date": "2026-03-01"
            }),
        )
        .await;
    let body = result(&r);
    assert_eq!(body["ok"], true);
    assert_eq!(body["date"], "2026-03-01");
    assert_eq!(body["type"], "run");
    assert_eq!(
        body["summary"],
        "Logged workout: run (42 min, vigorous) on 2026-03-01."
    );
    let day = f.entries("2026-03-01");
    assert_eq!(day.workouts[0].notes.as_deref(), Some("hill repeats"));
    assert_eq!(day.workouts[0].intensity.as_deref(), Some("vigorous"));

    let r = f
        .call("meatspace_log_workout", json!({ "type": "yoga" }))
        .await;
    assert_eq!(r.name, "health.log.workout");
    assert_eq!(result(&r)["date"], f.today().to_string());
    let r = f
        .call(
            "health.log.workout",
            json!({ "type": "hike", "durationMinutes": 1440 }),
        )
        .await;
    assert_eq!(r.state, ToolState::Completed);

    for (arguments, mentions) in [
        (
            json!({ "type": "run", "durationMinutes": 0 }),
            "durationMinutes must be more than 0 and at most 1440",
        ),
        (
            json!({ "type": "run", "durationMinutes": 1441 }),
            "durationMinutes",
        ),
        (json!({ "type": " " }), "type must not be empty"),
        (json!({ "type": "run", "date": "2026-13-01" }), "YYYY-MM-DD"),
    ] {
        assert_refused(&f, "health.log.workout", arguments, mentions).await;
    }
}

#[tokio::test]
async fn dates_are_the_users_local_day() {
    // UTC+14: at most times of the UTC day this is already tomorrow there.
    let f = fixture_in("Pacific/Kiritimati");
    let r = f.call("health.log.drink", json!({ "name": "beer" })).await;
    assert_eq!(result(&r)["date"], f.today().to_string());
    let r = f.call("health.today", json!({})).await;
    assert_eq!(result(&r)["date"], f.today().to_string());
    assert_eq!(result(&r)["standardDrinks"], 1.0);
}

#[tokio::test]
async fn schema_violations_are_refused_before_the_adapter() {
    let f = fixture();
    for (name, arguments) in [
        ("health.log.drink", json!({})),
        ("health.log.drink", json!({ "name": "beer", "count": "2" })),
        ("health.log.drink", json!({ "name": "beer", "brand": "x" })),
        ("health.log.nicotine", json!({ "count": 1 })),
        ("health.today", json!({ "date": "2026-01-01" })),
        (
            "health.log.weight",
            json!({ "weight": 80, "unit": "stone" }),
        ),
        ("health.log.weight", json!({ "unit": "kg" })),
        (
            "health.log.workout",
            json!({ "type": "run", "intensity": "extreme" }),
        ),
        (
            "health.log.workout",
            json!({ "type": "run", "date": 20260101 }),
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
        assert!(
            error
                .message
                .starts_with(&format!("Invalid arguments for '{name}': ")),
            "{}",
            error.message
        );
    }
    assert_eq!(f.entry_count(), 0);
}

#[tokio::test]
async fn grants_and_scopes_govern_health() {
    let f = fixture();
    let read_only =
        portos_words::principal::agent(Capabilities::NONE.with(portos_words::READ_PORTOS));
    let error = f
        .call_as(
            read_only.clone(),
            "health.log.drink",
            json!({ "name": "beer" }),
        )
        .await
        .expect_err("writes need writePortos");
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
    let r = f.call_as(read_only, "health.today", json!({})).await;
    assert_eq!(r.map(|r| r.state).ok(), Some(ToolState::Completed));
    let error = f
        .call_as(
            portos_words::principal::agent(Capabilities::NONE),
            "health.today",
            json!({}),
        )
        .await
        .expect_err("reads need readPortos");
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
    let error = f
        .call_as(
            portos_words::principal::mind(Capabilities::NONE),
            "health.log.weight",
            json!({ "weight": 70 }),
        )
        .await
        .expect_err("the mind needs the grant too");
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
    let error = f
        .call_as(
            portos_words::principal::ui(false),
            "health.log.workout",
            json!({ "type": "run" }),
        )
        .await
        .expect_err("anonymous ui writes are refused");
    assert_eq!(error.code, ErrorCode::ToolAuthRequired);
    // The voice pipeline has only the scope check.
    let r = f
        .call_as(
            portos_words::principal::voice(),
            "health.log.nicotine",
            json!({ "product": "vape" }),
        )
        .await;
    assert_eq!(r.map(|r| r.state).ok(), Some(ToolState::Completed));
    assert_eq!(f.entry_count(), 1, "only the granted call stored anything");
}

#[test]
fn enums_list_exactly_their_values() {
    let f = fixture();
    let weight = f.registry.resolve("health.log.weight").expect("tool");
    assert_eq!(
        weight.input_schema["properties"]["unit"]["enum"],
        json!(["lb", "kg"])
    );
    assert_eq!(weight.input_schema["required"], json!(["weight"]));
    let workout = f.registry.resolve("health.log.workout").expect("tool");
    assert_eq!(
        workout.input_schema["properties"]["intensity"]["enum"],
        json!(["light", "moderate", "vigorous"])
    );
    assert_eq!(workout.input_schema["required"], json!(["type"]));
}

#[test]
fn the_catalog_describes_the_health_tools() {
    let f = fixture();
    for (name, alias, side_effect, capability) in [
        (
            "health.log.drink",
            "meatspace_log_drink",
            SideEffect::Write,
            portos_words::WRITE_PORTOS,
        ),
        (
            "health.log.nicotine",
            "meatspace_log_nicotine",
            SideEffect::Write,
            portos_words::WRITE_PORTOS,
        ),
        (
            "health.today",
            "meatspace_summary_today",
            SideEffect::Read,
            portos_words::READ_PORTOS,
        ),
        (
            "health.log.weight",
            "meatspace_log_weight",
            SideEffect::Write,
            portos_words::WRITE_PORTOS,
        ),
        (
            "health.log.workout",
            "meatspace_log_workout",
            SideEffect::Write,
            portos_words::WRITE_PORTOS,
        ),
    ] {
        let tool = f
            .registry
            .resolve(alias)
            .expect("the legacy alias resolves");
        assert_eq!(tool.name(), name);
        let descriptor = tool.descriptor;
        let provider_name = name.replace('.', "_");
        assert_eq!(descriptor.provider_name, provider_name);
        assert!(f.registry.resolve(&provider_name).is_some());
        assert_eq!(tool.policy.scopes, portos_words::ALL_SCOPES);
        assert_eq!(tool.policy.required_capabilities, [capability]);
        assert_eq!(descriptor.policy.side_effect, side_effect);
        assert_eq!(descriptor.intent.group, Some("meatspace"));
        // Ranges are the adapter's to check: the schema carries JSON types only.
        let schema = tool.input_schema.to_string();
        assert!(
            !schema.contains("minimum") && !schema.contains("maximum"),
            "{schema}"
        );
        assert_eq!(tool.input_schema["additionalProperties"], false);
        assert!(
            !schema.contains("null"),
            "optional fields are absent, not null: {schema}"
        );
    }
}
