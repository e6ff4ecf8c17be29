use portos_core::portos_event; use portos_server::portos_route;

/// A mount is named by a lowercase word; the application places it.
#[portos_route(method = "GET", mount = "Tools!", path = "/list")]
async fn list() -> &'static str {
    "ok"
}

/// Under a mount the path still starts with `/` (or is empty: the prefix).
#[portos_route(method = "GET", mount = "tools", path = "list")]
async fn relative() -> &'static str {
    "ok"
}

/// Something happened under a badly named mount.
#[derive(serde::Serialize)]
#[portos_event(mount = "my tools", name = "happened", direction = "server-to-client")]
struct Happened;

fn main() {}
