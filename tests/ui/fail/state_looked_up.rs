portos_core::use_vocabulary!(portos_words);
use portos_core::{portos_tool, AdapterError, ToolContext};

struct Store;

// State is not looked up at run time: the context has no such method.
/// Count the things in the store.
#[portos_tool(name = "demo.count", scopes = ["ui"], side_effect = "read")]
async fn count(ctx: &ToolContext) -> Result<String, AdapterError> {
    let _store = ctx.state::<Store>()?;
    Ok("none".to_owned())
}

fn main() {}
