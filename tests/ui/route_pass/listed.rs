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

/// The time, as an HTTP tool.
#[portos_route(
    method = "GET",
    path = "/api/demo/now",
    response = Pong,
    tool(name = "demo.now", privacy = "internal", side_effect = "local-compute", async),
)]
async fn now() -> Json<Pong> {
    Json(Pong { ok: true })
}

fn main() {
    use portos_server as _;
    let inventory = portos_server::http::inventory(portos_server::http::access::classifier(&[])).expect("no duplicate routes");
    let route = inventory
        .routes()
        .iter()
        .find(|r| r.path == "/api/demo/ping/{id}")
        .expect("the route is in the link-time list");
    assert_eq!(route.description, "Answers pong.");
    assert_eq!(route.path_params().collect::<Vec<_>>(), ["id"]);
    assert!(route.response.is_some());
    let tool = inventory
        .routes()
        .iter()
        .find(|r| r.path == "/api/demo/now")
        .and_then(|r| r.tool)
        .expect("annotated");
    assert_eq!(tool.name, "demo.now");
    assert_eq!(tool.privacy, portos_core::inventory::ToolPrivacy::Internal);
    assert_eq!(tool.side_effect, portos_core::inventory::HttpToolEffect::LocalCompute);
    assert!(tool.is_async);
    assert!(route.tool.is_none());
}
