//! Mounting the link-time list of routes. `#[portos_route]` adds an entry to
//! `portos_core::inventory::ROUTES`; the router is mounted from that list and
//! the inventory is derived from it, so no route is served without being
//! listed, or listed without being served.

use std::collections::BTreeMap;

use axum::Router;
use axum::routing::MethodRouter;
use portos_core::StateMap;
use portos_core::inventory::{Classifier, Inventory, InventoryError, RouteEntry, effective};

use super::ApiError;
use crate::app::App;
use crate::mounts::Mounts;

/// What a `#[portos_route]` handler becomes.
pub type MethodRoute = MethodRouter<App>;

/// The checked inventory of every linked route (duplicates refused), its
/// access classes by `classifier`, the mounted ones where `mounts` places
/// them.
pub fn inventory(classifier: Classifier, mounts: &Mounts) -> Result<Inventory, InventoryError> {
    Inventory::new(served(mounts)?.into_iter().map(|route| &route.spec))
        .map(|inventory| inventory.with_classifier(classifier))
}

/// What stops start-up in the served routes' state: each `Shared<T>` a
/// handler takes that `state` has no value of, named with its route and
/// where it is declared (all at once, as the registry reports tools').
pub fn missing_state(mounts: &Mounts, state: &StateMap) -> Result<(), InventoryError> {
    let problems: Vec<String> = served(mounts)?
        .into_iter()
        .flat_map(|route| {
            let needs = (route.spec.io)().state;
            needs
                .into_iter()
                .filter(|need| !state.provides(need))
                .map(move |need| {
                    format!(
                        "`{} {}` ({}) takes `Shared<{}>`, which the server was not given: add it to the server builder with `.state(...)`",
                        route.spec.method,
                        route.spec.path,
                        route.spec.location,
                        need.type_name()
                    )
                })
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(InventoryError { problems })
    }
}

/// The linked routes that are served, each at its full path (a mounted one
/// where the application placed its mount): a runtime route marked
/// `replaceable` gives way to an application's declaration of the same
/// method and path.
fn served(mounts: &Mounts) -> Result<Vec<&'static RouteEntry>, InventoryError> {
    let placed = mounts
        .routes()
        .map_err(|problems| InventoryError { problems })?;
    Ok(effective(placed, |entry| &entry.spec))
}

/// Mounts every linked route. The inventory check (run at start-up) is what
/// guarantees no method is declared twice on a path, and the macro checks each
/// handler's type, so a handler of another type is a start-up error here.
pub fn mount(mut router: Router<App>, mounts: &Mounts) -> Result<Router<App>, InventoryError> {
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
