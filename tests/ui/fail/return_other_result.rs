portos_core::use_vocabulary!(portos_words);
use portos_core::{portos_tool, AdapterError};

// A local type that happens to be called `Result` is not a `Result`.
enum Result<T, E> {
    Done(T),
    Failed(E),
}

/// Say hello.
#[portos_tool(name = "demo.hello", scopes = ["ui"], side_effect = "read")]
async fn hello() -> Result<String, AdapterError> {
    Result::Done("hello".to_owned())
}

fn main() {
    let _ = Result::<(), ()>::Failed(());
}
