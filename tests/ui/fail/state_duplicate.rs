use portos_core::{portos_tool, AdapterError, Shared};

mod store {
    pub struct Store;
}
use store::Store;

// The same state twice is one value under two names: reported at the second.
/// Count the things in the store.
#[portos_tool(name = "demo.count", scopes = ["ui"], side_effect = "read")]
async fn count(
    _store: Shared<Store>,
    _shared: Shared<std::sync::Arc<Store>>,
    _again: Shared<Store>,
) -> Result<String, AdapterError> {
    Ok("none".to_owned())
}

fn main() {}
