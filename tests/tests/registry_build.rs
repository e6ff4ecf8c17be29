//! Building the registry from the link-time list (DESIGN "Link-time
//! registration"): every linked crate's tools are there, clashes and
//! unprojectable schemas stop the build naming where they were declared, and
//! the order does not depend on link order.

use futures::FutureExt;
use portos_core::{
    AdapterError, ArgumentError, BoundCall, Confirmation, IntentRule, PolicyDecl, Registry,
    RegistryBuildError, SideEffect, SourceLocation, StateMap, StateNeed, ToolCall, ToolDescriptor,
    ToolState, linked, portos_tool,
};
use portos_tests as _;
portos_core::use_vocabulary!(portos_words);
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Tools this file adds to the link-time list.
const LOCAL_TOOLS: usize = 2;

/// The first tool of this file.
#[portos_tool(name = "build.alpha", scopes = ["ui"], side_effect = "read")]
async fn build_alpha() -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true }))
}

/// The second tool of this file.
#[portos_tool(name = "build.beta", scopes = ["ui", "mind"], capabilities = ["writePortos"], side_effect = "write")]
async fn build_beta() -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true }))
}

// ---- hand-written descriptors --------------------------------------------------

fn empty_schema() -> Value {
    json!({ "type": "object", "properties": {}, "additionalProperties": false })
}

fn open_output() -> Value {
    json!({ "type": "object" })
}

fn bind_ok(arguments: Value) -> Result<BoundCall, ArgumentError> {
    Ok(BoundCall::new(arguments, |_ctx| {
        async {
            portos_core::OutputJson::to_json(&json!({ "ok": true }))
                .map_err(|error| error.to_string())
        }
        .boxed()
    }))
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Node {
    label: String,
    children: Vec<Node>,
}

/// The schema the macro would generate for a recursive input type.
fn recursive_schema() -> Value {
    portos_core::schema::generate::<Node>()
}

const POLICY: PolicyDecl = PolicyDecl {
    scopes: &["ui"],
    capabilities: &[],
    side_effect: SideEffect::Read,
    idempotent: true,
    is_async: false,
    long_running: false,
    confirmation: Confirmation::None,
    open_world: false,
    unguarded: None,
};

/// A descriptor as the macro would emit it, located where it is written.
macro_rules! descriptor {
    ($name:expr, $provider:expr, $aliases:expr) => {
        descriptor!($name, $provider, $aliases, empty_schema)
    };
    ($name:expr, $provider:expr, $aliases:expr, $input:expr) => {
        descriptor!($name, $provider, $aliases, $input, &[])
    };
    ($name:expr, $provider:expr, $aliases:expr, $input:expr, $state:expr) => {
        descriptor!($name, $provider, $aliases, $input, $state, None)
    };
    ($name:expr, $provider:expr, $aliases:expr, $input:expr, $state:expr, $not_strict:expr) => {
        ToolDescriptor {
            name: $name,
            version: 1,
            description: "A hand-written tool.",
            provider_name: $provider,
            aliases: $aliases,
            policy: POLICY,
            intent: IntentRule {
                group: None,
                suppress_on_form_fill: false,
            },
            input_schema: $input,
            output_schema: open_output,
            bind: bind_ok,
            state: $state,
            not_strict: $not_strict,
            content_output: || false,
            requires_client: &[],
            requires_tasks: false,
            ask_first: None,
            location: SourceLocation {
                file: file!(),
                line: line!(),
                column: column!(),
            },
        }
    };
}

/// A hand-written tool naming words the linked vocabulary (PortOS's)
/// does not declare.
static FOREIGN_WORDS: ToolDescriptor = ToolDescriptor {
    policy: PolicyDecl {
        scopes: &["ui", "librarian"],
        capabilities: &["readBooks", "readPortos", "shelveBooks"],
        ..POLICY
    },
    ..descriptor!("words.foreign", "words_foreign", &[])
};

/// A hand-written write that names no capability and no reason.
static OPEN_WRITE: ToolDescriptor = ToolDescriptor {
    policy: PolicyDecl {
        side_effect: SideEffect::Write,
        ..POLICY
    },
    ..descriptor!("write.open", "write_open", &[])
};

static DUP_A: ToolDescriptor = descriptor!("dup.same", "dup_same_a", &[]);
static DUP_B: ToolDescriptor = descriptor!("dup.same", "dup_same_b", &[]);

static PROVIDER_A: ToolDescriptor = descriptor!("provider.a", "shared_provider", &[]);
static PROVIDER_B: ToolDescriptor = descriptor!("provider.b", "shared_provider", &[]);

static ALIAS_A: ToolDescriptor = descriptor!("alias.a", "alias_a", &["legacy_name"]);
static ALIAS_B: ToolDescriptor = descriptor!("alias.b", "alias_b", &["legacy_name"]);

static CANONICAL: ToolDescriptor = descriptor!("cross.a", "cross_a", &[]);
static ALIAS_OF_CANONICAL: ToolDescriptor = descriptor!("cross.b", "cross_b", &["cross.a"]);

static HOLDS_ALIAS: ToolDescriptor = descriptor!("mixed.a", "mixed_a", &["mixed_legacy"]);
static PROVIDER_IS_ALIAS: ToolDescriptor = descriptor!("mixed.b", "mixed_legacy", &[]);

static SELF_ALIAS: ToolDescriptor = descriptor!("self.ok", "self_ok", &["self_ok"]);

static CLASHES_WITH_EXTRA: ToolDescriptor = descriptor!("extra.shout", "not_extra_shout", &[]);

static RECURSIVE: ToolDescriptor = descriptor!("tree.insert", "tree_insert", &[], recursive_schema);

/// An input with a free-form map: its keys carry meaning no strict
/// provider subset can list.
fn open_map_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "args": {"type": "object", "additionalProperties": true, "propertyNames": {"maxLength": 80}}
        },
        "required": ["args"]
    })
}

