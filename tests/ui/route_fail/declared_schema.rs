// Schemas, statuses and failures are no longer declared: they come from the
// handler's types, and each old key says where.
use axum::Json;
use portos_server::portos_route;

#[portos_route(
    method = "GET",
    path = "/api/demo",
    response = Json<bool>,
    status = 201,
    errors = [(404, "NOT_FOUND")],
)]
async fn demo() -> Json<bool> {
    Json(true)
}

fn main() {}
