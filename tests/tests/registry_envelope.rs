//! The strict `portos_tool_call` envelope (docs/reference.md#call-envelope):
//! written from the spec, through `ToolCall::parse`, and every case also
//! through `ToolCall::parse_slice` of its bytes (the HTTP route's parse), which
//! must give the same answer.

use portos_core::ToolCall;
use portos_core::contract::{BodyRefusal, ErrorCode, ToolError, ValidationFailure};
use portos_tests as _;
use serde_json::{Value, json};

fn parse(body: &Value) -> Result<ToolCall, ValidationFailure> {
    let parsed = ToolCall::parse(body);
    let bytes = serde_json::to_vec(body).expect("serializable");
    assert_same(&parsed, ToolCall::parse_slice(&bytes), &bytes);
    let pretty = serde_json::to_vec_pretty(body).expect("serializable");
    assert_same(&parsed, ToolCall::parse_slice(&pretty), &pretty);
    parsed
}

/// `parse_slice` of `bytes` answered what `parse` of their JSON answered.
fn assert_same(
    expected: &Result<ToolCall, ValidationFailure>,
    got: Result<ToolCall, BodyRefusal>,
    bytes: &[u8],
) {
    let text = String::from_utf8_lossy(bytes);
    match (expected, got) {
        (Ok(want), Ok(call)) => assert_eq!(&call, want, "{text}"),
        (Err(want), Err(BodyRefusal::Invalid(failure))) => assert_eq!(&failure, want, "{text}"),
        (want, got) => panic!("{text}: parse gave {want:?}, parse_slice {got:?}"),
    }
}

/// `parse_slice` of raw text, against `parse` of the JSON it holds.
fn parse_text(text: &str) -> Result<ToolCall, BodyRefusal> {
    let got = ToolCall::parse_slice(text.as_bytes());
    match serde_json::from_str::<Value>(text) {
        Ok(value) => assert_same(&ToolCall::parse(&value), got, text.as_bytes()),
        Err(_) => assert!(
            matches!(got, Err(BodyRefusal::Malformed(_))),
            "{text}: not JSON, but parse_slice gave {got:?}"
        ),
    }
    ToolCall::parse_slice(text.as_bytes())
}

fn accepted(body: &Value) -> ToolCall {
    match parse(body) {
        Ok(call) => call,
        Err(failure) => panic!("{body} should parse, got {:?}", failure.details),
    }
}

/// The issues of a refused envelope as (path, message) pairs.
fn issues(body: &Value) -> Vec<(String, String)> {
    match parse(body) {
        Ok(call) => panic!("{body} should be refused, parsed as {call:?}"),
        Err(failure) => failure
            .details
            .into_iter()
            .map(|issue| (issue.path, issue.message))
            .collect(),
    }
}

fn paths(body: &Value) -> Vec<String> {
    issues(body).into_iter().map(|(path, _)| path).collect()
}

fn refused_only_at(body: &Value, path: &str) -> String {
    let found = issues(body);
    assert_eq!(
        found.len(),
        1,
        "{body}: expected one issue at {path}, got {found:?}"
    );
    assert_eq!(found[0].0, path, "{body}: wrong path in {found:?}");
    found[0].1.clone()
}

fn minimal() -> Value {
    json!({ "requestId": "req-1", "name": "brain.search" })
}

fn with(key: &str, value: Value) -> Value {
    let mut body = minimal();
    body[key] = value;
    body
}

// ---- defaults -------------------------------------------------------------

#[test]
fn minimal_envelope_gets_every_default() {
    let call = accepted(&minimal());
    assert_eq!(call.request_id, "req-1");
    assert_eq!(call.name, "brain.search");
    assert_eq!(call.version, 1);
    assert!(call.arguments.is_empty(), "arguments default to {{}}");
}

