//! The eidoverse family through the registry, on a real SQLite store in a
//! temporary directory (docs/reference.md#tool-families): policies by
//! capability, schema bounds, augment outcomes, the chat cursor, projection
//! idempotence, and the travel tools' failures that need no second server
//! (eidoverse_visit.rs runs a real visit between two servers).

use portos::domains::eidoverse::peers::Peer;
use portos::domains::eidoverse::store::peers;
use portos_core::{Authority, Capabilities, Capability, ErrorCode, ToolResult, ToolState};
use portos_tests as _;
use serde_json::{Value, json};

use crate::support;

type Fixture = support::RegistryFixture;

fn fixture() -> Fixture {
    Fixture::new("UTC", all_grants())
}

fn all_grants() -> Authority {
    portos_words::principal::agent(
        Capabilities::NONE
            .with(portos_words::READ_PORTOS)
            .with(portos_words::WRITE_PORTOS)
            .with(portos_words::MANAGE_EIDOVERSE)
            .with(portos_words::VISIT_EIDOVERSE_PEERS),
    )
}

impl Fixture {
    async fn add_peer(&self, id: &str, url: &str) {
        let peer = Peer {
            id: id.to_owned(),
            url: url.to_owned(),
            name: format!("World {id}"),
        };
        self.store
            .run(move |connection| {
                peers::upsert(connection, &peer)?.expect("room for the peer");
                Ok(())
            })
            .await
            .expect("peer stored");
    }
}

fn body(r: &ToolResult) -> &Value {
    r.result.as_ref().expect("a result object")
}

fn valid_visit_id() -> String {
    "ab".repeat(24)
}

/// Every tool with arguments its schema accepts, and the grant it needs.
fn each_tool() -> Vec<(&'static str, Value, &'static [Capability])> {
    vec![
        ("eidoverse.status", json!({}), &[portos_words::READ_PORTOS]),
        (
            "eidoverse.project",
            json!({}),
            &[portos_words::READ_PORTOS, portos_words::MANAGE_EIDOVERSE],
        ),
        (
            "eidoverse.augment",
            json!({"operations": [{"verb": "sky", "args": {"preset": "dusk"}}]}),
            &[portos_words::MANAGE_EIDOVERSE],
        ),
        (
            "eidoverse.say",
            json!({"text": "hello"}),
            &[portos_words::MANAGE_EIDOVERSE],
        ),
        ("eidoverse.chat", json!({}), &[portos_words::READ_PORTOS]),
        (
            "eidoverse.destinations",
            json!({}),
            &[portos_words::VISIT_EIDOVERSE_PEERS],
        ),
        (
            "eidoverse.visit",
            json!({"peerId": "nowhere"}),
            &[portos_words::VISIT_EIDOVERSE_PEERS],
        ),
        (
            "eidoverse.visit-chat",
            json!({"visitId": valid_visit_id()}),
            &[portos_words::VISIT_EIDOVERSE_PEERS],
        ),
        (
            "eidoverse.leave",
            json!({"visitId": valid_visit_id()}),
            &[portos_words::VISIT_EIDOVERSE_PEERS],
        ),
    ]
}

#[tokio::test]
async fn each_tool_is_granted_by_its_capabilities_and_refused_without() {
    let f = fixture();
    for (name, arguments, needs) in each_tool() {
        // Every grant but one of those needed: refused before the adapter.
        for missing in needs {
            let mut capabilities = Capabilities::NONE;
            for capability in Capability::all() {
                if capability != *missing {
                    capabilities = capabilities.with(capability);
                }
            }
            let error = f
                .call_as(
                    portos_words::principal::agent(capabilities),
                    name,
                    arguments.clone(),
                )
                .await
                .expect_err("a missing grant refuses");
            assert_eq!(error.code, ErrorCode::ToolCapabilityDenied, "{name}");
            let error = f
                .call_as(
                    portos_words::principal::mind(capabilities),
                    name,
                    arguments.clone(),
                )
                .await
                .expect_err("a missing grant refuses the mind too");
            assert_eq!(error.code, ErrorCode::ToolCapabilityDenied, "{name}");
        }
        // Exactly the grants needed: the adapter runs (it may still fail,
        // e.g. an unknown peer, but as a result, not a refusal).
        let mut capabilities = Capabilities::NONE;
        for capability in needs {
            capabilities = capabilities.with(*capability);
        }
        let r = f
            .call_as(
                portos_words::principal::agent(capabilities),
                name,
                arguments.clone(),
            )
            .await;
        assert!(r.is_ok(), "{name}: {r:?}");
    }
}

