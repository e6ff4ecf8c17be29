portos_core::use_vocabulary!(portos_words);
use portos_core::portos_tool;

#[derive(Debug)]
struct Oops;

/// Say hello.
#[portos_tool(name = "demo.hello", scopes = ["ui"], side_effect = "read")]
async fn hello() -> Result<String, Oops> {
    Err(Oops)
}

fn main() {}
