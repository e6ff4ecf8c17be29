use portos_core::{portos_tool, AdapterError};

// Every mistake is reported in one compile, each under its own token, and
// none of them produces a follow-on error.
/// Say hello.
#[portos_tool(
    name = "recipe.hello",
    scopes = ["ui", "web"],
    capabilities = ["readPortos", "readPortos", "readEverything"],
    side_effect = "readonly",
    confirmation = "maybe",
    colour = "blue",
    intent_group = "Greetings!",
)]
fn hello(a: String, b: String) -> Result<String, AdapterError> {
    Ok(a + &b)
}

fn main() {}
