use portos_core::{portos_tool, AdapterError, InputError, ToolContext};

async fn ask_nothing(_ctx: &ToolContext) -> Result<(), InputError> {
    Ok(())
}

/// Asks before a job it does not have.
#[portos_tool(
    name = "demo.quick",
    scopes = ["agent"],
    side_effect = "read",
    ask_first = ask_nothing,
)]
async fn quick() -> Result<String, AdapterError> {
    Ok(String::new())
}

/// `ask_first` names a function.
#[portos_tool(
    name = "demo.literal",
    scopes = ["agent"],
    side_effect = "read",
    long_running,
    ask_first = "ask_nothing",
)]
async fn literal() -> Result<String, AdapterError> {
    Ok(String::new())
}

fn main() {}
