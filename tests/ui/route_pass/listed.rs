// What a route takes and answers comes from its handler's types: the query
// and body extractors, the success type and the derived error enum.
use axum::Json;
use axum::extract::{Path, State};
use portos_server::portos_route;
use portos_server::app::App;
use portos_server::http::{Body, Created, NoContent, Query, RouteErrors};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, JsonSchema)]
struct Pong {
    ok: bool,
}

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PingQuery {
    loud: Option<bool>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NewPing {
    label: String,
}

#[derive(Debug, thiserror::Error, RouteErrors)]
enum PingError {
    #[error("No ping has the id {0}")]
    #[route_error(status = 404, code = "PING_NOT_FOUND")]
    NotFound(String),
    #[error("Pings are paused")]
    #[route_error(status = 409, code = "PAUSED")]
    Paused,
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] portos_server::store::StoreError),
}

/// Answers pong.
#[portos_route(method = "GET", path = "/api/demo/ping/{id}")]
async fn ping(
    State(_app): State<App>,
    Path(id): Path<String>,
    Query(query): Query<PingQuery>,
) -> Result<Json<Pong>, PingError> {
    match query.loud {
        Some(true) => Err(PingError::NotFound(id)),
        Some(false) => Err(PingError::Paused),
        None => Ok(Json(Pong { ok: true })),
    }
}

/// Creates a ping.
#[portos_route(method = "POST", path = "/api/demo/ping")]
async fn create(Body(new): Body<NewPing>) -> Created<Pong> {
    Created(Pong { ok: !new.label.is_empty() })
}

/// Forgets every ping.
#[portos_route(method = "DELETE", path = "/api/demo/ping")]
async fn clear() -> NoContent {
    NoContent
}

/// The time, as an HTTP tool.
#[portos_route(
    method = "GET",
    path = "/api/demo/now",
    tool(name = "demo.now", privacy = "internal", side_effect = "local-compute", async),
)]
async fn now() -> Json<Pong> {
    Json(Pong { ok: true })
}

/// Lists what is under `{mount.path}` (events at `{mount.events}`).
#[portos_route(method = "GET", mount = "demo", path = "/mounted")]
async fn mounted() -> Json<Pong> {
    Json(Pong { ok: true })
}

fn main() {
    use portos_server as _;
    let mounts = portos_server::Mounts::default().with(
        "demo",
        portos_server::Mount {
            path: "/api/demo/placed",
            events: "demo:placed",
        },
    );
    let inventory =
        portos_server::http::inventory(portos_server::ServerBuilder::new("demo", "1.0.0", portos_server::Config::default()).classifier(), &mounts)
            .expect("no duplicate routes");
    // Unplaced, the mount is a start-up error naming the route.
    let unplaced = portos_server::http::inventory(
        portos_server::ServerBuilder::new("demo", "1.0.0", portos_server::Config::default()).classifier(),
        &portos_server::Mounts::default(),
    );
    assert!(unplaced.is_err_and(|error| error.to_string().contains("the mount `demo`")));
    let find = |method: &str, path: &str| {
        inventory
            .routes()
            .iter()
            .find(|r| r.path == path && r.method.as_str() == method)
            .copied()
            .expect("the route is in the link-time list")
    };
    let route = find("GET", "/api/demo/ping/{id}");
    assert_eq!(route.description, "Answers pong.");
    assert_eq!(route.path_params().collect::<Vec<_>>(), ["id"]);
    let io = route.io();
    assert!(io.query.is_some() && io.response.is_some() && io.request.is_none());
    assert_eq!(io.success_status, 200);
    let errors: Vec<(u16, &str)> = io.errors.iter().map(|e| (e.status, e.code)).collect();
    assert_eq!(errors, [(400, "VALIDATION_ERROR"), (404, "PING_NOT_FOUND"), (409, "PAUSED")]);

    let io = find("POST", "/api/demo/ping").io();
    assert!(io.request.is_some() && io.response.is_some());
    assert_eq!(io.success_status, 201);
    let errors: Vec<(u16, &str)> = io.errors.iter().map(|e| (e.status, e.code)).collect();
    assert_eq!(
        errors,
        [(400, "VALIDATION_ERROR"), (413, "PAYLOAD_TOO_LARGE"), (415, "UNSUPPORTED_MEDIA_TYPE")]
    );

    let io = find("DELETE", "/api/demo/ping").io();
    assert_eq!(io.success_status, 204);
    assert!(io.is_modeled() && io.response.is_none() && io.errors.is_empty());

    let now = find("GET", "/api/demo/now");
    let tool = now.tool.expect("annotated");
    assert_eq!(tool.name, "demo.now");
    assert_eq!(tool.privacy, portos_core::inventory::ToolPrivacy::Internal);
    assert_eq!(tool.side_effect, portos_core::inventory::HttpToolEffect::LocalCompute);
    assert!(tool.is_async);
    assert!(route.tool.is_none());

    let placed = find("GET", "/api/demo/placed/mounted");
    assert_eq!(
        placed.description,
        "Lists what is under `/api/demo/placed` (events at `demo:placed`)."
    );
}
