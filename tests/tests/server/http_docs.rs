//! The route inventory and the OpenAPI documents against the real binary:
//! the inventory lists exactly what is mounted, documents are served and
//! dumped byte for byte, and the OpenAPI document holds together.

use std::collections::HashSet;

use portos_tests::{ServerProcess, portos_command};
use reqwest::{Client, Method, StatusCode};
use serde_json::Value;

fn dump(flag: &str) -> Vec<u8> {
    let output = portos_command().arg(flag).output().expect("portos runs");
    assert!(
        output.status.success(),
        "{flag}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

async fn get_json(client: &Client, server: &ServerProcess, path: &str) -> (Vec<u8>, Value) {
    let response = client.get(server.url(path)).send().await.expect("request");
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    assert_eq!(response.headers()["content-type"], "application/json");
    let bytes = response.bytes().await.expect("body").to_vec();
    let value = serde_json::from_slice(&bytes).expect("JSON");
    (bytes, value)
}

#[tokio::test]
async fn every_listed_operation_is_served_and_nothing_else() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let (_, catalog) = get_json(&client, &server, "/api/api-docs/catalog.json").await;
    let operations = catalog["operations"].as_array().expect("operations");
    assert_eq!(
        catalog["stats"]["operations"].as_u64(),
        Some(operations.len() as u64)
    );
    assert!(operations.len() >= 11);
    let mut listed = HashSet::new();
    for operation in operations {
        let method = operation["method"].as_str().expect("method");
        let path = operation["path"].as_str().expect("path");
        listed.insert((method.to_owned(), path.to_owned()));
        // Fill path parameters; the route must exist (no route-level 404 or 405).
        let concrete: String = path
            .split('/')
            .map(|s| if s.starts_with('{') { "probe-1" } else { s })
            .collect::<Vec<_>>()
            .join("/");
        let response = client
            .request(
                Method::from_bytes(method.as_bytes()).expect("method"),
                server.url(&concrete),
            )
            .header("content-type", "application/json")
            .body("{}")
            .send()
            .await
            .expect("request");
        let status = response.status();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
        assert_ne!(
            body["code"], "NOT_FOUND",
            "{method} {path} is listed but not served"
        );
    }
    // The same paths with a method nobody declared: a JSON 405.
    let response = client
        .delete(server.url("/api/cos/tools"))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["code"], "METHOD_NOT_ALLOWED");
    // And what is not listed is not served.
    let response = client
        .get(server.url("/api/cos/unlisted"))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert!(!listed.contains(&("GET".to_owned(), "/api/cos/unlisted".to_owned())));
}

#[tokio::test]
async fn documents_are_served_and_dumped_byte_for_byte() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    for (path, flag) in [
        ("/api/api-docs/catalog.json", "--dump-routes"),
        ("/api/api-docs/internal/openapi.json", "--dump-openapi"),
        ("/api/api-docs/openapi.json", "--dump-openapi-public"),
        ("/api/api-docs/events.json", "--dump-events"),
        ("/api/api-docs/tools.min.json", "--dump-tools-min"),
    ] {
        let (served, _) = get_json(&client, &server, path).await;
        let mut expected = served.clone();
        expected.push(b'\n');
        assert_eq!(dump(flag), expected, "{path} vs {flag}");
    }
}