#[test]
fn full_envelope_is_accepted() {
    let call = accepted(&json!({
        "type": "portos_tool_call",
        "requestId": "req-2",
        "name": "goals.update-progress",
        "version": 1,
        "arguments": { "goalQuery": "run", "progress": 40 }
    }));
    assert_eq!(call.version, 1);
    assert_eq!(call.arguments.get("progress"), Some(&json!(40)));
}

// ---- type -----------------------------------------------------------------

#[test]
fn type_must_be_the_call_literal() {
    accepted(&with("type", json!("portos_tool_call")));
    refused_only_at(&with("type", json!("portos_tool_result")), "type");
    refused_only_at(&with("type", json!("")), "type");
    refused_only_at(&with("type", json!(null)), "type");
    refused_only_at(&with("type", json!(1)), "type");
}

// ---- requestId ------------------------------------------------------------

#[test]
fn request_id_is_required_and_a_string() {
    let mut body = minimal();
    body.as_object_mut().expect("object").remove("requestId");
    refused_only_at(&body, "requestId");
    refused_only_at(&with("requestId", json!(42)), "requestId");
    refused_only_at(&with("requestId", json!(null)), "requestId");
}

#[test]
fn request_id_is_trimmed_before_use() {
    let call = accepted(&with("requestId", json!("  \t req-7 \n ")));
    assert_eq!(call.request_id, "req-7");
}

#[test]
fn request_id_limit_is_200_characters_after_trimming() {
    let at_limit = "a".repeat(200);
    assert_eq!(
        accepted(&with("requestId", json!(at_limit.clone()))).request_id,
        at_limit
    );
    // Padding does not count: the length is checked on the trimmed value.
    let padded = format!("   {at_limit}   ");
    assert_eq!(
        accepted(&with("requestId", json!(padded))).request_id,
        at_limit
    );
    refused_only_at(&with("requestId", json!("a".repeat(201))), "requestId");
}

#[test]
fn blank_request_id_is_too_short() {
    refused_only_at(&with("requestId", json!("")), "requestId");
    // Whitespace only is empty once trimmed, not "unsupported characters".
    let message = refused_only_at(&with("requestId", json!("    ")), "requestId");
    assert_ne!(message, "requestId contains unsupported characters");
}

#[test]
fn request_id_allows_letters_digits_dot_underscore_colon_dash() {
    for id in [
        "A",
        "z9",
        "mind:turn-12.call_3",
        "a:b:c",
        "...",
        "--",
        "__",
        "2024-01-01T10:00:00",
    ] {
        assert_eq!(accepted(&with("requestId", json!(id))).request_id, id);
    }
}

#[test]
fn request_id_refuses_other_characters_with_the_contract_message() {
    for id in [
        "a b", "a/b", "a+b", "a@b", "a#b", "é", "a\u{0}b", "a,b", "{a}", "a*",
    ] {
        let message = refused_only_at(&with("requestId", json!(id)), "requestId");
        assert_eq!(
            message, "requestId contains unsupported characters",
            "{id:?}"
        );
    }
}

// ---- name -----------------------------------------------------------------

#[test]
fn name_is_required_and_a_string() {
    let mut body = minimal();
    body.as_object_mut().expect("object").remove("name");
    refused_only_at(&body, "name");
    refused_only_at(&with("name", json!(["brain.search"])), "name");
}

#[test]
fn name_is_trimmed_before_use() {
    assert_eq!(
        accepted(&with("name", json!("  brain.search  "))).name,
        "brain.search"
    );
}

#[test]
fn name_limit_is_100_characters_after_trimming() {
    let at_limit = "n".repeat(100);
    assert_eq!(
        accepted(&with("name", json!(at_limit.clone()))).name,
        at_limit
    );
    assert_eq!(
        accepted(&with("name", json!(format!(" {at_limit} ")))).name,
        at_limit
    );
    refused_only_at(&with("name", json!("n".repeat(101))), "name");
    refused_only_at(&with("name", json!("   ")), "name");
}

