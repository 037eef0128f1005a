//! The forms reference (`src/reference/`, the `ptxkit::reference` pages of the docs) is the
//! tables rendered: every chain of every family with its destination and operands in the
//! tables' notation, its oldest PTX ISA version and its targets (`src/core/isa.tsv`). The test
//! renders it again and fails where the files differ, so the reference cannot drift from the
//! tables; `PTXKIT_BLESS=1 cargo test --test forms_reference` rewrites them.
//!
//! A family's forms are one page, or one page per opcode where the family is too large for
//! one (a browser should open every page: none is over 2 MB).

use ptxkit::ops;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// A family whose page would be larger than this is split into a page per opcode.
const PAGE_BYTES: usize = 1_500_000;

#[derive(Clone)]
struct Line {
    /// The part after the opcode, which splits an opcode too large for one page.
    second: String,
    chain: String,
    sig: String,
    version: String,
    targets: String,
}

/// A chain part as a module name: `shared::cta` -> `shared_cta`, `1d` -> `n1d`, `const` ->
/// `const_`.
fn ident(part: &str) -> String {
    let s: String = part.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    let s = s.replace("__", "_");
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("n{s}")
    } else if ["as", "const", "fn", "in", "mod", "ref", "static", "type", "use", "where"].contains(&s.as_str()) {
        format!("{s}_")
    } else {
        s
    }
}

/// The lines of one section, in columns.
fn block(out: &mut String, lines: &[Line]) {
    let w0 = lines.iter().map(|l| l.chain.len()).max().unwrap_or(0);
    let w1 = lines.iter().map(|l| l.sig.len()).max().unwrap_or(0);
    out.push_str("```text\n");
    for l in lines {
        let _ = writeln!(out, "{:w0$}  {:w1$}  {:>4}  {}", l.chain, l.sig, l.version, l.targets);
    }
    out.push_str("```\n\n");
}

/// The lines of a family, by opcode in table order.
fn family_lines(fi: usize) -> Vec<(String, Vec<Line>)> {
    let t = ptxkit_tables::tables().expect("tables");
    let fam = &t.families[fi];
    let descs = ops::families()[fi].1;
    let mut by_op: Vec<(String, Vec<Line>)> = vec![];
    for (f, d) in fam.forms.iter().map(|&i| &t.forms[i]).zip(descs) {
        assert_eq!(f.chain, d.chain);
        let req = d.req().unwrap_or_else(|| panic!("{} has no ISA row", d.isa_key()));
        let variant = if f.variant == "plain" { String::new() } else { format!(" as {}", f.variant) };
        let select = if f.select { " (select)" } else { "" };
        let srcs: Vec<String> = f.srcs.iter().map(|s| s.to_string()).collect();
        let line = Line {
            second: f.parts.get(1).cloned().unwrap_or_default(),
            chain: format!("{}{variant}{select}", f.chain),
            sig: format!("{} = {}", f.dst, srcs.join(", ")),
            version: req.version.to_string(),
            targets: req.targets_spec(),
        };
        match by_op.iter_mut().find(|(o, _)| *o == f.parts[0]) {
            Some((_, v)) => v.push(line),
            None => by_op.push((f.parts[0].clone(), vec![line])),
        }
    }
    by_op
}

const HOW: &str = "Each line is a chain (with `as variant` for another operand layout of the same chain, and \
(select) where generic code can choose the form by its types, `ptxkit::ops::Select`), its destination and \
operands in the tables' notation (`ptxkit::ops`: `[u32@global]` is the address of a `.u32` in global \
memory, `imm(u32)` an immediate, `+{f32*64}` an accumulator read and written in place), the oldest PTX ISA \
version that has it, and the targets it assembles for (`sm_80+`: sm_80 and every newer target, the \
`a`/`f` ones included), both measured with ptxas (`src/core/isa.tsv`).";

