//! No import circle among md5sum's modules: each file's `use` paths and
//! `crate::`/`super::` paths, resolved to the files that define them, form
//! a graph without a cycle, so that each module can be read with only what
//! it imports in mind (no module imports back from `main.rs`, none from a
//! sibling that imports it).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module's path from its crate's root (`[]` for `main.rs` and
/// `lib.rs`, told apart by `root`).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Module {
    root: &'static str,
    path: Vec<String>,
}

fn name(m: &Module) -> String {
    if m.path.is_empty() {
        m.root.to_string()
    } else {
        m.path.join("/")
    }
}

/// Every `.rs` file under `dir`, with its module path.
fn files(dir: &Path, prefix: &[String], out: &mut Vec<(Vec<String>, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        let mut path = prefix.to_vec();
        if p.is_dir() {
            path.push(stem);
            files(&p, &path, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            if stem != "mod" {
                path.push(stem.clone());
            }
            let text = std::fs::read_to_string(&p).unwrap();
            // `main` and `lib` are roots: their path is empty.
            if prefix.is_empty() && (stem == "main" || stem == "lib") {
                out.push((vec![format!("<{stem}>")], text));
            } else {
                out.push((path, text));
            }
        }
    }
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e` (no blanks).
fn flatten(s: &str) -> Vec<String> {
    let Some(open) = s.find('{') else {
        return vec![s.to_string()];
    };
    let close = s.rfind('}').unwrap();
    let (prefix, inner) = (&s[..open], &s[open + 1..close]);
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(|p| flatten(p).into_iter().map(move |q| format!("{prefix}{q}")))
        .collect()
}

/// The words of a `::` path that starts at byte `at` of `text`.
fn path_at(text: &str, at: usize) -> Vec<String> {
    let end = text[at..]
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .map_or(text.len(), |e| at + e);
    text[at..end]
        .split("::")
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Where the first inline module (`mod name {`) of `text` starts.
fn first_inline_module(text: &str) -> usize {
    for (at, _) in text.match_indices("mod ") {
        let rest = &text[at + 4..];
        let ident = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(0);
        if ident > 0 && rest[ident..].trim_start().starts_with('{') {
            return at;
        }
    }
    text.len()
}

#[test]
fn no_import_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    files(&src, &[], &mut found);
    // The modules `lib.rs` declares belong to the library crate.
    let lib_text = &found.iter().find(|f| f.0 == ["<lib>"]).unwrap().1;
    let in_lib = |first: &str| lib_text.contains(&format!("pub mod {first};"));
    let module = |path: &[String]| -> Module {
        if path.first().is_some_and(|p| p.starts_with('<')) {
            let root = if path[0] == "<lib>" {
                "lib.rs"
            } else {
                "main.rs"
            };
            return Module { root, path: vec![] };
        }
        let root = if path.first().is_some_and(|f| in_lib(f)) {
            "lib.rs"
        } else {
            "main.rs"
        };
        Module {
            root,
            path: path.to_vec(),
        }
    };
    let modules: BTreeSet<Module> = found.iter().map(|f| module(&f.0)).collect();
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (path, text) in &found {
        let me = module(path);
        let text: String = text
            .lines()
            .map(|l| l.split("//").next().unwrap())
            .collect::<Vec<_>>()
            .join("\n");
        // Inline modules (tests) come last in a file: `super` in them is
        // the file's own module.
        let inline = first_inline_module(&text);
        let mut paths: Vec<(usize, Vec<String>)> = Vec::new();
        for (at, _) in text.match_indices("use ") {
            if at > 0 && text.as_bytes()[at - 1].is_ascii_alphanumeric() {
                continue;
            }
            let end = text[at..].find(';').map_or(text.len(), |e| at + e);
            let stmt: String = text[at + 4..end]
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            for p in flatten(&stmt) {
                paths.push((
                    at,
                    p.split("::")
                        .map(|w| w.split(" as ").next().unwrap().to_string())
                        .collect(),
                ));
            }
        }
        for word in ["crate::", "super::"] {
            for (at, _) in text.match_indices(word) {
                // `crate::{a, b}` is a `use`, flattened above.
                let words = path_at(&text, at);
                if words.len() > 1 {
                    paths.push((at, words));
                }
            }
        }
        // `child::item` where this file declares `mod child;`.
        for line in text.lines() {
            let l = line.trim_start().trim_start_matches("pub ");
            if let Some(child) = l.strip_prefix("mod ").and_then(|c| c.strip_suffix(';')) {
                for (at, _) in text.match_indices(&format!("{child}::")) {
                    let before = text[..at].chars().next_back();
                    if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                        continue;
                    }
                    let mut p = vec!["crate".to_string()];
                    p.extend(me.path.iter().cloned());
                    p.push(child.to_string());
                    paths.push((at, p));
                }
            }
        }
        for (at, words) in paths {
            let (mut base, mut rest): (Vec<String>, &[String]) =
                match words.first().map(String::as_str) {
                    Some("crate") => (vec![], &words[1..]),
                    Some("super") if at > inline => (me.path.clone(), &words[1..]),
                    Some("super") => (
                        me.path[..me.path.len().saturating_sub(1)].to_vec(),
                        &words[1..],
                    ),
                    _ => continue,
                };
            while rest.first().is_some_and(|w| w == "super") {
                base.pop();
                rest = &rest[1..];
            }
            base.extend(rest.iter().filter(|w| *w != "self" && *w != "*").cloned());
            // The longest prefix that is a module; else the crate's root.
            let target = (0..=base.len())
                .rev()
                .map(|n| Module {
                    root: me.root,
                    path: base[..n].to_vec(),
                })
                .find(|m| modules.contains(m))
                .unwrap();
            if target != me {
                edges.entry(me.clone()).or_default().insert(target);
            }
        }
    }
    for (from, to) in &edges {
        let to: Vec<String> = to.iter().map(name).collect();
        println!("{} -> {}", name(from), to.join(", "));
    }
    // Depth-first search for a path back to where it started.
    fn visit(
        m: &Module,
        edges: &BTreeMap<Module, BTreeSet<Module>>,
        state: &mut BTreeMap<Module, bool>,
        stack: &mut Vec<Module>,
    ) -> Option<Vec<Module>> {
        state.insert(m.clone(), false);
        stack.push(m.clone());
        for next in edges.get(m).into_iter().flatten() {
            match state.get(next) {
                Some(false) => {
                    let from = stack.iter().position(|s| s == next).unwrap();
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Some(true) => {}
                None => {
                    if let Some(c) = visit(next, edges, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(m.clone(), true);
        None
    }
    let mut state = BTreeMap::new();
    for m in &modules {
        if !state.contains_key(m) {
            let cycle = visit(m, &edges, &mut state, &mut Vec::new());
            let names: Vec<String> = cycle.iter().flatten().map(name).collect();
            assert!(cycle.is_none(), "import circle: {}", names.join(" -> "));
        }
    }
    // The graph is not empty: the parser found the imports.
    assert!(edges.len() > 10, "{edges:?}");
}
