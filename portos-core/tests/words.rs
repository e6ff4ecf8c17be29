//! The application's words: a vocabulary declared the way an application
//! declares one, read back by every part that names a capability or scope
//! (grants objects, catalog queries, fingerprints, the registry build).

use portos_core::registry::Fingerprint;
use portos_core::{
    AdapterError, Authority, Capabilities, Capability, CatalogFormat, CatalogQuery, CatalogScope,
    ErrorCode, Guard, Registry, Scope, ToolCall, Transport, portos_tool,
};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

portos_core::vocabulary! {
    capabilities {
        /// Read the shelf.
        READ_BOOKS = "readBooks",
        /// Change the shelf.
        WRITE_BOOKS = "writeBooks",
        /// Borrow from other libraries: reaches other machines.
        #[open_world]
        BORROW = "borrowAbroad",
    }
    scopes {
        /// Agents over MCP: may be granted reading and writing only.
        #[grants(WRITE_BOOKS, READ_BOOKS)]
        #[transport(mcp)]
        ASSISTANT = "assistant",
        /// The in-process librarian: may be granted everything.
        #[grants]
        LIBRARIAN = "librarian",
        /// People over HTTP.
        #[signed_in]
        #[transport(http)]
        READER = "reader",
        /// The front desk's speaker.
        #[trusted]
        KIOSK = "kiosk",
    }
}

/// List the shelf.
#[portos_tool(name = "shelf.list", scopes = ["assistant", "librarian", "reader", "kiosk"], capabilities = ["readBooks"], side_effect = "read")]
async fn list() -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "summary": "3 books" }))
}

/// Shelve a book.
#[portos_tool(name = "shelf.add", scopes = ["assistant", "reader", "kiosk"], capabilities = ["writeBooks"], side_effect = "write")]
async fn add() -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "summary": "shelved" }))
}

/// Ring the bell: anyone at the desk may.
#[portos_tool(name = "desk.ring", scopes = ["reader", "kiosk"], side_effect = "write", unguarded = "a bell changes nothing kept")]
async fn ring() -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "summary": "ding" }))
}

/// Borrow from abroad.
#[portos_tool(name = "shelf.borrow", scopes = ["librarian"], capabilities = ["borrowAbroad"], side_effect = "read")]
async fn borrow() -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "summary": "asked" }))
}

fn call(id: &str, name: &str) -> ToolCall {
    ToolCall::parse(&json!({ "requestId": id, "name": name })).expect("a valid envelope")
}

#[test]
fn the_constants_are_the_declared_words() {
    assert_eq!(READ_BOOKS.as_str(), "readBooks");
    assert_eq!(BORROW.as_str(), "borrowAbroad");
    assert_eq!(KIOSK.to_string(), "kiosk");
    assert_eq!(Capability::from_name("writeBooks"), Some(WRITE_BOOKS));
    assert_eq!(Scope::from_name("readPortos"), None);
    assert_eq!(Scope::of_transport(Transport::Http), Some(READER));
    assert_eq!(Scope::of_transport(Transport::Mcp), Some(ASSISTANT));
    assert_eq!(ASSISTANT.grantable(), &[WRITE_BOOKS, READ_BOOKS]);
    assert_eq!(LIBRARIAN.grantable(), &[READ_BOOKS, WRITE_BOOKS, BORROW]);
    assert_eq!(READER.guard(), Guard::SignedIn);
    assert!(ASSISTANT.holds_grants() && !KIOSK.holds_grants());
    assert_eq!(
        Capability::all()
            .map(Capability::as_str)
            .collect::<Vec<_>>(),
        ["readBooks", "writeBooks", "borrowAbroad"]
    );
    assert!(portos_core::contract::words::vocabulary_problems().is_empty());
}

