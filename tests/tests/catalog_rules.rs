//! The catalog (docs/reference.md#catalog): the strict query, scope filtering,
//! `granted`, stats, the provider formats and MCP annotations, the ETag, intent
//! filtering and the shape of every schema. Written from the spec; the ETag
//! is recomputed here independently.

use std::collections::BTreeSet;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use portos_core::{
    AdapterError, Capabilities, Capability, Catalog, CatalogFormat, CatalogQuery, CatalogScope,
    Catalogs, ErrorCode, IntentConfig, IntentGroup, Registry, ToolCall, ToolError, ToolState,
    linked, portos_tool,
};
use portos_tests as _;
portos_core::use_vocabulary!(portos_words);
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

// ---- the tools under test -------------------------------------------------

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Leaf {
    tag: String,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Inner {
    depth: u8,
    leaf: Leaf,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Item {
    id: String,
    #[serde(default)]
    meta: Option<Leaf>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
enum Mode {
    Fast,
    Slow { by: u32 },
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DeepArgs {
    query: String,
    #[serde(default)]
    limit: Option<u32>,
    inner: Inner,
    items: Vec<Item>,
    mode: Mode,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TextArgs {
    text: String,
}

fn done() -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true }))
}

/// Read deeply nested things.
#[portos_tool(
    name = "cat.read",
    scopes = ["agent", "mind", "ui"],
    capabilities = ["readPortos"],
    side_effect = "read",
)]
async fn cat_read(args: DeepArgs) -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "query": args.query }))
}

/// Write a thing
/// over two lines.
#[portos_tool(
    name = "cat.write",
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["writePortos"],
    side_effect = "write",
)]
async fn cat_write(args: TextArgs) -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "text": args.text }))
}

/// Queue a task.
#[portos_tool(
    name = "cat.supervised",
    scopes = ["mind"],
    capabilities = ["createTasks"],
    side_effect = "supervised-write",
    idempotent = true,
    async = true,
)]
async fn cat_supervised() -> Result<Value, AdapterError> {
    done()
}

/// Destroy things.
#[portos_tool(
    name = "cat.destroy",
    scopes = ["mind"],
    capabilities = ["manageMind"],
    side_effect = "destructive",
)]
async fn cat_destroy() -> Result<Value, AdapterError> {
    done()
}

/// Visit a peer world.
#[portos_tool(
    name = "cat.visit",
    scopes = ["agent", "mind", "ui"],
    capabilities = ["visitEidoversePeers"],
    side_effect = "write",
)]
async fn cat_visit() -> Result<Value, AdapterError> {
    done()
}

/// Needs no grant.
#[portos_tool(name = "cat.nocaps", scopes = ["agent", "mind"], side_effect = "read")]
async fn cat_nocaps() -> Result<Value, AdapterError> {
    done()
}

/// Capture into the brain.
#[portos_tool(
    name = "cat.brain-capture",
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["writePortos"],
    side_effect = "write",
    intent_group = "brain",
    suppress_on_form_fill = true,
)]
async fn cat_brain_capture(args: TextArgs) -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "captured": args.text }))
}

/// Search the brain.
#[portos_tool(
    name = "cat.brain-search",
    aliases = ["brain_search_legacy", "cat_brain_search"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
    intent_group = "brain",
)]
async fn cat_brain_search() -> Result<Value, AdapterError> {
    done()
}

/// The weather now.
#[portos_tool(
    name = "cat.weather",
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
    intent_group = "weather",
)]
async fn cat_weather() -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "sky": "clear" }))
}

/// Append to the journal.
#[portos_tool(
    name = "cat.journal-append",
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["writePortos"],
    side_effect = "write",
    suppress_on_form_fill = true,
)]
async fn cat_journal_append(args: TextArgs) -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "appended": args.text }))
}

/// The time now.
#[portos_tool(
    name = "cat.time",
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
)]
async fn cat_time() -> Result<Value, AdapterError> {
    done()
}

const LOCAL: [&str; 11] = [
    "cat.read",
    "cat.write",
    "cat.supervised",
    "cat.destroy",
    "cat.visit",
    "cat.nocaps",
    "cat.brain-capture",
    "cat.brain-search",
    "cat.weather",
    "cat.journal-append",
    "cat.time",
];

// ---- helpers ----------------------------------------------------------------

/// The intent groups this file's tools name. The filtering rules are
/// core's; which words switch a group on is an application's choice (PortOS's
/// own table is tested beside it, in `portos_server::contract_facts`).
/// Naming nothing of portos-server also keeps the linker from bringing its
/// tools into this binary.
const INTENTS: IntentConfig = IntentConfig {
    groups: &[
        IntentGroup {
            name: "brain",
            pattern: r"\b(search|find|look\s*up|recall|brain|remember|remind\s+me)\b",
        },
        IntentGroup {
            name: "weather",
            pattern: r"\b(weather|forecast|raining|snowing)\b",
        },
    ],
    form_fill: Some(concat!(
        r"\b(fill|type|enter|put|write|set)\b.{0,60}",
        r"\b(description|name|title|subject|body|field|input|form)\b",
    )),
};

/// Exactly this file's tools, in the catalog layer.
fn registry() -> Catalogs {
    catalogs(
        Registry::builder()
            .descriptors(linked::tools().filter(|d| d.name.starts_with("cat.")))
            .build()
            .expect("the tools are valid"),
    )
}

