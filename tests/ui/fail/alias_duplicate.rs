use portos_core::{portos_tool, AdapterError};

/// Say hello.
#[portos_tool(
    name = "demo.hello",
    aliases = ["demo_hello", "hello", "demo_hello"],
    scopes = ["ui"],
    side_effect = "read",
)]
async fn hello() -> Result<String, AdapterError> {
    Ok("hello".to_owned())
}

fn main() {}