#[test]
fn grants_objects_use_the_declared_keys() {
    let granted = Capabilities::from_json(&json!({
        "readBooks": true, "writeBooks": "true", "borrowAbroad": 1, "readPortos": true
    }));
    assert_eq!(granted.iter().collect::<Vec<_>>(), vec![READ_BOOKS]);
    assert_eq!(Capabilities::from_json(&json!([true])), Capabilities::NONE);
    assert_eq!(
        serde_json::to_value(granted).ok(),
        Some(json!({ "readBooks": true, "writeBooks": false, "borrowAbroad": false }))
    );
    let refused = serde_json::from_value::<Capabilities>(json!({ "readPortos": true }));
    let message = refused.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.contains("expected one of `readBooks`, `writeBooks`, `borrowAbroad`"),
        "{message}"
    );
    assert_eq!(serde_json::to_value(KIOSK).ok(), Some(json!("kiosk")));
    assert!(serde_json::from_value::<Scope>(json!("ui")).is_err());
}

#[test]
fn catalog_queries_take_the_declared_scopes() {
    let query = CatalogQuery::parse([("scope", "kiosk"), ("format", "mcp")]).ok();
    assert_eq!(
        query,
        Some(CatalogQuery {
            scope: CatalogScope::Only(KIOSK),
            intent: None,
            format: CatalogFormat::Mcp
        })
    );
    let refused = CatalogQuery::parse([("scope", "voice")]);
    let details = refused.err().map(|e| e.details).unwrap_or_default();
    assert!(
        details[0]
            .message
            .contains("'all' | 'assistant' | 'librarian' | 'reader' | 'kiosk'"),
        "{details:?}"
    );
}

#[test]
fn fingerprints_are_digests_naming_the_scope() {
    let fp = Fingerprint::of_call(
        "brain.search",
        &json!({"query": "secret words", "limit": 5}),
        READER,
    );
    assert!(!fp.to_hex().contains("secret"));
    let expected = Sha256::digest(
        br#"{"arguments":{"limit":5,"query":"secret words"},"name":"brain.search","scope":"reader"}"#,
    );
    assert_eq!(fp.to_hex(), hex::encode(expected));

    let arguments = json!({"limit": 5});
    let mut extra = serde_json::Map::new();
    extra.insert("revision".to_owned(), json!(2));
    extra.insert("recipeId".to_owned(), json!("r1"));
    let with = Fingerprint::of_call_with("saved.x", &arguments, LIBRARIAN, &extra);
    let expected = Sha256::digest(
        br#"{"arguments":{"limit":5},"name":"saved.x","recipeId":"r1","revision":2,"scope":"librarian"}"#,
    );
    assert_eq!(with.to_hex(), hex::encode(expected));
    extra.insert("revision".to_owned(), json!(3));
    assert_ne!(
        with,
        Fingerprint::of_call_with("saved.x", &arguments, LIBRARIAN, &extra)
    );
    assert_eq!(
        Fingerprint::of_call_with("t", &arguments, READER, &serde_json::Map::new()),
        Fingerprint::of_call("t", &arguments, READER)
    );
    assert_ne!(
        Fingerprint::of_call("t", &json!({}), READER),
        Fingerprint::of_call("t", &json!({}), ASSISTANT)
    );
}

