//! weather.now through the registry on a real store
//! (docs/reference.md#semantic-adapters row 20). The weather base URL points at
//! a real HTTP server this test runs on 127.0.0.1 that answers as Open-Meteo
//! does, so every call is a real HTTP exchange made by the server's own client.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use portos::build_registry;
use portos::domains::weather::model::Location;
use portos::domains::weather::store as location;
use portos_core::{Authority, Capabilities, ErrorCode, Registry, ToolCall, ToolResult, ToolState};
use portos_server::Config;
use portos_server::store::Store;
use portos_server::testing::serve_on_loopback;
use portos_tests as _;
use serde_json::{Value, json};

/// What the fake Open-Meteo answers.
#[derive(Clone)]
enum Answer {
    Weather {
        temperature: f64,
        code: i64,
    },
    Refusal,
    NotJson,
    NoCurrent,
    /// Answers only after longer than the 10 s timeout.
    Slow,
}

/// The path and query parameters of one request the fake received.
type Request = (String, HashMap<String, String>);

#[derive(Clone)]
struct Upstream {
    answer: Answer,
    received: Arc<Mutex<Vec<Request>>>,
}

async fn forecast(
    State(upstream): State<Upstream>,
    uri: axum::http::Uri,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    upstream
        .received
        .lock()
        .expect("lock")
        .push((uri.path().to_owned(), query.clone()));
    match upstream.answer {
        Answer::Weather { temperature, code } => axum::Json(json!({
            "latitude": query.get("latitude").and_then(|v| v.parse::<f64>().ok()),
            "longitude": query.get("longitude").and_then(|v| v.parse::<f64>().ok()),
            "generationtime_ms": 0.05,
            "utc_offset_seconds": 0,
            "timezone": "GMT",
            "current_units": {"time": "iso8601", "interval": "seconds", "temperature_2m": "°F", "weather_code": "wmo code"},
            "current": {"time": "2026-12-03T06:00", "interval": 900, "temperature_2m": temperature, "weather_code": code}
        }))
        .into_response(),
        Answer::Refusal => (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"error": true, "reason": "Cannot initialize WeatherVariable from invalid String value"})),
        )
            .into_response(),
        Answer::NotJson => (StatusCode::OK, "<html>maintenance</html>").into_response(),
        Answer::NoCurrent => axum::Json(json!({"latitude": 1.0, "longitude": 2.0})).into_response(),
        Answer::Slow => {
            tokio::time::sleep(std::time::Duration::from_secs(12)).await;
            axum::Json(json!({"current": {"temperature_2m": 1, "weather_code": 0}})).into_response()
        }
    }
}

/// Starts the fake Open-Meteo on an ephemeral loopback port.
async fn upstream(answer: Answer) -> (String, Upstream) {
    let state = Upstream {
        answer,
        received: Arc::default(),
    };
    let app = Router::new()
        .route("/v1/forecast", get(forecast))
        .with_state(state.clone());
    (serve_on_loopback(app).await, state)
}

impl Upstream {
    fn requests(&self) -> Vec<Request> {
        self.received.lock().expect("lock").clone()
    }
}

struct Fixture {
    registry: std::sync::Arc<Registry>,
    store: Store,
    _dir: tempfile::TempDir,
}

fn fixture(weather_url: &str) -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = Config {
        data_dir: dir.path().to_owned(),
        timezone: Some("UTC".to_owned()),
        ..portos::config()
    };
    let options = portos::Options {
        weather_url: weather_url.to_owned(),
        ..portos::Options::default()
    };
    let store = portos::store::open(dir.path()).expect("store");
    let registry = build_registry(config, &options, &store).expect("registry");
    Fixture {
        registry,
        store,
        _dir: dir,
    }
}

fn reader() -> Authority {
    portos_words::principal::agent(Capabilities::NONE.with(portos_words::READ_PORTOS))
}

impl Fixture {
    async fn call_as(
        &self,
        authority: Authority,
        name: &str,
        arguments: Value,
    ) -> Result<ToolResult, portos_core::ToolError> {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object")
        };
        let id = format!("w-{}", uuid_like());
        self.registry
            .call(&authority, ToolCall::new(id, name, arguments))
            .await
    }

    async fn weather(&self, arguments: Value) -> ToolResult {
        self.call_as(reader(), "weather.now", arguments)
            .await
            .expect("the call is allowed")
    }

    fn set_location(&self, place: &Location) {
        self.store
            .run_blocking(|connection| location::save_location(connection, place))
            .expect("stored");
    }
}

