//! Run-time tools (the hook saved recipes use,
//! docs/reference.md#recipe-catalog, docs/reference.md#recipe-execution): a
//! source claims a name form, resolves calls with its own refusals first, and
//! its tools go through the registry's common checks, idempotency store and
//! catalogs. The source here is a small pipeline of linked reads.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use futures::future::BoxFuture;
use portos_core::catalog::IntentConfig;
use portos_core::registry::{
    CallBudget, DynamicCall, DynamicListing, DynamicRun, DynamicTool, DynamicToolSpec,
    DynamicTools, Resolved,
};
use portos_core::{
    AdapterError, Authority, Capabilities, CatalogFormat, CatalogQuery, CatalogScope, Catalogs,
    Confirmation, ErrorCode, Policy, Registry, Scope, SideEffect, ToolCall, ToolError, portos_tool,
};
use portos_tests as _;
portos_core::use_vocabulary!(portos_words);
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CountArgs {
    word: String,
}

/// Count the letters of a word.
#[portos_tool(
    name = "dyn.count",
    scopes = ["mind", "agent"],
    capabilities = ["readPortos"],
    side_effect = "read"
)]
async fn count(args: CountArgs) -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "letters": args.word.chars().count() }))
}

/// Runs `dyn.count` on each word, each child charged to the budget.
struct Pipeline {
    runs: Arc<AtomicU64>,
}

impl DynamicRun for Pipeline {
    fn run(&self, call: DynamicCall) -> BoxFuture<'static, Result<Value, String>> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        async move {
            let words = call.arguments["words"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let budget = call.budget.unwrap_or_else(|| Arc::new(CallBudget::new(2)));
            let mut letters = Vec::new();
            for (index, word) in words.iter().enumerate() {
                if !budget.try_charge() {
                    return Ok(json!({ "ok": false, "error": "budget spent", "letters": letters }));
                }
                let mut arguments = Map::new();
                arguments.insert("word".to_owned(), word.clone());
                let child = ToolCall::new(
                    format!("{}-{index}", call.request_id),
                    "dyn.count",
                    arguments,
                );
                let result = call
                    .registry
                    .call(&call.authority, child)
                    .await
                    .map_err(|error| error.message)?;
                letters.push(
                    result
                        .result
                        .as_deref()
                        .map_or(Value::Null, |r| r["letters"].clone()),
                );
            }
            Ok(json!({ "ok": true, "letters": letters }))
        }
        .boxed()
    }
}

/// Claims `pipe.*` and `pipe_*`; lists `pipe.letters` at mind and agent.
struct Source {
    revision: AtomicU64,
    available: AtomicBool,
    runs: Arc<AtomicU64>,
    /// The authority each resolve handed out, to check the run used it.
    resolved: Mutex<Vec<Authority>>,
}

impl Source {
    fn new() -> Arc<Source> {
        Arc::new(Source {
            revision: AtomicU64::new(1),
            available: AtomicBool::new(true),
            runs: Arc::new(AtomicU64::new(0)),
            resolved: Mutex::new(Vec::new()),
        })
    }

    fn tool(&self, scope: Scope) -> Arc<DynamicTool> {
        let revision = self.revision.load(Ordering::SeqCst);
        let mut extra = Map::new();
        extra.insert("revision".to_owned(), json!(revision));
        Arc::new(DynamicTool::new(DynamicToolSpec {
            name: "pipe.letters".to_owned(),
            provider_name: "pipe_letters".to_owned(),
            version: 1,
            description: "Count the letters of each word.".to_owned(),
            provider_description: format!("Count the letters of each word. (pipeline r{revision})"),
            input_schema: json!({
                "type": "object",
                "properties": { "words": { "type": "array", "items": { "type": "string" } } },
                "required": ["words"],
                "additionalProperties": false,
            }),
            output_schema: json!({ "type": "object", "additionalProperties": true }),
            policy: Policy {
                scopes: vec![scope],
                required_capabilities: vec![portos_words::READ_PORTOS],
                side_effect: SideEffect::Read,
                idempotent: true,
                is_async: false,
                confirmation: Confirmation::CapabilityGrant,
                long_running: false,
                unguarded: None,
            },
            available: self.available.load(Ordering::SeqCst),
            fingerprint_extra: extra,
            details: Value::Null,
            runner: Arc::new(Pipeline {
                runs: self.runs.clone(),
            }),
        }))
    }
}

