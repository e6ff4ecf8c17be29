//! Resolution, the order of checks and result normalization
//! (docs/reference.md#name-resolution, docs/reference.md#call-pipeline,
//! docs/reference.md#result-envelope), written from the spec against
//! `Registry::call`.

use portos_core::{
    AdapterError, Authority, Capabilities, Capability, ErrorCode, OutputJson, Registry, ToolCall,
    ToolError, ToolResult, ToolState, portos_tool,
};
use portos_tests as _;
portos_core::use_vocabulary!(portos_words);
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

// ---- the tools under test -------------------------------------------------

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TextArgs {
    text: String,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Target {
    count: u32,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WriteArgs {
    target: Target,
    #[serde(default)]
    note: Option<String>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GreetArgs {
    who: String,
    #[serde(default = "default_greeting")]
    greeting: String,
}

fn default_greeting() -> String {
    "hello".to_owned()
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct OutcomeArgs {
    mode: String,
}

/// Read the text back.
#[portos_tool(
    name = "pipe.read",
    scopes = ["agent", "mind", "ui"],
    capabilities = ["readPortos"],
    side_effect = "read",
)]
async fn pipe_read(args: TextArgs) -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "text": args.text }))
}

/// Write a count.
#[portos_tool(
    name = "pipe.write",
    scopes = ["agent", "mind", "ui"],
    capabilities = ["writePortos"],
    side_effect = "write",
)]
async fn pipe_write(args: WriteArgs) -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "count": args.target.count, "note": args.note }))
}

/// Recent items, with a legacy voice name as an extra alias.
#[portos_tool(
    name = "pipe.recent",
    aliases = ["pipe_list_recent", "pipe_recent"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
)]
async fn pipe_recent() -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "items": [] }))
}

/// A voice-reachable write that needs a grant elsewhere.
#[portos_tool(
    name = "pipe.voice-note",
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["writePortos"],
    side_effect = "write",
)]
async fn pipe_voice_note(args: TextArgs) -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "noted": args.text }))
}

/// Queue work; needs two grants.
#[portos_tool(
    name = "pipe.queue",
    scopes = ["agent", "mind"],
    capabilities = ["createTasks", "writePortos"],
    side_effect = "supervised-write",
)]
async fn pipe_queue(args: TextArgs) -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "state": "queued", "title": args.text }))
}

/// Wipe something; ui and mind only.
#[portos_tool(
    name = "pipe.wipe",
    scopes = ["mind", "ui"],
    capabilities = ["manageMind"],
    side_effect = "destructive",
)]
async fn pipe_wipe() -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "wiped": true }))
}

/// Greet someone (a declared default the adapter must see).
#[portos_tool(name = "pipe.greet", scopes = ["ui"], side_effect = "read")]
async fn pipe_greet(args: GreetArgs) -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "line": format!("{} {}", args.greeting, args.who) }))
}

/// Return whatever outcome the mode asks for.
#[portos_tool(name = "pipe.outcome", scopes = ["ui", "voice"], side_effect = "read")]
async fn pipe_outcome(args: OutcomeArgs) -> Result<Value, AdapterError> {
    Ok(match args.mode.as_str() {
        "completed" => json!({ "ok": true, "summary": "fine" }),
        "queued" => json!({ "ok": true, "state": "queued" }),
        "ok-false" => json!({ "ok": false, "summary": "No goal matched." }),
        "error-first" => json!({ "ok": false, "error": "the error", "summary": "the summary" }),
        "state-failed" => json!({ "ok": true, "state": "failed", "error": "boom" }),
        "bare-failure" => json!({ "ok": false }),
        "long-failure" => json!({ "ok": false, "summary": "s".repeat(800) }),
        "array" => json!(["not", "an", "object"]),
        "string" => json!("done"),
        "null" => Value::Null,
        "err" => return Err(AdapterError::new("disk on fire")),
        "long-err" => return Err(AdapterError::new(long_message())),
        "empty-err" => return Err(AdapterError::new("")),
        "panic" => panic!("the adapter blew up"),
        other => return Err(AdapterError::new(format!("unknown mode {other}"))),
    })
}

