//! The module layering of portos-core (DESIGN "Crates"): `contract` →
//! `descriptor`/`registry` → `catalog` → `inventory`, with no import circle
//! between top-level modules. Read from the sources (tests/module-layers),
//! so a `use` that breaks the layering fails here rather than in review.

use std::path::Path;

use module_layers::Graph;

fn graph() -> Graph {
    Graph::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), 1, None)
}

#[test]
fn no_module_reaches_itself() {
    graph().assert_no_circles();
}

#[test]
fn the_layers_point_one_way() {
    let graph = graph();
    assert!(
        graph.deps("contract").is_empty(),
        "contract names nothing else in the crate: {:?}",
        graph.deps("contract")
    );
    for (lower, upper) in [
        ("descriptor", "registry"),
        ("descriptor", "catalog"),
        ("descriptor", "inventory"),
        ("registry", "catalog"),
        ("catalog", "inventory"),
        ("inventory", "registry"),
        ("inventory", "catalog"),
        // Resources and prompts are built with the registry, and below it.
        ("primitives", "registry"),
        ("primitives", "catalog"),
        ("primitives", "inventory"),
    ] {
        assert!(
            !graph.reaches(lower, upper),
            "`{lower}` must not depend on `{upper}`:\n{graph}"
        );
    }
    // The registry reads the link-time list (and so sees the route and
    // event types `linked` holds) but never imports the inventory itself.
    assert!(!graph.deps("registry").contains("inventory"));
}
