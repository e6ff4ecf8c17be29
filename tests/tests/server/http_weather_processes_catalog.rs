//! The location, process and creative-catalog routes and the weather tool,
//! over real HTTP against the real binary.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Query, State};
use axum::routing::get;
use portos_server::testing::serve_on_loopback;
use portos_tests::ServerProcess;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

type Received = Arc<Mutex<Vec<HashMap<String, String>>>>;

/// A fake Open-Meteo on loopback that records each query and answers 55.4°F, fog.
async fn open_meteo() -> (String, Received) {
    let received: Received = Arc::default();
    let app =
        Router::new()
            .route(
                "/v1/forecast",
                get(
                    |State(received): State<Received>,
                     Query(query): Query<HashMap<String, String>>| async move {
                        received.lock().expect("lock").push(query);
                        axum::Json(json!({"current": {"temperature_2m": 55.4, "weather_code": 45}}))
                    },
                ),
            )
            .with_state(received.clone());
    (serve_on_loopback(app).await, received)
}

async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().await.expect("request");
    let status = response.status();
    let bytes = response.bytes().await.expect("body");
    let body = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes).expect("JSON body")
    };
    (status, body)
}

fn assert_error(body: &Value, code: &str) {
    assert_eq!(body["code"], code, "{body}");
    assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()));
}

async fn call_tool(
    client: &Client,
    server: &ServerProcess,
    name: &str,
    arguments: Value,
) -> (StatusCode, Value) {
    send(client.post(server.url("/api/cos/tools/call")).json(&json!({
        "requestId": format!("h-{}", NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)),
        "name": name,
        "arguments": arguments,
    })))
    .await
}

