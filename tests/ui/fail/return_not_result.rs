portos_core::use_vocabulary!(portos_words);
use portos_core::portos_tool;

/// Say hello.
#[portos_tool(name = "demo.hello", scopes = ["ui"], side_effect = "read")]
async fn hello() -> String {
    "hello".to_owned()
}

fn main() {}