fn catalogs(registry: std::sync::Arc<Registry>) -> Catalogs {
    Catalogs::new(registry, &INTENTS).expect("every intent group named is defined")
}

fn query(pairs: &[(&str, &str)]) -> CatalogQuery {
    CatalogQuery::parse(pairs.iter().copied()).expect("a valid query")
}

fn catalog(registry: &Catalogs, pairs: &[(&str, &str)], grants: Capabilities) -> Catalog {
    registry.render(&query(pairs), grants)
}

fn body(registry: &Catalogs, pairs: &[(&str, &str)], grants: Capabilities) -> Value {
    catalog(registry, pairs, grants).body()
}

fn tools(body: &Value) -> &Vec<Value> {
    body["tools"].as_array().expect("a tools array")
}

fn listed(body: &Value) -> BTreeSet<String> {
    tools(body)
        .iter()
        .map(|t| t["name"].as_str().expect("a name").to_owned())
        .collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

fn entry<'a>(body: &'a Value, name: &str) -> &'a Value {
    tools(body)
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not listed"))
}

fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value
        .as_object()
        .expect("an object")
        .keys()
        .cloned()
        .collect();
    keys.sort_unstable();
    keys
}

fn grants(capabilities: &[Capability]) -> Capabilities {
    capabilities.iter().copied().collect()
}

const SCOPES: [&str; 5] = ["all", "agent", "mind", "ui", "voice"];
const FORMATS: [&str; 7] = [
    "portos",
    "openai",
    "anthropic",
    "mcp",
    "openai-strict",
    "anthropic-strict",
    "gemini",
];
const STRICT_FORMATS: [&str; 3] = ["openai-strict", "anthropic-strict", "gemini"];

/// Canonical JSON as docs/reference.md#fingerprint define it, written
/// independently: keys sorted by UTF-16 code units at every depth, compact,
/// arrays in order.
fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
            let inner: Vec<String> = entries
                .into_iter()
                .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), canonical(v)))
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(canonical).collect();
            format!("[{}]", inner.join(","))
        }
        other => other.to_string(),
    }
}

fn expected_etag(body: &Value) -> String {
    let digest = Sha256::digest(canonical(body).as_bytes());
    format!("\"{}\"", URL_SAFE_NO_PAD.encode(digest))
}

// ---- docs/reference.md#catalog-query the query ----------------------------------

#[test]
fn the_query_defaults_to_all_portos_without_intent() {
    let q = query(&[]);
    assert_eq!(q.scope, CatalogScope::All);
    assert_eq!(q.format, CatalogFormat::Portos);
    assert_eq!(q.intent, None);
}

#[test]
fn the_query_accepts_every_scope_and_format() {
    for scope in SCOPES {
        assert_eq!(query(&[("scope", scope)]).scope.as_str(), scope);
    }
    for format in FORMATS {
        assert_eq!(query(&[("format", format)]).format.as_str(), format);
    }
    let q = query(&[
        ("scope", "voice"),
        ("intent", "what time is it"),
        ("format", "mcp"),
    ]);
    assert_eq!(q.scope, CatalogScope::Only(portos_words::VOICE));
    assert_eq!(q.intent.as_deref(), Some("what time is it"));
    assert_eq!(q.format, CatalogFormat::Mcp);
}

fn query_issues(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    match CatalogQuery::parse(pairs.iter().copied()) {
        Ok(q) => panic!("{pairs:?} should be refused, parsed {q:?}"),
        Err(failure) => failure
            .details
            .into_iter()
            .map(|i| (i.path, i.message))
            .collect(),
    }
}

#[test]
fn the_query_is_strict() {
    for (pair, path) in [
        (("scope", "root"), "scope"),
        (("scope", "UI"), "scope"),
        (("scope", ""), "scope"),
        (("format", "gemini-strict"), "format"),
        (("format", "openai_strict"), "format"),
        (("format", "MCP"), "format"),
    ] {
        let found = query_issues(&[pair]);
        assert_eq!(found.len(), 1, "{pair:?}: {found:?}");
        assert_eq!(found[0].0, path, "{pair:?}: {found:?}");
    }
    // Unknown keys are refused, and named.
    let found = query_issues(&[("cursor", "1")]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].1.contains("cursor"), "{found:?}");
    // Every issue at once.
    let found = query_issues(&[("scope", "root"), ("format", "x"), ("page", "2")]);
    assert_eq!(found.len(), 3, "{found:?}");
}

#[test]
fn a_refused_query_is_a_validation_error_400() {
    let failure = CatalogQuery::parse([("scope", "everything")]).expect_err("refused");
    let error = ToolError::from(failure);
    assert_eq!(error.code, ErrorCode::ValidationError);
    assert_eq!(error.status(), 400);
    let details = &error.context.expect("context")["details"];
    assert_eq!(details[0]["path"], "scope");
}

#[test]
fn the_intent_is_trimmed_then_limited_to_500_characters() {
    assert_eq!(
        query(&[("intent", "  find my notes \t")]).intent.as_deref(),
        Some("find my notes")
    );
    let at_limit = "x".repeat(500);
    assert_eq!(
        query(&[("intent", &at_limit)]).intent.as_deref(),
        Some(at_limit.as_str())
    );
    let padded = format!("   {at_limit}   ");
    assert_eq!(
        query(&[("intent", &padded)]).intent.as_deref(),
        Some(at_limit.as_str())
    );
    let found = query_issues(&[("intent", &"x".repeat(501))]);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, "intent");
}