impl DynamicTools for Source {
    fn claims(&self, name: &str) -> bool {
        name.starts_with("pipe.") || name.starts_with("pipe_")
    }

    fn listing(&self, _registry: &Registry, scope: Scope) -> Arc<DynamicListing> {
        let tools = if scope.holds_grants() {
            vec![self.tool(scope)]
        } else {
            Vec::new()
        };
        Arc::new(DynamicListing {
            revision: self.revision.load(Ordering::SeqCst) * 2
                + u64::from(self.available.load(Ordering::SeqCst)),
            tools,
        })
    }

    fn resolve<'a>(
        &'a self,
        _registry: &'a Registry,
        authority: Authority,
        name: &'a str,
    ) -> BoxFuture<'a, Result<Resolved, ToolError>> {
        async move {
            if !authority.scope.holds_grants() {
                return Err(ToolError::new(
                    ErrorCode::ToolScopeDenied,
                    "Pipelines require mind or agent scope",
                ));
            }
            if name != "pipe.letters" && name != "pipe_letters" {
                return Err(ToolError::new(
                    ErrorCode::ToolNotFound,
                    format!("Unknown tool '{name}'"),
                ));
            }
            self.resolved
                .lock()
                .map(|mut seen| seen.push(authority.clone()))
                .ok();
            Ok(Resolved {
                tool: self.tool(authority.scope),
                authority,
            })
        }
        .boxed()
    }

    fn native_fields(
        &self,
        tool: &DynamicTool,
        grants: Capabilities,
    ) -> Vec<(&'static str, Value)> {
        vec![(
            "pipeline",
            json!({
                "revision": tool.spec.fingerprint_extra["revision"],
                "readable": grants.has(portos_words::READ_PORTOS),
            }),
        )]
    }
}

fn registry(source: &Arc<Source>) -> Arc<Registry> {
    Registry::builder()
        .descriptors(portos_core::linked::tools().filter(|d| d.name == "dyn.count"))
        .dynamic_tools(source.clone())
        .build()
        .expect("registry")
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    let Value::Object(arguments) = arguments else {
        unreachable!("arguments are objects")
    };
    ToolCall::new(id, name, arguments)
}

fn reader() -> Authority {
    portos_words::principal::mind(Capabilities::NONE.with(portos_words::READ_PORTOS))
}

#[tokio::test]
async fn a_claimed_name_runs_through_the_source_and_makes_child_calls() {
    let source = Source::new();
    let registry = registry(&source);
    let result = registry
        .call(
            &reader(),
            call("p-1", "pipe_letters", json!({"words": ["ab", "abc"]})),
        )
        .await
        .expect("runs");
    assert!(result.is_completed(), "{result:?}");
    assert_eq!(result.name, "pipe.letters");
    assert_eq!(
        result.result.as_deref().map(|r| r["letters"].clone()),
        Some(json!([2, 3]))
    );
    // The children are in the results store under their own ids.
    let child = registry.retained("p-1-1").await.expect("child retained");
    assert_eq!(child.name, "dyn.count");
}