#[test]
fn the_route_catalog_classifies_each_operation() {
    let catalog: Value = serde_json::from_slice(&dump("--dump-routes")).expect("JSON");
    let find = |method: &str, path: &str| {
        catalog["operations"]
            .as_array()
            .and_then(|ops| {
                ops.iter()
                    .find(|op| op["method"] == method && op["path"] == path)
            })
            .cloned()
            .unwrap_or_else(|| panic!("{method} {path} is listed"))
    };
    let health = find("GET", "/api/system/health");
    assert_eq!(health["access"], "always-public");
    assert_eq!(health["sideEffect"], "read");
    assert_eq!(health["domain"], "system");
    let call = find("POST", "/api/cos/tools/call");
    assert_eq!(call["access"], "authenticated-ui");
    assert_eq!(call["sideEffect"], "write");
    assert_eq!(call["domain"], "cos");
    assert_eq!(call["domainLabel"], "Cos");
    assert_eq!(call["mountPath"], "/api/cos");
    assert_eq!(call["contractStatus"], "modeled");
    let logout = find("POST", "/api/auth/logout");
    assert_eq!(logout["sideEffect"], "destructive");
    // Sorted by path, then method.
    let keys: Vec<(String, String)> = catalog["operations"]
        .as_array()
        .expect("operations")
        .iter()
        .map(|op| {
            (
                op["path"].as_str().unwrap_or("").to_owned(),
                op["method"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn the_internal_openapi_document_holds_together() {
    let document: Value = serde_json::from_slice(&dump("--dump-openapi")).expect("JSON");
    assert_eq!(document["openapi"], "3.0.3");
    assert_eq!(document["info"]["title"], "PortOS Internal HTTP API");
    let schemas = document["components"]["schemas"]
        .as_object()
        .expect("schemas");
    let mut operation_ids = HashSet::new();
    // PortOS's own classes: its mounts and always-public prefixes.
    let classifier = portos::builder(
        portos_server::Config::new("portos"),
        &portos::Options::default(),
    )
    .expect("the PortOS builder")
    .classifier();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("path item") {
            let id = operation["operationId"]
                .as_str()
                .expect("operationId")
                .to_owned();
            assert!(
                operation_ids.insert(id.clone()),
                "duplicate operationId {id}"
            );
            assert!(id.starts_with(&format!("{method}_")), "{id}");
            // Every `{param}` of the path is declared as a required path parameter.
            for param in path
                .split('/')
                .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
            {
                let declared = operation["parameters"].as_array().is_some_and(|ps| {
                    ps.iter()
                        .any(|p| p["name"] == param && p["in"] == "path" && p["required"] == true)
                });
                assert!(declared, "{method} {path} declares {param}");
            }
            let security = operation["security"].as_array().expect("security");
            if classifier.is_always_public(path) {
                assert!(security.is_empty());
            } else {
                assert_eq!(security.len(), 2, "{method} {path}");
            }
        }
    }
    // Every $ref points at a component that exists.
    fn refs(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(target)) = map.get("$ref") {
                    out.push(target.clone());
                }
                map.values().for_each(|v| refs(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    let mut targets = Vec::new();
    refs(&document, &mut targets);
    assert!(!targets.is_empty());
    for target in targets {
        let name = target
            .strip_prefix("#/components/schemas/")
            .expect("component refs only");
        assert!(schemas.contains_key(name), "{target} resolves");
    }
    // The call operation is fully modeled.
    let call = &document["paths"]["/api/cos/tools/call"]["post"];
    assert_eq!(
        call["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/ToolCall"
    );
    assert_eq!(
        call["responses"]["404"]["x-portos-error-codes"][0],
        "TOOL_NOT_FOUND"
    );
}

#[test]
fn the_public_openapi_document_exposes_nothing_by_default() {
    let document: Value = serde_json::from_slice(&dump("--dump-openapi-public")).expect("JSON");
    assert_eq!(document["info"]["title"], "PortOS Public API");
    assert_eq!(document["paths"], serde_json::json!({}));
    assert_eq!(document["tags"], serde_json::json!([]));
}

/// docs/reference.md#tool-resource: exactly the annotated operations, inputs
/// flattened into one closed object, declared failures ascending, and small
/// next to the OpenAPI.
#[test]
fn tools_min_lists_the_annotated_operations() {
    let bytes = dump("--dump-tools-min");
    let resource: Value = serde_json::from_slice(&bytes).expect("JSON");
    assert_eq!(resource["type"], "portos_tool_resource");
    assert_eq!(resource["schemaVersion"], 1);
    assert_eq!(
        resource["source"],
        serde_json::json!({ "document": "openapi", "version": "3.0.3" })
    );
    assert_eq!(
        resource["schemaDialect"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let openapi: Value = serde_json::from_slice(&dump("--dump-openapi")).expect("JSON");
    let mut annotated = Vec::new();
    for (path, item) in openapi["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("item") {
            if let Some(name) = operation["x-portos-tool"]["name"].as_str() {
                annotated.push((name.to_owned(), method.to_uppercase(), path.clone()));
            }
        }
    }
    let tools = resource["tools"].as_array().expect("tools");
    let mut listed: Vec<(String, String, String)> = tools
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().expect("name").to_owned(),
                tool["binding"]["method"]
                    .as_str()
                    .expect("method")
                    .to_owned(),
                tool["binding"]["path"].as_str().expect("path").to_owned(),
            )
        })
        .collect();
    annotated.sort();
    listed.sort();
    assert_eq!(listed, annotated);
    assert!(!listed.is_empty());
    let stats = &resource["stats"];
    assert_eq!(stats["total"].as_u64(), Some(tools.len() as u64));

    let capture = tools
        .iter()
        .find(|tool| tool["name"] == "inbox.capture")
        .expect("inbox.capture");
    assert_eq!(capture["type"], "portos_tool");
    assert_eq!(capture["providerName"], "inbox_capture");
    assert_eq!(capture["binding"]["protocol"], "http");
    assert_eq!(capture["policy"]["privacy"], "personal");
    assert_eq!(capture["policy"]["sideEffect"], "write");
    assert_eq!(capture["policy"]["idempotent"], false);
    assert_eq!(capture["input_schema"]["type"], "object");
    assert_eq!(capture["input_schema"]["additionalProperties"], false);
    assert_eq!(
        capture["input_schema"]["required"],
        serde_json::json!(["text"])
    );
    let statuses: Vec<u64> = capture["failures"]
        .as_array()
        .expect("failures")
        .iter()
        .map(|failure| failure["status"].as_u64().expect("status"))
        .collect();
    assert!(
        statuses.windows(2).all(|pair| pair[0] <= pair[1]),
        "{statuses:?}"
    );
    let recent = tools
        .iter()
        .find(|tool| tool["name"] == "inbox.recent")
        .expect("inbox.recent");
    // Query parameters join the input object.
    assert!(recent["input_schema"]["properties"]["limit"].is_object());
    assert_eq!(recent["policy"]["idempotent"], true);
    let codes: Vec<&str> = resource["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .filter_map(|error| error["code"].as_str())
        .collect();
    assert_eq!(
        codes,
        [
            "BAD_REQUEST",
            "UNAUTHORIZED",
            "FORBIDDEN",
            "NOT_FOUND",
            "CONFLICT",
            "VALIDATION_ERROR",
            "INTERNAL_ERROR",
            "BAD_GATEWAY",
            "SERVICE_UNAVAILABLE"
        ]
    );
}

#[test]
fn documents_match_their_snapshots() {
    for (name, flag) in [
        ("routes_catalog", "--dump-routes"),
        ("openapi_internal", "--dump-openapi"),
        ("openapi_public", "--dump-openapi-public"),
        ("events", "--dump-events"),
        ("asyncapi", "--dump-asyncapi"),
        ("tools_min", "--dump-tools-min"),
    ] {
        let document: Value = serde_json::from_slice(&dump(flag)).expect("JSON");
        insta::assert_json_snapshot!(name, document);
    }
}

#[tokio::test]
async fn asyncapi_names_the_configured_address() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let (served, document) = get_json(&client, &server, "/api/api-docs/asyncapi.json").await;
    let host = server.base_url.trim_start_matches("http://");
    // The server was started on port 0: the document names the configured
    // bind address, which is what a dump with the same flags prints.
    assert_eq!(
        document["servers"]["local"]["host"], "127.0.0.1:0",
        "{host}"
    );
    let output = portos_command()
        .args(["--dump-asyncapi", "--bind", "127.0.0.1:0"])
        .output()
        .expect("portos runs");
    let mut expected = served;
    expected.push(b'\n');
    assert_eq!(output.stdout, expected);
}
