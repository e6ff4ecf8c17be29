use portos_core::{portos_tool, AdapterError, ToolContext};

struct Store;

// The attribute key of earlier releases says where state is named now.
/// Count the things in the store.
#[portos_tool(name = "demo.count", scopes = ["ui"], side_effect = "read", state = [Store])]
async fn count(_ctx: &ToolContext) -> Result<String, AdapterError> {
    Ok("none".to_owned())
}

fn main() {}
