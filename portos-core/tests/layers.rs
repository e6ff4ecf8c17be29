//! The module layering of portos-core (DESIGN "Crates"): `contract` →
//! `descriptor`/`registry` → `catalog` → `inventory`, with no import circle
//! between top-level modules. Read from the sources, so a `use` that breaks
//! the layering fails here rather than in review.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// Top-level module → the top-level modules its code names (`crate::x`,
/// `use crate::{x, y}`), comments left out.
fn graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph = Graph::new();
    let mut files = vec![src.clone()];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            for entry in fs::read_dir(&path).expect("readable src") {
                files.push(entry.expect("entry").path());
            }
            continue;
        }
        let relative = path.strip_prefix(&src).expect("under src");
        let module = relative
            .iter()
            .next()
            .and_then(|first| first.to_str())
            .map(|first| first.trim_end_matches(".rs").to_owned())
            .expect("a module name");
        if module == "lib" {
            continue;
        }
        let text = fs::read_to_string(&path).expect("readable source");
        let deps = graph.entry(module.clone()).or_default();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for named in crate_paths(line) {
                if named != module {
                    deps.insert(named);
                }
            }
        }
    }
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for deps in graph.values_mut() {
        deps.retain(|d| modules.contains(d));
    }
    graph
}

/// The first segment after each `crate::` on a line (`$crate::` is the
/// macros' own path to the crate root, not an import).
fn crate_paths(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in line.match_indices("crate::") {
        if line[..at].ends_with('$') {
            continue;
        }
        let rest = &line[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = group.split('}').next().unwrap_or_default();
            out.extend(
                inner
                    .split(',')
                    .map(|item| {
                        item.trim()
                            .split("::")
                            .next()
                            .unwrap_or_default()
                            .to_owned()
                    })
                    .filter(|name| !name.is_empty()),
            );
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            out.push(name);
        }
    }
    out
}

fn reaches(graph: &Graph, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_owned()];
    while let Some(module) = stack.pop() {
        for dep in graph.get(&module).into_iter().flatten() {
            if dep == to {
                return true;
            }
            if seen.insert(dep.clone()) {
                stack.push(dep.clone());
            }
        }
    }
    false
}

#[test]
fn no_module_reaches_itself() {
    let graph = graph();
    for module in graph.keys() {
        assert!(
            !reaches(&graph, module, module),
            "`{module}` is part of an import circle: {graph:#?}"
        );
    }
}

#[test]
fn the_layers_point_one_way() {
    let graph = graph();
    let deps = |module: &str| graph.get(module).cloned().unwrap_or_default();
    assert!(
        deps("contract").is_empty(),
        "contract names nothing else in the crate: {:?}",
        deps("contract")
    );
    for (lower, upper) in [
        ("descriptor", "registry"),
        ("descriptor", "catalog"),
        ("descriptor", "inventory"),
        ("registry", "catalog"),
        ("catalog", "inventory"),
        ("inventory", "registry"),
        ("inventory", "catalog"),
    ] {
        assert!(
            !reaches(&graph, lower, upper),
            "`{lower}` must not depend on `{upper}`: {graph:#?}"
        );
    }
    // The registry reads the link-time list (and so sees the route and
    // event types `linked` holds) but never imports the inventory itself.
    assert!(!deps("registry").contains("inventory"));
}
