//! An input schema written by hand as a JSON Schema 2020-12 document (its
//! root names the dialect with `$schema`) travels as written — `$defs`,
//! `$anchor`, a local `$ref`, `allOf`/`anyOf`, `if`/`then`/`else` — and the
//! registry enforces exactly what it says (docs/writing-a-tool.md).

use std::borrow::Cow;

use portos_core::schema::DRAFT_2020_12;
use portos_core::{AdapterError, ErrorCode, Registry, ToolCall, portos_tool};
use portos_tests as _;
portos_core::use_vocabulary!(portos_words);
use portos_words::principal;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
struct Reach {
    contact_method: Option<String>,
    phone: Option<String>,
    email: Option<String>,
}

fn written() -> Value {
    json!({
        "$schema": DRAFT_2020_12,
        "type": "object",
        "$defs": {"address": {"$anchor": "addressDef", "type": "object",
            "properties": {"city": {"type": "string", "minLength": 2}}}},
        "properties": {
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

impl JsonSchema for Reach {
    fn schema_name() -> Cow<'static, str> {
        "Reach".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        Schema::try_from(written()).expect("the written schema is an object")
    }
}

/// Says how a contact would be reached.
#[portos_tool(
    name = "contact.reach",
    scopes = ["ui"],
    side_effect = "read",
    not_strict = "its conditionals and its `$ref` are what the test is about",
)]
async fn reach(args: Reach) -> Result<Value, AdapterError> {
    let by = match args.contact_method.as_deref() {
        Some("phone") => args.phone,
        _ => args.email,
    };
    Ok(json!({ "ok": true, "summary": format!("via {}", by.unwrap_or_default()) }))
}

fn registry() -> std::sync::Arc<Registry> {
    Registry::builder()
        .build()
        .expect("the linked tool is valid")
}

/// Call number `n` (request ids are idempotency keys, so each is new).
fn call(n: usize, arguments: &Value) -> ToolCall {
    let request_id = format!("r-{n}");
    ToolCall::parse(
        &json!({"requestId": request_id, "name": "contact.reach", "arguments": arguments}),
    )
    .expect("a valid envelope")
}

#[test]
fn the_schema_is_listed_as_written() {
    let registry = registry();
    let tool = registry.resolve("contact.reach").expect("linked");
    let mut listed = tool.input_schema.clone();
    // The generator names the type at the root; everything else is as written.
    if let Value::Object(root) = &mut listed {
        root.remove("title");
    }
    assert_eq!(listed, written());
}

#[tokio::test]
async fn the_registry_enforces_what_the_schema_says() {
    let registry = registry();
    let ui = principal::ui(false);
    for (n, accepted) in [
        json!({"contactMethod": "phone", "phone": "555"}),
        json!({"contactMethod": "email", "email": "a@b.c"}),
        json!({"email": "a@b.c", "address": {"city": "Lyon"}}),
    ]
    .iter()
    .enumerate()
    {
        let result = registry.call(&ui, call(n, accepted)).await;
        assert!(result.is_ok(), "{accepted} should run: {result:?}");
    }
    for (n, refused) in [
        // `then`: a phone contact needs a phone.
        json!({"contactMethod": "phone", "email": "a@b.c"}),
        // `else`: otherwise an e-mail address.
        json!({"phone": "555"}),
        // `allOf`/`anyOf`: one of the two at least.
        json!({"contactMethod": "email"}),
        // `$ref` into `$defs`: the address's own rule.
        json!({"email": "a@b.c", "address": {"city": "L"}}),
        // `additionalProperties: false`.
        json!({"email": "a@b.c", "fax": "1"}),
    ]
    .iter()
    .enumerate()
    {
        let error = registry
            .call(&ui, call(100 + n, refused))
            .await
            .expect_err(&format!("{refused} should be refused"));
        assert_eq!(
            error.code,
            ErrorCode::ToolValidationError,
            "{refused}: {error:?}"
        );
        assert_eq!(error.status(), 400, "{refused}");
    }
}
