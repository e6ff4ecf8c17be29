use portos_core::portos_tool;

/// Say hello.
#[portos_tool(name = "demo.hello", scopes = ["ui"], side_effect = "read")]
struct Hello {
    text: String,
}

fn main() {}
