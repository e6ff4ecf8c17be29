portos_core::use_vocabulary!(portos_words);
use portos_core::{portos_tool, AdapterError, Shared};

struct Store;

// A state type that does not exist is reported under its name.
/// Count the things in the store.
#[portos_tool(name = "demo.count", scopes = ["ui"], side_effect = "read")]
async fn count(_store: Shared<Store>, _clock: Shared<Clock>) -> Result<String, AdapterError> {
    Ok("none".to_owned())
}

fn main() {}
