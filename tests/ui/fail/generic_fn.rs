use portos_core::{portos_tool, AdapterError};

/// Say hello.
#[portos_tool(name = "demo.hello", scopes = ["ui"], side_effect = "read")]
async fn hello<T: Default>() -> Result<String, AdapterError> {
    let _ = T::default();
    Ok("hello".to_owned())
}

fn main() {}
