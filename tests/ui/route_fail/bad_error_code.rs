use portos_core::portos_route;

#[portos_route(method = "GET", path = "/api/demo", errors = [(200, "fine"), (404, "NOT_FOUND")])]
async fn demo() -> &'static str {
    "ok"
}

fn main() {}