fn uuid_like() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn result(r: &ToolResult) -> &Value {
    r.result.as_ref().expect("a result object")
}

#[tokio::test]
async fn explicit_coordinates_fetch_current_fahrenheit_weather() {
    let (url, server) = upstream(Answer::Weather {
        temperature: 41.2,
        code: 61,
    })
    .await;
    let f = fixture(&url);
    let r = f.weather(json!({"lat": 40.7128, "lon": -74.006})).await;
    assert_eq!(r.state, ToolState::Completed, "{:?}", r.error);
    assert_eq!(r.name, "weather.now");
    let body = result(&r);
    assert_eq!(body["ok"], true);
    assert_eq!(body["lat"], 40.7128);
    assert_eq!(body["lon"], -74.006);
    assert_eq!(body["temperatureF"], 41.2);
    assert_eq!(body["weatherCode"], 61);
    assert_eq!(body["conditions"], "slight rain");
    assert_eq!(body["source"], "arguments");
    assert_eq!(body["summary"], "At 40.71, -74.01 it's 41°F, slight rain.");

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let (path, query) = &requests[0];
    assert_eq!(path, "/v1/forecast");
    assert_eq!(query.get("latitude").map(String::as_str), Some("40.7128"));
    assert_eq!(query.get("longitude").map(String::as_str), Some("-74.006"));
    let current: Vec<&str> = query
        .get("current")
        .map(|fields| fields.split(',').collect())
        .unwrap_or_default();
    assert!(current.contains(&"temperature_2m"), "{current:?}");
    assert!(current.contains(&"weather_code"), "{current:?}");
    assert_eq!(
        query.get("temperature_unit").map(String::as_str),
        Some("fahrenheit")
    );
}

#[tokio::test]
async fn without_coordinates_uses_san_francisco_then_the_stored_location() {
    let (url, server) = upstream(Answer::Weather {
        temperature: 58.6,
        code: 3,
    })
    .await;
    let f = fixture(&url);

    let r = f.weather(json!({})).await;
    let body = result(&r);
    assert_eq!(body["source"], "default");
    assert_eq!(
        (body["lat"].clone(), body["lon"].clone()),
        (json!(37.7749), json!(-122.4194))
    );
    assert_eq!(body["summary"], "In San Francisco it's 59°F, overcast.");
    let (_, query) = &server.requests()[0];
    assert_eq!(query.get("latitude").map(String::as_str), Some("37.7749"));
    assert_eq!(
        query.get("longitude").map(String::as_str),
        Some("-122.4194")
    );

    f.set_location(&Location {
        lat: 48.8566,
        lon: 2.3522,
        name: Some("Paris".to_owned()),
    });
    let r = f.weather(json!({})).await;
    let body = result(&r);
    assert_eq!(body["source"], "settings");
    assert_eq!(body["summary"], "In Paris it's 59°F, overcast.");
    let (_, query) = &server.requests()[1];
    assert_eq!(query.get("latitude").map(String::as_str), Some("48.8566"));
    assert_eq!(query.get("longitude").map(String::as_str), Some("2.3522"));

    // Explicit coordinates still win over the stored location.
    let r = f.weather(json!({"lat": -33.87, "lon": 151.21})).await;
    assert_eq!(result(&r)["source"], "arguments");
    assert_eq!(
        server.requests()[2].1.get("latitude").map(String::as_str),
        Some("-33.87")
    );
}

#[tokio::test]
async fn out_of_range_coordinates_fail_without_a_request() {
    let (url, server) = upstream(Answer::Weather {
        temperature: 1.0,
        code: 0,
    })
    .await;
    let f = fixture(&url);
    for (arguments, word) in [
        (json!({"lat": 90.5, "lon": 0}), "Latitude 90.5"),
        (json!({"lat": -91, "lon": 0}), "Latitude -91"),
        (json!({"lat": 0, "lon": 180.01}), "Longitude 180.01"),
        (json!({"lat": 0, "lon": -200}), "Longitude -200"),
    ] {
        let r = f.weather(arguments.clone()).await;
        assert_eq!(r.state, ToolState::Failed, "{arguments}");
        let body = result(&r);
        assert_eq!(body["ok"], false);
        let summary = body["summary"].as_str().expect("summary");
        assert!(summary.starts_with(word), "{summary}");
        assert!(summary.contains("out of range"), "{summary}");
        assert_eq!(r.error.as_deref(), Some(summary));
    }
    // The edges are valid.
    let r = f.weather(json!({"lat": -90, "lon": 180})).await;
    assert_eq!(r.state, ToolState::Completed);
    // One coordinate alone is not a place.
    let r = f.weather(json!({"lat": 10})).await;
    assert_eq!(r.state, ToolState::Failed);
    assert!(
        result(&r)["summary"]
            .as_str()
            .is_some_and(|s| s.contains("both lat and lon"))
    );
    assert_eq!(
        server.requests().len(),
        1,
        "only the valid call reached the service"
    );
}