/// 700 characters, many of them multi-byte, so a byte cut would differ.
fn long_message() -> String {
    "é€x".repeat(700 / 3 + 1)
}

// ---- helpers ----------------------------------------------------------------

/// The registry as PortOS builds it: its name is in what callers are told.
fn registry() -> std::sync::Arc<Registry> {
    Registry::builder()
        .product("PortOS")
        .build()
        .expect("the linked tools are valid")
}

fn call(request_id: &str, name: &str, arguments: Value) -> ToolCall {
    let mut body = json!({ "requestId": request_id, "name": name });
    body["arguments"] = arguments;
    ToolCall::parse(&body).expect("a valid envelope")
}

async fn run(registry: &Registry, authority: Authority, call: ToolCall) -> ToolResult {
    let name = call.name.clone();
    match registry.call(&authority, call).await {
        Ok(result) => result,
        Err(error) => panic!("{name} should run for {authority:?}, refused: {error:?}"),
    }
}

async fn refuse(registry: &Registry, authority: Authority, call: ToolCall) -> ToolError {
    let name = call.name.clone();
    match registry.call(&authority, call).await {
        Ok(result) => panic!("{name} should be refused for {authority:?}, ran: {result:?}"),
        Err(error) => error,
    }
}

fn grants(capabilities: &[Capability]) -> Capabilities {
    capabilities.iter().copied().collect()
}

fn mind(capabilities: &[Capability]) -> Authority {
    portos_words::principal::mind(grants(capabilities))
}

fn agent(capabilities: &[Capability]) -> Authority {
    portos_words::principal::agent(grants(capabilities))
}

fn assert_refusal(error: &ToolError, code: ErrorCode, status: u16, message: &str) {
    assert_eq!(error.code, code, "{error:?}");
    assert_eq!(error.status(), status, "{error:?}");
    assert_eq!(error.message, message, "{error:?}");
}

const AUTH_MESSAGE: &str = "Mutating tool calls require an authenticated PortOS session";
const READ: Capability = portos_words::READ_PORTOS;
const WRITE: Capability = portos_words::WRITE_PORTOS;

// ---- docs/reference.md#name-resolution resolution ---------------------------

#[tokio::test]
async fn canonical_provider_and_alias_names_all_resolve_to_the_canonical_name() {
    let registry = registry();
    for (index, name) in ["pipe.recent", "pipe_recent", "pipe_list_recent"]
        .into_iter()
        .enumerate()
    {
        let result = run(
            &registry,
            portos_words::principal::ui(false),
            call(&format!("r{index}"), name, json!({})),
        )
        .await;
        assert_eq!(result.name, "pipe.recent", "called as {name}");
        assert_eq!(result.state, ToolState::Completed);
        let tool = registry.resolve(name).expect("resolves");
        assert_eq!(tool.name(), "pipe.recent");
    }
}

#[tokio::test]
async fn default_alias_is_the_provider_name() {
    let registry = registry();
    let result = run(
        &registry,
        portos_words::principal::ui(false),
        call("r1", "pipe_read", json!({ "text": "a" })),
    )
    .await;
    assert_eq!(result.name, "pipe.read");
    let tool = registry.resolve("pipe.voice-note").expect("canonical");
    assert_eq!(tool.descriptor.provider_name, "pipe_voice_note");
    assert_eq!(tool.descriptor.aliases, ["pipe_voice_note"]);
    assert!(registry.resolve("pipe_voice_note").is_some());
}

#[tokio::test]
async fn the_trimmed_name_is_resolved() {
    let registry = registry();
    let result = run(
        &registry,
        portos_words::principal::ui(false),
        call("r1", "  pipe_recent\t", json!({})),
    )
    .await;
    assert_eq!(result.name, "pipe.recent");
}