#[test]
fn name_allows_no_colon_unlike_request_id() {
    for name in ["brain.search", "goals_update_progress", "a-b", "A9"] {
        accepted(&with("name", json!(name)));
    }
    for name in [
        "brain:search",
        "brain search",
        "brain/search",
        "brain.search!",
        "é",
    ] {
        refused_only_at(&with("name", json!(name)), "name");
    }
}

// ---- version --------------------------------------------------------------

#[test]
fn version_defaults_to_one_and_only_one_is_accepted() {
    assert_eq!(accepted(&with("version", json!(1))).version, 1);
    // JSON has one number type: 1.0 is the number 1.
    assert_eq!(accepted(&with("version", json!(1.0))).version, 1);
    for version in [
        json!(2),
        json!(0),
        json!(-1),
        json!(1.5),
        json!("1"),
        json!(null),
        json!(true),
    ] {
        refused_only_at(&with("version", version), "version");
    }
}

// ---- arguments ------------------------------------------------------------

#[test]
fn arguments_must_be_an_object() {
    let call = accepted(&with("arguments", json!({})));
    assert!(call.arguments.is_empty());
    let call = accepted(&with("arguments", json!({ "nested": { "deep": [1, 2] } })));
    assert_eq!(
        call.arguments.get("nested"),
        Some(&json!({ "deep": [1, 2] }))
    );
    for arguments in [
        json!([]),
        json!([{}]),
        json!(null),
        json!("{}"),
        json!(3),
        json!(false),
    ] {
        refused_only_at(&with("arguments", arguments), "arguments");
    }
}

// ---- strictness -----------------------------------------------------------

#[test]
fn unknown_fields_are_refused() {
    // A body can never claim authority: scope, principal, capabilities are unknown keys.
    for key in [
        "scope",
        "capabilities",
        "authenticated",
        "principal",
        "requestID",
        "args",
    ] {
        let found = issues(&with(key, json!("mind")));
        assert_eq!(found.len(), 1, "{key}: {found:?}");
        assert!(
            found[0].1.contains(key),
            "the issue names the unknown key {key}: {found:?}"
        );
    }
}

#[test]
fn a_body_that_is_not_an_object_is_refused() {
    for body in [json!(null), json!([]), json!("call"), json!(1)] {
        assert!(!issues(&body).is_empty());
    }
}

#[test]
fn every_issue_is_reported_with_its_path() {
    let found = paths(&json!({
        "type": "something_else",
        "requestId": "bad id",
        "name": "bad:name",
        "version": 2,
        "arguments": [],
    }));
    for path in ["type", "requestId", "name", "version", "arguments"] {
        assert!(
            found.iter().any(|p| p == path),
            "missing {path} in {found:?}"
        );
    }
    assert_eq!(found.len(), 5, "{found:?}");
}

#[test]
fn unknown_keys_and_field_issues_are_reported_together() {
    let found = issues(&json!({ "requestId": "", "name": "x", "extra": 1 }));
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found.iter().any(|(path, _)| path == "requestId"));
    assert!(found.iter().any(|(_, message)| message.contains("extra")));
}

#[test]
fn missing_required_fields_are_both_reported() {
    let found = paths(&json!({}));
    assert!(found.contains(&"requestId".to_owned()), "{found:?}");
    assert!(found.contains(&"name".to_owned()), "{found:?}");
}

// ---- the HTTP error it becomes --------------------------------------------

