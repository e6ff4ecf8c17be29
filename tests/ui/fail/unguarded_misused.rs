use portos_core::{portos_tool, AdapterError};
use serde_json::{json, Value};

/// A read needs no reason to be open.
#[portos_tool(name = "demo.read", scopes = ["ui"], side_effect = "read", unguarded = "it reads")]
async fn read() -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true }))
}

/// A guarded write is not unguarded.
#[portos_tool(
    name = "demo.write",
    scopes = ["ui"],
    capabilities = ["writeBooks"],
    side_effect = "write",
    unguarded = "it is fine",
)]
async fn write() -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true }))
}

/// An empty reason says nothing.
#[portos_tool(name = "demo.ring", scopes = ["ui"], side_effect = "write", unguarded = "  ")]
async fn ring() -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true }))
}

fn main() {}
