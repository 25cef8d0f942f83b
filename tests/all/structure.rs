//! The house's shape, read from `host/src`: which module names which, by
//! the `crate::` and `super::` paths in its code (its tests left out).
//! No two modules name each other through any chain (a circle), and the
//! leaf modules name no other module of the crate.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Modules that must stay leaves: what the rest of the crate stands on.
const LEAVES: &[&str] = &["config.rs", "artifact.rs", "sched.rs"];

/// Circles known and not yet undone, each with why; the list only
/// shrinks (a circle not here fails, and so does one here that is gone).
const KNOWN_CIRCLES: &[(&[&str], &str)] = &[];

/// Every module of the library (not the `ssr` binary's `main.rs` and
/// `cli/`), by its file under `host/src`, with its code.
fn modules() -> BTreeMap<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                if rel != "main.rs" && !rel.starts_with("cli/") {
                    out.insert(rel, std::fs::read_to_string(&path).unwrap());
                }
            }
        }
    }
    out
}

/// A file's module path: `engine/v8/mod.rs` is `["engine", "v8"]`.
fn module_path(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// How a library module's unit tests begin (`host/src/unit.rs`).
const UNIT_TESTS: &str = "#[cfg(feature = \"test-hooks\")]\npub(crate) mod tests {";

/// `code` without comments, string contents and its `mod tests { ... }`.
fn code_of(text: &str) -> String {
    let text = match text.find(UNIT_TESTS) {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(at) => &l[..at],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a module's code names: each `crate::a::b` or `super::a`,
/// with `{x, y::z}` groups expanded, relative to the crate's root.
fn named_paths(file: &str, code: &str) -> Vec<Vec<String>> {
    let me = module_path(file);
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for start in ["crate::", "super::"] {
        for (at, _) in code.match_indices(start) {
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            let mut base: Vec<String> = if start == "crate::" {
                Vec::new()
            } else {
                me[..me.len().saturating_sub(1)].to_vec()
            };
            let mut rest = &code[at + start.len()..];
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            expand(&base, rest, &mut out);
        }
    }
    out
}

/// Adds the paths `rest` names after `base`: `a::b`, or a `{...}` group.
fn expand(base: &[String], rest: &str, out: &mut Vec<Vec<String>>) {
    let mut path = base.to_vec();
    let mut rest = rest;
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let end = group
                .char_indices()
                .find(|&(_, c)| {
                    depth += match c {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .map_or(group.len(), |(i, _)| i);
            let inner = &group[..end];
            let mut depth = 0;
            let mut from = 0;
            for (i, c) in inner.char_indices().chain([(inner.len(), ',')]) {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(&path, inner[from..i].trim(), out);
                        from = i + 1;
                    }
                    _ => {}
                }
            }
            return;
        }
        let word: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if word.is_empty() {
            break;
        }
        path.push(word.clone());
        rest = &rest[word.len()..];
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => break,
        }
    }
    out.push(path);
}

/// Which modules each module names.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules();
    let by_path: BTreeMap<Vec<String>, String> = modules
        .keys()
        .map(|f| (module_path(f), f.clone()))
        .collect();
    let resolve = |path: &[String]| {
        (1..=path.len())
            .rev()
            .find_map(|n| by_path.get(&path[..n]).cloned())
    };
    modules
        .iter()
        .map(|(file, text)| {
            let named = named_paths(file, &code_of(text))
                .iter()
                .filter_map(|p| resolve(p))
                .filter(|m| m != file)
                .collect();
            (file.clone(), named)
        })
        .collect()
}

/// The strongly connected parts of more than one module (Tarjan's).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        for w in s.graph.get(v).into_iter().flatten() {
            if !s.index.contains_key(w.as_str()) {
                visit(s, w);
                let lw = s.low[w.as_str()];
                s.low.entry(v).and_modify(|l| *l = (*l).min(lw));
            } else if s.stack.contains(&w.as_str()) {
                let iw = s.index[w.as_str()];
                s.low.entry(v).and_modify(|l| *l = (*l).min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let at = s.stack.iter().rposition(|&x| x == v).unwrap();
            let mut part: Vec<String> = s.stack.drain(at..).map(String::from).collect();
            if part.len() > 1 {
                part.sort();
                s.out.push(part);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

#[test]
fn no_module_names_itself_through_others() {
    let graph = graph();
    assert!(
        graph.len() > 50,
        "found {} modules: is host/src there?",
        graph.len()
    );
    let found = circles(&graph);
    let known: Vec<Vec<String>> = KNOWN_CIRCLES
        .iter()
        .map(|(c, _)| c.iter().map(|m| m.to_string()).collect())
        .collect();
    let shown = |c: &Vec<String>| {
        c.iter()
            .map(|m| {
                format!(
                    "{m} -> {:?}",
                    graph[m]
                        .iter()
                        .filter(|n| c.contains(n))
                        .collect::<Vec<_>>()
                )
            })
            .collect::<Vec<_>>()
            .join("\n  ")
    };
    for c in &found {
        assert!(known.contains(c), "an import circle:\n  {}", shown(c));
    }
    for c in &known {
        assert!(
            found.contains(c),
            "{c:?} is no circle any more: take it off KNOWN_CIRCLES"
        );
    }
}

#[test]
fn leaf_modules_name_no_other_module() {
    let graph = graph();
    for leaf in LEAVES {
        let named = graph
            .get(*leaf)
            .unwrap_or_else(|| panic!("{leaf} is not a module"));
        assert!(
            named.is_empty(),
            "{leaf} names {named:?}: a leaf names no other module of the crate"
        );
    }
}

#[test]
fn a_circle_and_a_leaf_that_names_are_seen() {
    let graph = BTreeMap::from([
        ("a.rs".to_string(), BTreeSet::from(["b/mod.rs".to_string()])),
        (
            "b/mod.rs".to_string(),
            BTreeSet::from(["b/c.rs".to_string()]),
        ),
        ("b/c.rs".to_string(), BTreeSet::from(["a.rs".to_string()])),
        ("d.rs".to_string(), BTreeSet::new()),
    ]);
    assert_eq!(circles(&graph), [["a.rs", "b/c.rs", "b/mod.rs"]]);
    let named = named_paths(
        "b/c.rs",
        "use super::super::a::{x, y};\nuse crate::{d, b::{c, e}};",
    );
    let named: BTreeSet<Vec<String>> = named.into_iter().collect();
    let p = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    assert!(
        named.contains(&p("a::x")) && named.contains(&p("d")) && named.contains(&p("b::c")),
        "{named:?}"
    );
}

/// The library is not built as its own test harness (`[lib] test = false`):
/// a `#[test]` in it would never run, so its unit tests are entered with
/// `crate::unit_tests!` (`host/src/unit.rs`) and none is marked otherwise.
#[test]
fn the_librarys_unit_tests_are_all_entered_where_they_run() {
    for (file, text) in modules() {
        let code: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect();
        for mark in ["#[test]", "#[tokio::test]", "cfg(test)"] {
            assert!(
                !code.iter().any(|l| l.contains(mark)),
                "host/src/{file} has `{mark}`, which never runs in the library: \
                 put the test in its `{UNIT_TESTS} ... }}` and enter it with \
                 `crate::unit_tests!` (host/src/unit.rs)"
            );
        }
        if text.contains(UNIT_TESTS) {
            assert!(
                text.contains("crate::unit_tests!("),
                "host/src/{file} has unit tests and enters none"
            );
        }
    }
}
