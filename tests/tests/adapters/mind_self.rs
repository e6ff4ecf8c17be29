//! The Persistent Mind's self-management tools through the registry as
//! `mind` (docs/reference.md#tool-families, the Mind-only family), on a real
//! SQLite store: policies, strict arguments, cleanup that never archives
//! protected memories, protection that only rises, the chosen name, thinking
//! preset requests under their limits (explicit times, no sleeps), and the
//! local context window under this machine's ceiling. Every refusal is checked
//! to change nothing.

use jiff::{SignedDuration, Timestamp};
use portos::domains::mind::local_context::MemoryEstimate;
use portos::domains::mind::memory::{Memory, MemoryKind, Protection};
use portos::domains::mind::ops::thinking as thinking_ops;
use portos::domains::mind::store::trajectory::{ContextEntry, TurnSummary};
use portos::domains::mind::store::{local_context, memories, thinking, trajectory};
use portos::domains::mind::thinking::{PresetList, RequestState, ThinkingEffort, ThinkingRequest};
use portos_core::{Capabilities, Capability, ErrorCode, ToolResult, ToolState};
use portos_server::settings;
use portos_tests as _;
use serde_json::{Value, json};

use crate::support::{self, RegistryFixture};

const SELF_TOOLS: [(&str, Capability); 7] = [
    ("mind.cleanup", portos_words::MANAGE_MIND),
    ("mind.protect-memory", portos_words::MANAGE_MIND),
    ("mind.choose-name", portos_words::MANAGE_MIND),
    (
        "mind.thinking-presets",
        portos_words::CHOOSE_THINKING_PRESET,
    ),
    (
        "mind.request-thinking-preset",
        portos_words::CHOOSE_THINKING_PRESET,
    ),
    ("mind.local-context", portos_words::ADJUST_LOCAL_CONTEXT),
    (
        "mind.adjust-local-context",
        portos_words::ADJUST_LOCAL_CONTEXT,
    ),
];

fn granted() -> Capabilities {
    Capabilities::NONE
        .with(portos_words::MANAGE_MIND)
        .with(portos_words::CHOOSE_THINKING_PRESET)
        .with(portos_words::ADJUST_LOCAL_CONTEXT)
}

/// A registry whose `mind` authority holds the three grants, with the same
/// grants stored (the writes re-read them live).
async fn fixture() -> RegistryFixture {
    let fixture = RegistryFixture::new("UTC", portos_words::principal::mind(granted()));
    store_grants(
        &fixture,
        json!({ "manageMind": true, "chooseThinkingPreset": true, "adjustLocalContext": true }),
    )
    .await;
    fixture
}

async fn store_grants(fixture: &RegistryFixture, grants: Value) {
    fixture
        .store
        .run(move |connection| settings::set_json(connection, portos::MIND_GRANTS_KEY, &grants))
        .await
        .expect("grants stored");
}

fn body(r: &ToolResult) -> &Value {
    support::result(r)
}

/// A refusal: a failed result `{ok: false, error}` with that error.
fn assert_refused(r: &ToolResult, contains: &str) {
    assert_eq!(r.state, ToolState::Failed, "{r:?}");
    let error = r.error.as_deref().expect("an error");
    assert!(
        error.contains(contains),
        "{error:?} should contain {contains:?}"
    );
    assert_eq!(body(r)["ok"], false);
    assert_eq!(body(r)["error"], error);
}

fn assert_completed(r: &ToolResult) -> &Value {
    assert_eq!(
        r.state,
        ToolState::Completed,
        "{:?} {:?}",
        r.error,
        r.result
    );
    assert_eq!(body(r)["ok"], true);
    body(r)
}

async fn assert_invalid(fixture: &RegistryFixture, name: &str, arguments: Value) {
    let refused = fixture
        .call_as(
            portos_words::principal::mind(granted()),
            name,
            arguments.clone(),
        )
        .await
        .expect_err(&format!("{name} {arguments} must be refused"));
    assert_eq!(
        refused.code,
        ErrorCode::ToolValidationError,
        "{name} {arguments}: {}",
        refused.message
    );
}

