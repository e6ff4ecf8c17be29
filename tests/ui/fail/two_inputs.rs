use portos_core::{portos_tool, AdapterError, ToolContext};

/// Greet someone.
#[portos_tool(name = "demo.greet", scopes = ["ui"], side_effect = "read")]
async fn greet(ctx: &ToolContext, who: String, times: u8) -> Result<String, AdapterError> {
    Ok(format!("{} {who} x{times}", ctx.request_id()))
}

fn main() {}
