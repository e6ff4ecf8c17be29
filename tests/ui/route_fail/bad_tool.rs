use portos_server::portos_route;

#[portos_route(method = "GET", path = "/api/demo/a", tool(name = "demo now", privacy = "secret", side_effect = "read"))]
async fn bad_values() -> &'static str {
    "ok"
}

#[portos_route(method = "GET", path = "/api/demo/b", tool(privacy = "internal", flavour = "x"))]
async fn missing_keys() -> &'static str {
    "ok"
}

#[portos_route(method = "GET", path = "/api/demo/c", tool = "demo.now")]
async fn not_a_list() -> &'static str {
    "ok"
}

fn main() {}