#[tokio::test]
async fn unknown_names_are_tool_not_found() {
    let registry = registry();
    for name in ["pipe.nope", "Pipe.Read", "pipe-read", "pipe.read.extra"] {
        let error = refuse(
            &registry,
            portos_words::principal::ui(true),
            call("r1", name, json!({})),
        )
        .await;
        assert_refusal(
            &error,
            ErrorCode::ToolNotFound,
            404,
            &format!("Unknown tool '{name}'"),
        );
        assert_eq!(error.code.as_str(), "TOOL_NOT_FOUND");
    }
    let error = refuse(
        &registry,
        portos_words::principal::ui(true),
        call("r1", "  pipe.nope  ", json!({})),
    )
    .await;
    assert_eq!(error.message, "Unknown tool 'pipe.nope'");
}

#[tokio::test]
async fn resolution_comes_before_every_other_check() {
    let registry = registry();
    for authority in [
        portos_words::principal::voice(),
        portos_words::principal::ui(false),
        mind(&[]),
        agent(&[]),
    ] {
        let error = refuse(
            &registry,
            authority.clone(),
            call("r1", "pipe.nope", json!({ "bad": [] })),
        )
        .await;
        assert_eq!(error.code, ErrorCode::ToolNotFound, "{authority:?}");
    }
}

// ---- docs/reference.md#call-pipeline scope ------------------------------------

#[tokio::test]
async fn scope_must_be_in_the_policy() {
    let registry = registry();
    let error = refuse(
        &registry,
        portos_words::principal::voice(),
        call("r1", "pipe.read", json!({ "text": "a" })),
    )
    .await;
    assert_refusal(
        &error,
        ErrorCode::ToolScopeDenied,
        403,
        "Tool 'pipe.read' is unavailable in the voice scope",
    );
    let error = refuse(
        &registry,
        portos_words::principal::ui(true),
        call("r2", "pipe.queue", json!({ "text": "a" })),
    )
    .await;
    assert_refusal(
        &error,
        ErrorCode::ToolScopeDenied,
        403,
        "Tool 'pipe.queue' is unavailable in the ui scope",
    );
    let error = refuse(
        &registry,
        agent(&Capability::all().collect::<Vec<_>>()),
        call("r3", "pipe.wipe", json!({})),
    )
    .await;
    assert_refusal(
        &error,
        ErrorCode::ToolScopeDenied,
        403,
        "Tool 'pipe.wipe' is unavailable in the agent scope",
    );
    let error = refuse(
        &registry,
        mind(&Capability::all().collect::<Vec<_>>()),
        call("r4", "pipe.greet", json!({ "who": "x" })),
    )
    .await;
    assert_refusal(
        &error,
        ErrorCode::ToolScopeDenied,
        403,
        "Tool 'pipe.greet' is unavailable in the mind scope",
    );
}

#[tokio::test]
async fn refusal_messages_use_the_canonical_name_when_called_by_alias() {
    let registry = registry();
    let error = refuse(
        &registry,
        portos_words::principal::voice(),
        call("r1", "pipe_read", json!({ "text": "a" })),
    )
    .await;
    assert_eq!(
        error.message,
        "Tool 'pipe.read' is unavailable in the voice scope"
    );
    let error = refuse(
        &registry,
        mind(&[]),
        call("r2", "pipe_read", json!({ "text": "a" })),
    )
    .await;
    assert_eq!(
        error.message,
        "Tool 'pipe.read' is not granted to the mind principal"
    );
}

#[tokio::test]
async fn scope_is_checked_before_capabilities() {
    let registry = registry();
    // Agent lacks the scope AND the grant: the scope refusal wins.
    let error = refuse(&registry, agent(&[]), call("r1", "pipe.wipe", json!({}))).await;
    assert_eq!(error.code, ErrorCode::ToolScopeDenied);
}

// ---- docs/reference.md#call-pipeline capabilities -------------------------------

