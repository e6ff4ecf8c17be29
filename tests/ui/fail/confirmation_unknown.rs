use portos_core::{portos_tool, AdapterError};

/// Forget everything.
#[portos_tool(
    name = "demo.forget",
    scopes = ["ui"],
    capabilities = ["writePortos"],
    side_effect = "destructive",
    confirmation = "always",
)]
async fn forget() -> Result<String, AdapterError> {
    Ok("forgotten".to_owned())
}

fn main() {}
