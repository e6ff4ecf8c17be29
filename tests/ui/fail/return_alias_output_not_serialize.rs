portos_core::use_vocabulary!(portos_words);
use portos_core::{portos_tool, AdapterError};

struct Greeting {
    text: String,
}

type Outcome<T> = Result<T, AdapterError>;

// Through an alias the macro cannot see `Result<O, E>`, so the whole return
// type is checked and the error names the output type inside it.
/// Say hello.
#[portos_tool(name = "demo.hello", scopes = ["ui"], side_effect = "read")]
async fn hello() -> Outcome<Greeting> {
    Ok(Greeting { text: "hello".to_owned() })
}

fn main() {}
