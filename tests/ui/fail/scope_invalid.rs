use portos_core::{portos_tool, AdapterError};

/// Say hello.
#[portos_tool(name = "demo.hello", scopes = ["ui", "Web UI"], side_effect = "read")]
async fn hello() -> Result<String, AdapterError> {
    Ok("hello".to_owned())
}

fn main() {}
