use portos_core::{portos_tool, AdapterError, ToolContext};

/// Say hello.
#[portos_tool(name = "demo.hello", scopes = ["ui"], side_effect = "read")]
async fn hello(ctx: &mut ToolContext) -> Result<String, AdapterError> {
    Ok(ctx.request_id().to_owned())
}

fn main() {}