static OPEN_MAP: ToolDescriptor = descriptor!("map.open", "map_open", &[], open_map_schema);
static OPEN_MAP_DECLARED: ToolDescriptor = descriptor!(
    "map.declared",
    "map_declared",
    &[],
    open_map_schema,
    &[],
    Some("its args are a free-form map the adapter checks")
);
static CLEAN_BUT_DECLARED: ToolDescriptor = descriptor!(
    "map.stale",
    "map_stale",
    &[],
    empty_schema,
    &[],
    Some("no longer true")
);

static BAD_PROVIDER: ToolDescriptor = descriptor!("bad.provider", "bad.provider", &[]);

/// Server state the tools below declare.
struct Clock;

static NEEDS_CLOCK: ToolDescriptor = descriptor!(
    "state.clock",
    "state_clock",
    &[],
    empty_schema,
    &[StateNeed::of::<Clock>()]
);
static CLOCK_TWICE: ToolDescriptor = descriptor!(
    "state.twice",
    "state_twice",
    &[],
    empty_schema,
    &[StateNeed::of::<Clock>(), StateNeed::of::<Clock>()]
);

static ORDER_X: ToolDescriptor = descriptor!("order.x", "order_x", &[]);
static ORDER_Y: ToolDescriptor = descriptor!("order.y", "order_y", &[]);
static ORDER_Z: ToolDescriptor = descriptor!("order.z", "order_z", &[]);

// ---- helpers --------------------------------------------------------------------

