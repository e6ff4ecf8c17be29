//! The routes a server serves: the linked `#[portos_route]` declarations,
//! each placed where the application put its mount, a replaceable runtime
//! route giving way to an application's. The router, the inventory check,
//! the documents and the start-up state check read this one list.

use portos_core::StateMap;
use portos_core::inventory::{Classifier, Inventory, InventoryError, RouteEntry, effective};

use crate::mounts::Mounts;

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
pub(crate) fn missing_state(mounts: &Mounts, state: &StateMap) -> Result<(), InventoryError> {
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
pub(crate) fn served(mounts: &Mounts) -> Result<Vec<&'static RouteEntry>, InventoryError> {
    let placed = mounts
        .routes()
        .map_err(|problems| InventoryError { problems })?;
    Ok(effective(placed, |entry| &entry.spec))
}
