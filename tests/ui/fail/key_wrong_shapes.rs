use portos_core::{portos_tool, AdapterError};

// Each value of the wrong shape is reported under its token with what the key
// takes, and the keys after it are still read (none is reported missing).
/// Say hello.
#[portos_tool(
    scopes = "ui",
    name = demo.hello,
    version = "1",
    idempotent = "yes",
    aliases = ["hello", hi],
    side_effect = "read",
)]
async fn hello() -> Result<String, AdapterError> {
    Ok("hello".to_owned())
}

fn main() {}