#[tokio::test]
async fn an_unreachable_service_is_a_failed_result_with_the_reason() {
    // A port that was just free: nothing listens there.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    drop(listener);
    let f = fixture(&url);
    let r = f.weather(json!({"lat": 1, "lon": 2})).await;
    assert_eq!(r.state, ToolState::Failed);
    let body = result(&r);
    assert_eq!(body["ok"], false);
    let summary = body["summary"].as_str().expect("summary");
    assert!(
        summary.starts_with(&format!("The weather service at {url} is unreachable (")),
        "{summary}"
    );
    assert!(summary.to_lowercase().contains("connect"), "{summary}");
    assert!(body.get("temperatureF").is_none());
}

#[tokio::test]
async fn bad_answers_are_failed_results_with_the_reason() {
    let (url, _server) = upstream(Answer::Refusal).await;
    let r = fixture(&url).weather(json!({"lat": 1, "lon": 2})).await;
    assert_eq!(r.state, ToolState::Failed);
    assert_eq!(
        r.error.as_deref(),
        Some(
            format!("The weather service at {url} answered HTTP 400: Cannot initialize WeatherVariable from invalid String value.")
                .as_str()
        )
    );

    let (url, _server) = upstream(Answer::NotJson).await;
    let r = fixture(&url).weather(json!({"lat": 1, "lon": 2})).await;
    assert_eq!(r.state, ToolState::Failed);
    assert_eq!(
        r.error.as_deref(),
        Some(format!("The weather service at {url} did not answer with JSON.").as_str())
    );

    let (url, _server) = upstream(Answer::NoCurrent).await;
    let r = fixture(&url).weather(json!({"lat": 1, "lon": 2})).await;
    assert_eq!(r.state, ToolState::Failed);
    assert!(
        r.error
            .as_deref()
            .is_some_and(|e| e.contains("without the current temperature")),
        "{:?}",
        r.error
    );
}

#[tokio::test]
async fn schema_grants_and_aliases() {
    let (url, _server) = upstream(Answer::Weather {
        temperature: 70.0,
        code: 0,
    })
    .await;
    let f = fixture(&url);
    for arguments in [
        json!({"lat": "37", "lon": 1}),
        json!({"lat": 1, "lon": 2, "city": "Paris"}),
    ] {
        let error = f
            .call_as(reader(), "weather.now", arguments.clone())
            .await
            .expect_err("schema violations are refused");
        assert_eq!(error.code, ErrorCode::ToolValidationError, "{arguments}");
    }
    let error = f
        .call_as(
            portos_words::principal::agent(Capabilities::NONE),
            "weather.now",
            json!({}),
        )
        .await
        .expect_err("agent needs readPortos");
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
    for authority in [
        portos_words::principal::voice(),
        portos_words::principal::ui(false),
    ] {
        let r = f
            .call_as(authority, "weather_now", json!({"lat": 0, "lon": 0}))
            .await
            .expect("reads are open to voice and ui");
        assert_eq!(r.name, "weather.now");
        assert_eq!(result(&r)["conditions"], "clear sky");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_slower_than_10_seconds_times_out() {
    let (url, server) = upstream(Answer::Slow).await;
    let f = fixture(&url);
    let started = std::time::Instant::now();
    let r = f.weather(json!({"lat": 1, "lon": 2})).await;
    let waited = started.elapsed();
    assert_eq!(r.state, ToolState::Failed);
    assert_eq!(
        r.error.as_deref(),
        Some(format!("The weather service at {url} did not answer within 10 seconds.").as_str())
    );
    assert!(waited >= std::time::Duration::from_secs(10), "{waited:?}");
    assert!(waited < std::time::Duration::from_secs(12), "{waited:?}");
    assert_eq!(
        server.requests().len(),
        1,
        "the request did reach the service"
    );
}
