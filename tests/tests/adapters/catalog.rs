//! catalog.search through the registry on a real store
//! (docs/reference.md#semantic-adapters row 22).

use portos::build_registry;
use portos::domains::creative_catalog::model::{EntryInput, TypeChange, TypeInput};
use portos::domains::creative_catalog::ops as creative_catalog;
use portos_core::{Authority, Capabilities, ErrorCode, Registry, ToolCall, ToolResult, ToolState};
use portos_server::Config;
use portos_server::store::Store;
use portos_tests as _;
use serde_json::{Value, json};

struct Fixture {
    registry: std::sync::Arc<Registry>,
    store: Store,
    _dir: tempfile::TempDir,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = Config {
        data_dir: dir.path().to_owned(),
        timezone: Some("UTC".to_owned()),
        ..portos::config()
    };
    let store = portos::store::open(dir.path()).expect("store");
    let registry =
        build_registry(config.clone(), &portos::Options::default(), &store).expect("registry");
    Fixture {
        registry,
        store,
        _dir: dir,
    }
}

fn reader() -> Authority {
    portos_words::principal::agent(Capabilities::NONE.with(portos_words::READ_PORTOS))
}

impl Fixture {
    fn add(&self, name: &str, kind: &str, body: &str, refs: &[&str]) -> String {
        let input = EntryInput {
            name: name.to_owned(),
            kind: kind.to_owned(),
            body: body.to_owned(),
            refs: refs.iter().map(|r| (*r).to_owned()).collect(),
        };
        self.store
            .run_blocking(|connection| Ok(creative_catalog::create_entry(connection, input)))
            .expect("store")
            .expect("valid entry")
            .id
    }

    async fn call_as(
        &self,
        authority: Authority,
        name: &str,
        arguments: Value,
    ) -> Result<ToolResult, portos_core::ToolError> {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object")
        };
        self.registry
            .call(
                &authority,
                ToolCall::new(next_request_id(), name, arguments),
            )
            .await
    }

    async fn search(&self, arguments: Value) -> ToolResult {
        self.call_as(reader(), "catalog.search", arguments)
            .await
            .expect("the call is allowed")
    }
}

