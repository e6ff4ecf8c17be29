//! TOOL_UNAVAILABLE (docs/reference.md#call-pipeline, 409): a tool switched off
//! at run time while a feature it needs is not ready.

use portos_core::{AdapterError, ErrorCode, Registry, ToolCall, portos_tool};
use portos_tests as _;
portos_core::use_vocabulary!(portos_words);
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    city: String,
}

/// Read the forecast from a provider that may not be configured.
#[portos_tool(name = "avail.forecast", scopes = ["ui"], side_effect = "read")]
async fn forecast(args: Args) -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "summary": format!("Sunny in {}", args.city) }))
}

fn registry() -> std::sync::Arc<Registry> {
    Registry::builder().build().expect("registry")
}

fn call(name: &str, arguments: Value) -> ToolCall {
    let Value::Object(arguments) = arguments else {
        unreachable!("arguments are objects")
    };
    ToolCall::new("a-1", name, arguments)
}

#[tokio::test]
async fn an_unavailable_tool_answers_409_until_made_available() {
    let registry = registry();
    assert!(registry.set_unavailable("avail_forecast", "no weather provider is configured"));
    let error = registry
        .call(
            &portos_words::principal::ui(false),
            call("avail.forecast", json!({"city": "Oslo"})),
        )
        .await
        .expect_err("unavailable");
    assert_eq!(error.code, ErrorCode::ToolUnavailable);
    assert_eq!(error.status(), 409);
    assert_eq!(
        error.message,
        "Tool 'avail.forecast' is unavailable: no weather provider is configured"
    );

    assert!(registry.set_available("avail.forecast"));
    let result = registry
        .call(
            &portos_words::principal::ui(false),
            call("avail.forecast", json!({"city": "Oslo"})),
        )
        .await
        .expect("available again");
    assert!(result.is_completed());
}

#[tokio::test]
async fn scope_is_checked_first_and_arguments_after() {
    let registry = registry();
    registry.set_unavailable("avail.forecast", "down");
    let error = registry
        .call(
            &portos_words::principal::voice(),
            call("avail.forecast", json!({"city": "Oslo"})),
        )
        .await
        .expect_err("wrong scope");
    assert_eq!(error.code, ErrorCode::ToolScopeDenied);
    let error = registry
        .call(
            &portos_words::principal::ui(false),
            call("avail.forecast", json!({"town": 1})),
        )
        .await
        .expect_err("unavailable before validation");
    assert_eq!(error.code, ErrorCode::ToolUnavailable);
}

#[test]
fn unknown_names_are_reported() {
    let registry = registry();
    assert!(!registry.set_unavailable("no.such.tool", "x"));
    assert!(!registry.set_available("no.such.tool"));
    assert_eq!(registry.unavailable_reason("avail.forecast"), None);
}