fn build(
    descriptors: &[&'static ToolDescriptor],
) -> Result<std::sync::Arc<Registry>, RegistryBuildError> {
    Registry::builder()
        .descriptors(descriptors.iter().copied())
        .build()
}

fn refused(descriptors: &[&'static ToolDescriptor]) -> RegistryBuildError {
    match build(descriptors) {
        Ok(registry) => panic!("the build should fail, built {registry:?}"),
        Err(error) => error,
    }
}

fn names(registry: &Registry) -> Vec<&'static str> {
    registry.tools().iter().map(|tool| tool.name()).collect()
}

/// One problem names both declarations, and so does the whole message.
fn assert_names_both(
    error: &RegistryBuildError,
    key: &str,
    a: &ToolDescriptor,
    b: &ToolDescriptor,
) {
    let (a, b) = (a.location.to_string(), b.location.to_string());
    assert_ne!(a, b, "the two declarations sit at different places");
    assert!(
        error
            .problems
            .iter()
            .any(|p| p.contains(key) && p.contains(&a) && p.contains(&b)),
        "no problem about `{key}` names both {a} and {b}: {:#?}",
        error.problems
    );
    let text = error.to_string();
    assert!(text.contains(&a) && text.contains(&b), "{text}");
}

// ---- the link-time list -----------------------------------------------------------

#[test]
fn the_registry_holds_every_linked_tool() {
    let registry = Registry::builder()
        .build()
        .expect("the linked tools are valid");
    // The server's own tools may come along through `portos_tests` (which of
    // its object files the linker keeps is not this test's concern); every
    // other tool is this file's or the named extra crate's.
    let not_the_servers = registry
        .tools()
        .iter()
        .filter(|tool| !tool.descriptor.location.file.contains("portos-server"))
        .count();
    assert_eq!(
        not_the_servers,
        portos_extra_tools::TOOL_COUNT + LOCAL_TOOLS
    );
    assert_eq!(linked::tools().count(), registry.tools().len());
    let names = names(&registry);
    for name in [
        "extra.shout",
        "extra.count-runs",
        "build.alpha",
        "build.beta",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    let extra = names.iter().filter(|n| n.starts_with("extra.")).count();
    assert_eq!(extra, portos_extra_tools::TOOL_COUNT);
}

#[test]
fn the_other_crates_tools_are_declared_there() {
    let registry = Registry::builder().build().expect("valid");
    let shout = registry.resolve("extra.shout").expect("linked");
    assert!(
        shout.descriptor.location.file.contains("extra-tools"),
        "{}",
        shout.descriptor.location
    );
    let alpha = registry.resolve("build.alpha").expect("local");
    assert!(
        alpha
            .descriptor
            .location
            .file
            .ends_with("registry_build.rs"),
        "{}",
        alpha.descriptor.location
    );
}

#[tokio::test]
async fn the_other_crates_tools_are_callable_by_every_name() {
    let registry = Registry::builder().build().expect("valid");
    for (index, name) in ["extra.shout", "extra_shout"].into_iter().enumerate() {
        let call = ToolCall::parse(&json!({
            "requestId": format!("x{index}"), "name": name, "arguments": { "text": "hi" }
        }))
        .expect("valid envelope");
        let result = registry
            .call(&portos_words::principal::voice(), call)
            .await
            .expect("voice may shout");
        assert_eq!(result.name, "extra.shout");
        assert_eq!(result.state, ToolState::Completed);
        assert_eq!(result.result.expect("result")["text"], "HI!");
    }
    assert_eq!(
        registry.resolve("extra_count_runs").map(|t| t.name()),
        Some("extra.count-runs")
    );
}

#[test]
fn the_order_is_deterministic() {
    let first = Registry::builder().build().expect("valid");
    let second = Registry::builder().build().expect("valid");
    assert_eq!(names(&first), names(&second));

    let forward = build(&[&ORDER_X, &ORDER_Y, &ORDER_Z]).expect("valid");
    let backward = build(&[&ORDER_Z, &ORDER_Y, &ORDER_X]).expect("valid");
    let shuffled = build(&[&ORDER_Y, &ORDER_Z, &ORDER_X]).expect("valid");
    assert_eq!(names(&forward), names(&backward));
    assert_eq!(names(&forward), names(&shuffled));
}

#[test]
fn an_application_order_comes_first_then_names() {
    // Without an order: by canonical name.
    let by_name = build(&[&ORDER_Z, &ORDER_X, &ORDER_Y]).expect("valid");
    assert_eq!(names(&by_name), ["order.x", "order.y", "order.z"]);
    // With one: its names in its order (unknown names ignored), then the
    // rest by canonical name, whatever order they came in.
    let ordered = Registry::builder()
        .order(&["order.z", "not.linked", "order.x"])
        .descriptors([&ORDER_Y, &ORDER_X, &ORDER_Z])
        .build()
        .expect("valid");
    assert_eq!(names(&ordered), ["order.z", "order.x", "order.y"]);
}

#[test]
fn an_exact_tool_set_can_be_chosen() {
    let registry = build(&[&ORDER_X, &SELF_ALIAS]).expect("valid");
    let mut names = names(&registry);
    names.sort_unstable();
    assert_eq!(names, ["order.x", "self.ok"]);
    assert!(registry.resolve("extra.shout").is_none());
}

// ---- clashes --------------------------------------------------------------------------

#[test]
fn a_duplicate_canonical_name_names_both_locations() {
    let error = refused(&[&DUP_A, &DUP_B]);
    assert_names_both(&error, "dup.same", &DUP_A, &DUP_B);
}

#[test]
fn a_duplicate_provider_name_names_both_locations() {
    let error = refused(&[&PROVIDER_A, &PROVIDER_B]);
    assert_names_both(&error, "shared_provider", &PROVIDER_A, &PROVIDER_B);
}

#[test]
fn a_duplicate_alias_names_both_locations() {
    let error = refused(&[&ALIAS_A, &ALIAS_B]);
    assert_names_both(&error, "legacy_name", &ALIAS_A, &ALIAS_B);
}

#[test]
fn an_alias_may_not_be_another_tools_name() {
    let error = refused(&[&CANONICAL, &ALIAS_OF_CANONICAL]);
    assert_names_both(&error, "cross.a", &CANONICAL, &ALIAS_OF_CANONICAL);
    let error = refused(&[&HOLDS_ALIAS, &PROVIDER_IS_ALIAS]);
    assert_names_both(&error, "mixed_legacy", &HOLDS_ALIAS, &PROVIDER_IS_ALIAS);
}

#[test]
fn a_clash_with_a_linked_tool_names_the_other_crate() {
    let linked = Registry::builder().build().expect("valid");
    let shout = linked.resolve("extra.shout").expect("linked").descriptor;
    let all: Vec<&'static ToolDescriptor> = linked::tools().chain([&CLASHES_WITH_EXTRA]).collect();
    let error = refused(&all);
    assert_names_both(&error, "extra.shout", shout, &CLASHES_WITH_EXTRA);
}

#[test]
fn the_provider_name_doubling_as_alias_is_no_clash() {
    let registry = build(&[&SELF_ALIAS]).expect("an alias equal to its own provider name is fine");
    assert_eq!(
        registry.resolve("self_ok").map(|t| t.name()),
        Some("self.ok")
    );
}

#[test]
fn every_problem_is_reported_in_one_build() {
    let error = refused(&[
        &DUP_A,
        &DUP_B,
        &PROVIDER_A,
        &PROVIDER_B,
        &RECURSIVE,
        &NEEDS_CLOCK,
    ]);
    assert!(error.problems.len() >= 4, "{:#?}", error.problems);
    assert!(
        error.problems.iter().any(|p| p.contains("state.clock")),
        "{:#?}",
        error.problems
    );
    assert_names_both(&error, "dup.same", &DUP_A, &DUP_B);
    assert_names_both(&error, "shared_provider", &PROVIDER_A, &PROVIDER_B);
    assert!(
        error.problems.iter().any(|p| p.contains("tree.insert")),
        "{:#?}",
        error.problems
    );
}

// ---- the application's vocabulary ------------------------------------------------------

/// Every word the vocabulary does not declare is a problem of its own,
/// naming the tool and where it was declared, all in one build; the known
/// ones are not.
#[test]
fn every_unknown_word_is_reported_with_its_source_location() {
    let error = refused(&[&FOREIGN_WORDS]);
    let at = FOREIGN_WORDS.location.to_string();
    for word in [
        "scope `librarian`",
        "capability `readBooks`",
        "capability `shelveBooks`",
    ] {
        assert!(
            error
                .problems
                .iter()
                .any(|p| p.contains(word) && p.contains("words.foreign") && p.contains(&at)),
            "no problem names {word} at {at}: {:#?}",
            error.problems
        );
    }
    assert_eq!(error.problems.len(), 3, "{:#?}", error.problems);
    // Each names what the vocabulary does declare.
    assert!(error.problems[0].contains("declares agent, mind, ui, voice"));
    assert!(error.problems[1].contains("declares readPortos, writePortos"));
}

/// A descriptor written by hand is held to the attribute's rule: a write
/// names its capability or says why it needs none.
#[test]
fn a_hand_written_write_without_a_capability_is_refused() {
    let error = refused(&[&OPEN_WRITE]);
    assert!(
        error
            .problems
            .iter()
            .any(|p| p.contains("write.open") && p.contains("unguarded")),
        "{:#?}",
        error.problems
    );
}

// ---- unprojectable declarations ----------------------------------------------------------

#[test]
fn the_recursive_schema_really_needs_a_reference() {
    let text = recursive_schema().to_string();
    assert!(text.contains("$ref"), "the fixture is recursive: {text}");
}

#[test]
fn a_recursive_input_type_is_refused_at_build() {
    let error = refused(&[&RECURSIVE]);
    let location = RECURSIVE.location.to_string();
    let problem = error
        .problems
        .iter()
        .find(|p| p.contains("tree.insert"))
        .unwrap_or_else(|| panic!("no problem names the tool: {:#?}", error.problems));
    assert!(problem.contains(&location), "{problem}");
    assert!(problem.to_lowercase().contains("recursive"), "{problem}");
}

#[test]
fn an_invalid_provider_name_is_refused_at_build() {
    let error = refused(&[&BAD_PROVIDER]);
    assert!(
        error
            .problems
            .iter()
            .any(|p| p.contains("bad.provider") && p.contains(&BAD_PROVIDER.location.to_string())),
        "{:#?}",
        error.problems
    );
}

// ---- declared state ----------------------------------------------------------------------

#[test]
fn a_tool_whose_state_is_missing_is_refused_naming_the_tool_its_place_and_the_type() {
    let error = refused(&[&NEEDS_CLOCK, &ORDER_X]);
    let clock = std::any::type_name::<Clock>();
    assert_eq!(clock, "registry_build::Clock");
    assert_eq!(
        error.problems,
        [format!(
            "tool `state.clock` ({}) needs state `registry_build::Clock`, which the server does not provide",
            NEEDS_CLOCK.location
        )]
    );
    let place = format!("registry_build.rs:{}:", NEEDS_CLOCK.location.line);
    assert!(error.to_string().contains(&place), "{error}");
}

#[test]
fn a_tool_whose_state_is_given_builds() {
    let mut state = StateMap::new();
    state.insert(Clock);
    let registry = Registry::builder()
        .descriptors([&NEEDS_CLOCK])
        .state(state)
        .build()
        .expect("the clock is given");
    assert_eq!(names(&registry), ["state.clock"]);
}

#[test]
fn a_state_type_declared_twice_is_refused() {
    // The macro refuses two equal spellings; two spellings of one type (or a
    // hand-written descriptor) are caught here, by `TypeId`.
    let mut state = StateMap::new();
    state.insert(Clock);
    let error = Registry::builder()
        .descriptors([&CLOCK_TWICE])
        .state(state)
        .build()
        .expect_err("Clock twice");
    assert_eq!(
        error.problems,
        [format!(
            "tool `state.twice` ({}) declares state `registry_build::Clock` twice",
            CLOCK_TWICE.location
        )]
    );
}

// ---- strict provider projections ---------------------------------------------------

#[test]
fn an_input_that_cannot_be_strict_is_refused_naming_tool_path_and_why() {
    let error = refused(&[&OPEN_MAP]);
    assert_eq!(error.problems.len(), 1, "{error}");
    let problem = &error.problems[0];
    for needle in [
        "`map.open`",
        OPEN_MAP.location.file,
        "openai-strict",
        "anthropic-strict",
        "gemini",
        "/properties/args",
        "open object",
        "not_strict",
    ] {
        assert!(problem.contains(needle), "{needle:?} in {problem}");
    }
}

#[test]
fn a_declared_not_strict_tool_is_built_and_keeps_its_reason() {
    let registry = build(&[&OPEN_MAP_DECLARED]).expect("declared, so built");
    let tool = registry.resolve("map.declared").expect("listed");
    assert_eq!(
        tool.descriptor.not_strict,
        Some("its args are a free-form map the adapter checks")
    );
    assert!(tool.strict.refused().count() == 3);
}

#[test]
fn a_not_strict_declaration_on_a_clean_schema_is_refused() {
    let error = refused(&[&CLEAN_BUT_DECLARED]);
    assert!(
        error
            .problems
            .iter()
            .any(|p| p.contains("`map.stale`") && p.contains("remove the declaration")),
        "{error}"
    );
}
