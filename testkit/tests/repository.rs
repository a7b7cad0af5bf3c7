//! The repository as its prose describes it: every path CONTRIBUTING.md
//! and the module layout comments name exists, no crate's modules import
//! each other in a circle, and md5x::multi's rooms import one way.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The repository's root: this package's parent.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The words between backticks in `text` that look like repository paths:
/// with a `/` or ending in `.rs`, `.sh`, `.py`, `.md` or `.toml`, no
/// spaces, globs or placeholders.
fn named_paths(text: &str) -> Vec<String> {
    let exts = [".rs", ".sh", ".py", ".md", ".toml"];
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| !w.contains([' ', '*', '<', '{', '$', ':', '(', '=', '|']) && !w.is_empty())
        .filter(|w| w.contains('/') || exts.iter().any(|e| w.ends_with(e)))
        .filter(|w| !w.starts_with("/proc") && !w.starts_with("/dev") && !w.starts_with("/sys"))
        .filter(|w| !w.starts_with("http") && !w.starts_with('-') && !w.starts_with('~'))
        .map(|w| w.trim_end_matches('/').to_string())
        .collect()
}

/// Whether `name` exists under one of `bases` (a bare file name: anywhere
/// below them).
fn exists_under(bases: &[PathBuf], name: &str) -> bool {
    if !name.contains('/') {
        return bases.iter().any(|b| {
            b.join(name).exists()
                || b.is_dir()
                    && walk(b)
                        .iter()
                        .any(|p| p.file_name().is_some_and(|f| f == name))
        });
    }
    bases.iter().any(|b| b.join(name).exists())
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name == "target" || name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            out.extend(walk(&path));
        }
        out.push(path);
    }
    out
}

#[test]
fn contributing_names_paths_that_exist() {
    let root = repo();
    let text = std::fs::read_to_string(root.join("CONTRIBUTING.md")).unwrap();
    let paths = named_paths(&text);
    assert!(paths.len() > 20, "{} paths found", paths.len());
    // Bare names are looked up from the folders the prose is about.
    let bases =
        ["", "md5x", "md5x/src", "md5x/src/multi", "md5sum", "python"].map(|b| root.join(b));
    // Not this repository's: GNU coreutils' test files, and folders the
    // scripts make under target/.
    let elsewhere = |p: &str| {
        p.starts_with("target/")
            || p.starts_with("queue/")
            || [
                "tests/misc/md5sum.pl",
                "md5sum-bsd.sh",
                "md5sum-parallel.sh",
                "src/md5sum",
            ]
            .contains(&p)
    };
    let missing: Vec<_> = paths
        .iter()
        .filter(|p| !elsewhere(p) && !exists_under(&bases, p))
        .collect();
    assert!(
        missing.is_empty(),
        "CONTRIBUTING.md names paths that do not exist: {missing:?}"
    );
}

/// Each module's layout comment (its `//!` lines) names files that exist:
/// beside it, in its folder, or from the package's or repository's root.
#[test]
fn layout_comments_name_paths_that_exist() {
    let root = repo();
    let (mut checked, mut missing) = (0, Vec::new());
    for package in ["md5x", "block", "md5sum", "testkit"] {
        let pkg = root.join(package);
        for file in rust_files(&pkg.join("src")) {
            let text = std::fs::read_to_string(&file).unwrap();
            let doc: String = text
                .lines()
                .filter_map(|l| l.trim_start().strip_prefix("//!"))
                .collect::<Vec<_>>()
                .join("\n");
            // Beside the file, in its own folder, or from any folder
            // above it up to the repository's root.
            let mut bases = vec![file.with_extension("")];
            bases.extend(
                file.ancestors()
                    .skip(1)
                    .take_while(|d| d.starts_with(&root))
                    .map(Path::to_path_buf),
            );
            for name in named_paths(&doc) {
                checked += 1;
                if !exists_under(&bases, &name) {
                    missing.push(format!(
                        "{}: `{name}`",
                        file.strip_prefix(&root).unwrap().display()
                    ));
                }
            }
        }
    }
    assert!(checked > 20, "{checked} paths checked");
    assert!(
        missing.is_empty(),
        "layout comments name paths that do not exist: {missing:#?}"
    );
}