fn next_request_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("c-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

fn result(r: &ToolResult) -> &Value {
    r.result.as_ref().expect("a result object")
}

fn names(r: &ToolResult) -> Vec<String> {
    result(r)["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|hit| hit["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn searches_names_and_bodies_case_insensitively() {
    let f = fixture();
    let captain = f.add(
        "Captain Élodie Marsh",
        "character",
        "Pilot of the Heron. Grew up near the lighthouse.",
        &["heron", "lighthouse"],
    );
    f.add("The Lighthouse", "place", "A tower on the cliffs.", &[]);
    f.add("Brass key", "object", "Opens nothing anyone knows of.", &[]);

    let r = f.search(json!({"query": "LIGHTHOUSE"})).await;
    assert_eq!(r.state, ToolState::Completed);
    let body = result(&r);
    assert_eq!(body["ok"], true);
    assert_eq!(body["count"], 2);
    // A name match ranks before a body match.
    assert_eq!(names(&r), ["The Lighthouse", "Captain Élodie Marsh"]);
    let hit = &body["results"][1];
    assert_eq!(hit["id"], captain.as_str());
    assert_eq!(hit["type"], "character");
    assert_eq!(hit["refsCount"], 2);
    assert_eq!(
        hit["snippet"],
        "Pilot of the Heron. Grew up near the lighthouse."
    );
    assert_eq!(
        body["summary"],
        "Found 2 catalog entries for \"LIGHTHOUSE\": The Lighthouse (place), Captain Élodie Marsh (character)."
    );

    // Beyond ASCII: É folds to é.
    let r = f.search(json!({"query": "élodie"})).await;
    assert_eq!(names(&r), ["Captain Élodie Marsh"]);
    assert_eq!(
        result(&r)["summary"],
        "Found 1 catalog entry for \"élodie\": Captain Élodie Marsh (character)."
    );

    let r = f.search(json!({"query": "dragon"})).await;
    assert_eq!(r.state, ToolState::Completed);
    assert_eq!(result(&r)["count"], 0);
    assert_eq!(
        result(&r)["summary"],
        "No catalog entries match \"dragon\"."
    );
}

#[tokio::test]
async fn type_filters_and_unknown_types_search_everything() {
    let f = fixture();
    f.add("Harbor", "place", "Where the fleet waits.", &[]);
    f.add("Harbor master", "character", "Keeps the fleet log.", &[]);
    f.add("Fleet charter", "idea", "Who owns the fleet.", &[]);

    let r = f
        .search(json!({"query": "fleet", "type": "character"}))
        .await;
    assert_eq!(names(&r), ["Harbor master"]);
    assert!(
        result(&r)["summary"]
            .as_str()
            .is_some_and(|s| s.contains("among character entries"))
    );
    // Case-insensitive type.
    let r = f.search(json!({"query": "fleet", "type": "PLACE"})).await;
    assert_eq!(names(&r), ["Harbor"]);
    // Unknown type: unfiltered.
    let r = f
        .search(json!({"query": "fleet", "type": "spaceship"}))
        .await;
    assert_eq!(result(&r)["count"], 3);

    // A user-defined type filters while it is active, and not once it is not.
    f.store
        .run_blocking(|connection| {
            creative_catalog::create_type(
                connection,
                &TypeInput {
                    name: "faction".to_owned(),
                    label: None,
                    active: None,
                },
            )
            .map_err(|e| portos_server::store::StoreError::Worker(e.to_string()))
        })
        .expect("type created");
    f.add("The Guild", "faction", "Runs the fleet insurance.", &[]);
    let r = f.search(json!({"query": "fleet", "type": "faction"})).await;
    assert_eq!(names(&r), ["The Guild"]);
    f.store
        .run_blocking(|connection| {
            creative_catalog::change_type(
                connection,
                "faction",
                &TypeChange {
                    label: None,
                    active: Some(false),
                },
            )
            .map_err(|e| portos_server::store::StoreError::Worker(e.to_string()))
        })
        .expect("type changed");
    let r = f.search(json!({"query": "fleet", "type": "faction"})).await;
    assert_eq!(result(&r)["count"], 4);
}

#[tokio::test]
async fn snippets_are_at_most_200_characters_around_the_match() {
    let f = fixture();
    let body = format!(
        "{} the moonstone glows {}",
        "Long ago. ".repeat(40),
        "And then more. ".repeat(40)
    );
    f.add("Relic", "object", &body, &[]);
    let r = f.search(json!({"query": "moonstone"})).await;
    let snippet = result(&r)["results"][0]["snippet"]
        .as_str()
        .expect("snippet")
        .to_owned();
    assert_eq!(snippet.chars().count(), 200);
    assert!(snippet.contains("the moonstone glows"), "{snippet}");
    assert!(
        snippet.starts_with('…') && snippet.ends_with('…'),
        "{snippet}"
    );

    // A match in the name only: the snippet is the start of the body.
    f.add("Moonstone mine", "place", &"Dust. ".repeat(100), &[]);
    let r = f.search(json!({"query": "moonstone mine"})).await;
    let snippet = result(&r)["results"][0]["snippet"]
        .as_str()
        .expect("snippet");
    assert!(snippet.starts_with("Dust. Dust.") && snippet.chars().count() <= 200);
}

#[tokio::test]
async fn limit_defaults_to_5_and_clamps_to_20() {
    let f = fixture();
    for n in 0..25 {
        f.add(&format!("Scene {n:02}"), "scene", "a storm", &[]);
    }
    let count = |r: &ToolResult| result(r)["count"].as_u64();
    for (limit, expected) in [
        (None, 5),
        (Some(0), 5),
        (Some(-4), 5),
        (Some(12), 12),
        (Some(500), 20),
    ] {
        let mut arguments = json!({"query": "storm"});
        if let Some(limit) = limit {
            arguments["limit"] = json!(limit);
        }
        assert_eq!(
            count(&f.search(arguments).await),
            Some(expected),
            "{limit:?}"
        );
    }
    // Ordered by name.
    let r = f.search(json!({"query": "scene", "limit": 2})).await;
    assert_eq!(names(&r), ["Scene 00", "Scene 01"]);
}

#[tokio::test]
async fn an_empty_query_fails() {
    let f = fixture();
    f.add("Anything", "concept", "", &[]);
    for query in ["", "   "] {
        let r = f.search(json!({"query": query})).await;
        assert_eq!(r.state, ToolState::Failed);
        assert!(
            r.error
                .as_deref()
                .is_some_and(|e| e.starts_with("query must not be empty")),
            "{:?}",
            r.error
        );
    }
}

#[tokio::test]
async fn schema_grants_and_aliases() {
    let f = fixture();
    f.add("Oracle", "character", "Sees ahead.", &[]);
    for arguments in [
        json!({}),
        json!({"query": 1}),
        json!({"query": "x", "type": 3}),
        json!({"query": "x", "limit": "5"}),
        json!({"query": "x", "sort": "name"}),
    ] {
        let error = f
            .call_as(reader(), "catalog.search", arguments.clone())
            .await
            .expect_err("schema violations are refused");
        assert_eq!(error.code, ErrorCode::ToolValidationError, "{arguments}");
    }
    let error = f
        .call_as(
            portos_words::principal::agent(Capabilities::NONE),
            "catalog.search",
            json!({"query": "oracle"}),
        )
        .await
        .expect_err("agent needs readPortos");
    assert_eq!(error.code, ErrorCode::ToolCapabilityDenied);
    for (authority, name) in [
        (portos_words::principal::voice(), "catalog_lookup"),
        (portos_words::principal::ui(false), "catalog_search"),
    ] {
        let r = f
            .call_as(authority, name, json!({"query": "oracle"}))
            .await
            .expect("reads are open");
        assert_eq!(r.name, "catalog.search");
        assert_eq!(result(&r)["count"], 1);
    }
}
