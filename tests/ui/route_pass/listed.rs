use axum::Json;
use portos_core::portos_route;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema)]
struct Pong {
    ok: bool,
}

/// Answers pong.
#[portos_route(method = "GET", path = "/api/demo/ping/{id}", response = Pong, errors = [(404, "NOT_FOUND")])]
async fn ping() -> Json<Pong> {
    Json(Pong { ok: true })
}

fn main() {
    use portos_server as _;
    let inventory = portos_server::http::inventory().expect("no duplicate routes");
    let route = inventory
        .routes()
        .iter()
        .find(|r| r.path == "/api/demo/ping/{id}")
        .expect("the route is in the link-time list");
    assert_eq!(route.description, "Answers pong.");
    assert_eq!(route.path_params().collect::<Vec<_>>(), ["id"]);
    assert!(route.response.is_some());
}