#[tokio::test]
async fn location_routes_feed_the_weather_tool() {
    let (url, received) = open_meteo().await;
    let server = ServerProcess::start(&["--weather-url", &url]);
    let client = portos_tests::http_client();
    let location = server.url("/api/settings/location");

    let (status, body) = send(client.get(&location)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_error(&body, "LOCATION_NOT_SET");

    // With no location stored, the weather is San Francisco's.
    let (status, body) = call_tool(&client, &server, "weather.now", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["state"], "completed");
    assert_eq!(
        body["result"]["summary"],
        "In San Francisco it's 55°F, fog."
    );

    let (status, body) = send(
        client
            .put(&location)
            .json(&json!({"lat": 51.5072, "lon": -0.1276, "name": " London "})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body,
        json!({"lat": 51.5072, "lon": -0.1276, "name": "London"})
    );
    let (status, body) = send(client.get(&location)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["name"], "London");

    let (status, body) = call_tool(&client, &server, "weather_now", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["name"], "weather.now");
    assert_eq!(body["result"]["source"], "settings");
    assert_eq!(body["result"]["summary"], "In London it's 55°F, fog.");
    {
        let received = received.lock().expect("lock");
        assert_eq!(received.len(), 2);
        assert_eq!(
            received[1].get("latitude").map(String::as_str),
            Some("51.5072")
        );
        assert_eq!(
            received[1].get("longitude").map(String::as_str),
            Some("-0.1276")
        );
        assert_eq!(
            received[1].get("temperature_unit").map(String::as_str),
            Some("fahrenheit")
        );
    }

    // Out of range: a failed result (422), no request made.
    let (status, body) = call_tool(
        &client,
        &server,
        "weather.now",
        json!({"lat": 95, "lon": 0}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["state"], "failed");
    assert_eq!(body["result"]["ok"], false);
    assert_eq!(received.lock().expect("lock").len(), 2);

    // Bad location bodies change nothing.
    for bad in [
        json!({"lat": 91, "lon": 0}),
        json!({"lat": 0, "lon": -181}),
        json!({"lat": 0}),
        json!({"lat": "1", "lon": 2}),
        json!({"lat": 1, "lon": 2, "city": "x"}),
    ] {
        let (status, body) = send(client.put(&location).json(&bad)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        assert_error(&body, "VALIDATION_ERROR");
    }
    let (status, _) = send(
        client
            .put(&location)
            .body("lat=1")
            .header("content-type", "text/plain"),
    )
    .await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let (_, body) = send(client.get(&location)).await;
    assert_eq!(body["name"], "London");
}

#[tokio::test]
async fn an_unreachable_weather_service_is_a_422_with_the_reason() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    drop(listener);
    let server = ServerProcess::start_with_env(
        tempfile::tempdir().expect("dir"),
        &[],
        &[("PORTOS_WEATHER_URL", &url)],
    );
    let client = portos_tests::http_client();
    let (status, body) =
        call_tool(&client, &server, "weather.now", json!({"lat": 1, "lon": 1})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.starts_with(&format!("The weather service at {url} is unreachable"))),
        "{body}"
    );
}

#[tokio::test]
async fn the_process_route_reports_the_watch_list() {
    let server = ServerProcess::start_with_env(
        tempfile::tempdir().expect("dir"),
        &[
            "--watch-process",
            "portos",
            "--watch-process",
            "portos-missing-daemon",
        ],
        &[],
    );
    let client = portos_tests::http_client();
    let (status, body) = send(client.get(server.url("/api/system/processes"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["total"], 2);
    assert_eq!(body["online"], 1, "the server itself runs: {body}");
    assert_eq!(
        body["unhealthy"],
        json!([{"name": "portos-missing-daemon", "status": "stopped", "restarts": 0}])
    );

    // The environment variable takes a comma-separated list.
    let server = ServerProcess::start_with_env(
        tempfile::tempdir().expect("dir"),
        &[],
        &[("PORTOS_WATCH_PROCESSES", "portos, other-missing")],
    );
    let (_, body) = send(client.get(server.url("/api/system/processes"))).await;
    assert_eq!(body["watched"], json!(["portos", "other-missing"]));
    let (status, body) = call_tool(&client, &server, "system.processes.status", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["result"]["online"], 1);

    // Without a list: the machine's processes.
    let server = ServerProcess::start(&[]);
    let (status, body) = send(client.get(server.url("/api/system/processes"))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body["total"].as_u64().is_some_and(|n| n >= 2), "{body}");
    assert!(body.get("watched").is_none());
}

#[tokio::test]
async fn catalog_routes_create_read_replace_delete_and_search() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let entries = server.url("/api/catalog/entries");

    let (status, created) = send(client.post(&entries).json(&json!({
        "name": "Mira Vance", "type": "Character", "body": "A cartographer of drowned cities.", "refs": ["atlas"]
    })))
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["type"], "character");
    assert_eq!(created["refs"], json!(["atlas"]));
    let id = created["id"].as_str().expect("id").to_owned();
    let one = server.url(&format!("/api/catalog/entries/{id}"));

    let (status, body) = send(client.get(&one)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, created);

    // Refusals: unknown type, empty name, unknown key, wrong content type.
    for bad in [
        json!({"name": "X", "type": "spaceship"}),
        json!({"name": "  ", "type": "place"}),
        json!({"name": "X", "type": "place", "color": "red"}),
        json!({"name": "X"}),
    ] {
        let (status, body) = send(client.post(&entries).json(&bad)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        assert_error(&body, "VALIDATION_ERROR");
    }
    let (status, body) = send(
        client
            .post(&entries)
            .body("{}")
            .header("content-type", "text/plain"),
    )
    .await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_error(&body, "UNSUPPORTED_MEDIA_TYPE");

    // A user-defined type, then an entry of it.
    let types = server.url("/api/catalog/types");
    let (status, body) = send(
        client
            .post(&types)
            .json(&json!({"name": "vessel", "label": "Vessel"})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(
        body,
        json!({"name": "vessel", "label": "Vessel", "builtIn": false, "active": true})
    );
    let (status, _) = send(client.post(&types).json(&json!({"name": "vessel"}))).await;
    assert_eq!(status, StatusCode::CONFLICT);
    let (status, _) = send(client.post(&types).json(&json!({"name": "Bad Name!"}))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, body) = send(client.get(&types)).await;
    assert_eq!(status, StatusCode::OK);
    let listed: Vec<&str> = body["types"]
        .as_array()
        .expect("types")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        listed,
        [
            "character",
            "place",
            "object",
            "idea",
            "scene",
            "concept",
            "vessel"
        ]
    );
    let (status, vessel) = send(client.post(&entries).json(&json!({
        "name": "The Drowned Atlas", "type": "vessel", "body": "A ship that maps cities."
    })))
    .await;
    assert_eq!(status, StatusCode::CREATED);

    // Replace: 200, and the change is what a search sees.
    let (status, body) = send(client.put(&one).json(&json!({
        "name": "Mira Vance", "type": "character", "body": "Charts drowned cities for the guild.", "refs": []
    })))
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["createdAt"], created["createdAt"]);
    let (status, body) = call_tool(
        &client,
        &server,
        "catalog.search",
        json!({"query": "drowned", "type": "character"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["count"], 1);
    assert_eq!(
        body["result"]["results"][0]["snippet"],
        "Charts drowned cities for the guild."
    );
    assert_eq!(body["result"]["results"][0]["refsCount"], 0);

    let (status, body) = send(client.get(format!("{entries}?type=vessel"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["count"], 1);
    assert_eq!(body["entries"][0]["id"], vessel["id"]);
    let (status, _) = send(client.get(format!("{entries}?colour=red"))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Deactivating the type: new entries of it are refused.
    let (status, body) = send(
        client
            .put(server.url("/api/catalog/types/vessel"))
            .json(&json!({"active": false})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["active"], false);
    let (status, _) = send(
        client
            .post(&entries)
            .json(&json!({"name": "Skiff", "type": "vessel"})),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, body) = send(
        client
            .put(server.url("/api/catalog/types/nope"))
            .json(&json!({"active": true})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_error(&body, "CATALOG_TYPE_NOT_FOUND");

    // Delete: 204, then 404 everywhere.
    let (status, _) = send(client.delete(&one)).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    for request in [
        client.get(&one),
        client.delete(&one),
        client.put(&one).json(&json!({"name": "Y", "type": "idea"})),
    ] {
        let (status, body) = send(request).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_error(&body, "CATALOG_ENTRY_NOT_FOUND");
    }
    let (_, body) = call_tool(
        &client,
        &server,
        "catalog.search",
        json!({"query": "drowned"}),
    )
    .await;
    assert_eq!(body["result"]["count"], 1);
}
