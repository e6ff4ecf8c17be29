use portos_core::{portos_tool, AdapterError, ToolContext};

struct Store;

// A state type that does not exist is reported under its name, once.
/// Count the things in the store.
#[portos_tool(name = "demo.count", scopes = ["ui"], side_effect = "read", state = [Store, Clock])]
async fn count(ctx: &ToolContext) -> Result<String, AdapterError> {
    let _store = ctx.state::<Store>()?;
    Ok("none".to_owned())
}

fn main() {}