#[test]
fn a_blank_intent_is_no_intent() {
    assert_eq!(query(&[("intent", "")]).intent, None);
    assert_eq!(query(&[("intent", "   ")]).intent, None);
}

// ---- docs/reference.md#native-catalog the native catalog ----------------------------

#[test]
fn the_native_catalog_has_the_contract_wrapper() {
    let registry = registry();
    for scope in SCOPES {
        let body = body(&registry, &[("scope", scope)], Capabilities::NONE);
        assert_eq!(
            keys(&body),
            ["schemaVersion", "scope", "stats", "tools", "type"]
        );
        assert_eq!(body["type"], "portos_tool_catalog");
        assert_eq!(body["schemaVersion"], 1);
        assert_eq!(body["scope"], scope);
        assert_eq!(keys(&body["stats"]), ["granted", "read", "total", "write"]);
    }
}

#[test]
fn each_native_entry_has_exactly_the_public_fields() {
    let registry = registry();
    let body = body(&registry, &[("scope", "mind")], Capabilities::NONE);
    assert_eq!(tools(&body).len(), LOCAL.len());
    for tool in tools(&body) {
        assert_eq!(
            keys(tool),
            [
                "aliases",
                "availableInScope",
                "description",
                "granted",
                "input_schema",
                "name",
                "output_schema",
                "policy",
                "providerName",
                "type",
                "version"
            ],
            "no adapter, no recipe: {tool}"
        );
        assert_eq!(tool["type"], "portos_tool");
        assert_eq!(tool["version"], 1);
        assert_eq!(tool["availableInScope"], true);
        assert_eq!(
            keys(&tool["policy"]),
            [
                "async",
                "confirmation",
                "idempotent",
                "requiredCapabilities",
                "scopes",
                "sideEffect"
            ]
        );
    }
}

#[test]
fn native_entries_carry_the_declared_names_and_policy() {
    let registry = registry();
    let body = body(&registry, &[], Capabilities::NONE);
    let read = entry(&body, "cat.read");
    assert_eq!(read["providerName"], "cat_read");
    assert_eq!(read["aliases"], json!(["cat_read"]));
    assert_eq!(read["description"], "Read deeply nested things.");
    assert_eq!(
        read["policy"],
        json!({
            "scopes": ["agent", "mind", "ui"],
            "requiredCapabilities": ["readPortos"],
            "sideEffect": "read",
            "idempotent": true,
            "async": false,
            "confirmation": "none"
        })
    );
    let search = entry(&body, "cat.brain-search");
    assert_eq!(search["providerName"], "cat_brain_search");
    assert_eq!(
        search["aliases"],
        json!(["brain_search_legacy", "cat_brain_search"])
    );
    let supervised = entry(&body, "cat.supervised");
    assert_eq!(
        supervised["policy"],
        json!({
            "scopes": ["mind"],
            "requiredCapabilities": ["createTasks"],
            "sideEffect": "supervised-write",
            "idempotent": true,
            "async": true,
            "confirmation": "capability-grant"
        })
    );
    assert_eq!(
        entry(&body, "cat.destroy")["policy"]["sideEffect"],
        "destructive"
    );
    assert_eq!(entry(&body, "cat.destroy")["policy"]["idempotent"], false);
    let write = entry(&body, "cat.write");
    assert_eq!(write["providerName"], "cat_write");
    assert_eq!(write["description"], "Write a thing over two lines.");
    assert_eq!(write["policy"]["confirmation"], "capability-grant");
}

#[test]
fn scope_filters_by_the_policy_scopes() {
    let registry = registry();
    let all = body(&registry, &[("scope", "all")], Capabilities::NONE);
    assert_eq!(listed(&all), set(&LOCAL));
    for scope in ["agent", "mind", "ui", "voice"] {
        let body = body(&registry, &[("scope", scope)], Capabilities::NONE);
        let expected: BTreeSet<String> = tools(&all)
            .iter()
            .filter(|t| {
                t["policy"]["scopes"]
                    .as_array()
                    .is_some_and(|s| s.contains(&json!(scope)))
            })
            .map(|t| t["name"].as_str().expect("name").to_owned())
            .collect();
        assert_eq!(listed(&body), expected, "scope {scope}");
    }
    let voice = body(&registry, &[("scope", "voice")], Capabilities::NONE);
    assert_eq!(
        listed(&voice),
        set(&[
            "cat.write",
            "cat.brain-capture",
            "cat.brain-search",
            "cat.weather",
            "cat.journal-append",
            "cat.time"
        ])
    );
    let ui = body(&registry, &[("scope", "ui")], Capabilities::NONE);
    assert!(!listed(&ui).contains("cat.nocaps") && !listed(&ui).contains("cat.destroy"));
}

#[test]
fn the_order_follows_the_registry_in_every_scope() {
    let registry = registry();
    let order: Vec<&str> = registry
        .registry()
        .tools()
        .iter()
        .map(|t| t.name())
        .collect();
    for scope in SCOPES {
        let body = body(&registry, &[("scope", scope)], Capabilities::NONE);
        let names: Vec<&str> = tools(&body)
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        let mut expected = order.clone();
        expected.retain(|n| names.contains(n));
        assert_eq!(names, expected, "scope {scope}");
    }
}

