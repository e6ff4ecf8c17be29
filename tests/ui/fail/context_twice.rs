use portos_core::{portos_tool, AdapterError, ToolContext};

/// Say hello.
#[portos_tool(name = "demo.hello", scopes = ["ui"], side_effect = "read")]
async fn hello(ctx: &ToolContext, again: ToolContext) -> Result<String, AdapterError> {
    Ok(format!("{} {}", ctx.request_id(), again.request_id()))
}

fn main() {}
