use portos_core::{
    portos_tool, AdapterError, Authority, Capabilities, Guard, Registry, Scope, Transport,
};
use serde_json::{json, Value};

// An application's own words: checked by the tools that use them when the
// registry is built, typed constants for its own code.
portos_core::vocabulary! {
    capabilities {
        /// Read the shelf.
        READ_BOOKS = "readBooks",
        /// Change the shelf.
        WRITE_BOOKS = "writeBooks",
    }
    scopes {
        /// Agents over MCP.
        #[grants(WRITE_BOOKS, READ_BOOKS)]
        #[transport(mcp)]
        ASSISTANT = "assistant",
        /// People over HTTP.
        #[signed_in]
        #[transport(http)]
        READER = "reader",
        /// The front desk's speaker.
        #[trusted]
        KIOSK = "kiosk",
    }
}

/// Shelve a book.
#[portos_tool(
    name = "shelf.add",
    scopes = ["assistant", "reader", "kiosk"],
    capabilities = ["writeBooks"],
    side_effect = "write",
)]
async fn add() -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "summary": "shelved" }))
}

/// Ring the desk bell: anyone at the desk may.
#[portos_tool(
    name = "desk.ring",
    scopes = ["reader", "kiosk"],
    side_effect = "write",
    unguarded = "a bell changes nothing kept",
)]
async fn ring() -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true, "summary": "ding" }))
}

fn main() {
    assert_eq!(READ_BOOKS.as_str(), "readBooks");
    assert_eq!(Scope::of_transport(Transport::Mcp), Some(ASSISTANT));
    assert_eq!(ASSISTANT.guard(), Guard::Grants(&[WRITE_BOOKS, READ_BOOKS]));
    let registry = Registry::builder().build().expect("the words are declared");
    let add = registry.resolve("shelf.add").expect("linked");
    assert_eq!(add.policy.scopes, [ASSISTANT, READER, KIOSK]);
    assert_eq!(add.policy.required_capabilities, [WRITE_BOOKS]);
    let ring = registry.resolve("desk.ring").expect("linked");
    assert_eq!(ring.policy.unguarded, Some("a bell changes nothing kept"));
    let agent = Authority::of(ASSISTANT).granted(Capabilities::NONE.with(WRITE_BOOKS));
    assert!(agent.capabilities.has_all(&add.policy.required_capabilities));
}
