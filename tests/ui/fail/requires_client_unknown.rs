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

/// Would be followed as a task, but answers at once.
#[portos_tool(
    name = "demo.quick",
    scopes = ["agent"],
    side_effect = "read",
    requires_client = ["tasks"],
)]
async fn quick() -> Result<String, AdapterError> {
    Ok(String::new())
}

fn main() {}
