use portos_server::portos_route;

/// Answers.
#[portos_route(crate = "portos_core", method = "GET", path = "/api/demo")]
async fn demo() {}

fn main() {}