#[tokio::test]
async fn mind_and_agent_need_every_required_grant() {
    let registry = registry();
    for (authority, principal) in [(mind(&[]), "mind"), (agent(&[]), "agent")] {
        let error = refuse(
            &registry,
            authority,
            call("r1", "pipe.read", json!({ "text": "a" })),
        )
        .await;
        assert_refusal(
            &error,
            ErrorCode::ToolCapabilityDenied,
            403,
            &format!("Tool 'pipe.read' is not granted to the {principal} principal"),
        );
    }
    // The wrong grant is no grant.
    let error = refuse(
        &registry,
        mind(&[WRITE]),
        call("r2", "pipe.read", json!({ "text": "a" })),
    )
    .await;
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
    // One of two required grants is not enough.
    for partial in [[portos_words::CREATE_TASKS], [WRITE]] {
        let error = refuse(
            &registry,
            agent(&partial),
            call("r3", "pipe.queue", json!({ "text": "t" })),
        )
        .await;
        assert_refusal(
            &error,
            ErrorCode::ToolCapabilityDenied,
            403,
            "Tool 'pipe.queue' is not granted to the agent principal",
        );
    }
    let result = run(
        &registry,
        agent(&[portos_words::CREATE_TASKS, WRITE]),
        call("r4", "pipe.queue", json!({ "text": "t" })),
    )
    .await;
    assert_eq!(result.state, ToolState::Completed);
    let result = run(
        &registry,
        mind(&[READ]),
        call("r5", "pipe.read", json!({ "text": "a" })),
    )
    .await;
    assert_eq!(result.state, ToolState::Completed);
}

#[tokio::test]
async fn grants_must_be_strictly_true() {
    let registry = registry();
    for loose in [
        json!({ "readPortos": "true" }),
        json!({ "readPortos": 1 }),
        json!({ "readPortos": [true] }),
        json!([true]),
        json!(null),
    ] {
        let authority = portos_words::principal::mind(Capabilities::from_json(&loose));
        let error = refuse(
            &registry,
            authority,
            call("r1", "pipe.read", json!({ "text": "a" })),
        )
        .await;
        assert_eq!(error.code, ErrorCode::ToolCapabilityDenied, "{loose}");
    }
    let authority =
        portos_words::principal::agent(Capabilities::from_json(&json!({ "readPortos": true })));
    let result = run(
        &registry,
        authority,
        call("r2", "pipe.read", json!({ "text": "a" })),
    )
    .await;
    assert_eq!(result.state, ToolState::Completed);
}

#[tokio::test]
async fn ui_and_voice_have_no_capability_check() {
    let registry = registry();
    // ui holds no grants at all, yet reads need none there.
    let result = run(
        &registry,
        portos_words::principal::ui(false),
        call("r1", "pipe.read", json!({ "text": "a" })),
    )
    .await;
    assert_eq!(result.state, ToolState::Completed);
    let result = run(
        &registry,
        portos_words::principal::ui(true),
        call("r2", "pipe.write", json!({ "target": { "count": 1 } })),
    )
    .await;
    assert_eq!(result.state, ToolState::Completed);
}

// ---- docs/reference.md#call-pipeline authentication -------------------------------

#[tokio::test]
async fn ui_writes_need_an_authenticated_session() {
    let registry = registry();
    let cases = [
        ("pipe.write", json!({ "target": { "count": 1 } })),
        ("pipe.voice-note", json!({ "text": "x" })),
        ("pipe.wipe", json!({})),
    ];
    for (index, (name, arguments)) in cases.into_iter().enumerate() {
        let error = refuse(
            &registry,
            portos_words::principal::ui(false),
            call(&format!("u{index}"), name, arguments.clone()),
        )
        .await;
        assert_refusal(&error, ErrorCode::ToolAuthRequired, 403, AUTH_MESSAGE);
        let result = run(
            &registry,
            portos_words::principal::ui(true),
            call(&format!("a{index}"), name, arguments),
        )
        .await;
        assert_eq!(result.state, ToolState::Completed, "{name}");
    }
    // A registry given no product name names none.
    let unnamed = Registry::builder().build().expect("valid");
    let error = refuse(
        &unnamed,
        portos_words::principal::ui(false),
        call("n1", "pipe.wipe", json!({})),
    )
    .await;
    assert_refusal(
        &error,
        ErrorCode::ToolAuthRequired,
        403,
        "Mutating tool calls require an authenticated session",
    );
}

#[tokio::test]
async fn ui_reads_are_anonymous() {
    let registry = registry();
    let result = run(
        &registry,
        portos_words::principal::ui(false),
        call("r1", "pipe.recent", json!({})),
    )
    .await;
    assert_eq!(result.state, ToolState::Completed);
}

