//! Mounting the link-time list of routes. `#[portos_route]` adds an entry to
//! `portos_core::inventory::ROUTES`; the router is mounted from the same
//! served list the inventory is derived from (`crate::route_list`), so no
//! route is served without being listed, or listed without being served.

use std::collections::BTreeMap;

use axum::Router;
use axum::routing::MethodRouter;
use portos_core::inventory::InventoryError;

use super::ApiError;
use crate::app::App;
use crate::mounts::Mounts;
use crate::route_list::served;

/// What a `#[portos_route]` handler becomes.
pub type MethodRoute = MethodRouter<App>;

/// Mounts every linked route. The inventory check (run at start-up) is what
/// guarantees no method is declared twice on a path, and the macro checks each
/// handler's type, so a handler of another type is a start-up error here.
pub(super) fn mount(
    mut router: Router<App>,
    mounts: &Mounts,
) -> Result<Router<App>, InventoryError> {
    let mut by_path: BTreeMap<&str, MethodRoute> = BTreeMap::new();
    let mut problems = Vec::new();
    for route in served(mounts)? {
        let Ok(handler) = (route.handler)().downcast::<MethodRoute>() else {
            problems.push(format!(
                "`{} {}` ({}) is not a handler of this server",
                route.spec.method, route.spec.path, route.spec.location
            ));
            continue;
        };
        let merged = match by_path.remove(route.spec.path) {
            Some(existing) => existing.merge(*handler),
            None => *handler,
        };
        by_path.insert(route.spec.path, merged);
    }
    if !problems.is_empty() {
        return Err(InventoryError { problems });
    }
    for (path, methods) in by_path {
        // A known path with an unserved method answers a JSON 405.
        router = router.route(
            path,
            methods.fallback(|| async { ApiError::method_not_allowed() }),
        );
    }
    Ok(router)
}