/// The module a source file is, as a path from the crate root.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    match last.as_str() {
        "lib.rs" | "main.rs" | "mod.rs" => {}
        _ => parts.push(last.trim_end_matches(".rs").to_string()),
    }
    parts
}

/// The modules `line` names by path: `crate::a::b`, `super::a`, `self::a`,
/// each form of a `{...}` group, and a child module by its bare name.
fn named_modules(module: &[String], children: &BTreeSet<String>, line: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes: Vec<char> = line.chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < bytes.len() {
        if !ident(bytes[i]) || i > 0 && (ident(bytes[i - 1]) || bytes[i - 1] == ':') {
            i += 1;
            continue;
        }
        // A path: identifiers joined by `::`, maybe ending in a group.
        let mut segs = Vec::new();
        let mut j = i;
        loop {
            let start = j;
            while j < bytes.len() && ident(bytes[j]) {
                j += 1;
            }
            segs.push(bytes[start..j].iter().collect::<String>());
            if j + 2 < bytes.len() && bytes[j] == ':' && bytes[j + 1] == ':' && ident(bytes[j + 2])
            {
                j += 2;
            } else {
                break;
            }
        }
        let group =
            j + 2 < bytes.len() && bytes[j] == ':' && bytes[j + 1] == ':' && bytes[j + 2] == '{';
        let mut tails: Vec<Vec<String>> = vec![vec![]];
        if group {
            let end = line[line
                .char_indices()
                .nth(j + 3)
                .map_or(line.len(), |(b, _)| b)..]
                .find('}')
                .unwrap_or(0);
            let start = line
                .char_indices()
                .nth(j + 3)
                .map_or(line.len(), |(b, _)| b);
            tails = line[start..start + end]
                .split(',')
                .map(|t| t.trim().split("::").map(str::to_string).collect())
                .collect();
        }
        let mut base: Vec<String> = match segs[0].as_str() {
            "crate" => vec![],
            "self" => module.to_vec(),
            "super" => module[..module.len().saturating_sub(1)].to_vec(),
            s if children.contains(s) && segs.len() > 1 || children.contains(s) && group => {
                let mut m = module.to_vec();
                m.push(s.to_string());
                m
            }
            _ => {
                i = j;
                continue;
            }
        };
        let mut rest = &segs[1..];
        while rest.first().is_some_and(|s| s == "super") {
            base.pop();
            rest = &rest[1..];
        }
        base.extend(rest.iter().cloned());
        for tail in tails {
            let mut path = base.clone();
            path.extend(tail.into_iter().filter(|t| t != "self" && !t.is_empty()));
            out.push(path);
        }
        i = j;
    }
    out
}

/// Every circle of imports between a crate's files, a module's use of its
/// own ancestors (the modules that declare and re-export it) aside.
fn circles(src: &Path) -> Vec<Vec<String>> {
    let files = rust_files(src);
    let modules: BTreeMap<Vec<String>, &PathBuf> =
        files.iter().map(|f| (module_of(src, f), f)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, file) in &modules {
        let children: BTreeSet<String> = modules
            .keys()
            .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
            .map(|m| m.last().unwrap().clone())
            .collect();
        let text = std::fs::read_to_string(file).unwrap();
        let from = module.join("::");
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for mut path in named_modules(module, &children, line) {
                while !path.is_empty() && !modules.contains_key(&path) {
                    path.pop();
                }
                if path.is_empty() || module.starts_with(&path) {
                    continue; // the crate root, itself, or an ancestor
                }
                edges
                    .entry(from.clone())
                    .or_default()
                    .insert(path.join("::"));
            }
        }
    }
    // Depth-first search for a path from a module's target back to it.
    let mut found = Vec::new();
    for (from, tos) in &edges {
        for to in tos {
            let mut stack = vec![vec![to.clone()]];
            let mut seen = BTreeSet::new();
            while let Some(path) = stack.pop() {
                let at = path.last().unwrap();
                if at == from {
                    let mut circle = vec![from.clone()];
                    circle.extend(path);
                    found.push(circle);
                    break;
                }
                if !seen.insert(at.clone()) {
                    continue;
                }
                for next in edges.get(at).into_iter().flatten() {
                    let mut p = path.clone();
                    p.push(next.clone());
                    stack.push(p);
                }
            }
        }
    }
    found
}