async fn add_memory(fixture: &RegistryFixture, text: &str, protection: Protection) -> String {
    let now = Timestamp::now().to_string();
    let memory = Memory {
        id: format!("m-{}", text.replace(' ', "-")),
        text: text.to_owned(),
        kind: MemoryKind::Note,
        protection,
        archived: false,
        archived_at: None,
        created_at: now.clone(),
        updated_at: now,
    };
    let id = memory.id.clone();
    fixture
        .store
        .run(move |connection| memories::insert(connection, &memory))
        .await
        .expect("memory stored");
    id
}

async fn memory(fixture: &RegistryFixture, id: &str) -> Memory {
    let id = id.to_owned();
    fixture
        .store
        .run(move |connection| memories::get(connection, &id))
        .await
        .expect("read")
        .expect("the memory")
}

async fn seed_trajectory(fixture: &RegistryFixture) {
    fixture
        .store
        .run(|connection| {
            for turn in ["turn-1", "turn-2"] {
                trajectory::append_turn(
                    connection,
                    &TurnSummary {
                        turn_id: turn.to_owned(),
                        summary: format!("{turn} went fine"),
                        at: "2026-03-01T10:00:00Z".to_owned(),
                    },
                )?;
            }
            trajectory::put_context(
                connection,
                &ContextEntry {
                    key: "rollup".to_owned(),
                    text: "Two calm turns".to_owned(),
                    derived_at: "2026-03-01T10:05:00Z".to_owned(),
                },
            )
        })
        .await
        .expect("trajectory seeded");
}

async fn trajectory_sizes(fixture: &RegistryFixture) -> (usize, usize) {
    fixture
        .store
        .run(|connection| {
            Ok((
                trajectory::recent_turns(connection, 100)?.len(),
                trajectory::context(connection)?.len(),
            ))
        })
        .await
        .expect("read")
}

#[tokio::test]
async fn the_self_tools_are_mind_only_and_need_their_grant() {
    let fixture = fixture().await;
    for (name, capability) in SELF_TOOLS {
        for scope in [
            portos_words::principal::ui(true),
            portos_words::principal::agent(granted()),
            portos_words::principal::voice(),
        ] {
            let refused = fixture
                .call_as(scope, name, json!({}))
                .await
                .expect_err("not in scope");
            assert_eq!(refused.code, ErrorCode::ToolScopeDenied, "{name}");
        }
        // Every other grant but this one: denied before validation.
        let others = granted()
            .iter()
            .filter(|held| *held != capability)
            .collect::<Capabilities>();
        let refused = fixture
            .call_as(portos_words::principal::mind(others), name, json!({}))
            .await
            .expect_err("not granted");
        assert_eq!(refused.code, ErrorCode::ToolCapabilityDenied, "{name}");
    }
    // The policies of docs/reference.md#tool-families's Mind-only table.
    let policy = |name: &str| {
        let tool = fixture.registry.resolve(name).expect("registered");
        serde_json::to_value(&tool.policy).expect("policy")
    };
    for (name, capability, side_effect) in [
        ("mind.cleanup", "manageMind", "destructive"),
        ("mind.protect-memory", "manageMind", "write"),
        ("mind.choose-name", "manageMind", "write"),
        ("mind.thinking-presets", "chooseThinkingPreset", "read"),
        (
            "mind.request-thinking-preset",
            "chooseThinkingPreset",
            "write",
        ),
        ("mind.local-context", "adjustLocalContext", "read"),
        ("mind.adjust-local-context", "adjustLocalContext", "write"),
    ] {
        assert_eq!(
            policy(name),
            json!({
                "scopes": ["mind"],
                "requiredCapabilities": [capability],
                "sideEffect": side_effect,
                "idempotent": true,
                "async": false,
                "confirmation": "capability-grant",
            }),
            "{name}"
        );
    }
}

