portos_core::use_vocabulary!(portos_words);
use portos_core::{portos_tool, AdapterError};

struct Greeting {
    text: String,
}

/// Say hello.
#[portos_tool(name = "demo.hello", scopes = ["ui"], side_effect = "read")]
async fn hello() -> Result<Greeting, AdapterError> {
    Ok(Greeting { text: "hello".to_owned() })
}

fn main() {}
