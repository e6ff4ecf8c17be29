//! The import graph of a crate's modules, read from its sources, for the
//! layers tests of portos-core, portos-server and portos: a `use` that
//! closes a circle or points a layer the wrong way fails a test instead of
//! slipping through review.
//!
//! A module is named by its path under `src/` cut to a depth (`http` at
//! depth 1; `domains::mind` at depth 2 under `domains`). Its edges are the
//! `crate::…` paths its code names (`use crate::{a, b::c}` included),
//! leaving out comments, `$crate::` (a macro's path to the root) and test
//! code: files named `tests.rs` and everything after a file's
//! `#[cfg(test)]`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

/// Module → the modules its code names, each with the first places that
/// name it (`file:line`), for messages.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    edges: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

impl Graph {
    /// The modules of the crate whose sources are in `src`, cut to `depth`
    /// path segments (1: the top-level modules). With `under`, only the
    /// modules below that one (`Some("domains")`: `domains::x` at depth 2)
    /// and only their edges to each other.
    pub fn read(src: &Path, depth: usize, under: Option<&str>) -> Graph {
        let mut graph = Graph::default();
        for path in rust_files(src) {
            let relative = path.strip_prefix(src).expect("under src");
            if relative.file_name().is_some_and(|name| name == "tests.rs") {
                continue;
            }
            let Some(module) = module_of(relative, depth) else {
                continue;
            };
            if under.is_some_and(|root| !module.starts_with(&format!("{root}::"))) {
                continue;
            }
            let text = fs::read_to_string(&path).expect("a readable source");
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for (number, line) in code.lines().enumerate() {
                if line.trim_start().starts_with("//") {
                    continue;
                }
                for named in crate_paths(line) {
                    let segments: Vec<&str> = named.split("::").collect();
                    if under.is_some_and(|root| segments.first() != Some(&root)) {
                        continue;
                    }
                    let target = segments[..segments.len().min(depth)].join("::");
                    if target.is_empty() || target == module {
                        continue;
                    }
                    let at = format!("{}:{}", relative.display(), number + 1);
                    graph
                        .edges
                        .entry(module.clone())
                        .or_default()
                        .entry(target)
                        .or_default()
                        .push(at);
                }
            }
            graph.edges.entry(module).or_default();
        }
        // Names that are not modules (items of the crate root) are no edges.
        let modules: BTreeSet<String> = graph.edges.keys().cloned().collect();
        for targets in graph.edges.values_mut() {
            targets.retain(|target, _| modules.contains(target));
        }
        graph
    }

    pub fn modules(&self) -> impl Iterator<Item = &str> {
        self.edges.keys().map(String::as_str)
    }

    /// The modules `module` names directly.
    pub fn deps(&self, module: &str) -> BTreeSet<&str> {
        self.edges
            .get(module)
            .map(|targets| targets.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// Whether `from` names `to`, directly or through other modules.
    pub fn reaches(&self, from: &str, to: &str) -> bool {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(module) = stack.pop() {
            for dep in self.deps(module) {
                if dep == to {
                    return true;
                }
                if seen.insert(dep) {
                    stack.push(dep);
                }
            }
        }
        false
    }

    /// Every circle, as the modules in it (each sorted), and the edges that
    /// tie it with where they are written.
    pub fn circles(&self) -> Vec<String> {
        let mut circles = Vec::new();
        let mut placed = BTreeSet::new();
        for module in self.modules() {
            if placed.contains(module) || !self.reaches(module, module) {
                continue;
            }
            let circle: BTreeSet<&str> = self
                .modules()
                .filter(|other| self.reaches(module, other) && self.reaches(other, module))
                .collect();
            let mut text = format!("{circle:?}:");
            for from in &circle {
                for (to, places) in self.edges.get(*from).into_iter().flatten() {
                    if circle.contains(to.as_str()) {
                        text.push_str(&format!("\n    {from} -> {to} ({})", places[0]));
                    }
                }
            }
            placed.extend(circle);
            circles.push(text);
        }
        circles
    }
}

impl Graph {
    /// Fails the test, listing every circle, when there is one.
    #[track_caller]
    pub fn assert_no_circles(&self) {
        let circles = self.circles();
        assert!(
            circles.is_empty(),
            "import circles:\n{}",
            circles.join("\n")
        );
    }
}

impl fmt::Display for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (module, targets) in &self.edges {
            writeln!(f, "{module} -> {:?}", targets.keys().collect::<Vec<_>>())?;
        }
        Ok(())
    }
}

