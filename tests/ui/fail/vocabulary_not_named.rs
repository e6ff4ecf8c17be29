// A crate whose tools name words must have a vocabulary at its root: its
// own `vocabulary!`, or `use_vocabulary!(...)` naming another crate's.
// Without one, the tool is one error (not one per word).
use portos_core::{portos_tool, AdapterError};

/// Count the shelf.
#[portos_tool(name = "shelf.count", scopes = ["ui", "agent"], capabilities = ["readPortos"], side_effect = "read")]
async fn count() -> Result<u32, AdapterError> {
    Ok(3)
}

fn main() {}