#[tokio::test]
async fn cleanup_archives_only_unprotected_memories() {
    let fixture = fixture().await;
    let plain = add_memory(&fixture, "likes tea", Protection::Standard).await;
    let also_plain = add_memory(&fixture, "saw rain", Protection::Standard).await;
    let important = add_memory(&fixture, "the user's birthday", Protection::Important).await;
    let core = add_memory(&fixture, "I am careful", Protection::CoreIdentity).await;
    let named = fixture
        .call("mind.choose-name", json!({ "name": "Ada" }))
        .await;
    assert_completed(&named);
    seed_trajectory(&fixture).await;

    let done = fixture
        .call(
            "mind.cleanup",
            json!({ "scopes": ["memories"], "reason": "  stale notes  " }),
        )
        .await;
    let done = assert_completed(&done);
    assert_eq!(done["success"], true);
    assert_eq!(done["scopes"], json!(["memories"]));
    assert_eq!(done["reason"], "stale notes", "the reason is trimmed");
    assert_eq!(done["memoriesArchived"], 2);
    assert_eq!(done["memoriesPreserved"], 3, "important, core and the name");
    assert_eq!(done["historyTurnsCleared"], 0);
    assert_eq!(
        done["summary"],
        "Mind cleanup: archived 2 unprotected memories (3 protected memories kept)."
    );
    assert!(memory(&fixture, &plain).await.archived);
    assert!(memory(&fixture, &also_plain).await.archived);
    assert!(!memory(&fixture, &important).await.archived);
    assert!(!memory(&fixture, &core).await.archived);
    assert_eq!(
        trajectory_sizes(&fixture).await,
        (2, 1),
        "history untouched"
    );

    // Context alone keeps the history; history takes its context along.
    let done = fixture
        .call("mind.cleanup", json!({ "scopes": ["context"] }))
        .await;
    assert_eq!(assert_completed(&done)["contextEntriesCleared"], 1);
    assert_eq!(trajectory_sizes(&fixture).await, (2, 0));
    seed_trajectory(&fixture).await;
    let done = fixture
        .call(
            "mind.cleanup",
            json!({ "scopes": ["history", "memories", "context"] }),
        )
        .await;
    let done = assert_completed(&done);
    assert_eq!(done["historyTurnsCleared"], 4);
    assert_eq!(done["contextEntriesCleared"], 1);
    assert_eq!(done["memoriesArchived"], 0, "already archived");
    assert_eq!(trajectory_sizes(&fixture).await, (0, 0));
    let identity = fixture
        .store
        .run(|connection| memories::identity(connection))
        .await
        .expect("identity");
    assert_eq!(identity.name.as_deref(), Some("Ada"), "the name survives");
}

#[tokio::test]
async fn cleanup_arguments_are_strict() {
    let fixture = fixture().await;
    for arguments in [
        json!({}),
        json!({ "scopes": [] }),
        json!({ "scopes": ["history", "history"] }),
        json!({ "scopes": ["history", "context", "memories", "history"] }),
        json!({ "scopes": ["files"] }),
        json!({ "scopes": "history" }),
        json!({ "scopes": ["history"], "reason": "" }),
        json!({ "scopes": ["history"], "reason": "   " }),
        json!({ "scopes": ["history"], "reason": "x".repeat(301) }),
        json!({ "scopes": ["history"], "preserveTurnId": "t-1" }),
    ] {
        assert_invalid(&fixture, "mind.cleanup", arguments).await;
    }
    let done = fixture
        .call(
            "mind.cleanup",
            json!({ "scopes": ["history"], "reason": "x".repeat(300) }),
        )
        .await;
    assert_completed(&done);
}

#[tokio::test]
async fn a_revoked_grant_stops_every_write_and_changes_nothing() {
    let fixture = fixture().await;
    let plain = add_memory(&fixture, "likes tea", Protection::Standard).await;
    seed_trajectory(&fixture).await;
    // The turn started with the grants; the owner revoked them since.
    store_grants(&fixture, json!({})).await;

    let refused = fixture
        .call("mind.cleanup", json!({ "scopes": ["memories", "history"] }))
        .await;
    assert_refused(
        &refused,
        "Persistent mind self-management access is disabled",
    );
    assert!(!memory(&fixture, &plain).await.archived);
    assert_eq!(trajectory_sizes(&fixture).await, (2, 1));

    let refused = fixture
        .call(
            "mind.protect-memory",
            json!({ "memoryId": plain, "protection": "important" }),
        )
        .await;
    assert_refused(&refused, "self-management access is disabled");
    assert_eq!(
        memory(&fixture, &plain).await.protection,
        Protection::Standard
    );

    let refused = fixture
        .call("mind.choose-name", json!({ "name": "Ada" }))
        .await;
    assert_refused(&refused, "self-management access is disabled");
    let identity = fixture
        .store
        .run(|connection| memories::identity(connection))
        .await
        .expect("identity");
    assert_eq!(identity.name, None);

    let refused = fixture
        .call(
            "mind.request-thinking-preset",
            json!({ "presetId": "deep", "reason": "hard problem" }),
        )
        .await;
    assert_refused(
        &refused,
        "Persistent mind thinking preset access is disabled",
    );
    assert!(requests(&fixture).await.is_empty());

    let refused = fixture
        .call(
            "mind.adjust-local-context",
            json!({ "numCtx": 512, "reason": "smaller" }),
        )
        .await;
    assert_refused(&refused, "Persistent mind local context access is disabled");
    let current = fixture
        .store
        .run(|connection| local_context::current(connection))
        .await
        .expect("read");
    assert_eq!(current, None);
}