#[tokio::test]
async fn mind_and_agent_writes_need_no_session() {
    let registry = registry();
    let authority = Authority {
        scope: portos_words::MIND,
        capabilities: grants(&[WRITE]),
        authenticated: false,
        credential: None,
        subject: None,
    };
    let result = run(
        &registry,
        authority,
        call("r1", "pipe.write", json!({ "target": { "count": 2 } })),
    )
    .await;
    assert_eq!(result.state, ToolState::Completed);
    let result = run(
        &registry,
        agent(&[WRITE]),
        call("r2", "pipe.write", json!({ "target": { "count": 2 } })),
    )
    .await;
    assert_eq!(result.state, ToolState::Completed);
}

#[tokio::test]
async fn voice_has_only_the_scope_check() {
    let registry = registry();
    // A write needing writePortos, no grants, no session: voice runs it.
    let result = run(
        &registry,
        portos_words::principal::voice(),
        call("r1", "pipe.voice-note", json!({ "text": "milk" })),
    )
    .await;
    assert_eq!(result.state, ToolState::Completed);
    assert_eq!(result.result.expect("result")["noted"], "milk");
    let authority = Authority {
        scope: portos_words::VOICE,
        capabilities: Capabilities::NONE,
        authenticated: false,
        credential: None,
        subject: None,
    };
    let result = run(&registry, authority, call("r2", "pipe_recent", json!({}))).await;
    assert_eq!(result.state, ToolState::Completed);
}

// ---- docs/reference.md#call-pipeline argument validation ---------------------------

#[tokio::test]
async fn invalid_arguments_name_the_tool_and_the_failing_path() {
    let registry = registry();
    let error = refuse(
        &registry,
        portos_words::principal::ui(true),
        call("r1", "pipe.write", json!({ "target": { "count": "many" } })),
    )
    .await;
    assert_eq!(error.code, ErrorCode::ToolValidationError);
    assert_eq!(error.code.as_str(), "TOOL_VALIDATION_ERROR");
    assert_eq!(error.status(), 400);
    assert!(
        error
            .message
            .starts_with("Invalid arguments for 'pipe.write': "),
        "{}",
        error.message
    );
    assert!(error.message.contains("target.count"), "{}", error.message);
}

#[tokio::test]
async fn validation_messages_use_the_canonical_name_when_called_by_alias() {
    let registry = registry();
    let error = refuse(
        &registry,
        portos_words::principal::ui(false),
        call("r1", "pipe_read", json!({ "text": 5 })),
    )
    .await;
    assert!(
        error
            .message
            .starts_with("Invalid arguments for 'pipe.read': "),
        "{}",
        error.message
    );
    assert!(error.message.contains("text"), "{}", error.message);
}

#[tokio::test]
async fn every_failing_argument_is_listed() {
    let registry = registry();
    let error = refuse(
        &registry,
        portos_words::principal::ui(true),
        call(
            "r1",
            "pipe.write",
            json!({ "target": { "count": -1 }, "note": 7 }),
        ),
    )
    .await;
    assert_eq!(error.code, ErrorCode::ToolValidationError);
    assert!(error.message.contains("target.count"), "{}", error.message);
    assert!(error.message.contains("note"), "{}", error.message);
    assert!(
        error.message.contains("; "),
        "issues are joined with '; ': {}",
        error.message
    );
}