#[tokio::test]
async fn the_sources_refusals_come_first_then_the_common_checks() {
    let source = Source::new();
    let registry = registry(&source);
    let scope = registry
        .call(
            &portos_words::principal::ui(true),
            call("p-1", "pipe.letters", json!({"words": []})),
        )
        .await
        .expect_err("ui");
    assert_eq!(scope.code, ErrorCode::ToolScopeDenied);
    assert_eq!(scope.message, "Pipelines require mind or agent scope");

    let unknown = registry
        .call(&reader(), call("p-2", "pipe.other", json!({})))
        .await
        .expect_err("unknown");
    assert_eq!(unknown.code, ErrorCode::ToolNotFound);

    let ungranted = registry
        .call(
            &portos_words::principal::mind(Capabilities::NONE),
            call("p-3", "pipe.letters", json!({"words": []})),
        )
        .await
        .expect_err("no readPortos");
    assert_eq!(ungranted.code, ErrorCode::ToolCapabilityDenied);

    let invalid = registry
        .call(
            &reader(),
            call("p-4", "pipe.letters", json!({"words": [1]})),
        )
        .await
        .expect_err("schema");
    assert_eq!(invalid.code, ErrorCode::ToolValidationError);
    assert!(
        invalid
            .message
            .starts_with("Invalid arguments for 'pipe.letters'"),
        "{}",
        invalid.message
    );

    source.available.store(false, Ordering::SeqCst);
    let unavailable = registry
        .call(&reader(), call("p-5", "pipe.letters", json!({"words": []})))
        .await
        .expect_err("unavailable");
    assert_eq!(unavailable.code, ErrorCode::ToolUnavailable);
    assert_eq!(source.runs.load(Ordering::SeqCst), 0, "nothing ran");
}

#[tokio::test]
async fn a_replay_is_a_duplicate_and_a_new_revision_conflicts() {
    let source = Source::new();
    let registry = registry(&source);
    let arguments = json!({"words": ["a"]});
    let first = registry
        .call(&reader(), call("r-1", "pipe.letters", arguments.clone()))
        .await
        .expect("first");
    let again = registry
        .call(&reader(), call("r-1", "pipe_letters", arguments.clone()))
        .await
        .expect("replay");
    assert!(!first.duplicate && again.duplicate);
    assert_eq!(source.runs.load(Ordering::SeqCst), 1);

    source.revision.store(2, Ordering::SeqCst);
    let conflict = registry
        .call(&reader(), call("r-1", "pipe.letters", arguments))
        .await
        .expect_err("revision is in the fingerprint");
    assert_eq!(conflict.code, ErrorCode::ToolIdempotencyConflict);
}

#[tokio::test]
async fn children_draw_from_the_callers_budget() {
    let source = Source::new();
    let registry = registry(&source);
    let budget = Arc::new(CallBudget::new(5));
    assert!(budget.try_charge(), "the caller charges the call itself");
    let result = registry
        .call_with(
            &reader(),
            call(
                "b-1",
                "pipe.letters",
                json!({"words": ["a", "b", "c", "d", "e"]}),
            ),
            Some(budget.clone()),
        )
        .await
        .expect("runs");
    assert!(
        !result.is_completed(),
        "the fifth child finds the budget spent"
    );
    assert_eq!(
        result.result.as_deref().map(|r| r["letters"].clone()),
        Some(json!([1, 1, 1, 1]))
    );
    assert_eq!(budget.used(), 5);
}

fn catalogs(registry: Arc<Registry>) -> Catalogs {
    Catalogs::new(registry, &IntentConfig::default()).expect("catalogs")
}

fn query(scope: CatalogScope, format: CatalogFormat) -> CatalogQuery {
    CatalogQuery {
        scope,
        intent: None,
        format,
    }
}

#[test]
fn catalogs_list_them_after_the_linked_tools_with_a_new_etag_per_revision() {
    let source = Source::new();
    let catalogs = catalogs(registry(&source));
    let mind = query(
        CatalogScope::Only(portos_words::MIND),
        CatalogFormat::Portos,
    );
    let grants = Capabilities::NONE.with(portos_words::READ_PORTOS);
    let first = catalogs.catalog(&mind, grants);
    let body = first.body();
    let names: Vec<&str> = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(names, ["dyn.count", "pipe.letters"]);
    let entry = &body["tools"][1];
    assert_eq!(entry["granted"], json!(true));
    assert_eq!(entry["aliases"], json!([]));
    assert_eq!(entry["pipeline"], json!({"revision": 1, "readable": true}));
    assert_eq!(
        body["stats"],
        json!({"total": 2, "read": 2, "write": 0, "granted": 2})
    );
    // The served text is what a fresh render gives.
    assert_eq!(*first, catalogs.render(&mind, grants));

    let unchanged = catalogs.catalog(&mind, grants);
    assert!(
        Arc::ptr_eq(&first, &unchanged),
        "memoized while the listing is the same"
    );
    source.revision.store(2, Ordering::SeqCst);
    let changed = catalogs.catalog(&mind, grants);
    assert_ne!(first.etag, changed.etag);

    let all = catalogs.catalog(&query(CatalogScope::All, CatalogFormat::Portos), grants);
    assert_eq!(
        all.body()["tools"].as_array().map(Vec::len),
        Some(1),
        "all lists linked tools only"
    );
}