#[tokio::test]
async fn protection_rises_and_is_never_removed() {
    let fixture = fixture().await;
    let id = add_memory(&fixture, "the user's birthday", Protection::Standard).await;

    let done = fixture
        .call(
            "mind.protect-memory",
            json!({ "memoryId": format!(" {id} "), "protection": "important" }),
        )
        .await;
    let done = assert_completed(&done);
    assert_eq!(done["success"], true);
    assert_eq!(done["memoryId"], id.as_str());
    assert_eq!(done["protection"], "important");
    assert_eq!(done["previousProtection"], "standard");
    assert_eq!(
        memory(&fixture, &id).await.protection,
        Protection::Important
    );

    let done = fixture
        .call(
            "mind.protect-memory",
            json!({ "memoryId": id, "protection": "core-identity" }),
        )
        .await;
    assert_eq!(assert_completed(&done)["protection"], "core-identity");

    // Asking for less never demotes.
    let done = fixture
        .call(
            "mind.protect-memory",
            json!({ "memoryId": id, "protection": "important" }),
        )
        .await;
    let done = assert_completed(&done);
    assert_eq!(done["protection"], "core-identity");
    assert!(
        done["summary"]
            .as_str()
            .expect("summary")
            .contains("never lowered"),
        "{done}"
    );
    assert_eq!(
        memory(&fixture, &id).await.protection,
        Protection::CoreIdentity
    );

    // Unknown and archived memories are refused; nothing changes.
    let refused = fixture
        .call(
            "mind.protect-memory",
            json!({ "memoryId": "nope", "protection": "important" }),
        )
        .await;
    assert_refused(&refused, "Active mind-owned memory \"nope\" not found");
    let stale = add_memory(&fixture, "old weather", Protection::Standard).await;
    assert_completed(
        &fixture
            .call("mind.cleanup", json!({ "scopes": ["memories"] }))
            .await,
    );
    let refused = fixture
        .call(
            "mind.protect-memory",
            json!({ "memoryId": stale, "protection": "important" }),
        )
        .await;
    assert_refused(&refused, "not found");
    let archived = memory(&fixture, &stale).await;
    assert!(archived.archived && archived.protection == Protection::Standard);

    for arguments in [
        json!({ "memoryId": id, "protection": "standard" }),
        json!({ "memoryId": id, "protection": "secret" }),
        json!({ "memoryId": id }),
        json!({ "memoryId": "", "protection": "important" }),
        json!({ "memoryId": "x".repeat(129), "protection": "important" }),
        json!({ "memoryId": id, "protection": "important", "force": true }),
    ] {
        assert_invalid(&fixture, "mind.protect-memory", arguments).await;
    }
}

