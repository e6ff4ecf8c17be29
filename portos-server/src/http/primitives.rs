//! The primitive catalog over HTTP: the resources, resource templates and
//! prompts of a scope, governed as the tool catalog is (docs/mcp.md
//! "Resources, prompts and completions").

use crate::portos_route;
use axum::Json;
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use portos_core::catalog::ScopeQuery;
use portos_core::inventory::RouteIo;
use portos_core::primitives::PrimitiveCatalog;

use super::io::schema_of;
use super::remote_gate::RemoteClient;
use super::{ApiError, RouteInput};
use crate::app::App;

/// The resources, resource templates and prompts declared for a scope
/// (`all`: every one), each with its listing, its policy and, for a scope
/// that holds grants, whether the stored grants cover it (`granted`): what
/// an MCP client of that scope is offered.
#[portos_route(
    method = "GET",
    mount = "tools",
    path = "/primitives",
    summary = "Resource and prompt catalog"
)]
async fn primitive_catalog(
    State(app): State<App>,
    RemoteClient(caller): RemoteClient,
    PrimitivesRequest(query): PrimitivesRequest,
) -> Json<PrimitiveCatalog> {
    let mut grants = app.grants.current().for_catalog(query.scope);
    // A remote caller is told what its principal is granted and its token
    // allows, as in the tool catalog.
    if let Some(caller) = &caller {
        grants = grants.intersect(caller.capabilities);
    }
    Json(app.registry.primitives().catalog(query.scope, grants))
}

/// The strict `scope` query.
struct PrimitivesRequest(ScopeQuery);

impl<S: Send + Sync> FromRequestParts<S> for PrimitivesRequest {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<PrimitivesRequest, ApiError> {
        let pairs: Vec<_> =
            form_urlencoded::parse(parts.uri.query().unwrap_or("").as_bytes()).collect();
        Ok(PrimitivesRequest(ScopeQuery::parse(
            pairs
                .iter()
                .map(|(key, value)| (key.as_ref(), value.as_ref())),
        )?))
    }
}

impl RouteInput for PrimitivesRequest {
    fn describe(io: &mut RouteIo) {
        io.query = Some(schema_of::<ScopeQuery>());
        io.error(400, "VALIDATION_ERROR");
    }
}