#[test]
fn provider_formats_drop_what_is_not_granted_and_use_the_provider_description() {
    let source = Source::new();
    let catalogs = catalogs(registry(&source));
    let agent = query(CatalogScope::Only(portos_words::AGENT), CatalogFormat::Mcp);
    let granted = catalogs
        .catalog(&agent, Capabilities::NONE.with(portos_words::READ_PORTOS))
        .body();
    let tools = granted["tools"].as_array().cloned().unwrap_or_default();
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[1]["name"], json!("pipe_letters"));
    assert_eq!(
        tools[1]["description"],
        json!("Count the letters of each word. (pipeline r1)")
    );
    assert_eq!(tools[1]["annotations"]["readOnlyHint"], json!(true));

    let ungranted = catalogs.catalog(&agent, Capabilities::NONE).body();
    assert_eq!(ungranted["tools"].as_array().map(Vec::len), Some(0));

    source.available.store(false, Ordering::SeqCst);
    let unavailable = catalogs
        .catalog(&agent, Capabilities::NONE.with(portos_words::READ_PORTOS))
        .body();
    assert_eq!(
        unavailable["tools"].as_array().map(Vec::len),
        Some(1),
        "an unavailable tool is never granted"
    );
}

#[test]
fn strict_formats_project_run_time_tools_too() {
    let source = Source::new();
    let catalogs = catalogs(registry(&source));
    let grants = Capabilities::NONE.with(portos_words::READ_PORTOS);
    let agent = query(
        CatalogScope::Only(portos_words::AGENT),
        CatalogFormat::OpenaiStrict,
    );
    let body = catalogs.catalog(&agent, grants).body();
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    assert_eq!(tools.len(), 2);
    let function = &tools[1]["function"];
    assert_eq!(function["name"], json!("pipe_letters"));
    assert_eq!(
        function["description"],
        json!("Count the letters of each word. (pipeline r1)")
    );
    assert_eq!(function["strict"], json!(true));
    assert_eq!(function["parameters"]["required"], json!(["words"]));
    // Nothing of its schema needed changing, so the report leaves it out.
    assert!(
        body["projection"]
            .as_array()
            .is_some_and(|report| report.iter().all(|item| item["tool"] != "pipe_letters"))
    );

    let gemini = query(
        CatalogScope::Only(portos_words::AGENT),
        CatalogFormat::Gemini,
    );
    let body = catalogs.catalog(&gemini, grants).body();
    assert_eq!(
        body["tools"][1]["parameters"]["properties"]["words"]["items"]["type"],
        json!("STRING")
    );
    let report = body["projection"].as_array().cloned().unwrap_or_default();
    assert!(report.iter().any(|item| item["tool"] == "pipe_letters"));
}

#[test]
fn a_linked_tool_may_not_answer_to_a_claimed_name() {
    struct ClaimsEverything;
    impl DynamicTools for ClaimsEverything {
        fn claims(&self, name: &str) -> bool {
            name.starts_with("dyn")
        }
        fn listing(&self, _: &Registry, _: Scope) -> Arc<DynamicListing> {
            Arc::default()
        }
        fn resolve<'a>(
            &'a self,
            _: &'a Registry,
            _: Authority,
            name: &'a str,
        ) -> BoxFuture<'a, Result<Resolved, ToolError>> {
            futures::future::ready(Err(ToolError::new(ErrorCode::ToolNotFound, name))).boxed()
        }
    }
    let error = Registry::builder()
        .descriptors(portos_core::linked::tools().filter(|d| d.name == "dyn.count"))
        .dynamic_tools(Arc::new(ClaimsEverything))
        .build()
        .expect_err("claimed");
    assert!(
        error
            .problems
            .iter()
            .any(|problem| problem.contains("`dyn.count`")
                && problem.contains("the run-time tool source claims")),
        "{error}"
    );
}