#[test]
fn no_crate_imports_in_a_circle() {
    let root = repo();
    for src in [
        "md5x/src",
        "block/src",
        "md5sum/src",
        "testkit/src",
        "python/src",
        "arrow-import/src",
        "duckdb/src",
    ] {
        let dir = root.join(src);
        if dir.is_dir() {
            let found = circles(&dir);
            assert!(
                found.is_empty(),
                "{src}: modules import each other in a circle: {found:?}"
            );
        }
    }
}

#[test]
fn the_circle_finder_finds_circles() {
    let dir = std::env::temp_dir().join(format!("md5x-circles-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a;\nmod b;\n").unwrap();
    std::fs::write(dir.join("a/mod.rs"), "mod x;\nmod y;\n").unwrap();
    std::fs::write(dir.join("a/x.rs"), "use super::y::Y;\n").unwrap();
    std::fs::write(dir.join("a/y.rs"), "use crate::b::{B, C};\n").unwrap();
    std::fs::write(dir.join("b.rs"), "fn f() { crate::a::x::g() }\n").unwrap();
    let found = circles(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        found
            .iter()
            .any(|c| c.contains(&"a::x".to_string()) && c.contains(&"b".to_string())),
        "{found:?}"
    );
}

/// The rooms of md5x's `src/multi` import one way, as its `mod.rs` lays them out:
/// `kernel/` nothing from `scheduler/`, `forms/`, `lanes.rs` or the
/// hooks; `scheduler/` nothing from `forms/` or `lanes.rs`; the shared
/// rooms (`lane_state.rs`, `past_cache.rs`, `platform.rs`, `tuning.rs`) nothing
/// from any room above them.
#[test]
fn multi_imports_go_one_way() {
    let root = repo().join("md5x/src/multi");
    let above = |room: &str| -> &[&str] {
        match room {
            "kernel" => &["scheduler", "forms", "lanes", "kernel_choice"],
            "scheduler" => &["forms", "lanes", "kernel_choice"],
            _ => &["kernel", "scheduler", "forms", "lanes", "kernel_choice"],
        }
    };
    let mut files: Vec<(String, std::path::PathBuf)> = Vec::new();
    for room in ["kernel", "scheduler"] {
        for entry in std::fs::read_dir(root.join(room)).unwrap() {
            files.push((room.into(), entry.unwrap().path()));
        }
    }
    for file in ["lane_state.rs", "past_cache.rs", "platform.rs", "tuning.rs"] {
        files.push(("shared".into(), root.join(file)));
    }
    assert!(files.len() > 30, "src/multi: {} files", files.len());
    for (room, path) in files {
        let text = std::fs::read_to_string(&path).unwrap();
        // `super::` names `multi`'s rooms from a room's `mod.rs` or a
        // shared file; from the others, the room's own files.
        let own_super = room != "shared" && !path.ends_with("mod.rs");
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for name in above(&room) {
                let leaks = line.contains(&format!("multi::{name}"))
                    || !own_super && line.contains(&format!("super::{name}"));
                assert!(!leaks, "{}: imports {name}: {line}", path.display());
            }
        }
    }
}
