use portos_core::{portos_tool, AdapterError};

/// Say hello.
#[portos_tool(name = "demo.hello", scopes = ["ui"], side_effect = "read")]
async fn hello(who: impl ToString) -> Result<String, AdapterError> {
    Ok(format!("hello {}", who.to_string()))
}

fn main() {}
