//! The HTTP route inventory and the documents derived from it
//! (docs/reference.md#route-inventory): `catalog.json` and OpenAPI 3.0.3.
//! Routes are declared with `#[portos_route]`; the server mounts its router
//! from the same list, so no route is served without being listed, or listed
//! without being served.

mod catalog;
pub mod classify;
mod events_doc;
mod openapi;
mod tools_min;

use std::collections::HashMap;
use std::fmt;

pub use catalog::DERIVED_FROM;
pub use classify::{Classifier, GateErrors, PathSet};
// The declarations the documents are derived from (what `#[portos_route]`
// and `#[portos_event]` emit) live with the tool descriptor; they are
// re-exported here, where they have always been named.
pub use crate::descriptor::{
    Access, Direction, ErrorSpec, EventSpec, HttpMethod, HttpToolEffect, HttpToolSpec, OutcomeSpec,
    Place, PortosEvent, RouteEffect, RouteEntry, RouteIo, RouteSpec, SchemaFn, ToolPrivacy,
    effective, mounted_event_name,
};
pub use events_doc::{AsyncApiOptions, EventInventory, EventInventoryError};
pub use openapi::{OpenApiOptions, Placement};
pub use tools_min::ToolsMinError;

/// Every declared operation, checked and in document order (path, then
/// method), with the application's [`Classifier`] for their access class.
#[derive(Debug)]
pub struct Inventory {
    routes: Vec<&'static RouteSpec>,
    classifier: Classifier,
}

/// Two declarations of one operation, or a malformed path.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct InventoryError {
    /// One line per problem: a duplicate operation, a path that is not
    /// absolute, a mount the server did not place.
    pub problems: Vec<String>,
}

impl fmt::Display for InventoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the route inventory cannot be built:")?;
        for problem in &self.problems {
            write!(f, "\n  - {problem}")?;
        }
        Ok(())
    }
}

impl Inventory {
    /// Sorts the declarations by path, then method name, and checks them: every
    /// duplicate operation, bad path or unplaced mount is one problem. Access
    /// is classified with the default [`Classifier`] until
    /// [`Inventory::with_classifier`].
    pub fn new(
        routes: impl IntoIterator<Item = &'static RouteSpec>,
    ) -> Result<Inventory, InventoryError> {
        let mut routes: Vec<&'static RouteSpec> = routes.into_iter().collect();
        // By path, then by the method's name (docs/reference.md#route-graph:
        // DELETE sorts before GET), not by the enum's declaration order.
        routes.sort_by(|a, b| (a.path, a.method.as_str()).cmp(&(b.path, b.method.as_str())));
        let mut problems = Vec::new();
        let mut seen: HashMap<(HttpMethod, &str), &RouteSpec> = HashMap::new();
        for route in &routes {
            if let Some(mount) = route.mount {
                problems.push(format!(
                    "route `{} {}` ({}) lives under the mount `{mount}`, which the server does not place: place it (`ServerBuilder::mount`) before listing routes",
                    route.method, route.path, route.location
                ));
                continue;
            }
            if !route.path.starts_with('/') || route.path.contains("//") {
                problems.push(format!(
                    "route `{} {}` ({}) needs an absolute path without empty segments",
                    route.method, route.path, route.location
                ));
            }
            if let Some(other) = seen.insert((route.method, route.path), route) {
                problems.push(format!(
                    "`{} {}` is declared twice: at {} and at {}",
                    route.method, route.path, other.location, route.location
                ));
            }
        }
        if problems.is_empty() {
            Ok(Inventory {
                routes,
                classifier: Classifier::default(),
            })
        } else {
            Err(InventoryError { problems })
        }
    }

    /// Classifies undeclared access with the application's paths (the
    /// default puts every undeclared operation behind authentication).
    pub fn with_classifier(mut self, classifier: Classifier) -> Inventory {
        self.classifier = classifier;
        self
    }

    /// The operations, in document order.
    pub fn routes(&self) -> &[&'static RouteSpec] {
        &self.routes
    }

    /// The application's paths per access class.
    pub fn classifier(&self) -> &Classifier {
        &self.classifier
    }

    /// The access class of `route`, declared or classified.
    pub fn access(&self, route: &RouteSpec) -> Access {
        self.classifier.access(route)
    }

    /// What `route` takes and answers: its handler's description, with the
    /// refusals of the gate in front of its access class.
    pub fn io(&self, route: &RouteSpec) -> RouteIo {
        let mut io = route.io();
        for error in self.classifier.gate_errors(self.access(route)) {
            io.error(error.status, error.code);
        }
        if !self.classifier.renamed_codes.is_empty() {
            for error in &mut io.errors {
                error.code = self.classifier.code_name(error.code);
            }
        }
        io
    }
}
