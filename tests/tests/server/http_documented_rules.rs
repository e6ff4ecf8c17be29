//! What the OpenAPI document states about a request is what the server
//! enforces (issue 14, "documents that match behaviour"): for a sample of
//! rules of each kind — a range, a pattern, a blank text, an item count, a
//! query limit, a path parameter's shape — the document states the rule,
//! a request breaking it is refused with 400 `VALIDATION_ERROR` naming the
//! field, and nothing is stored; the same request within the rule succeeds.

use portos_tests::ServerProcess;
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn internal_openapi(server: &ServerProcess, client: &reqwest::Client) -> Value {
    client
        .get(server.url("/api/api-docs/internal/openapi.json"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json")
}

/// The properties of a request body's schema (`components.schemas.<name>`).
fn property<'a>(document: &'a Value, schema: &str, name: &str) -> &'a Value {
    &document["components"]["schemas"][schema]["properties"][name]
}

fn parameter<'a>(document: &'a Value, method: &str, path: &str, name: &str) -> &'a Value {
    document["paths"][path][method]["parameters"]
        .as_array()
        .and_then(|parameters| parameters.iter().find(|p| p["name"] == name))
        .unwrap_or_else(|| panic!("{method} {path} documents `{name}`"))
}

async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().await.expect("request");
    let status = response.status();
    let body = response.json().await.unwrap_or(Value::Null);
    (status, body)
}

#[tokio::test]
async fn body_rules_are_documented_and_enforced() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let document = internal_openapi(&server, &client).await;

    // A range: goal progress is a percent.
    let progress = property(&document, "NewGoal", "progress");
    assert_eq!(
        (progress["minimum"].clone(), progress["maximum"].clone()),
        (json!(0), json!(100))
    );
    // A blank title: the pattern says "not blank".
    assert_eq!(property(&document, "NewGoal", "title")["pattern"], r"\S");
    for (body, field) in [
        (json!({ "title": "Run", "progress": 101 }), "progress"),
        (json!({ "title": " \t" }), "title"),
    ] {
        let (status, error) = send(client.post(server.url("/api/goals")).json(&body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {error}");
        assert_eq!(error["code"], "VALIDATION_ERROR");
        assert_eq!(error["context"]["details"][0]["path"], field, "{error}");
    }
    assert_eq!(
        send(
            client
                .post(server.url("/api/goals"))
                .json(&json!({ "title": " \t" }))
        )
        .await
        .1["error"],
        "title must not be empty"
    );
    let (_, goals) = send(client.get(server.url("/api/goals"))).await;
    assert_eq!(goals["goals"], json!([]), "nothing was stored: {goals}");
    let (status, _) = send(
        client
            .post(server.url("/api/goals"))
            .json(&json!({ "title": "Run", "progress": 100 })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);

    // An exclusive bound, written the OpenAPI 3.0 way.
    let count = property(&document, "DrinkBody", "count");
    assert_eq!(
        (count["minimum"].clone(), count["exclusiveMinimum"].clone()),
        (json!(0), json!(true))
    );
    let (status, error) = send(
        client
            .post(server.url("/api/health/drinks"))
            .json(&json!({ "name": "beer", "count": 0 })),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");

    // An item count: Agent Tools scopes are one to four, distinct.
    let scopes = property(&document, "AgentContextSettings", "scopes");
    assert_eq!(
        (scopes["minItems"].clone(), scopes["maxItems"].clone()),
        (json!(1), json!(4))
    );
    assert_eq!(scopes["uniqueItems"], true);
    let (status, error) = send(
        client
            .put(server.url("/api/settings/agent-context"))
            .json(&json!({ "scopes": [] })),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
}

#[tokio::test]
async fn query_and_path_rules_are_documented_and_enforced() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let document = internal_openapi(&server, &client).await;

    let limit = parameter(&document, "get", "/api/cos/tasks", "limit");
    assert_eq!(
        (
            limit["schema"]["minimum"].clone(),
            limit["schema"]["maximum"].clone()
        ),
        (json!(1), json!(200))
    );
    let status = parameter(&document, "get", "/api/cos/tasks", "status");
    assert!(
        status["schema"]["enum"]
            .as_array()
            .is_some_and(|values| values.contains(&json!("blocked")))
    );
    for query in ["limit=0", "limit=201", "offset=-1", "status=done"] {
        let (code, error) = send(client.get(server.url(&format!("/api/cos/tasks?{query}")))).await;
        assert_eq!(code, StatusCode::BAD_REQUEST, "{query}: {error}");
        assert_eq!(error["code"], "VALIDATION_ERROR", "{query}");
    }
    let (code, _) = send(client.get(server.url("/api/cos/tasks?limit=200&status=blocked"))).await;
    assert_eq!(code, StatusCode::OK);

    // Path parameters with a shape say it.
    assert_eq!(
        parameter(
            &document,
            "get",
            "/api/cos/tools/calls/{requestId}",
            "requestId"
        )["schema"]["pattern"],
        "^[A-Za-z0-9._:-]+$"
    );
    assert_eq!(
        parameter(&document, "get", "/api/journal/{date}", "date")["schema"]["format"],
        "date"
    );
    assert_eq!(
        parameter(
            &document,
            "delete",
            "/api/eidoverse/travel/guest/visits/{visitId}",
            "visitId"
        )["schema"]["pattern"],
        "^[0-9a-f]{48}$"
    );
}

#[tokio::test]
async fn changing_a_built_in_catalog_type_is_a_conflict() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let (status, error) = send(
        client
            .put(server.url("/api/catalog/types/character"))
            .json(&json!({ "label": "People" })),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{error}");
    assert_eq!(error["code"], "CONFLICT");
    let document = internal_openapi(&server, &client).await;
    assert!(
        document["paths"]["/api/catalog/types/{name}"]["put"]["responses"]["409"].is_object(),
        "the 409 is documented"
    );
}
