use portos_core::{portos_tool, AdapterError};

// Every tool takes a JSON object: a type that can only be another JSON value
// is refused where it is written, with the struct to write instead.
/// Echo a word.
#[portos_tool(name = "demo.echo", scopes = ["ui"], side_effect = "read")]
async fn echo(word: String) -> Result<String, AdapterError> {
    Ok(word)
}

/// Sum numbers.
#[portos_tool(name = "demo.sum", scopes = ["ui"], side_effect = "read")]
async fn sum(numbers: Vec<i64>) -> Result<i64, AdapterError> {
    Ok(numbers.iter().sum())
}

/// Add two numbers.
#[portos_tool(name = "demo.add", scopes = ["ui"], side_effect = "read")]
async fn add(pair: (i64, i64)) -> Result<i64, AdapterError> {
    Ok(pair.0 + pair.1)
}

/// Maybe greet.
#[portos_tool(name = "demo.greet", scopes = ["ui"], side_effect = "read")]
async fn greet(name: Option<String>) -> Result<String, AdapterError> {
    Ok(name.unwrap_or_default())
}

/// Double a number.
#[portos_tool(name = "demo.double", scopes = ["ui"], side_effect = "read")]
async fn double(n: u32) -> Result<u32, AdapterError> {
    Ok(n * 2)
}

fn main() {}
