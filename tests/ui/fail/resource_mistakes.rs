use portos_core::{portos_resource, AdapterError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, Serialize, JsonSchema)]
struct Vars {
    id: String,
}

/// Both a URI and a template.
#[portos_resource(uri = "a://x", uri_template = "a://{id}", scopes = ["agent"])]
async fn both(vars: Vars) -> Result<String, AdapterError> {
    Ok(vars.id)
}

/// Neither.
#[portos_resource(scopes = ["agent"])]
async fn neither() -> Result<String, AdapterError> {
    Ok(String::new())
}

/// A fixed URI with an input.
#[portos_resource(uri = "a://fixed", scopes = ["agent"])]
async fn fixed_with_input(vars: Vars) -> Result<String, AdapterError> {
    Ok(vars.id)
}

/// A template without one.
#[portos_resource(uri_template = "a://{id}", scopes = ["agent"])]
async fn template_without_input() -> Result<String, AdapterError> {
    Ok(String::new())
}

/// No scheme, an unknown key, no scopes.
#[portos_resource(uri = "just-a-name", side_effect = "read")]
async fn no_scheme() -> Result<String, AdapterError> {
    Ok(String::new())
}

#[portos_resource(uri = "a://undocumented", scopes = ["agent"])]
async fn undocumented() -> Result<String, AdapterError> {
    Ok(String::new())
}

fn main() {}