/// The places where a module under `under` (`domains::x`) reaches inside
/// another (`domains::y`): it names one of `y`'s submodules
/// (`cos::providers::…`, `crate::domains::mind::store::…`) instead of what
/// `y`'s root offers (`cos::Providers`). Read as text from the code of each
/// module (tests left out), with `y` written alone or as
/// `crate::<under>::y`: each hit is `file:line: path`.
pub fn reaches_inside(src: &Path, under: &str) -> Vec<String> {
    let root = src.join(under);
    let mut children: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in fs::read_dir(&root).expect("a readable directory") {
        let path = entry.expect("an entry").path();
        if !path.is_dir() {
            continue;
        }
        let name = path
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        let subs = fs::read_dir(&path)
            .expect("a readable directory")
            .map(|entry| entry.expect("an entry").path())
            .filter_map(|sub| {
                let stem = sub.file_stem()?.to_string_lossy().into_owned();
                (sub.is_dir() || stem != "mod").then_some(stem)
            })
            .collect();
        children.insert(name, subs);
    }
    let mut hits = Vec::new();
    for path in rust_files(&root) {
        let relative = path.strip_prefix(src).expect("under src");
        if relative.file_name().is_some_and(|name| name == "tests.rs") {
            continue;
        }
        let own = relative
            .iter()
            .nth(1)
            .map(|own| own.to_string_lossy().trim_end_matches(".rs").to_owned());
        let text = fs::read_to_string(&path).expect("a readable source");
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (number, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for (domain, subs) in &children {
                if own.as_deref() == Some(domain.as_str()) {
                    continue;
                }
                for (at, _) in line.match_indices(&format!("{domain}::")) {
                    let before = &line[..at];
                    let alone =
                        !before.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':');
                    if !alone && !before.ends_with(&format!("{under}::")) {
                        continue;
                    }
                    let rest = &line[at + domain.len() + 2..];
                    let next: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    let grouped = rest.strip_prefix('{').map(|group| {
                        group
                            .split('}')
                            .next()
                            .unwrap_or_default()
                            .split(',')
                            .any(|item| {
                                subs.contains(item.trim().split("::").next().unwrap_or_default())
                            })
                    });
                    if subs.contains(&next) || grouped == Some(true) {
                        hits.push(format!(
                            "{}:{}: {}",
                            relative.display(),
                            number + 1,
                            line.trim()
                        ));
                    }
                }
            }
        }
    }
    hits
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(path) = pending.pop() {
        if path.is_dir() {
            for entry in fs::read_dir(&path).expect("a readable directory") {
                pending.push(entry.expect("an entry").path());
            }
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// `http/docs.rs` → `http` at depth 1; `domains/mind/turn/ops.rs` →
/// `domains::mind` at depth 2; the crate root (`lib.rs`, `main.rs`) is no
/// module.
fn module_of(relative: &Path, depth: usize) -> Option<String> {
    let mut segments: Vec<String> = relative
        .iter()
        .map(|segment| segment.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if segments.last().is_some_and(|last| last == "mod") {
        segments.pop();
    }
    if segments.len() == 1 && (segments[0] == "lib" || segments[0] == "main") {
        return None;
    }
    segments.truncate(depth);
    Some(segments.join("::"))
}

/// The paths after each `crate::` on a line: `crate::a::b` and each item of
/// `crate::{a, b::c}` (one level of braces).
fn crate_paths(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in line.match_indices("crate::") {
        let before = &line[..at];
        if before.ends_with('$') || before.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &line[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = group.split('}').next().unwrap_or_default();
            out.extend(
                inner
                    .split(',')
                    .map(|item| path_of(item.trim()))
                    .filter(|path| !path.is_empty()),
            );
        } else {
            out.push(path_of(rest));
        }
    }
    out
}

/// The leading `a::b::c` of `text`, up to the first character that is not
/// part of a path (a `{` group is cut there).
fn path_of(text: &str) -> String {
    let path: String = text
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
        .collect();
    path.trim_end_matches(':').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_read_from_uses_groups_and_expressions() {
        assert_eq!(crate_paths("use crate::store::Store;"), ["store::Store"]);
        assert_eq!(
            crate_paths("use crate::{app::App, http};"),
            ["app::App", "http"]
        );
        assert_eq!(
            crate_paths("let x = crate::jobs::run(); $crate::store_schema!"),
            ["jobs::run"]
        );
        assert!(crate_paths("use portos_crate::x;").is_empty());
        assert_eq!(
            module_of(Path::new("domains/mind/turn/ops.rs"), 2).as_deref(),
            Some("domains::mind")
        );
        assert_eq!(
            module_of(Path::new("http/mod.rs"), 1).as_deref(),
            Some("http")
        );
        assert_eq!(module_of(Path::new("lib.rs"), 1), None);
    }
}