#[tokio::test]
async fn each_scope_is_guarded_as_declared() {
    let registry = Registry::builder()
        .build()
        .expect("the tools use declared words");
    let code = |answer: Result<portos_core::ToolResult, portos_core::ToolError>| match answer {
        Ok(result) => format!("{:?}", result.state),
        Err(error) => error.code.as_str().to_owned(),
    };
    // Grants: a tool runs only with each capability it requires.
    let none = Authority::of(ASSISTANT);
    let reader_grant = none.clone().granted([READ_BOOKS].into_iter().collect());
    assert_eq!(
        code(registry.call(&none, call("g1", "shelf.list")).await),
        ErrorCode::ToolCapabilityDenied.as_str()
    );
    assert_eq!(
        code(registry.call(&reader_grant, call("g2", "shelf.list")).await),
        "Completed"
    );
    assert_eq!(
        code(registry.call(&reader_grant, call("g3", "shelf.add")).await),
        ErrorCode::ToolCapabilityDenied.as_str()
    );
    // Signed in: reads for anyone, writes for a signed-in person.
    let person = Authority::of(READER);
    assert_eq!(
        code(registry.call(&person, call("s1", "shelf.list")).await),
        "Completed"
    );
    assert_eq!(
        code(registry.call(&person, call("s2", "shelf.add")).await),
        ErrorCode::ToolAuthRequired.as_str()
    );
    assert_eq!(
        code(
            registry
                .call(&person.signed_in(true), call("s3", "shelf.add"))
                .await
        ),
        "Completed"
    );
    // Trusted: neither is asked.
    let kiosk = Authority::of(KIOSK);
    assert_eq!(
        code(registry.call(&kiosk, call("t1", "shelf.add")).await),
        "Completed"
    );
    // A scope the tool does not list.
    assert_eq!(
        code(
            registry
                .call(&Authority::of(LIBRARIAN), call("x1", "shelf.add"))
                .await
        ),
        ErrorCode::ToolScopeDenied.as_str()
    );
}

#[test]
fn the_catalog_shows_unguarded_and_open_world() {
    let registry = Registry::builder()
        .build()
        .expect("the tools use declared words");
    let ring = registry.resolve("desk.ring").expect("linked");
    assert_eq!(ring.policy.unguarded, Some("a bell changes nothing kept"));
    let policy = serde_json::to_value(&ring.policy).expect("serializes");
    assert_eq!(policy["unguarded"], "a bell changes nothing kept");
    assert_eq!(policy["scopes"], json!(["reader", "kiosk"]));
    let list = serde_json::to_value(&registry.resolve("shelf.list").expect("linked").policy)
        .expect("serializes");
    assert!(list.get("unguarded").is_none());
    assert_eq!(list["requiredCapabilities"], json!(["readBooks"]));

    let catalogs = portos_core::Catalogs::new(registry, &portos_core::IntentConfig::default())
        .expect("catalogs");
    let mcp = catalogs
        .catalog(
            &CatalogQuery::parse([("scope", "librarian"), ("format", "mcp")]).expect("query"),
            Capabilities::all(),
        )
        .body();
    let borrow = mcp["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == "shelf_borrow"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(borrow["annotations"]["openWorldHint"], true, "{mcp}");
}

/// A declaration written by hand is checked as the macro checks one.
#[test]
fn a_hand_written_vocabulary_is_checked() {
    use portos_core::{CapabilityTerm, ScopeTerm, SourceLocation, Vocabulary};
    static TWICE: [CapabilityTerm; 2] = [
        CapabilityTerm {
            name: "readBooks",
            description: "Read.",
            open_world: false,
        },
        CapabilityTerm {
            name: "readBooks",
            description: "Read again.",
            open_world: false,
        },
    ];
    static SCOPES: [ScopeTerm; 3] = [
        ScopeTerm {
            name: "all",
            description: "Everyone.",
            guard: Guard::Trusted,
            transport: None,
        },
        ScopeTerm {
            name: "a",
            description: "A.",
            guard: Guard::Grants(&[Capability::declared(5)]),
            transport: Some(Transport::Http),
        },
        ScopeTerm {
            name: "b",
            description: "B.",
            guard: Guard::SignedIn,
            transport: Some(Transport::Http),
        },
    ];
    let vocabulary = Vocabulary {
        capabilities: &TWICE,
        scopes: &SCOPES,
        context: &[],
        location: SourceLocation {
            file: "hand.rs",
            line: 1,
            column: 1,
        },
    };
    let problems = vocabulary.problems();
    for expected in [
        "capability `readBooks` is declared twice",
        "scope `all` (hand.rs:1:1) is not a valid name",
        "capability #5, which is not declared",
        "two scopes speak for the http transport",
    ] {
        assert!(
            problems.iter().any(|p| p.contains(expected)),
            "{expected}: {problems:#?}"
        );
    }
    assert_eq!(problems.len(), 4, "{problems:#?}");
}
