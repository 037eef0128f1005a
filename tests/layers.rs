//! The layers depend one way (ARCHITECTURE.md): each module of `src/` may name only the
//! modules below it. Read from the source, comments and test modules left out.

use std::path::{Path, PathBuf};

/// (layer, the layers it may use)
const ALLOWED: &[(&str, &[&str])] = &[
    ("core", &[]),
    ("descriptors", &[]),
    ("types", &["core"]),
    ("ops", &["core", "types"]),
    ("regs", &["core", "types", "ops"]),
    ("builder", &["core", "types", "ops", "regs", "descriptors"]),
    ("intrinsics", &["core", "types", "ops", "regs", "builder", "descriptors", "prelude"]),
    ("kernels", &["core", "types", "ops", "regs", "builder", "intrinsics", "descriptors", "prelude"]),
    ("ptxas", &["core", "types", "ops", "regs", "builder"]),
    ("trace", &["intrinsics"]),
    ("import", &["core", "ops", "regs"]),
    ("runtime", &["core", "types", "ops", "regs", "builder", "intrinsics", "kernels", "descriptors", "trace", "prelude"]),
    ("reference", &[]),
];
const LAYERS: &[&str] = &[
    "core",
    "descriptors",
    "types",
    "ops",
    "regs",
    "builder",
    "intrinsics",
    "kernels",
    "ptxas",
    "trace",
    "import",
    "runtime",
    "reference",
    "prelude",
];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.expect("directory entry").path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn layers_depend_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let src = if src.is_dir() { src } else { PathBuf::from("src") };
    let mut bad = vec![];
    let mut checked = 0;
    for (layer, allowed) in ALLOWED {
        let mut fs = vec![];
        let dir = src.join(layer);
        if dir.is_dir() {
            files(&dir, &mut fs);
        } else {
            fs.push(src.join(format!("{layer}.rs")));
        }
        for f in fs {
            let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for (n, line) in code.lines().enumerate() {
                let l = line.trim_start();
                if l.starts_with("//") {
                    continue;
                }
                for other in LAYERS {
                    let uses = l.contains(&format!("crate::{other}::"))
                        || l.contains(&format!("crate::{other};"))
                        || l.contains(&format!("crate::{other}}}"));
                    if uses && other != layer && !allowed.contains(other) {
                        bad.push(format!("{}:{}: {layer} uses {other}: {}", f.display(), n + 1, l));
                    }
                }
            }
            checked += 1;
        }
    }
    println!("{checked} files checked");
    assert!(bad.is_empty(), "dependencies against the layering:\n{}", bad.join("\n"));
}

/// Inside a layer, the files depend one way too: no file reaches itself through the
/// `super::x` uses of its siblings (the module root, which re-exports them, and test files
/// left out).
#[test]
fn files_of_a_layer_depend_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut cycles = vec![];
    for (layer, _) in ALLOWED {
        let dir = src.join(layer);
        if !dir.is_dir() {
            continue;
        }
        let mut fs = vec![];
        files(&dir, &mut fs);
        let stem = |p: &Path| p.file_stem().unwrap().to_string_lossy().into_owned();
        let names: Vec<String> =
            fs.iter().filter(|p| p.parent() == Some(&dir)).map(|p| stem(p)).filter(|n| n != "mod" && !n.ends_with("_tests")).collect();
        let mut uses: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for n in &names {
            let text = std::fs::read_to_string(dir.join(format!("{n}.rs"))).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            let mut to = vec![];
            for line in code.lines().map(str::trim_start).filter(|l| !l.starts_with("//")) {
                for other in &names {
                    let hit = [format!("super::{other}::"), format!("super::{other}}}"), format!("crate::{layer}::{other}::")];
                    if other != n && hit.iter().any(|h| line.contains(h.as_str())) && !to.contains(other) {
                        to.push(other.clone());
                    }
                }
            }
            uses.insert(n.clone(), to);
        }
        // A file that reaches itself.
        for start in &names {
            let mut stack = vec![(start.clone(), vec![start.clone()])];
            let mut seen = std::collections::HashSet::new();
            while let Some((at, path)) = stack.pop() {
                for next in &uses[&at] {
                    if next == start {
                        cycles.push(format!("{layer}: {} -> {start}", path.join(" -> ")));
                    } else if seen.insert(next.clone()) {
                        let mut p = path.clone();
                        p.push(next.clone());
                        stack.push((next.clone(), p));
                    }
                }
            }
        }
    }
    assert!(cycles.is_empty(), "files that depend on each other:\n{}", cycles.join("\n"));
}

/// `Kernel`'s own methods are the body's structure, defined by the core and the builder (and
/// `reg` beside `Reg`); an instruction sequence is a method of an extension trait of its
/// intrinsics module (ARCHITECTURE.md), so no other layer adds a public inherent method.
#[test]
fn kernel_methods_outside_the_builder_are_trait_methods() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut fs = vec![];
    files(&src, &mut fs);
    let mut bad = vec![];
    for f in fs {
        let rel = f.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        if rel.starts_with("core/") || rel.starts_with("builder/") || rel == "types/reg.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let mut inside = false;
        for (n, line) in text.lines().enumerate() {
            if line.starts_with("impl Kernel {") {
                inside = true;
            } else if line == "}" {
                inside = false;
            } else if inside && line.starts_with("    pub fn ") {
                bad.push(format!("src/{rel}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(bad.is_empty(), "public inherent Kernel methods outside the builder (make them a trait's):\n{}", bad.join("\n"));
}

/// The test binaries on `tests/common/harness.rs` (`harness = false`) run only the tests
/// they list: a `#[test]` there would compile to nothing and never run.
#[test]
fn harness_binaries_have_no_libtest_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let mut checked = 0;
    let mut bad = vec![];
    for block in manifest.split("[[test]]").skip(1) {
        let block = block.split("\n[").next().unwrap_or(block);
        if !block.contains("harness = false") {
            continue;
        }
        let field = |key: &str| {
            block
                .lines()
                .find_map(|l| l.trim().strip_prefix(key).map(|v| v.trim().trim_start_matches('=').trim().trim_matches('"').to_string()))
        };
        let name = field("name").expect("a [[test]] has a name");
        let path = field("path").unwrap_or(format!("tests/{name}.rs"));
        let path = root.join(path);
        let mut fs = vec![];
        if path.ends_with("main.rs") {
            files(path.parent().unwrap(), &mut fs);
        } else {
            fs.push(path);
        }
        for f in fs {
            let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            checked += 1;
            if text.lines().any(|l| l.trim() == "#[test]") {
                bad.push(f.display().to_string());
            }
        }
    }
    assert!(checked >= 20, "only {checked} files of harness binaries found");
    assert!(bad.is_empty(), "#[test] in binaries with harness = false (list the test in TESTS instead): {bad:?}");
}
