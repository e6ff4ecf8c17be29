use portos_core::{portos_tool, AdapterError, ToolContext};

mod store {
    pub struct Store;
}
use store::Store;

/// Count the things in the store.
#[portos_tool(
    name = "demo.count",
    scopes = ["ui"],
    side_effect = "read",
    state = [Store, std::sync::Arc<Store>, Store],
)]
async fn count(ctx: &ToolContext) -> Result<String, AdapterError> {
    let _store = ctx.state::<Store>()?;
    Ok("none".to_owned())
}

fn main() {}