#[tokio::test]
async fn only_status_reaches_voice_and_anonymous_ui_only_reads() {
    let f = fixture();
    let r = f
        .call_as(
            portos_words::principal::voice(),
            "eidoverse.status",
            json!({}),
        )
        .await
        .expect("status is a voice tool");
    assert_eq!(r.state, ToolState::Completed);
    for (name, arguments, _) in each_tool().into_iter().skip(1) {
        let error = f
            .call_as(portos_words::principal::voice(), name, arguments)
            .await
            .expect_err("not in the voice scope");
        assert_eq!(error.code, ErrorCode::ToolScopeDenied, "{name}");
    }
    let error = f
        .call_as(
            portos_words::principal::ui(false),
            "eidoverse.say",
            json!({"text": "hi"}),
        )
        .await
        .expect_err("anonymous ui writes are refused");
    assert_eq!(error.code, ErrorCode::ToolAuthRequired);
    let r = f
        .call_as(
            portos_words::principal::ui(false),
            "eidoverse_chat",
            json!({}),
        )
        .await
        .expect("anonymous ui reads");
    assert_eq!(r.name, "eidoverse.chat");
}

#[tokio::test]
async fn schema_violations_are_tool_validation_errors() {
    let f = fixture();
    let op = json!({"verb": "sky", "args": {"preset": "day"}});
    let cases = [
        ("eidoverse.status", json!({"extra": 1})),
        ("eidoverse.project", json!({"force": true})),
        ("eidoverse.augment", json!({"operations": []})),
        (
            "eidoverse.augment",
            json!({"operations": vec![op.clone(); 101]}),
        ),
        (
            "eidoverse.augment",
            json!({"operations": [{"verb": "explode", "args": {}}]}),
        ),
        (
            "eidoverse.augment",
            json!({"operations": [{"verb": "sky"}]}),
        ),
        (
            "eidoverse.augment",
            json!({"operations": [{"verb": "sky", "args": {}, "extra": 1}]}),
        ),
        (
            "eidoverse.augment",
            json!({"operations": [{"verb": "spawn", "args": {"k".repeat(81): 1}}]}),
        ),
        (
            "eidoverse.augment",
            json!({"operations": [{"verb": "spawn", "args": []}]}),
        ),
        ("eidoverse.say", json!({"text": ""})),
        ("eidoverse.say", json!({"text": "   "})),
        ("eidoverse.say", json!({"text": "x".repeat(2001)})),
        ("eidoverse.say", json!({})),
        ("eidoverse.chat", json!({"after": -2})),
        ("eidoverse.chat", json!({"after": "0"})),
        ("eidoverse.destinations", json!({"all": true})),
        ("eidoverse.visit", json!({"peerId": ""})),
        ("eidoverse.visit", json!({"peerId": "a/b"})),
        ("eidoverse.visit", json!({"peerId": "p".repeat(81)})),
        ("eidoverse.visit-chat", json!({"visitId": "ab".repeat(23)})),
        ("eidoverse.visit-chat", json!({"visitId": "AB".repeat(24)})),
        (
            "eidoverse.visit-chat",
            json!({"visitId": valid_visit_id(), "text": " "}),
        ),
        (
            "eidoverse.visit-chat",
            json!({"visitId": valid_visit_id(), "after": -5}),
        ),
        ("eidoverse.leave", json!({"visitId": "zz".repeat(24)})),
        ("eidoverse.leave", json!({})),
    ];
    for (name, arguments) in cases {
        let error = f
            .call_as(all_grants(), name, arguments.clone())
            .await
            .expect_err("the schema refuses");
        assert_eq!(
            error.code,
            ErrorCode::ToolValidationError,
            "{name} {arguments}"
        );
    }
    // Nothing reached the world.
    let status = f.call("eidoverse.status", json!({})).await;
    assert_eq!(body(&status)["counts"]["chatMessages"], 0);
    assert_eq!(body(&status)["setup"]["sky"]["preset"], "day");
}

