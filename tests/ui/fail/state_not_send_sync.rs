portos_core::use_vocabulary!(portos_words);
use std::cell::Cell;
use std::rc::Rc;

use portos_core::{portos_tool, AdapterError, Shared};

/// Shared by every call, so it must be `Sync`; a `Cell` is not.
struct Hits(Cell<u32>);

// Each type that cannot be shared across threads is reported under its own
// name; the thread-safe one between them is not.
/// Count the hits.
#[portos_tool(name = "demo.hits", scopes = ["ui"], side_effect = "read")]
async fn hits(
    _hits: Shared<Hits>,
    _name: Shared<String>,
    _cached: Shared<Rc<String>>,
) -> Result<String, AdapterError> {
    Ok("none".to_owned())
}

fn main() {}