#[tokio::test]
async fn choose_name_keeps_one_core_identity_memory() {
    let fixture = fixture().await;
    let done = fixture
        .call("mind.choose-name", json!({ "name": "  Ada  " }))
        .await;
    let done = assert_completed(&done);
    assert_eq!(done["success"], true);
    assert_eq!(done["name"], "Ada", "trimmed");
    assert_eq!(done["previousName"], Value::Null);
    let memory_id = done["memoryId"].as_str().expect("memoryId").to_owned();
    let held = memory(&fixture, &memory_id).await;
    assert_eq!(held.text, "My chosen name is Ada.");
    assert_eq!(held.protection, Protection::CoreIdentity);
    assert_eq!(held.kind, MemoryKind::Identity);

    let done = fixture
        .call("mind.choose-name", json!({ "name": "Zoë O’Neill-Ng" }))
        .await;
    let done = assert_completed(&done);
    assert_eq!(done["name"], "Zoë O’Neill-Ng");
    assert_eq!(done["previousName"], "Ada");
    assert_eq!(done["memoryId"], memory_id.as_str(), "the same memory");
    assert_eq!(
        memory(&fixture, &memory_id).await.text,
        "My chosen name is Zoë O’Neill-Ng."
    );
    let all = fixture
        .store
        .run(|connection| memories::list(connection, memories::Listed::All))
        .await
        .expect("list");
    assert_eq!(all.len(), 1, "one identity memory, renamed");

    // Cleanup never archives it.
    assert_completed(
        &fixture
            .call("mind.cleanup", json!({ "scopes": ["memories"] }))
            .await,
    );
    assert!(!memory(&fixture, &memory_id).await.archived);

    let longest = "N".repeat(64);
    assert_completed(
        &fixture
            .call("mind.choose-name", json!({ "name": longest }))
            .await,
    );
    for arguments in [
        json!({ "name": "Bad\nName" }),
        json!({ "name": "" }),
        json!({ "name": "   " }),
        json!({ "name": "N".repeat(65) }),
        json!({ "name": "-dash first" }),
        json!({ "name": "Ada!" }),
        json!({ "name": "Ada", "mindId": "m-1" }),
        json!({}),
    ] {
        assert_invalid(&fixture, "mind.choose-name", arguments).await;
    }
}

async fn requests(fixture: &RegistryFixture) -> Vec<ThinkingRequest> {
    fixture
        .store
        .run(|connection| thinking::recent(connection, 100))
        .await
        .expect("requests")
}

/// A request made `ago` before now, already taken by a wake.
async fn seed_request(fixture: &RegistryFixture, id: &str, ago: SignedDuration) {
    let at = Timestamp::now() - ago;
    let request = ThinkingRequest {
        request_id: id.to_owned(),
        preset_id: "quick".to_owned(),
        label: "Quick".to_owned(),
        model: String::new(),
        effort: ThinkingEffort::Low,
        reason: "seeded".to_owned(),
        requested_at: at.to_string(),
        state: RequestState::Used,
    };
    fixture
        .store
        .run(move |connection| thinking::insert(connection, &request, at))
        .await
        .expect("request stored");
}

