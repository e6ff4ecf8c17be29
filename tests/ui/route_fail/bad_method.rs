use portos_server::portos_route;

#[portos_route(method = "FETCH", path = "/api/demo")]
async fn demo() -> &'static str {
    "ok"
}

fn main() {}