#[test]
fn granted_is_null_outside_mind_and_agent() {
    let registry = registry();
    for scope in ["all", "ui", "voice"] {
        for held in [Capabilities::NONE, Capabilities::all()] {
            let body = body(&registry, &[("scope", scope)], held);
            assert!(
                tools(&body).iter().all(|t| t["granted"].is_null()),
                "scope {scope}"
            );
            assert_eq!(body["stats"]["granted"], 0, "scope {scope}");
        }
    }
}

#[test]
fn granted_is_true_only_when_every_required_capability_is_held() {
    let registry = registry();
    for scope in ["mind", "agent"] {
        let none = body(&registry, &[("scope", scope)], Capabilities::NONE);
        for tool in tools(&none) {
            let expected = tool["name"] == "cat.nocaps";
            assert_eq!(tool["granted"], expected, "{scope}: {tool}");
        }
        let everything = body(&registry, &[("scope", scope)], Capabilities::all());
        assert!(
            tools(&everything).iter().all(|t| t["granted"] == true),
            "{scope}"
        );
    }
    let readers = body(
        &registry,
        &[("scope", "mind")],
        grants(&[portos_words::READ_PORTOS]),
    );
    let granted: BTreeSet<String> = tools(&readers)
        .iter()
        .filter(|t| t["granted"] == true)
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect();
    assert_eq!(
        granted,
        set(&[
            "cat.read",
            "cat.nocaps",
            "cat.brain-search",
            "cat.weather",
            "cat.time"
        ])
    );
    // Grants normalize strictly: "true" is not true.
    let loose = Capabilities::from_json(&json!({ "readPortos": "true", "writePortos": 1 }));
    let body = body(&registry, &[("scope", "agent")], loose);
    assert_eq!(entry(&body, "cat.read")["granted"], false);
}

#[test]
fn stats_count_the_listed_tools() {
    let registry = registry();
    let body = body(
        &registry,
        &[("scope", "mind")],
        grants(&[portos_words::READ_PORTOS]),
    );
    assert_eq!(
        body["stats"],
        json!({ "total": 11, "read": 5, "write": 6, "granted": 5 })
    );
    for scope in SCOPES {
        for held in [
            Capabilities::NONE,
            grants(&[portos_words::WRITE_PORTOS]),
            Capabilities::all(),
        ] {
            let body = self::body(&registry, &[("scope", scope)], held);
            let list = tools(&body);
            let read = list
                .iter()
                .filter(|t| t["policy"]["sideEffect"] == "read")
                .count();
            let granted = list.iter().filter(|t| t["granted"] == true).count();
            assert_eq!(body["stats"]["total"], list.len(), "{scope}");
            assert_eq!(body["stats"]["read"], read, "{scope}");
            assert_eq!(body["stats"]["write"], list.len() - read, "{scope}");
            assert_eq!(body["stats"]["granted"], granted, "{scope}");
        }
    }
}

// ---- docs/reference.md#provider-formats provider formats ---------------------------

#[test]
fn provider_formats_have_their_wrapper() {
    let registry = registry();
    for format in ["openai", "anthropic", "mcp"] {
        for scope in SCOPES {
            let body = body(
                &registry,
                &[("scope", scope), ("format", format)],
                Capabilities::NONE,
            );
            assert_eq!(
                keys(&body),
                ["schemaVersion", "scope", "tools", "type"],
                "no stats"
            );
            assert_eq!(body["type"], format!("{format}_tool_catalog"));
            assert_eq!(body["schemaVersion"], 1);
            assert_eq!(body["scope"], scope);
        }
    }
}

// ---- strict provider formats (issue 14 part 4) ----------------------------------

#[test]
fn strict_formats_have_the_provider_wrapper_and_a_projection_report() {
    let registry = registry();
    for format in STRICT_FORMATS {
        for scope in SCOPES {
            let body = body(
                &registry,
                &[("scope", scope), ("format", format)],
                Capabilities::NONE,
            );
            assert_eq!(
                keys(&body),
                ["projection", "schemaVersion", "scope", "tools", "type"],
                "{format}"
            );
            assert_eq!(body["type"], format!("{format}_tool_catalog"));
            // The report names only listed tools.
            let listed = provider_names(&body, format);
            for report in body["projection"].as_array().expect("an array") {
                let tool = report["tool"].as_str().expect("a tool");
                assert!(listed.contains(tool), "{format}/{scope}: {tool}");
                assert!(!report["changes"].as_array().expect("changes").is_empty());
            }
        }
    }
}

#[test]
fn the_contract_formats_carry_no_projection_report() {
    let registry = registry();
    for format in ["portos", "openai", "anthropic", "mcp"] {
        let body = body(&registry, &[("format", format)], Capabilities::NONE);
        assert!(body.get("projection").is_none(), "{format}");
    }
}

