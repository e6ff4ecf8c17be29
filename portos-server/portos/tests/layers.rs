//! PortOS's modules point one way: the domains build on `shared`, the
//! ledger and the store, never the other way; no domain is in an import
//! circle with another; and a domain uses another only through what that
//! domain's root (`mod.rs`) offers, not its internals. Read from the
//! sources (tests/module-layers).

use std::path::Path;

use module_layers::{Graph, reaches_inside};

fn src() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_top_level_module_is_in_an_import_circle() {
    Graph::read(&src(), 1, None).assert_no_circles();
}

#[test]
fn the_domains_sit_on_the_shared_modules() {
    let graph = Graph::read(&src(), 1, None);
    for lower in ["shared", "ledger", "store", "contract_facts"] {
        assert!(
            !graph.reaches(lower, "domains"),
            "`{lower}` must not depend on the domains:\n{graph}"
        );
    }
}

#[test]
fn no_domain_is_in_an_import_circle_with_another() {
    Graph::read(&src(), 2, Some("domains")).assert_no_circles();
}

#[test]
fn a_domain_uses_another_through_its_root() {
    let hits = reaches_inside(&src(), "domains");
    assert!(
        hits.is_empty(),
        "these lines reach inside another domain; re-export what they need from that domain's mod.rs:\n{}",
        hits.join("\n")
    );
}