/// Every file of the reference: its path under `src/reference/` and its text.
fn render() -> BTreeMap<String, String> {
    let t = ptxkit_tables::tables().expect("tables");
    let mut files = BTreeMap::new();
    let mut index = String::from(
        "//! The forms reference: every form of every family table, with its operands, oldest PTX ISA\n\
         //! version and targets, a page per family (and per opcode where a family is large).\n\
         //! Generated from the tables by `tests/forms_reference.rs` (`PTXKIT_BLESS=1 cargo test --test\n\
         //! forms_reference`), which fails when it drifts from them; the pages are in the documentation\n\
         //! only (`cfg(doc)`).\n//!\n//! | family | forms |\n//! |---|---|\n",
    );
    let mut mods = String::new();
    for (fi, fam) in t.families.iter().enumerate() {
        let _ = writeln!(index, "//! | [`{0}`](mod@{0}) | {1} |", fam.name, fam.forms.len());
        let by_op = family_lines(fi);
        let head = format!(
            "# The `{}` family\n\n{} forms, from `tables/forms/{}.forms` (its module: [`crate::ops::{}`]). {HOW}\n\n",
            fam.name,
            fam.forms.len(),
            fam.name,
            fam.name
        );
        let mut page = head.clone();
        for (op, lines) in &by_op {
            let _ = writeln!(page, "## `{op}` ({} forms)\n", lines.len());
            block(&mut page, lines);
        }
        if page.len() <= PAGE_BYTES {
            files.insert(format!("{}.md", fam.name), page);
            let _ = writeln!(mods, "pub mod {} {{\n    #![cfg_attr(doc, doc = include_str!(\"{}.md\"))]\n}}", fam.name, fam.name);
            continue;
        }
        // A page per opcode under the family's page, and per second part under an opcode's
        // page where one opcode is still too large.
        let mut sub = String::new();
        let mut family_page = head;
        family_page.push_str("Its opcodes, a page each:\n\n");
        for (op, lines) in &by_op {
            let name = format!("{}_{op}", fam.name);
            let _ = writeln!(family_page, "- [`{op}`](mod@{op}): {} forms", lines.len());
            let mut page = format!("# `{op}` (the `{}` family)\n\n{} forms. {HOW}\n\n", fam.name, lines.len());
            block(&mut page, lines);
            if page.len() <= PAGE_BYTES {
                files.insert(format!("{name}.md"), page);
                let _ = writeln!(sub, "    pub mod {op} {{\n        #![cfg_attr(doc, doc = include_str!(\"{name}.md\"))]\n    }}");
                continue;
            }
            let mut groups: Vec<(&str, Vec<&Line>)> = vec![];
            for l in lines {
                match groups.iter_mut().find(|(g, _)| *g == l.second) {
                    Some((_, v)) => v.push(l),
                    None => groups.push((&l.second, vec![l])),
                }
            }
            let mut op_page =
                format!("# `{op}` (the `{}` family)\n\n{} forms, a page for each part that follows `{op}`:\n\n", fam.name, lines.len());
            let mut leaves = String::new();
            for (g, ls) in &groups {
                let m = ident(g);
                let _ = writeln!(op_page, "- [`{op}.{g}`](mod@{m}): {} forms", ls.len());
                let mut page = format!("# `{op}.{g}` (the `{}` family)\n\n{} forms. {HOW}\n\n", fam.name, ls.len());
                let owned: Vec<Line> = ls.iter().map(|l| (*l).clone()).collect();
                block(&mut page, &owned);
                assert!(page.len() <= 2_000_000, "{name}.{g}: {} bytes on one page", page.len());
                files.insert(format!("{name}_{m}.md"), page);
                let _ = writeln!(
                    leaves,
                    "        pub mod {m} {{\n            #![cfg_attr(doc, doc = include_str!(\"{name}_{m}.md\"))]\n        }}"
                );
            }
            files.insert(format!("{name}.md"), op_page);
            let _ = writeln!(sub, "    pub mod {op} {{\n        #![cfg_attr(doc, doc = include_str!(\"{name}.md\"))]\n{leaves}    }}");
        }
        files.insert(format!("{}.md", fam.name), family_page);
        let _ = writeln!(mods, "pub mod {} {{\n    #![cfg_attr(doc, doc = include_str!(\"{}.md\"))]\n{sub}}}", fam.name, fam.name);
    }
    files.insert("mod.rs".into(), format!("{index}\n// Generated by tests/forms_reference.rs; do not edit.\n\n{mods}"));
    files
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/reference")
}

#[test]
fn the_reference_is_the_tables() {
    let files = render();
    let bless = std::env::var("PTXKIT_BLESS").is_ok_and(|v| v == "1");
    if bless {
        std::fs::create_dir_all(dir()).unwrap();
        for entry in std::fs::read_dir(dir()).unwrap() {
            let p = entry.unwrap().path();
            if !files.contains_key(p.file_name().unwrap().to_str().unwrap()) {
                std::fs::remove_file(&p).unwrap();
            }
        }
    }
    let mut stale = vec![];
    for (name, text) in &files {
        let path = dir().join(name);
        if bless {
            std::fs::write(&path, text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(name.clone());
        }
    }
    let extra: Vec<String> = std::fs::read_dir(dir())
        .map(|d| d.filter_map(|e| e.ok()?.file_name().into_string().ok()).filter(|n| !files.contains_key(n)).collect())
        .unwrap_or_default();
    let total: usize = files.values().map(String::len).sum();
    println!("{} files, {} bytes; largest {} bytes", files.len(), total, files.values().map(String::len).max().unwrap_or(0));
    assert!(
        stale.is_empty() && extra.is_empty(),
        "src/reference/ differs from the tables in {stale:?} (and has {extra:?} besides): PTXKIT_BLESS=1 cargo test --test forms_reference rewrites it"
    );
    // Every form is on a page once (the family pages that only list their opcodes' pages
    // hold no form lines).
    let mut lines = 0;
    for text in files.values() {
        let mut inside = false;
        for l in text.lines() {
            match (inside, l) {
                (false, "```text") => inside = true,
                (true, "```") => inside = false,
                (true, _) => lines += 1,
                _ => {}
            }
        }
    }
    assert_eq!(lines, ops::all_forms().count());
}