#[tokio::test]
async fn status_is_a_compact_summary() {
    let f = fixture();
    let r = f.call("eidoverse_status", json!({})).await;
    assert_eq!(r.name, "eidoverse.status");
    let b = body(&r);
    assert_eq!(b["ok"], true);
    assert_eq!(b["world"]["name"], "PortOS world");
    assert_eq!(b["world"]["recipe"], "portos-garden");
    assert_eq!(b["world"]["id"].as_str().map(str::len), Some(32));
    assert_eq!(b["presence"]["name"], "Chief of Staff");
    assert_eq!(b["presence"]["kind"], "cos");
    assert_eq!(b["setup"]["terrain"]["preset"], "flat");
    assert_eq!(b["acceptGuests"], false);
    assert_eq!(b["counts"]["entities"], 0);
    assert!(
        b["summary"]
            .as_str()
            .is_some_and(|s| s.starts_with("PortOS world (portos-garden recipe): 0 entities")),
        "{}",
        b["summary"]
    );
}

#[tokio::test]
async fn augment_reports_each_operation() {
    let f = fixture();
    let r = f
        .call(
            "eidoverse.augment",
            json!({"operations": [
                {"verb": "spawn", "args": {"kind": "oak-tree", "id": "oak", "x": 10, "z": -3}},
                {"verb": "spawn", "args": {"kind": "rock", "id": "far", "x": 9000, "y": -4}},
                {"verb": "spawn", "args": {"kind": "oak-tree", "id": "oak"}},
                {"verb": "place", "args": {"id": "oak", "x": 12}},
                {"verb": "place", "args": {"id": "ghost", "x": 1}},
                {"verb": "comp", "args": {"id": "oak", "name": "fruit", "value": {"kind": "acorn"}}},
                {"verb": "light", "args": {"type": "point", "color": "#FFAA00", "intensity": 50}},
                {"verb": "terrain", "args": {"preset": "hills", "height": 30, "seed": 7}},
                {"verb": "grass", "args": {"density": 0.8}},
                {"verb": "sky", "args": {"preset": "dusk", "sunAngle": 400}},
                {"verb": "grant", "args": {"to": "Ada", "permission": "build"}},
                {"verb": "spawn", "args": {"kind": "tree", "colour": "red"}},
                {"verb": "sky", "args": {"preset": "plaid"}},
                {"verb": "remove", "args": {"id": "far"}}
            ]}),
        )
        .await;
    assert_eq!(r.state, ToolState::Completed, "{r:?}");
    let b = body(&r);
    let outcomes: Vec<&str> = b["outcomes"]
        .as_array()
        .expect("outcomes")
        .iter()
        .map(|o| o["outcome"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        outcomes,
        [
            "accepted",
            "rewritten",
            "refused",
            "accepted",
            "refused",
            "accepted",
            "rewritten",
            "accepted",
            "accepted",
            "rewritten",
            "accepted",
            "refused",
            "refused",
            "accepted"
        ]
    );
    let reason = |index: usize| b["outcomes"][index]["reason"].as_str().unwrap_or("");
    assert!(reason(1).contains("x 9000 clamped to 500"), "{}", reason(1));
    assert!(reason(1).contains("y -4 clamped to 0"), "{}", reason(1));
    assert!(reason(2).contains("already exists"), "{}", reason(2));
    assert!(reason(4).contains("no entity 'ghost'"), "{}", reason(4));
    assert!(reason(11).contains("'colour'"), "{}", reason(11));
    assert_eq!(b["applied"], 10);
    assert_eq!(b["refused"], 4);
    assert!(b["summary"].as_str().is_some_and(|s| s.starts_with("Applied 10 of 14 operations (3 rewritten, 4 refused).")));

    let status = f.call("eidoverse.status", json!({})).await;
    let s = body(&status);
    // oak and the light remain; "far" was removed.
    assert_eq!(s["counts"]["entities"], 2);
    assert_eq!(
        s["setup"]["terrain"],
        json!({"preset": "hills", "height": 30.0, "seed": 7})
    );
    assert_eq!(s["setup"]["grass"]["density"], 0.8);
    assert_eq!(
        s["setup"]["sky"],
        json!({"preset": "dusk", "sunAngle": 180.0})
    );
}

#[tokio::test]
async fn augment_all_refused_is_a_failed_result_and_oversized_args_change_nothing() {
    let f = fixture();
    let r = f
        .call(
            "eidoverse.augment",
            json!({"operations": [{"verb": "remove", "args": {"id": "nothing"}}]}),
        )
        .await;
    assert_eq!(r.state, ToolState::Failed);
    assert_eq!(body(&r)["refused"], 1);

    let big = "x".repeat(8200);
    let r = f
        .call(
            "eidoverse.augment",
            json!({"operations": [
                {"verb": "spawn", "args": {"kind": "tree", "id": "t1"}},
                {"verb": "spawn", "args": {"kind": "tree", "label": big}}
            ]}),
        )
        .await;
    assert_eq!(r.state, ToolState::Failed);
    assert!(
        r.error
            .as_deref()
            .is_some_and(|e| e.contains("at most 8192")),
        "{:?}",
        r.error
    );
    let status = f.call("eidoverse.status", json!({})).await;
    assert_eq!(body(&status)["counts"]["entities"], 0);
}

#[tokio::test]
async fn say_and_chat_page_by_cursor() {
    let f = fixture();
    let r = f
        .call("eidoverse.say", json!({"text": "  first words  "}))
        .await;
    assert_eq!(r.state, ToolState::Completed);
    let first = body(&r)["message"].clone();
    assert_eq!(first["text"], "first words");
    assert_eq!(first["author"], "Chief of Staff");
    assert_eq!(first["authorKind"], "cos");
    for n in 2..=60 {
        f.call("eidoverse.say", json!({"text": format!("line {n}")}))
            .await;
    }
    let page = f.call("eidoverse.chat", json!({})).await;
    let p = body(&page);
    assert_eq!(p["messages"].as_array().map(Vec::len), Some(50));
    assert_eq!(p["messages"][0]["text"], "first words");
    assert_eq!(p["hasMore"], true);
    let cursor = p["cursor"].as_i64().expect("a cursor");
    assert_eq!(Some(cursor), p["messages"][49]["cursor"].as_i64());
    let cursors: Vec<i64> = p["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| m["cursor"].as_i64())
        .collect();
    assert!(cursors.windows(2).all(|w| w[0] < w[1]), "{cursors:?}");

    let next = f.call("eidoverse.chat", json!({"after": cursor})).await;
    let n = body(&next);
    assert_eq!(n["messages"].as_array().map(Vec::len), Some(10));
    assert_eq!(n["messages"][9]["text"], "line 60");
    assert_eq!(n["hasMore"], false);
    let last = n["cursor"].as_i64().expect("a cursor");
    let empty = f.call("eidoverse.chat", json!({"after": last})).await;
    assert_eq!(body(&empty)["messages"], json!([]));
    assert_eq!(body(&empty)["cursor"], last);
    assert_eq!(body(&empty)["summary"], "No new messages.");

    let status = f.call("eidoverse.status", json!({})).await;
    assert!(body(&status)["presence"]["lastSeenAt"].is_string());
}

#[tokio::test]
async fn project_mirrors_brain_captures_idempotently() {
    let f = fixture();
    let first = f.call("eidoverse.project", json!({})).await;
    assert_eq!(body(&first)["added"], 0);
    assert!(
        body(&first)["summary"]
            .as_str()
            .is_some_and(|s| s.starts_with("The world is already in sync"))
    );
    for text in ["plant tomatoes", "call the plumber"] {
        let r = f.call("brain.capture", json!({"text": text})).await;
        assert_eq!(r.state, ToolState::Completed);
    }
    f.add_peer("friend", "http://127.0.0.1:9").await;
    let r = f.call("eidoverse.project", json!({})).await;
    let b = body(&r);
    assert_eq!(b["added"], 3, "{b}");
    assert_eq!(
        b["sources"]["brain"]["added"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(b["sources"]["peer"]["added"], json!(["portal-friend"]));

    // Twice: nothing changes the second time.
    let again = f.call("eidoverse.project", json!({})).await;
    let a = body(&again);
    assert_eq!(
        (
            a["added"].clone(),
            a["updated"].clone(),
            a["removed"].clone()
        ),
        (json!(0), json!(0), json!(0))
    );
    assert_eq!(a["unchanged"], 3);

    // A mirror cannot be removed by augment, only by its source going.
    let brain_entity = b["sources"]["brain"]["added"][0]
        .as_str()
        .expect("an id")
        .to_owned();
    let r = f
        .call(
            "eidoverse.augment",
            json!({"operations": [{"verb": "remove", "args": {"id": brain_entity}}]}),
        )
        .await;
    assert_eq!(body(&r)["outcomes"][0]["outcome"], "refused");

    let removed_peer = f
        .store
        .run(|connection| peers::remove(connection, "friend"))
        .await
        .expect("store");
    assert!(removed_peer);
    let r = f.call("eidoverse.project", json!({})).await;
    assert_eq!(body(&r)["removed"], 1);
    assert_eq!(
        body(&r)["sources"]["peer"]["removed"],
        json!(["portal-friend"])
    );
    let status = f.call("eidoverse.status", json!({})).await;
    assert_eq!(body(&status)["counts"]["projected"], 2);
}

#[tokio::test]
async fn travel_failures_are_failed_results_with_clear_summaries() {
    let f = fixture();
    let r = f.call("eidoverse.destinations", json!({})).await;
    assert_eq!(r.state, ToolState::Completed);
    assert!(
        body(&r)["summary"]
            .as_str()
            .is_some_and(|s| s.starts_with("No peer worlds are configured"))
    );

    let r = f
        .call("eidoverse.visit", json!({"peerId": "nowhere"}))
        .await;
    assert_eq!(r.state, ToolState::Failed);
    assert!(
        r.error
            .as_deref()
            .is_some_and(|e| e.contains("There is no peer 'nowhere'")),
        "{:?}",
        r.error
    );

    let r = f
        .call(
            "eidoverse.visit-chat",
            json!({"visitId": valid_visit_id(), "text": "hi"}),
        )
        .await;
    assert_eq!(r.state, ToolState::Failed);
    assert!(
        r.error
            .as_deref()
            .is_some_and(|e| e.contains("no open visit")),
        "{:?}",
        r.error
    );
    let r = f
        .call("eidoverse.leave", json!({"visitId": valid_visit_id()}))
        .await;
    assert_eq!(r.state, ToolState::Failed);

    // Port 1 on loopback: nothing listens, the connection is refused.
    f.add_peer("gone", "http://127.0.0.1:1").await;
    let r = f.call("eidoverse.visit", json!({"peerId": "gone"})).await;
    assert_eq!(r.state, ToolState::Failed);
    assert!(
        r.error
            .as_deref()
            .is_some_and(|e| e.starts_with("could not reach World gone at http://127.0.0.1:1")),
        "{:?}",
        r.error
    );
    let r = f.call("eidoverse.destinations", json!({})).await;
    let d = body(&r);
    assert_eq!(d["destinations"][0]["door"], "unreachable");
    assert_eq!(d["accepting"], 0);

    // A peer at an address the outbound policy refuses is never contacted.
    f.add_peer("metadata", "http://169.254.169.254").await;
    let r = f
        .call("eidoverse.visit", json!({"peerId": "metadata"}))
        .await;
    assert_eq!(r.state, ToolState::Failed);
    assert!(
        r.error.as_deref().is_some_and(|e| e.starts_with(
            "World metadata cannot be reached from this server: the destination 169.254.169.254 is not a public address (169.254.0.0/16: link-local (cloud metadata))"
        )),
        "{:?}",
        r.error
    );
}
