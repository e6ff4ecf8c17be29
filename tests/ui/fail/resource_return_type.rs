portos_core::use_vocabulary!(portos_words);
use portos_core::{portos_resource, AdapterError};

/// Answers a number, which is not a resource's body.
#[portos_resource(uri = "a://n", scopes = ["agent"])]
async fn number() -> Result<u32, AdapterError> {
    Ok(1)
}

fn main() {}
