//! `GET /api/api-docs/catalog.json` (docs/reference.md#route-catalog).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::Inventory;
use super::classify::{self, title_case};

/// Where the inventory comes from, stated in the document.
pub const DERIVED_FROM: &str = "#[portos_route] declarations linked into this binary";

impl Inventory {
    /// The searchable inventory: domains, access and side-effect classes,
    /// modeled or generated, every operation.
    pub fn catalog_json(&self) -> Value {
        let mut domains: BTreeMap<String, usize> = BTreeMap::new();
        let mut mounts: Vec<String> = Vec::new();
        let mut sources: Vec<&str> = Vec::new();
        let mut modeled = 0;
        let operations: Vec<Value> = self
            .routes()
            .iter()
            .map(|route| {
                let domain = classify::domain(route.path);
                *domains.entry(domain.clone()).or_default() += 1;
                let mount = classify::mount_path(route.path);
                if !mounts.contains(&mount) {
                    mounts.push(mount.clone());
                }
                if !sources.contains(&route.location.file) {
                    sources.push(route.location.file);
                }
                let is_modeled = route.io().is_modeled();
                if is_modeled {
                    modeled += 1;
                }
                json!({
                    "method": route.method.as_str(),
                    "path": route.path,
                    "mountPath": mount,
                    "sources": [route.location.file],
                    "openApiPath": route.path,
                    "domain": domain,
                    "domainLabel": title_case(&domain),
                    "summary": route
                        .summary
                        .map_or_else(|| classify::default_summary(route.method, route.path), str::to_owned),
                    "access": self.access(route),
                    "sideEffect": classify::side_effect(route),
                    "contractStatus": if is_modeled { "modeled" } else { "generated" },
                })
            })
            .collect();
        mounts.sort();
        let total = operations.len();
        json!({
            "schemaVersion": 1,
            "derivedFrom": [DERIVED_FROM],
            "stats": {
                "mounts": mounts.len(),
                "operations": total,
                "declarations": total,
                "sourceFiles": sources.len(),
                "domains": domains.len(),
                "modeled": modeled,
                "generated": total - modeled,
            },
            "domains": domains
                .iter()
                .map(|(id, count)| json!({ "id": id, "label": title_case(id), "operations": count }))
                .collect::<Vec<_>>(),
            "mounts": mounts,
            "operations": operations,
        })
    }
}
