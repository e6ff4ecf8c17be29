use std::cell::Cell;
use std::rc::Rc;

use portos_core::{portos_tool, AdapterError, ToolContext};

/// Shared by every call, so it must be `Sync`; a `Cell` is not.
struct Hits(Cell<u32>);

// Each type that cannot be shared across threads is reported under its own
// name; the thread-safe one between them is not.
/// Count the hits.
#[portos_tool(
    name = "demo.hits",
    scopes = ["ui"],
    side_effect = "read",
    state = [Hits, String, Rc<String>],
)]
async fn hits(_ctx: &ToolContext) -> Result<String, AdapterError> {
    Ok("none".to_owned())
}

fn main() {}
