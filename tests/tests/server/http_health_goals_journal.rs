//! The health, goals and journal REST routes against the real binary:
//! creating and editing the data the `health.*`, `goals.*` and `journal.*`
//! tools use, strict bodies (400), unknown ids (404), non-JSON (415).

use portos_tests::ServerProcess;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().await.expect("request");
    let status = response.status();
    (status, response.json().await.expect("JSON body"))
}

fn assert_error(status: StatusCode, body: &Value, expected: StatusCode, code: &str) {
    assert_eq!(status, expected, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()));
    assert!(body["timestamp"].is_i64());
}

/// A read tool through the registry endpoint (a passwordless install only
/// lets anonymous callers read).
async fn call_tool(client: &Client, server: &ServerProcess, name: &str, arguments: Value) -> Value {
    let (status, body) = send(client.post(server.url("/api/cos/tools/call")).json(&json!({
        "type": "portos_tool_call",
        "requestId": uuid_like(name),
        "name": name,
        "version": 1,
        "arguments": arguments,
    })))
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

fn uuid_like(name: &str) -> String {
    format!(
        "{name}-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default()
    )
}

#[tokio::test]
async fn health_entries_are_logged_listed_and_deleted() {
    let server = ServerProcess::start(&["--timezone", "UTC"]);
    let client = portos_tests::http_client();
    let (status, drink) = send(
        client
            .post(server.url("/api/health/drinks"))
            .json(&json!({ "name": "wine", "count": 2 })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{drink}");
    assert_eq!(drink["oz"], 5.0);
    assert_eq!(drink["abv"], 13.0);
    let today = drink["date"].as_str().expect("date").to_owned();

    let (status, nicotine) = send(
        client
            .post(server.url("/api/health/nicotine"))
            .json(&json!({ "product": "pouch" })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(nicotine["totalMg"], 6.0);
    let (status, weight) = send(
        client
            .post(server.url("/api/health/weight"))
            .json(&json!({ "weight": 100, "unit": "kg" })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    assert!((weight["pounds"].as_f64().expect("number") - 220.462_262_18).abs() < 1e-6);
    let (status, workout) = send(
        client
            .post(server.url("/api/health/workouts"))
            .json(&json!({ "type": "swim", "durationMinutes": 30, "date": "2026-05-01" })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(workout["date"], "2026-05-01");

    let (status, day) = send(client.get(server.url("/api/health/entries"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(day["date"], today);
    assert_eq!(day["drinks"].as_array().map(Vec::len), Some(1));
    assert_eq!(day["nicotine"].as_array().map(Vec::len), Some(1));
    assert_eq!(day["weights"].as_array().map(Vec::len), Some(1));
    assert_eq!(day["workouts"].as_array().map(Vec::len), Some(0));
    let (_, may) = send(client.get(server.url("/api/health/entries?date=2026-05-01"))).await;
    assert_eq!(may["workouts"][0]["type"], "swim");

    // The tools see what REST stored, and the other way round.
    let result = call_tool(&client, &server, "health.today", json!({})).await;
    assert!((result["result"]["standardDrinks"].as_f64().expect("number") - 2.1667).abs() < 1e-3);
    let (_, summary) = send(client.get(server.url("/api/health/today"))).await;
    assert_eq!(summary["nicotineMg"], 6.0);
    assert_eq!(summary["date"], today);

    let id = drink["id"].as_str().expect("id");
    let (status, deleted) =
        send(client.delete(server.url(&format!("/api/health/entries/{id}")))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(deleted, json!({ "ok": true, "id": id }));
    let (status, body) =
        send(client.delete(server.url(&format!("/api/health/entries/{id}")))).await;
    assert_error(
        status,
        &body,
        StatusCode::NOT_FOUND,
        "HEALTH_ENTRY_NOT_FOUND",
    );
    let (_, summary) = send(client.get(server.url("/api/health/today"))).await;
    assert_eq!(summary["standardDrinks"], 0.0);
}

#[tokio::test]
async fn health_routes_refuse_bad_input_and_store_nothing() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    for (path, body) in [
        ("/api/health/drinks", json!({ "name": "beer", "count": 51 })),
        (
            "/api/health/drinks",
            json!({ "name": "beer", "brand": "x" }),
        ),
        ("/api/health/drinks", json!({ "count": 1 })),
        (
            "/api/health/nicotine",
            json!({ "product": "vape", "mgPerUnit": 500 }),
        ),
        ("/api/health/weight", json!({ "weight": 900 })),
        (
            "/api/health/weight",
            json!({ "weight": 70, "unit": "stone" }),
        ),
        (
            "/api/health/workouts",
            json!({ "type": "run", "durationMinutes": 2000 }),
        ),
        (
            "/api/health/workouts",
            json!({ "type": "run", "date": "2026-02-31" }),
        ),
    ] {
        let (status, answer) = send(client.post(server.url(path)).json(&body)).await;
        assert_error(status, &answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    }
    let response = client
        .post(server.url("/api/health/drinks"))
        .header("content-type", "text/plain")
        .body("beer")
        .send()
        .await
        .expect("request");
    let status = response.status();
    let body: Value = response.json().await.expect("JSON");
    assert_error(
        status,
        &body,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "UNSUPPORTED_MEDIA_TYPE",
    );
    let (status, body) = send(client.get(server.url("/api/health/entries?date=tomorrow"))).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let (status, body) = send(client.get(server.url("/api/health/entries?day=2026-01-01"))).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");

    let (_, day) = send(client.get(server.url("/api/health/entries"))).await;
    for kind in ["drinks", "nicotine", "weights", "workouts"] {
        assert_eq!(day[kind], json!([]), "{kind}");
    }
}

#[tokio::test]
async fn goals_are_created_edited_noted_and_deleted() {
    let server = ServerProcess::start(&["--timezone", "UTC"]);
    let client = portos_tests::http_client();
    let (status, goal) = send(client.post(server.url("/api/goals")).json(&json!({
        "title": "  Run a marathon ",
        "horizon": "1-year",
        "category": "health",
        "urgency": 0.8,
        "progress": 20
    })))
    .await;
    assert_eq!(status, StatusCode::CREATED, "{goal}");
    assert_eq!(goal["title"], "Run a marathon");
    assert_eq!(goal["status"], "active");
    let id = goal["id"].as_str().expect("id").to_owned();
    let (status, other) = send(
        client
            .post(server.url("/api/goals"))
            .json(&json!({ "title": "Learn Spanish" })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(other["urgency"], 0.5);
    assert_eq!(other["progress"], 0);

    let (_, list) = send(client.get(server.url("/api/goals"))).await;
    let titles: Vec<&str> = list["goals"]
        .as_array()
        .expect("goals")
        .iter()
        .filter_map(|g| g["title"].as_str())
        .collect();
    assert_eq!(titles, ["Run a marathon", "Learn Spanish"]);

    // The tools work on what REST created.
    let call = call_tool(&client, &server, "goals.list", json!({})).await;
    assert_eq!(call["result"]["count"], 2);

    let (status, changed) = send(
        client
            .put(server.url(&format!("/api/goals/{id}")))
            .json(&json!({ "progress": 35, "urgency": 0.2 })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["progress"], 35);
    assert_eq!(changed["title"], "Run a marathon");
    let (_, list) = send(client.get(server.url("/api/goals"))).await;
    assert_eq!(
        list["goals"][0]["title"], "Learn Spanish",
        "urgency reorders"
    );

    let (status, note) = send(
        client
            .post(server.url(&format!("/api/goals/{id}/notes")))
            .json(&json!({ "note": "10 km long run", "durationMinutes": 60 })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{note}");
    assert_eq!(note["goalId"], id.as_str());
    let (status, detail) = send(client.get(server.url(&format!("/api/goals/{id}")))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(detail["title"], "Run a marathon");
    assert_eq!(detail["notes"][0]["note"], "10 km long run");

    let (_, completed) = send(
        client
            .put(server.url(&format!("/api/goals/{id}")))
            .json(&json!({ "status": "completed" })),
    )
    .await;
    assert_eq!(completed["status"], "completed");
    let (_, active) = send(client.get(server.url("/api/goals?status=active"))).await;
    assert_eq!(active["goals"].as_array().map(Vec::len), Some(1));

    let (status, deleted) = send(client.delete(server.url(&format!("/api/goals/{id}")))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(deleted["ok"], true);
    let (status, body) = send(client.get(server.url(&format!("/api/goals/{id}")))).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "GOAL_NOT_FOUND");
}

#[tokio::test]
async fn goal_routes_refuse_bad_input_and_unknown_ids() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    for body in [
        json!({ "title": "" }),
        json!({ "title": "x", "urgency": 2 }),
        json!({ "title": "x", "progress": 101 }),
        json!({ "title": "x", "owner": "me" }),
        json!({ "horizon": "1-year" }),
    ] {
        let (status, answer) = send(client.post(server.url("/api/goals")).json(&body)).await;
        assert_error(status, &answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    }
    let (_, goal) = send(
        client
            .post(server.url("/api/goals"))
            .json(&json!({ "title": "Learn Spanish", "progress": 10 })),
    )
    .await;
    let id = goal["id"].as_str().expect("id").to_owned();
    for body in [
        json!({ "progress": -1 }),
        json!({ "status": "done" }),
        json!({ "title": "  " }),
        json!({ "colour": "red" }),
    ] {
        let (status, answer) = send(
            client
                .put(server.url(&format!("/api/goals/{id}")))
                .json(&body),
        )
        .await;
        assert_error(status, &answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    }
    for body in [
        json!({ "note": " " }),
        json!({ "note": "x", "durationMinutes": 0 }),
        json!({ "note": "x", "date": "2026-13-01" }),
    ] {
        let (status, answer) = send(
            client
                .post(server.url(&format!("/api/goals/{id}/notes")))
                .json(&body),
        )
        .await;
        assert_error(status, &answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    }
    let (_, detail) = send(client.get(server.url(&format!("/api/goals/{id}")))).await;
    assert_eq!(detail["progress"], 10, "nothing changed");
    assert_eq!(detail["notes"], json!([]));

    let (status, body) = send(client.get(server.url("/api/goals?status=someday"))).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    for request in [
        client.get(server.url("/api/goals/nope")),
        client
            .put(server.url("/api/goals/nope"))
            .json(&json!({ "progress": 5 })),
        client.delete(server.url("/api/goals/nope")),
        client
            .post(server.url("/api/goals/nope/notes"))
            .json(&json!({ "note": "x" })),
    ] {
        let (status, body) = send(request).await;
        assert_error(status, &body, StatusCode::NOT_FOUND, "GOAL_NOT_FOUND");
    }
    let response = client
        .post(server.url("/api/goals"))
        .body("{\"title\":\"x\"}")
        .send()
        .await
        .expect("request");
    let status = response.status();
    let body: Value = response.json().await.expect("JSON");
    assert_error(
        status,
        &body,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "UNSUPPORTED_MEDIA_TYPE",
    );
}

#[tokio::test]
async fn journal_days_are_appended_read_and_corrected() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let (status, day) = send(client.get(server.url("/api/journal/2026-04-01"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        day,
        json!({ "date": "2026-04-01", "content": "", "segments": [] })
    );

    let (status, first) = send(
        client
            .post(server.url("/api/journal/2026-04-01/segments"))
            .json(&json!({ "text": "Fooled nobody." })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    assert_eq!(first["date"], "2026-04-01");
    let (status, _) = send(
        client
            .post(server.url("/api/journal/2026-04-01/segments"))
            .json(&json!({ "text": "  Spring cleaning.\n" })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let (_, day) = send(client.get(server.url("/api/journal/2026-04-01"))).await;
    assert_eq!(day["content"], "Fooled nobody.\n\nSpring cleaning.");
    assert_eq!(day["segments"].as_array().map(Vec::len), Some(2));

    let id = first["id"].as_str().expect("id");
    let (status, _) = send(client.delete(server.url(&format!("/api/journal/segments/{id}")))).await;
    assert_eq!(status, StatusCode::OK);
    let read = call_tool(
        &client,
        &server,
        "journal.read",
        json!({ "date": "2026-04-01" }),
    )
    .await;
    assert_eq!(read["result"]["content"], "Spring cleaning.");
    let (status, body) =
        send(client.delete(server.url(&format!("/api/journal/segments/{id}")))).await;
    assert_error(
        status,
        &body,
        StatusCode::NOT_FOUND,
        "JOURNAL_SEGMENT_NOT_FOUND",
    );

    let (status, body) = send(client.get(server.url("/api/journal/yesterday"))).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    for (path, body) in [
        ("/api/journal/2026-04-01/segments", json!({ "text": "  " })),
        (
            "/api/journal/2026-04-01/segments",
            json!({ "text": "x", "mood": "ok" }),
        ),
        ("/api/journal/2026-02-30/segments", json!({ "text": "x" })),
    ] {
        let (status, answer) = send(client.post(server.url(path)).json(&body)).await;
        assert_error(status, &answer, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    }
    let (_, day) = send(client.get(server.url("/api/journal/2026-04-01"))).await;
    assert_eq!(
        day["segments"].as_array().map(Vec::len),
        Some(1),
        "nothing stored"
    );
}
