use portos_core::{portos_tool, AdapterError};

/// Say hello.
#[portos_tool(
    name = "demo.hello",
    scopes = ["voice"],
    side_effect = "read",
    intent_group = "Greetings!",
)]
async fn hello() -> Result<String, AdapterError> {
    Ok("hello".to_owned())
}

fn main() {}
