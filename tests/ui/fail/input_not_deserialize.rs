portos_core::use_vocabulary!(portos_words);
use portos_core::{portos_tool, AdapterError};
use serde::Serialize;

// Serialize alone is not enough: the registry also deserializes the input and
// publishes its JSON Schema.
#[derive(Serialize)]
struct Who {
    name: String,
}

/// Greet someone.
#[portos_tool(name = "demo.greet", scopes = ["ui"], side_effect = "read")]
async fn greet(who: Who) -> Result<String, AdapterError> {
    Ok(format!("hello {}", who.name))
}

fn main() {}
