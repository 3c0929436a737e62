//! The host's modules depend downwards only. Each top-level module belongs to
//! a layer; a module may name (`crate::…`, or `super::…` reaching past its
//! own top-level module) only modules of lower layers. A cycle between
//! modules, or a lower module reaching up, fails this test with the file and
//! the path that does it.

use petgraph::algo::toposort;
use petgraph::graphmap::DiGraphMap;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// Top to bottom; modules of one layer must not name each other either.
const LAYERS: &[&[&str]] = &[
    &["cli"],
    // The throughput bench runs the pipeline as `txlab run` does.
    &["bench", "semantics"],
    &["run"],
    &["setup"],
    &["config", "target"],
    &["executor"],
    &["driver"],
    &["io"],
    &["phases"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The module path of a source file: `run/worker.rs` is `run::worker`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// Every `crate::` and `super::` path in a file, resolved to the top-level
/// module it names.
struct Uses<'a> {
    here: &'a [String],
    found: Vec<(String, String)>,
}

impl Uses<'_> {
    fn resolve(&mut self, segments: &[String]) {
        let mut at: Vec<String> = self.here.to_vec();
        let mut rest = segments;
        match rest.first().map(String::as_str) {
            Some("crate") => {
                at.clear();
                rest = &rest[1..];
            }
            Some("super") => {
                while rest.first().map(String::as_str) == Some("super") {
                    at.pop();
                    rest = &rest[1..];
                }
            }
            _ => return,
        }
        let top = at.first().or(rest.first());
        if let Some(top) = top {
            self.found.push((top.clone(), segments.join("::")));
        }
    }
}

impl<'ast> Visit<'ast> for Uses<'_> {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.resolve(&segments);
        syn::visit::visit_path(self, path);
    }

    fn visit_use_tree(&mut self, tree: &'ast syn::UseTree) {
        fn walk(prefix: &mut Vec<String>, tree: &syn::UseTree, out: &mut Vec<Vec<String>>) {
            match tree {
                syn::UseTree::Path(p) => {
                    prefix.push(p.ident.to_string());
                    walk(prefix, &p.tree, out);
                    prefix.pop();
                }
                syn::UseTree::Name(n) => {
                    let mut v = prefix.clone();
                    v.push(n.ident.to_string());
                    out.push(v);
                }
                syn::UseTree::Rename(r) => {
                    let mut v = prefix.clone();
                    v.push(r.ident.to_string());
                    out.push(v);
                }
                syn::UseTree::Glob(_) => out.push(prefix.clone()),
                syn::UseTree::Group(g) => {
                    for t in &g.items {
                        walk(prefix, t, out);
                    }
                }
            }
        }
        let mut paths = Vec::new();
        walk(&mut Vec::new(), tree, &mut paths);
        for p in paths {
            self.resolve(&p);
        }
    }
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// (from module, to module) → one example path, over every file of the host.
fn dependencies() -> BTreeMap<(String, String), String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut deps = BTreeMap::new();
    for file in files {
        let here = module_path(&src, &file);
        let Some(top) = here.first().cloned() else {
            continue; // lib.rs only declares the modules
        };
        if top == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("readable");
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut uses = Uses {
            here: &here,
            found: Vec::new(),
        };
        uses.visit_file(&ast);
        for (target, path) in uses.found {
            if target != top {
                deps.entry((top.clone(), target)).or_insert(format!(
                    "{}: {path}",
                    file.strip_prefix(&src).unwrap().display()
                ));
            }
        }
    }
    deps
}

#[test]
fn every_module_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let ast = syn::parse_file(&lib).unwrap();
    for item in ast.items {
        if let syn::Item::Mod(m) = item {
            let name = m.ident.to_string();
            assert!(
                layer_of(&name).is_some(),
                "module `{name}` is in no layer of tests/layers.rs: place it"
            );
        }
    }
}

#[test]
fn modules_depend_downwards_only() {
    let deps = dependencies();
    let mut wrong = Vec::new();
    for ((from, to), example) in &deps {
        match (layer_of(from), layer_of(to)) {
            (Some(a), Some(b)) if a < b => {}
            _ => wrong.push(format!("`{from}` names `{to}` ({example})")),
        }
    }
    assert!(
        wrong.is_empty(),
        "modules that name their own layer or a higher one:\n  {}",
        wrong.join("\n  ")
    );
}

#[test]
fn there_are_no_cycles_between_modules() {
    let deps = dependencies();
    let mut graph = DiGraphMap::<&str, ()>::new();
    for (from, to) in deps.keys() {
        graph.add_edge(from.as_str(), to.as_str(), ());
    }
    if let Err(cycle) = toposort(&graph, None) {
        panic!(
            "the host's modules form a cycle through `{}`: {:?}",
            cycle.node_id(),
            deps.keys().collect::<Vec<_>>()
        );
    }
}

#[test]
fn the_checker_sees_paths_that_reach_up() {
    // A lower module naming a higher one, written the three ways code can.
    let here = vec!["driver".to_string(), "mysql".to_string()];
    let ast = syn::parse_file(
        "use crate::run::CaseRunner; use super::super::setup::Resolved; fn f() { crate::cli::main(); }",
    )
    .unwrap();
    let mut uses = Uses {
        here: &here,
        found: Vec::new(),
    };
    uses.visit_file(&ast);
    let tops: Vec<&str> = uses.found.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(tops, ["run", "setup", "cli"]);
}
