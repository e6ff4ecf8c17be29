use portos_server::portos_route;

#[portos_route(method = "GET")]
async fn demo() -> &'static str {
    "ok"
}

fn main() {}
