use portos_server::portos_route;

#[portos_route(method = "GET", path = "/api/demo/:id")]
async fn demo() -> &'static str {
    "ok"
}

fn main() {}
