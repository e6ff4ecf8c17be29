use portos_core::{portos_tool, AdapterError};

struct Greeter;

impl Greeter {
    /// Say hello.
    #[portos_tool(name = "demo.hello", scopes = ["ui"], side_effect = "read")]
    async fn hello(&self) -> Result<String, AdapterError> {
        Ok("hello".to_owned())
    }
}

fn main() {}
