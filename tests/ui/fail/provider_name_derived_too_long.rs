use portos_core::{portos_tool, AdapterError};

// A valid 67-character name whose derived provider name is over 64.
/// Say hello.
#[portos_tool(
    name = "demo.hello-this-name-is-fine-here-but-too-long-for-openai-and-mcp-x",
    scopes = ["ui"],
    side_effect = "read",
)]
async fn hello() -> Result<String, AdapterError> {
    Ok("hello".to_owned())
}

fn main() {}