#[test]
fn strict_entries_have_the_provider_shapes() {
    let registry = registry();
    let openai = body(
        &registry,
        &[("format", "openai-strict")],
        Capabilities::NONE,
    );
    let read = tools(&openai)
        .iter()
        .find(|t| t["function"]["name"] == "cat_read")
        .expect("cat_read");
    assert_eq!(keys(read), ["function", "type"]);
    assert_eq!(
        keys(&read["function"]),
        ["description", "name", "parameters", "strict"]
    );
    assert_eq!(read["function"]["strict"], true);
    let parameters = &read["function"]["parameters"];
    // Every property required; the optional `limit` is nullable.
    assert_eq!(
        parameters["required"],
        json!(["query", "limit", "inner", "items", "mode"])
    );
    assert_eq!(
        parameters["properties"]["limit"]["type"],
        json!(["integer", "null"])
    );
    assert_closed_everywhere(parameters, "cat_read openai-strict");

    let anthropic = body(
        &registry,
        &[("format", "anthropic-strict")],
        Capabilities::NONE,
    );
    let read = entry_by_provider(&anthropic, "cat_read");
    assert_eq!(
        keys(read),
        ["description", "input_schema", "name", "strict"]
    );
    assert_eq!(read["strict"], true);
    assert_eq!(
        read["input_schema"]["required"],
        json!(["query", "inner", "items", "mode"])
    );

    let gemini = body(&registry, &[("format", "gemini")], Capabilities::NONE);
    let read = entry_by_provider(&gemini, "cat_read");
    assert_eq!(keys(read), ["description", "name", "parameters"]);
    assert_eq!(read["parameters"]["type"], "OBJECT");
    // A tool without arguments is declared without parameters.
    let time = entry_by_provider(&gemini, "cat_time");
    assert_eq!(keys(time), ["description", "name"]);
}

#[test]
fn the_report_lists_what_each_projection_changed() {
    let registry = registry();
    let openai = body(
        &registry,
        &[("format", "openai-strict")],
        Capabilities::NONE,
    );
    let report = openai["projection"]
        .as_array()
        .expect("a report")
        .iter()
        .find(|r| r["tool"] == "cat_read")
        .expect("cat_read changed");
    let changes = report["changes"].as_array().expect("changes");
    assert!(
        changes.iter().any(|c| c["path"] == "/properties/limit"
            && c["keyword"] == "type"
            && c["action"] == "nullable-added"),
        "{changes:?}"
    );
    // `mode` is a data-carrying enum: schemars writes `oneOf`.
    assert!(
        changes
            .iter()
            .any(|c| c["path"] == "/properties/mode" && c["action"] == "rewritten"),
        "{changes:?}"
    );
    for change in changes {
        assert_eq!(keys(change), ["action", "detail", "keyword", "path"]);
    }
}

/// Provider names listed by a provider-format catalog.
fn provider_names(body: &Value, format: &str) -> BTreeSet<String> {
    tools(body)
        .iter()
        .map(|t| {
            let name = if format.starts_with("openai") {
                &t["function"]["name"]
            } else {
                &t["name"]
            };
            name.as_str().expect("a provider name").to_owned()
        })
        .collect()
}

#[test]
fn provider_formats_drop_only_tools_known_to_be_ungranted() {
    let registry = registry();
    let cases = [
        ("mind", grants(&[portos_words::READ_PORTOS])),
        ("agent", Capabilities::NONE),
        (
            "agent",
            grants(&[portos_words::WRITE_PORTOS, portos_words::READ_PORTOS]),
        ),
        ("ui", Capabilities::NONE),
        ("voice", Capabilities::NONE),
        ("all", Capabilities::NONE),
    ];
    for (scope, held) in cases {
        let native = body(&registry, &[("scope", scope)], held);
        let kept: BTreeSet<String> = tools(&native)
            .iter()
            .filter(|t| t["granted"] != false)
            .map(|t| {
                t["providerName"]
                    .as_str()
                    .expect("provider name")
                    .to_owned()
            })
            .collect();
        for format in ["openai", "anthropic", "mcp"] {
            let body = body(&registry, &[("scope", scope), ("format", format)], held);
            assert_eq!(provider_names(&body, format), kept, "{scope}/{format}");
        }
    }
    let agent = body(
        &registry,
        &[("scope", "agent"), ("format", "mcp")],
        Capabilities::NONE,
    );
    assert_eq!(provider_names(&agent, "mcp"), set(&["cat_nocaps"]));
    let ui = body(
        &registry,
        &[("scope", "ui"), ("format", "openai")],
        Capabilities::NONE,
    );
    assert_eq!(tools(&ui).len(), 8, "ui keeps every ui tool");
}

#[test]
fn provider_entries_have_the_contract_shapes() {
    let registry = registry();
    let native = body(&registry, &[], Capabilities::NONE);
    let openai = body(&registry, &[("format", "openai")], Capabilities::NONE);
    let anthropic = body(&registry, &[("format", "anthropic")], Capabilities::NONE);
    let mcp = body(&registry, &[("format", "mcp")], Capabilities::NONE);
    assert_eq!(tools(&openai).len(), tools(&native).len());
    for (index, tool) in tools(&native).iter().enumerate() {
        let (provider, description, input) = (
            &tool["providerName"],
            &tool["description"],
            &tool["input_schema"],
        );
        assert_eq!(
            tools(&openai)[index],
            json!({ "type": "function", "function": { "name": provider, "description": description, "parameters": input } })
        );
        assert_eq!(
            tools(&anthropic)[index],
            json!({ "name": provider, "description": description, "input_schema": input })
        );
        let entry = &tools(&mcp)[index];
        assert_eq!(
            keys(entry),
            [
                "annotations",
                "description",
                "inputSchema",
                "name",
                "outputSchema"
            ]
        );
        assert_eq!(entry["name"], *provider);
        assert_eq!(entry["description"], *description);
        assert_eq!(entry["inputSchema"], *input);
        assert_eq!(entry["outputSchema"], tool["output_schema"]);
    }
}

// ---- docs/reference.md#mcp-annotations MCP annotations ---------------------------------

