use portos_core::{portos_tool, AdapterError};

/// Say hello.
#[portos_tool(
    name = "demo.hello",
    scopes = ["ui"],
    capabilities = ["readPortos", "read_portos"],
    side_effect = "read",
)]
async fn hello() -> Result<String, AdapterError> {
    Ok("hello".to_owned())
}

fn main() {}
