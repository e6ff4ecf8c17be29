// A parameter type that cannot say what it reads is refused at the route.
use axum::Json;
use axum::extract::RawQuery;
use portos_server::portos_route;

#[portos_route(method = "GET", path = "/api/demo")]
async fn demo(RawQuery(query): RawQuery) -> Json<bool> {
    Json(query.is_some())
}

fn main() {}
