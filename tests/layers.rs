//! The layers depend one way (ARCHITECTURE.md): each module of `src/` may name only the
//! modules below it. Read from the source, comments and test modules left out.

use std::path::{Path, PathBuf};

/// (layer, the layers it may use)
const ALLOWED: &[(&str, &[&str])] = &[
    ("core", &[]),
    ("types", &["core"]),
    ("ops", &["core", "types"]),
    ("regs", &["core", "types", "ops"]),
    ("builder", &["core", "types", "ops", "regs"]),
    ("intrinsics", &["core", "types", "ops", "regs", "builder", "prelude"]),
    ("kernels", &["core", "types", "ops", "regs", "builder", "intrinsics", "prelude"]),
    ("ptxas", &["core", "types", "ops", "regs", "builder"]),
    ("runtime", &["core", "types", "ops", "regs", "builder", "intrinsics", "kernels", "prelude"]),
];
const LAYERS: &[&str] = &["core", "types", "ops", "regs", "builder", "intrinsics", "kernels", "ptxas", "runtime", "prelude"];

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