#[test]
fn mcp_annotations_follow_the_policy() {
    let registry = registry();
    let native = body(&registry, &[], Capabilities::NONE);
    let mcp = body(&registry, &[("format", "mcp")], Capabilities::NONE);
    for (tool, entry) in tools(&native).iter().zip(tools(&mcp)) {
        let policy = &tool["policy"];
        let visits = policy["requiredCapabilities"]
            .as_array()
            .is_some_and(|caps| caps.contains(&json!("visitEidoversePeers")));
        assert_eq!(
            entry["annotations"],
            json!({
                "readOnlyHint": policy["sideEffect"] == "read",
                "destructiveHint": policy["sideEffect"] == "destructive",
                "idempotentHint": policy["idempotent"],
                "openWorldHint": visits,
            }),
            "{}",
            tool["name"]
        );
    }
}

#[test]
fn mcp_annotations_for_each_side_effect() {
    let registry = registry();
    let mcp = body(&registry, &[("format", "mcp")], Capabilities::NONE);
    let hints = |name: &str| entry_by_provider(&mcp, name)["annotations"].clone();
    let expect = |read: bool, destructive: bool, idempotent: bool, open: bool| json!({ "readOnlyHint": read, "destructiveHint": destructive, "idempotentHint": idempotent, "openWorldHint": open });
    assert_eq!(hints("cat_read"), expect(true, false, true, false));
    assert_eq!(hints("cat_write"), expect(false, false, false, false));
    assert_eq!(hints("cat_supervised"), expect(false, false, true, false));
    assert_eq!(hints("cat_destroy"), expect(false, true, false, false));
    // Visiting peers reaches outside this machine.
    assert_eq!(hints("cat_visit"), expect(false, false, false, true));
}

fn entry_by_provider<'a>(body: &'a Value, provider: &str) -> &'a Value {
    tools(body)
        .iter()
        .find(|t| t["name"] == provider)
        .unwrap_or_else(|| panic!("{provider} is not listed"))
}

// ---- docs/reference.md#etag the ETag ------------------------------------------------

#[test]
fn the_etag_is_the_quoted_base64url_sha256_of_canonical_json() {
    let registry = registry();
    for scope in SCOPES {
        for format in FORMATS {
            for intent in ["", "search my brain"] {
                let catalog = catalog(
                    &registry,
                    &[("scope", scope), ("format", format), ("intent", intent)],
                    Capabilities::NONE,
                );
                assert_eq!(
                    catalog.etag,
                    expected_etag(&catalog.body()),
                    "{scope}/{format}/{intent}"
                );
                let inner = catalog.etag.trim_matches('"');
                assert_eq!(
                    catalog.etag.len(),
                    inner.len() + 2,
                    "strong and quoted: {}",
                    catalog.etag
                );
                assert_eq!(inner.len(), 43, "unpadded SHA-256: {}", catalog.etag);
                assert!(
                    inner
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
                    "{inner}"
                );
            }
        }
    }
}

#[test]
fn the_etag_changes_exactly_when_the_body_changes() {
    let registry = registry();
    let mind = [("scope", "mind")];
    let before = catalog(&registry, &mind, Capabilities::NONE);
    assert_eq!(
        catalog(&registry, &mind, Capabilities::NONE).etag,
        before.etag,
        "stable"
    );
    let after = catalog(&registry, &mind, grants(&[portos_words::READ_PORTOS]));
    assert_ne!(after.body(), before.body());
    assert_ne!(after.etag, before.etag, "a grant change is a new ETag");
    // Grants do not show in the ui catalog, so its ETag ignores them.
    let ui = [("scope", "ui")];
    assert_eq!(
        catalog(&registry, &ui, Capabilities::NONE).etag,
        catalog(&registry, &ui, Capabilities::all()).etag
    );
    let openai = catalog(
        &registry,
        &[("scope", "mind"), ("format", "openai")],
        Capabilities::NONE,
    );
    assert_ne!(openai.etag, before.etag);
    let narrowed = catalog(
        &registry,
        &[("scope", "mind"), ("intent", "is it raining")],
        Capabilities::NONE,
    );
    assert_ne!(narrowed.etag, before.etag);
}

#[test]
fn the_body_is_byte_for_byte_deterministic_across_builds() {
    let first = catalogs(Registry::builder().build().expect("valid"));
    let second = catalogs(Registry::builder().build().expect("valid"));
    for scope in SCOPES {
        for format in FORMATS {
            for intent in ["", "what time is it", "search my brain"] {
                let pairs = [("scope", scope), ("format", format), ("intent", intent)];
                let a = catalog(&first, &pairs, grants(&[portos_words::READ_PORTOS]));
                let b = catalog(&second, &pairs, grants(&[portos_words::READ_PORTOS]));
                assert_eq!(a.to_json(), b.to_json(), "{pairs:?}");
                assert_eq!(a.etag, b.etag, "{pairs:?}");
                let reparsed: Value = serde_json::from_str(a.to_json()).expect("valid JSON");
                assert_eq!(reparsed, a.body());
            }
        }
    }
}

// ---- docs/reference.md#intent-filtering intent filtering ------------------------------------

