use portos_core::{portos_tool, AdapterError};
use serde_json::{json, Value};

/// Forget everything: a write that names no capability would be open to
/// every principal of its scopes.
#[portos_tool(name = "demo.forget", scopes = ["agent", "ui"], side_effect = "destructive")]
async fn forget() -> Result<Value, AdapterError> {
    Ok(json!({ "ok": true }))
}

fn main() {}
