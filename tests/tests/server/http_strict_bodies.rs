//! A body documented as an object is only ever an object: serde would read
//! a struct from an array of its fields in order, which let `[true]` enable
//! Agent Tools. Each refusal is the contract's 400 and changes nothing.

use portos_tests::ServerProcess;
use reqwest::StatusCode;
use serde_json::{Value, json};

#[tokio::test]
async fn arrays_scalars_and_null_are_refused_where_an_object_is_documented() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let before: Value = client
        .get(server.url("/api/settings/agent-context"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    for (method, path) in [
        ("PUT", "/api/settings/agent-context"),
        ("PUT", "/api/eidoverse/settings"),
        ("PUT", "/api/settings/location"),
        ("POST", "/api/health/drinks"),
        ("POST", "/api/goals"),
        ("PUT", "/api/cos/mind/capabilities"),
    ] {
        for body in [
            json!([true]),
            json!(["wine", 2]),
            json!([]),
            json!(true),
            json!(3),
            Value::Null,
        ] {
            let request = match method {
                "PUT" => client.put(server.url(path)),
                _ => client.post(server.url(path)),
            };
            let response = request.json(&body).send().await.expect("request");
            let status = response.status();
            let error: Value = response.json().await.expect("json");
            assert_eq!(
                status,
                StatusCode::BAD_REQUEST,
                "{method} {path} {body}: {error}"
            );
            assert_eq!(error["code"], "VALIDATION_ERROR", "{method} {path} {body}");
        }
    }
    let after: Value = client
        .get(server.url("/api/settings/agent-context"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(after, before, "nothing changed");
    assert_eq!(after["enabled"], false);
    let goals: Value = client
        .get(server.url("/api/goals"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(goals["goals"], json!([]));
}

/// Every operation of the internal OpenAPI whose JSON body is documented as
/// an object refuses an array, a scalar, `null`, an unknown key (where the
/// object is closed) and a wrongly typed field with the contract's 400, and
/// nothing readable changes. Authenticated, so the gate lets each through to
/// its body check.
#[tokio::test]
async fn every_documented_object_body_refuses_hostile_shapes() {
    let (server, client, token) = signed_in("strict bodies").await;
    let send = |method: &str, path: &str, body: Option<&Value>| {
        let method =
            reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).expect("an HTTP method");
        let mut request = client.request(method, server.url(path)).bearer_auth(&token);
        if let Some(body) = body {
            request = request.json(body);
        }
        request.send()
    };
    // The public API groups open (behind the password), so their bodies are
    // reached too.
    let exposed = send(
        "put",
        "/api/settings/api-access",
        Some(&json!({
            "brain": { "exposed": true, "requireAuth": true },
            "clock": { "exposed": true, "requireAuth": true },
        })),
    )
    .await
    .expect("request");
    assert_eq!(exposed.status(), StatusCode::OK);
    let document: Value = send("get", "/api/api-docs/internal/openapi.json", None)
        .await
        .expect("openapi")
        .json()
        .await
        .expect("json");

    let readable = stable_reads(&document, &send).await;
    let mut checked = 0;
    for (path, operations) in document["paths"].as_object().into_iter().flatten() {
        // JSON-RPC answers its own error shape
        // (docs/reference.md#mcp-transport).
        if path == "/api/agent-context/mcp" {
            continue;
        }
        for (method, operation) in operations.as_object().into_iter().flatten() {
            let schema = &operation["requestBody"]["content"]["application/json"]["schema"];
            let Some(schema) = resolved(&document, schema).filter(|s| is_object(s)) else {
                continue;
            };
            let concrete = path.replace(['{', '}'], "");
            for body in hostile_bodies(&document, schema) {
                let response = send(method, &concrete, Some(&body)).await.expect("request");
                let status = response.status();
                let error: Value = response.json().await.unwrap_or(Value::Null);
                assert_eq!(
                    status,
                    StatusCode::BAD_REQUEST,
                    "{method} {path} {body}: {error}"
                );
                assert_eq!(
                    error["code"], "VALIDATION_ERROR",
                    "{method} {path} {body}: {error}"
                );
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 30,
        "only {checked} operations take an object body"
    );
    for (path, before) in readable {
        let after: Value = send("get", &path, None)
            .await
            .expect("request")
            .json()
            .await
            .expect("json");
        assert_eq!(after, before, "GET {path} changed");
    }
}

/// Views of the machine rather than of what was stored: they move on their
/// own (processes come and go while other programs run), so they say
/// nothing about whether a refused write changed anything.
const LIVE_VIEWS: [&str; 5] = [
    "/api/system/",
    "/api/public/clock/",
    "/api/cos/agents",
    "/api/cos/mind/local-context",
    "/explorer",
];

/// The parameterless GET operations of stored state whose body is the same
/// on two reads in a row, with that body.
async fn stable_reads<F, Fut>(document: &Value, send: &F) -> Vec<(String, Value)>
where
    F: Fn(&str, &str, Option<&Value>) -> Fut,
    Fut: std::future::Future<Output = reqwest::Result<reqwest::Response>>,
{
    let mut stable = Vec::new();
    for (path, operations) in document["paths"].as_object().into_iter().flatten() {
        if path.contains('{')
            || operations.get("get").is_none()
            || path.starts_with("/api/api-docs")
            || LIVE_VIEWS.iter().any(|live| path.starts_with(live))
        {
            continue;
        }
        let mut reads = Vec::new();
        for _ in 0..2 {
            let Ok(response) = send("get", path, None).await else {
                break;
            };
            if !response.status().is_success() {
                break;
            }
            match response.json::<Value>().await {
                Ok(body) => reads.push(body),
                Err(_) => break,
            }
        }
        if let [first, second] = reads.as_slice()
            && first == second
        {
            stable.push((path.clone(), first.clone()));
        }
    }
    assert!(stable.len() >= 10, "only {} stable reads", stable.len());
    stable
}

/// A schema with its `$ref` followed into the document's components.
fn resolved<'a>(document: &'a Value, schema: &'a Value) -> Option<&'a Value> {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let name = reference.strip_prefix("#/components/schemas/")?;
            resolved(document, &document["components"]["schemas"][name])
        }
        None if schema.is_object() => Some(schema),
        None => None,
    }
}

fn is_object(schema: &Value) -> bool {
    schema["type"] == "object" || schema.get("properties").is_some()
}

/// An array, a scalar, `null`, an unknown key when the object is closed, and
/// the first typed property with a value of another type.
fn hostile_bodies(document: &Value, schema: &Value) -> Vec<Value> {
    let mut bodies = vec![
        json!([true]),
        json!(["wine", 2]),
        json!(3),
        json!("text"),
        Value::Null,
    ];
    if schema["additionalProperties"] == false {
        bodies.push(json!({ "zzNotAField": 1 }));
    }
    let typed = schema["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .find_map(|(name, property)| {
            let property = resolved(document, property)?;
            let wrong = match property["type"].as_str()? {
                "string" => json!(12345),
                "integer" | "number" => json!("not a number"),
                "boolean" => json!("yes"),
                "array" => json!({ "not": "an array" }),
                "object" => json!(["not", "an", "object"]),
                _ => return None,
            };
            Some(json!({ name.clone(): wrong }))
        });
    bodies.extend(typed);
    bodies
}

/// Text holding U+0000: PostgreSQL's text cannot hold it, so on that
/// engine a route answers the contract's 400, a tool call fails naming the
/// reason, a look-up by such text is refused rather than a server error,
/// and nothing is stored. SQLite stores it as it is (the documents allow
/// it). Runs on whichever engine the suite runs on.
#[tokio::test]
async fn text_holding_nul_is_refused_on_postgresql_and_stores_nothing() {
    let (server, client, token) = signed_in("no nul here").await;
    let answer = |request: reqwest::RequestBuilder| async {
        let response = request.bearer_auth(&token).send().await.expect("request");
        let status = response.status();
        (status, response.json::<Value>().await.expect("a JSON body"))
    };
    let refused = |status: StatusCode, body: &Value| {
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["code"], "VALIDATION_ERROR", "{body}");
        assert_eq!(
            body["context"]["details"][0]["message"],
            "Text may not contain the NUL character (U+0000).",
            "{body}"
        );
    };

    let (status, goals_before) = answer(client.get(server.url("/api/goals"))).await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = answer(
        client
            .post(server.url("/api/goals"))
            .json(&json!({ "title": "before\u{0}after" })),
    )
    .await;
    if !test_postgres::suite_on_postgres() {
        assert_eq!(status, StatusCode::CREATED, "{body}");
        assert_eq!(body["title"], "before\u{0}after", "stored as it is");
        return;
    }
    refused(status, &body);
    assert_eq!(
        answer(client.get(server.url("/api/goals"))).await.1,
        goals_before
    );

    // A look-up by such text: refused, not a server error.
    let (status, body) = answer(client.get(server.url("/api/goals/goal%00id"))).await;
    refused(status, &body);

    let call = |request_id: &str, name: &str, arguments: Value| {
        client
            .post(server.url("/api/cos/tools/call"))
            .json(&json!({ "requestId": request_id, "name": name, "arguments": arguments }))
    };
    let (status, body) = answer(call("nul-1", "brain.capture", json!({ "text": "a\u{0}b" }))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["state"], "failed", "{body}");
    assert_eq!(
        body["error"], "Text may not contain the NUL character (U+0000).",
        "{body}"
    );
    let (status, body) = answer(call("nul-2", "brain.recent", json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["items"], json!([]), "nothing was captured");
}

/// A server with `password` set from the environment, a client, and a
/// session token.
async fn signed_in(password: &str) -> (ServerProcess, reqwest::Client, String) {
    let server = ServerProcess::start_with_env(
        tempfile::tempdir().expect("temp dir"),
        &[],
        &[("PORTOS_PASSWORD", password)],
    );
    let client = portos_tests::http_client();
    let token = portos_tests::login(&client, &server, password).await;
    (server, client, token)
}
