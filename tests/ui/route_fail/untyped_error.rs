// A handler whose error type declares nothing is refused: its failures
// would be missing from the documents.
use axum::Json;
use portos_server::portos_route;
use portos_server::http::ApiError;

#[portos_route(method = "GET", path = "/api/demo")]
async fn demo() -> Result<Json<bool>, ApiError> {
    Ok(Json(true))
}

fn main() {}