#[test]
fn a_tool_naming_an_undefined_intent_group_is_refused() {
    let registry = Registry::builder()
        .descriptors(linked::tools().filter(|d| d.name.starts_with("cat.")))
        .build()
        .expect("valid");
    let only_brain = IntentConfig {
        groups: &[IntentGroup {
            name: "brain",
            pattern: r"\bbrain\b",
        }],
        form_fill: None,
    };
    let error = match Catalogs::new(registry, &only_brain) {
        Ok(_) => panic!("`weather` is not defined"),
        Err(error) => error,
    };
    assert_eq!(error.problems.len(), 1, "{error}");
    let problem = &error.problems[0];
    assert!(
        problem.contains("cat.weather")
            && problem.contains("`weather`")
            && problem.contains("catalog_rules.rs")
            && problem.contains("defined: brain"),
        "{problem}"
    );
}

#[test]
fn a_served_catalog_is_rendered_once_and_shared() {
    let registry = registry();
    let q = query(&[("scope", "voice"), ("intent", "is it raining")]);
    let first = registry.catalog(&q, Capabilities::NONE);
    let again = registry.catalog(&q, Capabilities::NONE);
    assert!(Arc::ptr_eq(&first, &again));
    assert_eq!(*first, registry.render(&q, Capabilities::NONE));
    let other = registry.catalog(&query(&[("scope", "ui")]), Capabilities::NONE);
    assert!(!Arc::ptr_eq(&first, &other));
    assert_eq!(first.shared_bytes().as_ref(), first.to_json().as_bytes());
}

const GROUPED: [&str; 3] = ["cat.brain-capture", "cat.brain-search", "cat.weather"];

fn with_intent(registry: &Catalogs, intent: &str) -> BTreeSet<String> {
    listed(&body(registry, &[("intent", intent)], Capabilities::NONE))
}

#[test]
fn a_blank_intent_filters_nothing() {
    let registry = registry();
    let everything = set(&LOCAL);
    assert_eq!(with_intent(&registry, ""), everything);
    assert_eq!(with_intent(&registry, "   "), everything);
    // Even set directly, a blank intent is no intent.
    let q = CatalogQuery {
        intent: Some("  \t ".to_owned()),
        ..CatalogQuery::default()
    };
    assert_eq!(
        registry.render(&q, Capabilities::NONE),
        registry.render(&CatalogQuery::default(), Capabilities::NONE)
    );
}

#[test]
fn a_grouped_tool_is_listed_only_when_its_group_matches() {
    let registry = registry();
    let brain = with_intent(&registry, "search my brain for tacos");
    assert!(
        brain.contains("cat.brain-search") && brain.contains("cat.brain-capture"),
        "{brain:?}"
    );
    assert!(!brain.contains("cat.weather"), "{brain:?}");

    let weather = with_intent(&registry, "is it raining");
    assert!(weather.contains("cat.weather"), "{weather:?}");
    assert!(
        !weather.contains("cat.brain-search") && !weather.contains("cat.brain-capture"),
        "{weather:?}"
    );

    // Case does not matter.
    assert!(with_intent(&registry, "WHAT'S THE WEATHER").contains("cat.weather"));
}

#[test]
fn tools_without_a_group_are_always_listed() {
    let registry = registry();
    let ungrouped: BTreeSet<String> = set(&LOCAL)
        .into_iter()
        .filter(|n| !GROUPED.contains(&n.as_str()))
        .collect();
    for intent in [
        "what time is it",
        "search my brain",
        "is it raining",
        "zzz",
        "type my name into the title field",
    ] {
        let listed = with_intent(&registry, intent);
        for name in &ungrouped {
            if name == "cat.journal-append" && intent.contains("title field") {
                continue; // form-fill suppression, below
            }
            assert!(
                listed.contains(name),
                "{name} missing for {intent:?}: {listed:?}"
            );
        }
    }
    let time = with_intent(&registry, "what time is it");
    assert!(
        GROUPED.iter().all(|g| !time.contains(*g)),
        "no group matches: {time:?}"
    );
    assert!(time.contains("cat.time") && time.contains("cat.journal-append"));
}

#[test]
fn form_fill_suppresses_marked_tools_even_without_a_group() {
    let registry = registry();
    let form = with_intent(&registry, "type my name into the title field");
    assert!(!form.contains("cat.journal-append"), "{form:?}");
    assert!(
        form.contains("cat.time") && form.contains("cat.write"),
        "{form:?}"
    );
    // The brain group matches too, yet capture stays suppressed; search is unmarked.
    let both = with_intent(&registry, "type remember the milk into the title field");
    assert!(both.contains("cat.brain-search"), "{both:?}");
    assert!(!both.contains("cat.brain-capture"), "{both:?}");
    assert!(!both.contains("cat.journal-append"), "{both:?}");
    // Without form-filling words, the marked tools are back.
    let capture = with_intent(&registry, "remember the milk");
    assert!(
        capture.contains("cat.brain-capture") && capture.contains("cat.journal-append"),
        "{capture:?}"
    );
}

#[test]
fn intent_narrows_every_format_and_the_stats() {
    let registry = registry();
    let pairs = [("scope", "voice"), ("intent", "what time is it")];
    let native = body(&registry, &pairs, Capabilities::NONE);
    assert_eq!(
        listed(&native),
        set(&["cat.write", "cat.journal-append", "cat.time"])
    );
    assert_eq!(
        native["stats"],
        json!({ "total": 3, "read": 1, "write": 2, "granted": 0 })
    );
    for format in ["openai", "anthropic", "mcp"] {
        let body = body(
            &registry,
            &[pairs[0], pairs[1], ("format", format)],
            Capabilities::NONE,
        );
        assert_eq!(
            provider_names(&body, format),
            set(&["cat_write", "cat_journal_append", "cat_time"]),
            "{format}"
        );
    }
}

