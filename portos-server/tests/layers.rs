//! The runtime's modules form layers that point one way, with no import
//! circle: store below settings, settings below what reads them, `app`
//! above every part it holds, the transports above `app`, the builder above
//! the transports, and the entry points (serving, stdio, the command line,
//! the test client) on top. Read from the sources (tests/module-layers), so
//! a `use` that breaks the order fails here, naming where it is written.

use std::path::Path;

use module_layers::Graph;

/// Bottom to top: a module may name modules of its own layer or lower ones.
const LAYERS: &[&[&str]] = &[
    &[
        "cached",
        "clock",
        "config",
        "live_catalogs",
        "live_registry",
        "mounts",
        "names",
        "outbound",
        "redact",
        "remote",
        "telemetry",
        "trace_export",
    ],
    &["route_list", "store"],
    &["settings"],
    &["agent_tools", "api_access", "auth"],
    &["documents", "events", "grants"],
    &["jobs"],
    &["app"],
    &["cluster", "mcp"],
    &["http"],
    &["builder"],
    &["serve"],
    &["cli", "stdio", "testing"],
    &["prelude"],
];

fn graph() -> Graph {
    Graph::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), 1, None)
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

#[test]
fn no_module_is_in_an_import_circle() {
    graph().assert_no_circles();
}

#[test]
fn every_module_has_a_layer_and_names_none_above_it() {
    let graph = graph();
    let mut problems = Vec::new();
    for module in graph.modules() {
        let Some(layer) = layer_of(module) else {
            problems.push(format!("`{module}` is in no layer: add it to LAYERS"));
            continue;
        };
        for dep in graph.deps(module) {
            if layer_of(dep).is_some_and(|above| above > layer) {
                problems.push(format!("`{module}` names `{dep}`, a layer above it"));
            }
        }
    }
    assert!(problems.is_empty(), "{}\n\n{graph}", problems.join("\n"));
}
