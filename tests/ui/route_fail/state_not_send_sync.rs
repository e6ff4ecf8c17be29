// A route's state is shared by every request on every worker thread: a
// type that is not `Send + Sync` is refused under its own name.
use std::rc::Rc;

use axum::Json;
use portos_core::Shared; use portos_server::portos_route;

#[portos_route(method = "GET", path = "/api/demo/greeting")]
async fn greeting(greeting: Shared<Rc<String>>) -> Json<String> {
    Json(greeting.to_string())
}

fn main() {}
