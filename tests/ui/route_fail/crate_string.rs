use portos_core::portos_route;

/// Answers.
#[portos_route(crate = "portos_core", method = "GET", path = "/api/demo")]
async fn demo() {}

fn main() {}
