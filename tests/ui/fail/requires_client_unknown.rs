use portos_core::{portos_tool, AdapterError};

/// Needs what no client answers.
#[portos_tool(
    name = "demo.needs",
    scopes = ["agent"],
    side_effect = "read",
    requires_client = ["telepathy", "sampling", "sampling"],
)]
async fn needs() -> Result<String, AdapterError> {
    Ok(String::new())
}

fn main() {}