#[tokio::test]
async fn thinking_presets_list_the_defaults_and_the_limits() {
    let fixture = fixture().await;
    let read = fixture.call("mind.thinking-presets", json!({})).await;
    let read = assert_completed(&read);
    let ids: Vec<&str> = read["presets"]
        .as_array()
        .expect("presets")
        .iter()
        .map(|preset| preset["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, ["quick", "balanced", "deep"]);
    assert_eq!(read["presets"][2]["effort"], "high");
    assert_eq!(
        read["current"],
        json!({ "source": "default", "preset": null })
    );
    assert_eq!(read["limits"]["maxPerRollingDay"], 3);
    assert_eq!(read["limits"]["rollingWindowMs"], 86_400_000);
    assert_eq!(read["limits"]["minGapMs"], 1_800_000);
    assert_eq!(read["limits"]["remaining"], 3);
    assert_eq!(read["limits"]["nextAllowedAt"], Value::Null);
    assert_eq!(read["pending"], Value::Null);
    assert_invalid(&fixture, "mind.thinking-presets", json!({ "all": true })).await;
}

#[tokio::test]
async fn a_preset_is_requested_for_the_next_wake_within_the_limits() {
    let fixture = fixture().await;
    let refused = fixture
        .call(
            "mind.request-thinking-preset",
            json!({ "presetId": "turbo", "reason": "go fast" }),
        )
        .await;
    assert_refused(
        &refused,
        "Unknown thinking preset \"turbo\"; approved presets: quick, balanced, deep",
    );
    assert!(
        requests(&fixture).await.is_empty(),
        "a refusal stores nothing"
    );

    let done = fixture
        .call(
            "mind.request-thinking-preset",
            json!({ "presetId": " deep ", "reason": "  a hard proof  " }),
        )
        .await;
    let done = assert_completed(&done);
    assert_eq!(done["duplicate"], false);
    assert_eq!(done["request"]["presetId"], "deep");
    assert_eq!(done["request"]["reason"], "a hard proof");
    assert_eq!(done["request"]["state"], "pending");
    let read = fixture.call("mind.thinking-presets", json!({})).await;
    let read = assert_completed(&read);
    assert_eq!(read["current"]["source"], "requested");
    assert_eq!(read["current"]["preset"]["id"], "deep");
    assert_eq!(read["limits"]["remaining"], 2);
    assert!(read["limits"]["nextAllowedAt"].is_string());

    // One waits at a time.
    let refused = fixture
        .call(
            "mind.request-thinking-preset",
            json!({ "presetId": "quick", "reason": "changed my mind" }),
        )
        .await;
    assert_refused(&refused, "already pending for the next self-directed wake");

    // The wake takes it; a new one within 30 minutes is still refused.
    let taken = thinking_ops::take_request(&fixture.store, Timestamp::now())
        .await
        .expect("taken")
        .expect("the pending request");
    assert_eq!(
        (taken.preset_id.as_str(), taken.state),
        ("deep", RequestState::Used)
    );
    let refused = fixture
        .call(
            "mind.request-thinking-preset",
            json!({ "presetId": "quick", "reason": "again" }),
        )
        .await;
    assert_refused(&refused, "must be at least 30 minutes apart");
    assert_eq!(requests(&fixture).await.len(), 1);
}

#[tokio::test]
async fn three_requests_a_rolling_day() {
    let fixture = fixture().await;
    seed_request(&fixture, "r-1", SignedDuration::from_hours(23)).await;
    seed_request(&fixture, "r-2", SignedDuration::from_hours(10)).await;
    seed_request(&fixture, "r-3", SignedDuration::from_hours(2)).await;
    let refused = fixture
        .call(
            "mind.request-thinking-preset",
            json!({ "presetId": "deep", "reason": "more" }),
        )
        .await;
    assert_refused(
        &refused,
        "Three thinking preset requests were already made in the rolling 24 hours",
    );
    assert_eq!(requests(&fixture).await.len(), 3);

    // A day later for the oldest, the window has room again.
    let fixture = self::fixture().await;
    seed_request(&fixture, "r-1", SignedDuration::from_hours(25)).await;
    seed_request(&fixture, "r-2", SignedDuration::from_hours(10)).await;
    seed_request(&fixture, "r-3", SignedDuration::from_mins(31)).await;
    let done = fixture
        .call(
            "mind.request-thinking-preset",
            json!({ "presetId": "balanced", "reason": "steady" }),
        )
        .await;
    assert_completed(&done);
}

#[tokio::test]
async fn a_pending_request_for_a_changed_preset_is_dropped() {
    let fixture = fixture().await;
    let done = fixture
        .call(
            "mind.request-thinking-preset",
            json!({ "presetId": "deep", "reason": "hard" }),
        )
        .await;
    assert_completed(&done);
    let changed = PresetList {
        presets: vec![portos::domains::mind::thinking::ThinkingPreset {
            id: "deep".to_owned(),
            label: "Deep".to_owned(),
            model: "qwen3:32b".to_owned(),
            effort: ThinkingEffort::High,
        }],
    };
    fixture
        .store
        .run(move |connection| thinking::save_presets(connection, &changed))
        .await
        .expect("presets saved");
    let taken = thinking_ops::take_request(&fixture.store, Timestamp::now())
        .await
        .expect("take");
    assert_eq!(
        taken, None,
        "the approved route changed: the default is used"
    );
    let all = requests(&fixture).await;
    assert_eq!(all[0].state, RequestState::Cancelled, "and not refunded");
}

#[tokio::test]
async fn request_arguments_are_strict() {
    let fixture = fixture().await;
    for arguments in [
        json!({ "presetId": "deep", "reason": "x", "endpoint": "http://127.0.0.1:1" }),
        json!({ "presetId": "deep" }),
        json!({ "presetId": "-deep", "reason": "x" }),
        json!({ "presetId": "de ep", "reason": "x" }),
        json!({ "presetId": "d".repeat(65), "reason": "x" }),
        json!({ "presetId": "", "reason": "x" }),
        json!({ "presetId": "deep", "reason": "" }),
        json!({ "presetId": "deep", "reason": "  " }),
        json!({ "presetId": "deep", "reason": "x".repeat(201) }),
    ] {
        assert_invalid(&fixture, "mind.request-thinking-preset", arguments).await;
    }
    assert!(requests(&fixture).await.is_empty());
}

/// The window's ceiling with an estimate chosen so that it is about 4096
/// tokens on whatever machine runs the test.
async fn estimate_for_about_4096(fixture: &RegistryFixture) -> i64 {
    let read = fixture.call("mind.local-context", json!({})).await;
    let read = assert_completed(&read);
    let total = read["host"]["totalBytes"].as_u64().expect("totalBytes");
    let usable = read["host"]["cgroupLimitBytes"]
        .as_u64()
        .map_or(total, |limit| limit.min(total));
    let estimate = MemoryEstimate {
        kv_bytes_per_token: usable / 4096,
        model_bytes: 0,
        reserved_bytes: 0,
    };
    fixture
        .store
        .run(move |connection| local_context::save_estimate(connection, &estimate))
        .await
        .expect("estimate saved");
    let read = fixture.call("mind.local-context", json!({})).await;
    let ceiling = assert_completed(&read)["ceiling"]
        .as_i64()
        .expect("ceiling");
    assert!((4096..4100).contains(&ceiling), "{ceiling}");
    ceiling
}

#[tokio::test]
async fn the_local_context_changes_within_the_ceiling() {
    let fixture = fixture().await;
    let read = fixture.call("mind.local-context", json!({})).await;
    let read = assert_completed(&read);
    assert_eq!(read["numCtx"], Value::Null, "the provider's default");
    assert_eq!(read["min"], 512);
    assert_eq!(read["max"], 131_072);
    assert_eq!(read["estimate"]["kvBytesPerToken"], 131_072);
    assert!(read["host"]["totalBytes"].as_u64().expect("RAM") > 0);
    assert!(
        read["explanation"]
            .as_str()
            .expect("text")
            .contains("ceiling")
    );

    let ceiling = estimate_for_about_4096(&fixture).await;
    let done = fixture
        .call(
            "mind.adjust-local-context",
            json!({ "numCtx": ceiling, "reason": "  longer documents  " }),
        )
        .await;
    let done = assert_completed(&done);
    assert_eq!(done["previousNumCtx"], Value::Null);
    assert_eq!(done["numCtx"], ceiling);
    assert_eq!(done["ceiling"], ceiling);

    let refused = fixture
        .call(
            "mind.adjust-local-context",
            json!({ "numCtx": ceiling + 1, "reason": "even longer" }),
        )
        .await;
    assert_refused(&refused, "exceeds the safe ceiling");
    assert_refused(&refused, "running out of memory");

    let done = fixture
        .call(
            "mind.adjust-local-context",
            json!({ "numCtx": 2048, "reason": "faster" }),
        )
        .await;
    let done = assert_completed(&done);
    assert_eq!(done["previousNumCtx"], ceiling);
    let read = fixture.call("mind.local-context", json!({})).await;
    let read = assert_completed(&read);
    assert_eq!(read["numCtx"], 2048);
    assert_eq!(read["recent"][0]["reason"], "faster");
    assert_eq!(read["recent"][1]["reason"], "longer documents", "trimmed");
    assert_eq!(
        read["recent"].as_array().expect("recent").len(),
        2,
        "the refusal stored nothing"
    );

    for arguments in [
        json!({ "numCtx": 511, "reason": "x" }),
        json!({ "numCtx": 131_073, "reason": "x" }),
        json!({ "numCtx": 4096.5, "reason": "x" }),
        json!({ "numCtx": "4096", "reason": "x" }),
        json!({ "numCtx": 4096 }),
        json!({ "numCtx": 4096, "reason": "" }),
        json!({ "numCtx": 4096, "reason": "x".repeat(241) }),
        json!({ "numCtx": 4096, "reason": "x", "providerId": "ollama" }),
    ] {
        assert_invalid(&fixture, "mind.adjust-local-context", arguments).await;
    }
}
