use portos_server::portos_route;

struct NotAResponse;

#[portos_route(method = "GET", path = "/api/demo")]
async fn demo() -> NotAResponse {
    NotAResponse
}

fn main() {}
