use portos_core::{portos_tool, AdapterError};

#[portos_tool(name = "demo.hello", scopes = ["ui"], side_effect = "read")]
async fn hello() -> Result<String, AdapterError> {
    Ok("hello".to_owned())
}

fn main() {}