#[tokio::test]
async fn missing_and_unknown_arguments_are_refused() {
    let registry = registry();
    let error = refuse(
        &registry,
        portos_words::principal::ui(false),
        call("r1", "pipe.read", json!({})),
    )
    .await;
    assert_eq!(error.code, ErrorCode::ToolValidationError);
    assert!(
        error.message.contains("text"),
        "names the missing field: {}",
        error.message
    );

    let error = refuse(
        &registry,
        portos_words::principal::ui(false),
        call("r2", "pipe.read", json!({ "text": "a", "sql": "drop" })),
    )
    .await;
    assert_eq!(error.code, ErrorCode::ToolValidationError);
    assert!(
        error.message.contains("sql"),
        "names the unknown key: {}",
        error.message
    );

    // Closed at every depth: `Target` has no deny_unknown_fields of its own.
    let error = refuse(
        &registry,
        portos_words::principal::ui(true),
        call(
            "r3",
            "pipe.write",
            json!({ "target": { "count": 1, "extra": true } }),
        ),
    )
    .await;
    assert_eq!(error.code, ErrorCode::ToolValidationError);
    assert!(error.message.contains("extra"), "{}", error.message);

    // A tool without input takes only `{}`.
    let error = refuse(
        &registry,
        portos_words::principal::ui(false),
        call("r4", "pipe.recent", json!({ "limit": 3 })),
    )
    .await;
    assert_eq!(error.code, ErrorCode::ToolValidationError);
    assert!(
        error
            .message
            .starts_with("Invalid arguments for 'pipe.recent': "),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn the_adapter_receives_normalized_arguments() {
    let registry = registry();
    let result = run(
        &registry,
        portos_words::principal::ui(false),
        call("r1", "pipe.greet", json!({ "who": "Ada" })),
    )
    .await;
    assert_eq!(result.result.expect("result")["line"], "hello Ada");
}

// ---- docs/reference.md#call-pipeline precedence when two rules break at once ----

#[tokio::test]
async fn authorization_precedes_argument_validation() {
    let registry = registry();
    let bad = json!({ "target": "not an object", "bogus": 1 });
    // ui write, unauthenticated, bad arguments: the auth refusal wins.
    let error = refuse(
        &registry,
        portos_words::principal::ui(false),
        call("r1", "pipe.write", bad.clone()),
    )
    .await;
    assert_refusal(&error, ErrorCode::ToolAuthRequired, 403, AUTH_MESSAGE);
    // Missing grant with bad arguments: the capability refusal wins.
    let error = refuse(
        &registry,
        mind(&[READ]),
        call("r2", "pipe.write", bad.clone()),
    )
    .await;
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
    // Wrong scope with bad arguments: the scope refusal wins.
    let error = refuse(
        &registry,
        portos_words::principal::voice(),
        call("r3", "pipe.write", bad),
    )
    .await;
    assert_eq!(error.code, ErrorCode::ToolScopeDenied);
}

#[tokio::test]
async fn a_conflicting_replay_with_invalid_arguments_is_a_400_not_a_409() {
    let registry = registry();
    let authority = portos_words::principal::ui(true);
    run(
        &registry,
        authority.clone(),
        call("same", "pipe.write", json!({ "target": { "count": 1 } })),
    )
    .await;
    let error = refuse(
        &registry,
        authority.clone(),
        call("same", "pipe.write", json!({ "target": { "count": "x" } })),
    )
    .await;
    assert_eq!(error.code, ErrorCode::ToolValidationError);
    assert_eq!(error.status(), 400);
    // Valid but different arguments: now it is the idempotency conflict.
    let error = refuse(
        &registry,
        authority,
        call("same", "pipe.write", json!({ "target": { "count": 2 } })),
    )
    .await;
    assert_eq!(error.code, ErrorCode::ToolIdempotencyConflict);
}

#[tokio::test]
async fn a_conflicting_replay_without_authority_is_a_403_not_a_409() {
    let registry = registry();
    run(
        &registry,
        portos_words::principal::ui(true),
        call("same", "pipe.write", json!({ "target": { "count": 1 } })),
    )
    .await;
    let error = refuse(
        &registry,
        portos_words::principal::ui(false),
        call("same", "pipe.write", json!({ "target": { "count": 9 } })),
    )
    .await;
    assert_eq!(error.code, ErrorCode::ToolAuthRequired);
    // Even an exact replay is refused to a caller who may not run the tool.
    let error = refuse(
        &registry,
        portos_words::principal::ui(false),
        call("same", "pipe.write", json!({ "target": { "count": 1 } })),
    )
    .await;
    assert_eq!(error.code, ErrorCode::ToolAuthRequired);
    let error = refuse(
        &registry,
        mind(&[]),
        call("same", "pipe.write", json!({ "target": { "count": 1 } })),
    )
    .await;
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
}

#[tokio::test]
async fn refused_calls_do_not_consume_their_request_id() {
    let registry = registry();
    let ok = json!({ "target": { "count": 3 } });
    refuse(
        &registry,
        portos_words::principal::ui(false),
        call("auth-first", "pipe.write", ok.clone()),
    )
    .await;
    let result = run(
        &registry,
        portos_words::principal::ui(true),
        call("auth-first", "pipe.write", ok.clone()),
    )
    .await;
    assert!(!result.duplicate);

    refuse(
        &registry,
        portos_words::principal::ui(true),
        call("invalid-first", "pipe.write", json!({ "target": {} })),
    )
    .await;
    let result = run(
        &registry,
        portos_words::principal::ui(true),
        call("invalid-first", "pipe.write", ok),
    )
    .await;
    assert!(!result.duplicate);

    refuse(
        &registry,
        portos_words::principal::ui(true),
        call("unknown-first", "pipe.nope", json!({})),
    )
    .await;
    let result = run(
        &registry,
        portos_words::principal::ui(true),
        call("unknown-first", "pipe.recent", json!({})),
    )
    .await;
    assert!(!result.duplicate);
    for id in ["auth-first", "invalid-first", "unknown-first"] {
        assert!(!registry.retained(id).await.expect("retained").duplicate);
    }
}

// ---- docs/reference.md#result-envelope normalization -----------------------------

async fn outcome(registry: &Registry, request_id: &str, mode: &str) -> ToolResult {
    run(
        registry,
        portos_words::principal::ui(false),
        call(request_id, "pipe.outcome", json!({ "mode": mode })),
    )
    .await
}

#[tokio::test]
async fn a_plain_object_completes_with_its_result() {
    let registry = registry();
    let result = outcome(&registry, "r1", "completed").await;
    assert_eq!(result.state, ToolState::Completed);
    assert_eq!(
        result.result.as_deref().map(OutputJson::value),
        Some(&json!({ "ok": true, "summary": "fine" }))
    );
    assert_eq!(result.error, None);
    assert!(!result.duplicate);
    assert_eq!(result.kind, "portos_tool_result");
    assert_eq!(result.version, 1);
    assert_eq!(result.request_id, "r1");
    // A nested state other than "failed" does not change the envelope state.
    let result = outcome(&registry, "r2", "queued").await;
    assert_eq!(result.state, ToolState::Completed);
    assert_eq!(result.result.expect("result")["state"], "queued");
}

#[tokio::test]
async fn ok_false_fails_and_keeps_the_result() {
    let registry = registry();
    let result = outcome(&registry, "r1", "ok-false").await;
    assert_eq!(result.state, ToolState::Failed);
    assert_eq!(result.error.as_deref(), Some("No goal matched."));
    assert_eq!(
        result.result.as_deref().map(OutputJson::value),
        Some(&json!({ "ok": false, "summary": "No goal matched." }))
    );
}

#[tokio::test]
async fn the_error_field_is_preferred_to_the_summary() {
    let registry = registry();
    let result = outcome(&registry, "r1", "error-first").await;
    assert_eq!(result.state, ToolState::Failed);
    assert_eq!(result.error.as_deref(), Some("the error"));
}

#[tokio::test]
async fn state_failed_fails_even_with_ok_true() {
    let registry = registry();
    let result = outcome(&registry, "r1", "state-failed").await;
    assert_eq!(result.state, ToolState::Failed);
    assert_eq!(result.error.as_deref(), Some("boom"));
    assert!(result.result.is_some());
}

#[tokio::test]
async fn a_failure_without_message_gets_the_default_one() {
    let registry = registry();
    let result = outcome(&registry, "r1", "bare-failure").await;
    assert_eq!(result.state, ToolState::Failed);
    assert_eq!(
        result.error.as_deref(),
        Some("Tool adapter reported failure")
    );
    assert_eq!(
        result.result.as_deref().map(OutputJson::value),
        Some(&json!({ "ok": false }))
    );
}

#[tokio::test]
async fn a_reported_failure_message_is_bounded_to_500_characters() {
    let registry = registry();
    let result = outcome(&registry, "r1", "long-failure").await;
    assert_eq!(result.state, ToolState::Failed);
    assert_eq!(result.error, Some("s".repeat(500)));
    // The result itself is not cut.
    assert_eq!(result.result.expect("result")["summary"], "s".repeat(800));
}

#[tokio::test]
async fn a_non_object_result_is_an_invalid_result() {
    let registry = registry();
    for (index, mode) in ["array", "string", "null"].into_iter().enumerate() {
        let result = outcome(&registry, &format!("r{index}"), mode).await;
        assert_eq!(result.state, ToolState::Failed, "{mode}");
        assert_eq!(
            result.error.as_deref(),
            Some("Tool adapter returned an invalid result"),
            "{mode}"
        );
        assert_eq!(result.result, None, "{mode}");
    }
}

#[tokio::test]
async fn an_adapter_error_is_a_failed_result_without_result() {
    let registry = registry();
    let result = outcome(&registry, "r1", "err").await;
    assert_eq!(result.state, ToolState::Failed);
    assert_eq!(result.error.as_deref(), Some("disk on fire"));
    assert_eq!(result.result, None);
    assert_eq!(result.name, "pipe.outcome");
}

#[tokio::test]
async fn an_empty_adapter_error_gets_the_default_message() {
    let registry = registry();
    let result = outcome(&registry, "r1", "empty-err").await;
    assert_eq!(result.state, ToolState::Failed);
    assert_eq!(result.error.as_deref(), Some("Tool execution failed"));
}

#[tokio::test]
async fn an_adapter_error_is_bounded_to_500_characters() {
    let registry = registry();
    let result = outcome(&registry, "r1", "long-err").await;
    let error = result.error.expect("an error");
    assert_eq!(error.chars().count(), 500);
    let expected: String = long_message().chars().take(500).collect();
    assert_eq!(error, expected);
}

#[tokio::test]
async fn a_panicking_adapter_is_a_failed_result_not_a_crash() {
    let registry = registry();
    let result = outcome(&registry, "r1", "panic").await;
    assert_eq!(result.state, ToolState::Failed);
    assert_eq!(result.result, None);
    let error = result.error.expect("an error message");
    assert!(!error.is_empty() && error.chars().count() <= 500);
    // The registry keeps serving.
    let result = outcome(&registry, "r2", "completed").await;
    assert_eq!(result.state, ToolState::Completed);
}

#[tokio::test]
async fn the_wire_envelope_has_the_contract_keys() {
    let registry = registry();
    let keys = |result: &ToolResult| {
        let value = serde_json::to_value(result).expect("serializes");
        let mut keys: Vec<String> = value.as_object().expect("object").keys().cloned().collect();
        keys.sort_unstable();
        (value, keys)
    };
    let (value, completed) = keys(&outcome(&registry, "r1", "completed").await);
    assert_eq!(
        completed,
        [
            "duplicate",
            "name",
            "requestId",
            "result",
            "state",
            "type",
            "version"
        ]
    );
    assert_eq!(value["type"], "portos_tool_result");
    assert_eq!(value["state"], "completed");
    assert_eq!(value["version"], 1);
    assert_eq!(value["duplicate"], false);
    let (value, reported) = keys(&outcome(&registry, "r2", "ok-false").await);
    assert_eq!(
        reported,
        [
            "duplicate",
            "error",
            "name",
            "requestId",
            "result",
            "state",
            "type",
            "version"
        ]
    );
    assert_eq!(value["state"], "failed");
    let (_, thrown) = keys(&outcome(&registry, "r3", "err").await);
    assert_eq!(
        thrown,
        [
            "duplicate",
            "error",
            "name",
            "requestId",
            "state",
            "type",
            "version"
        ]
    );
}

#[tokio::test]
async fn the_result_carries_the_trimmed_request_id() {
    let registry = registry();
    let result = outcome(&registry, "  padded-id  ", "completed").await;
    assert_eq!(result.request_id, "padded-id");
}

// ---- declared state ------------------------------------------------------------------