#[test]
fn failure_converts_to_validation_error_400_with_details() {
    let failure =
        parse(&json!({ "requestId": "a b", "name": "x", "version": 2 })).expect_err("two issues");
    let error = ToolError::from(failure);
    assert_eq!(error.code, ErrorCode::ValidationError);
    assert_eq!(error.code.as_str(), "VALIDATION_ERROR");
    assert_eq!(error.status(), 400);
    assert_eq!(error.message, "Validation failed");
    let context = error.context.expect("context carries the details");
    let details = context
        .get("details")
        .and_then(Value::as_array)
        .expect("details array");
    assert_eq!(details.len(), 2, "{details:?}");
    for detail in details {
        let object = detail.as_object().expect("each detail is an object");
        let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["message", "path"]);
        assert!(object["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    let detail_paths: Vec<&str> = details.iter().filter_map(|d| d["path"].as_str()).collect();
    assert_eq!(detail_paths.len(), 2);
    assert!(detail_paths.contains(&"requestId") && detail_paths.contains(&"version"));
    let request_id_issue = details
        .iter()
        .find(|d| d["path"] == "requestId")
        .expect("requestId issue");
    assert_eq!(
        request_id_issue["message"],
        "requestId contains unsupported characters"
    );
}

// ---- GET /calls/:requestId params -------------------------------------------

#[test]
fn the_calls_route_param_follows_the_same_request_id_rule() {
    use portos_core::contract::check_request_id;
    let ok = |raw: &str| check_request_id(&json!(raw)).map_err(|issue| issue.message);
    assert_eq!(
        ok("  mind:turn-1.call_2  "),
        Ok("mind:turn-1.call_2".to_owned())
    );
    assert_eq!(ok(&"a".repeat(200)), Ok("a".repeat(200)));
    assert!(ok(&"a".repeat(201)).is_err());
    assert!(ok("   ").is_err());
    assert_eq!(
        ok("a b"),
        Err("requestId contains unsupported characters".to_owned())
    );
    let issue = check_request_id(&json!(7)).expect_err("not a string");
    assert_eq!(issue.path, "requestId");
}

// ---- The same rules on the body's bytes (parse_slice) ------------------------

#[test]
fn bytes_that_take_the_long_way_get_the_same_answer() {
    let valid = [
        r#"{"requestId":"r1","name":"time.now"}"#,
        r#"  {"name":"time.now","requestId":" r1 ","arguments":{"a":[1,{"b":null}]}}  "#,
        r#"{"requestId":"r\u0031","name":"time\u002enow"}"#,
        r#"{"type":"portos_tool_call","requestId":"r1","name":"t","version":1.0,"arguments":{}}"#,
        r#"{"requestId":"r1","name":"t","version":1e0}"#,
        r#"{"requestId":"r1","name":"t","arguments":{"k":1,"k":2}}"#,
        // A repeated key: the last one counts, as in the parsed JSON.
        r#"{"requestId":"r1","name":"t","requestId":"r2"}"#,
    ];
    for text in valid {
        assert!(parse_text(text).is_ok(), "{text}");
    }
    let refused = [
        r#"["portos_tool_call","r1","t",1,{}]"#,
        r#"{"requestId":"r1","name":"t","type":null}"#,
        r#"{"requestId":"r1","name":"t","version":null}"#,
        r#"{"requestId":"r1","name":"t","arguments":null}"#,
        r#"{"requestId":"r1","name":"t","version":2}"#,
        r#"{"requestId":"r1","name":"t","version":-0.0}"#,
        r#"{"requestId":"r 1","name":"t"}"#,
        r#"{"requestId":"r1","name":"t:x"}"#,
        r#"{"requestId":"r1","name":"   "}"#,
        r#"{"requestId":7,"name":"t"}"#,
        r#"{"requestId":"r1","name":"t","extra":1}"#,
        r#"{"requestId":"r1","name":"t","type":"other"}"#,
        r#"{}"#,
        r#""text""#,
        r#"null"#,
    ];
    for text in refused {
        assert!(
            matches!(parse_text(text), Err(BodyRefusal::Invalid(_))),
            "{text}"
        );
    }
    for text in [
        r#"{"requestId":"r1","name":"t"} x"#,
        r#"{"requestId":"#,
        "",
        "{,}",
    ] {
        assert!(
            matches!(parse_text(text), Err(BodyRefusal::Malformed(_))),
            "{text}"
        );
    }
}
