use portos_core::{portos_tool, AdapterError};

// 101 characters: one over the limit.
/// Say hello.
#[portos_tool(
    name = "demo.hello-this-name-goes-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on-xy",
    scopes = ["ui"],
    side_effect = "read",
)]
async fn hello() -> Result<String, AdapterError> {
    Ok("hello".to_owned())
}

fn main() {}
