// `crate = path` and `server = path` on a route: the registration and the
// handler's checks go through the re-exports.
mod my_sdk {
    pub use portos_core;
    pub use portos_server as server;
}

use axum::Json;
use my_sdk::server::portos_route;

/// Answers through the re-export.
#[portos_route(
    crate = my_sdk::portos_core,
    server = my_sdk::server,
    method = "GET",
    path = "/api/demo/sdk"
)]
async fn sdk() -> Json<bool> {
    Json(true)
}

fn main() {
    use portos_server as _;
    let inventory = portos_server::http::inventory(
        portos_server::ServerBuilder::new("demo", "1.0.0", portos_server::Config::default()).classifier(),
        &portos_server::Mounts::default(),
    )
    .expect("no duplicate routes");
    assert!(inventory.routes().iter().any(|r| r.path == "/api/demo/sdk"));
}
