// A status chosen at run time cannot be documented: use `Created<T>` (201)
// or `NoContent` (204).
use axum::Json;
use axum::http::StatusCode;
use portos_server::portos_route;

#[portos_route(method = "POST", path = "/api/demo")]
async fn demo() -> (StatusCode, Json<bool>) {
    (StatusCode::CREATED, Json(true))
}

fn main() {}