#[tokio::test]
async fn intent_never_limits_what_can_be_called() {
    let registry = registry();
    assert!(!with_intent(&registry, "what time is it").contains("cat.weather"));
    let call =
        ToolCall::parse(&json!({ "requestId": "w1", "name": "cat_weather" })).expect("valid");
    let result = registry
        .registry()
        .call(&portos_words::principal::voice(), call)
        .await
        .expect("callable");
    assert_eq!(result.state, ToolState::Completed);
}

// ---- schemas ----------------------------------------------------------------------------

/// Every object schema anywhere in `schema` is closed, and nothing refers elsewhere.
fn assert_closed_everywhere(schema: &Value, at: &str) {
    match schema {
        Value::Object(map) => {
            for forbidden in ["$schema", "$ref", "$defs", "definitions", "$dynamicRef"] {
                assert!(!map.contains_key(forbidden), "{forbidden} at {at}");
            }
            let is_object = map.get("type") == Some(&json!("object"))
                || map
                    .get("type")
                    .and_then(Value::as_array)
                    .is_some_and(|t| t.contains(&json!("object")))
                || map.get("properties").is_some_and(Value::is_object);
            if is_object {
                assert_eq!(
                    map.get("additionalProperties"),
                    Some(&json!(false)),
                    "open object at {at}"
                );
            }
            for (key, child) in map {
                assert_closed_everywhere(child, &format!("{at}/{key}"));
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                assert_closed_everywhere(item, &format!("{at}/{index}"));
            }
        }
        _ => {}
    }
}

#[test]
fn input_schemas_are_closed_at_every_depth_and_self_contained() {
    let registry = catalogs(Registry::builder().build().expect("valid"));
    let body = body(&registry, &[], Capabilities::NONE);
    // This file's tools and the named extra crate's are all there. The
    // server's own tools may be linked too (through `portos_tests`): which
    // of its object files the linker keeps is not this test's concern, and
    // their schemas must be closed as well.
    let count = |prefix: &str| {
        tools(&body)
            .iter()
            .filter(|t| t["name"].as_str().is_some_and(|n| n.starts_with(prefix)))
            .count()
    };
    assert_eq!(count("cat."), LOCAL.len());
    assert_eq!(count("extra."), portos_extra_tools::TOOL_COUNT);
    for tool in tools(&body) {
        let schema = &tool["input_schema"];
        assert_eq!(schema["type"], "object", "{}", tool["name"]);
        assert!(schema["properties"].is_object(), "{}", tool["name"]);
        assert_closed_everywhere(schema, tool["name"].as_str().expect("name"));
    }
}

#[test]
fn the_nested_input_schema_is_closed_where_the_types_nest() {
    let registry = registry();
    let body = body(&registry, &[], Capabilities::NONE);
    let schema = &entry(&body, "cat.read")["input_schema"];
    let properties = &schema["properties"];
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(properties["inner"]["additionalProperties"], false);
    assert_eq!(
        properties["inner"]["properties"]["leaf"]["additionalProperties"],
        false
    );
    assert_eq!(properties["items"]["type"], "array");
    assert_eq!(properties["items"]["items"]["additionalProperties"], false);
    let mut required: Vec<&str> = schema["required"]
        .as_array()
        .expect("required")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    required.sort_unstable();
    assert_eq!(required, ["inner", "items", "mode", "query"]);
    let text = schema.to_string();
    assert!(text.contains("\"Slow\""), "the enum is inlined: {text}");
}

#[test]
fn a_tool_without_input_has_the_empty_closed_schema() {
    let registry = registry();
    let body = body(&registry, &[], Capabilities::NONE);
    for name in [
        "cat.supervised",
        "cat.destroy",
        "cat.visit",
        "cat.nocaps",
        "cat.time",
    ] {
        assert_eq!(
            entry(&body, name)["input_schema"],
            json!({ "type": "object", "properties": {}, "additionalProperties": false }),
            "{name}"
        );
    }
}

#[test]
fn the_output_schema_is_always_an_open_object() {
    let registry = catalogs(Registry::builder().build().expect("valid"));
    for format in ["portos", "mcp"] {
        let body = body(&registry, &[("format", format)], Capabilities::NONE);
        let key = if format == "mcp" {
            "outputSchema"
        } else {
            "output_schema"
        };
        for tool in tools(&body) {
            assert_eq!(
                tool[key],
                json!({ "type": "object", "additionalProperties": true }),
                "{}",
                tool["name"]
            );
        }
    }
}

#[test]
fn the_catalog_never_exposes_an_adapter() {
    let registry = registry();
    for format in FORMATS {
        let text = catalog(&registry, &[("format", format)], Capabilities::all()).into_json();
        assert!(!text.contains("\"adapter\""), "{format}");
    }
}

#[test]
fn canonical_json_helper_sorts_keys_at_every_depth() {
    let mut inner = Map::new();
    inner.insert("z".into(), json!(1));
    inner.insert("a".into(), json!([{ "y": true, "b": null }]));
    assert_eq!(
        canonical(&Value::Object(inner)),
        r#"{"a":[{"b":null,"y":true}],"z":1}"#
    );
    assert_eq!(canonical(&json!("q\"\n/é")), "\"q\\\"\\n/é\"");
}
