//! PTX import over a corpus of compiler-emitted PTX: `scripts/ptx_corpus.sh DIR` compiles
//! the CUDA C++ and Triton sources of `corpus/` with nvcc 13.0 and Triton (for sm_80,
//! sm_90a and sm_100a, with `-G`, `-lineinfo`, `-rdc` and whole-program builds), and
//! `PTXKIT_PTX_CORPUS=DIR` points this test at the result. Every file parses, prints back to
//! text that parses to the same print and is the original token for token (whitespace and
//! comments aside), and assembles with ptxas to the same code (the cubin's
//! sections other than the debug ones, which hold the PTX text itself under `-G`); every
//! instruction is resolved to a typed form, or is a call, or is one of the findings listed
//! in `tests/import_corpus_gaps.txt` (chain and kind: what the tables lack, to be added to
//! them, or what only the declarations decide; a finding that goes away, or a new one, fails
//! the test until the list says so).

#[macro_use]
mod common;

use ptxkit::import::{ast::Arena, parse::parse, print::print, resolve::coverage_of, ImportError};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The corpus: (file, target, flags) from `MANIFEST.tsv`.
fn corpus() -> (PathBuf, Vec<(String, String, String)>) {
    let Ok(dir) = std::env::var("PTXKIT_PTX_CORPUS") else {
        common::harness::skip("PTXKIT_PTX_CORPUS is not set (scripts/ptx_corpus.sh DIR makes the corpus; .ci/run sets it)")
    };
    let dir = PathBuf::from(dir);
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap_or_else(|e| panic!("{}/MANIFEST.tsv: {e}", dir.display()));
    let rows: Vec<(String, String, String)> = manifest
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_string(), f[3].to_string(), f.get(4).unwrap_or(&"").to_string())
        })
        .collect();
    assert!(rows.len() >= 100, "the corpus has {} files; the script makes at least 100", rows.len());
    (dir, rows)
}

/// ptxas's cubin of `text` for `arch` (`-c` for a file of a separate-compilation build).
fn assemble(px: &Path, text: &str, arch: &str, rdc: bool) -> Result<Vec<u8>, String> {
    let target = ptxkit::Target::parse(arch).ok_or_else(|| format!("no target `{arch}`"))?;
    let opts = ptxkit::ptxas::CompileOptions { relocatable: rdc, ..Default::default() };
    ptxkit::ptxas::compile(px, text, target, &opts).map(|c| c.cubin)
}

/// Whether ptxas assembles `printed` to the same code as `text` (the sections other than the
/// debug ones, which hold the PTX text itself under `-G`).
fn same_code(px: &Path, file: &str, text: &str, printed: &str, target: &str, flags: &str) -> Result<(), String> {
    let rdc = flags.contains("rdc");
    let a = assemble(px, text, target, rdc).map_err(|e| format!("{file}: the original: {e}"))?;
    let b = assemble(px, printed, target, rdc).map_err(|e| format!("{file}: the printed text: {e}"))?;
    if a != b {
        let (ca, cb) = (common::code_sections(&a), common::code_sections(&b));
        if ca != cb {
            let differ: Vec<&str> = ca.iter().zip(&cb).filter(|(x, y)| x != y).map(|(x, _)| x.0.as_str()).collect();
            return Err(format!("{file}: the cubins' code differs (sections {differ:?}, or their list)"));
        }
    }
    Ok(())
}

/// Fails listing every file's failure.
fn assert_none_failed(failures: &[&String], files: usize) {
    let list: Vec<&str> = failures.iter().map(|s| s.as_str()).collect();
    assert!(failures.is_empty(), "{} of {files} files:\n{}", failures.len(), list.join("\n"));
}

/// The findings `tests/import_corpus_gaps.txt` lists: `chain\tkind`.
fn known_gaps() -> BTreeSet<String> {
    std::fs::read_to_string("tests/import_corpus_gaps.txt")
        .unwrap()
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// `Module::from_ptx` of every file, printed by `Module::to_ptx`, assembles to the original's
/// code: each instruction went through the builder's IR as its typed form. A file with an
/// instruction the tables lack is refused, naming a finding the gaps list holds.
fn every_corpus_file_imports_to_a_module_of_the_same_code() {
    let (dir, rows) = corpus();
    let px = common::ptxas("every_corpus_file_imports_to_a_module_of_the_same_code");
    let gaps = known_gaps();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let results = ptxkit::ptxas::par_map(threads, &rows, |(file, target, flags)| -> Result<bool, String> {
        let text = std::fs::read_to_string(dir.join(file)).map_err(|e| format!("{file}: {e}"))?;
        let m = match ptxkit::Module::from_ptx(&text) {
            Ok(m) => m,
            Err(ImportError::Unresolved(f)) if gaps.contains(&format!("{}\t{}", f.chain, f.kind.label())) => return Ok(false),
            Err(e) => return Err(format!("{file}: {e}")),
        };
        let printed = m.to_ptx().map_err(|e| format!("{file}: to_ptx: {e}"))?;
        same_code(&px, file, &text, &printed, target, flags)?;
        Ok(true)
    });
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    let imported = results.iter().filter(|r| matches!(r, Ok(true))).count();
    println!(
        "{} files: {imported} imported to the same code, {} refused for a known gap, {} failures",
        rows.len(),
        rows.len() - imported - failures.len(),
        failures.len()
    );
    assert_none_failed(&failures, rows.len());
    assert!(imported >= 100, "only {imported} of {} files imported", rows.len());
}

fn every_corpus_file_parses_and_prints_to_the_same_code() {
    let (dir, rows) = corpus();
    let px = common::ptxas("every_corpus_file_parses_and_prints_to_the_same_code");
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let results = ptxkit::ptxas::par_map(threads, &rows, |(file, target, flags)| -> Result<(usize, usize), String> {
        let text = std::fs::read_to_string(dir.join(file)).map_err(|e| format!("{file}: {e}"))?;
        let arena = Arena::new();
        let tree = parse(&text, &arena).map_err(|e| format!("{file}: {e}"))?;
        let printed = print(&tree);
        let again = parse(&printed, &arena).map_err(|e| format!("{file}: the printed text: {e}"))?;
        if print(&again) != printed {
            return Err(format!("{file}: printing is not a fixed point"));
        }
        // Whitespace and comments aside, the printed text is the original token for token.
        let toks = |t: &str| ptxkit::import::lex::lex(t).map(|v| v.into_iter().map(|x| x.text.to_string()).collect::<Vec<_>>());
        let (ta, tb) = (toks(&text).map_err(|e| e.to_string())?, toks(&printed).map_err(|e| e.to_string())?);
        if ta != tb {
            let at = ta.iter().zip(&tb).position(|(x, y)| x != y).unwrap_or(ta.len().min(tb.len()));
            return Err(format!("{file}: token {at} differs: {:?} against {:?}", ta.get(at), tb.get(at)));
        }
        same_code(&px, file, &text, &printed, target, flags)?;
        Ok((text.len(), tree.instructions().len()))
    });
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    let (bytes, instructions) = results.iter().flatten().fold((0, 0), |(b, i), (x, y)| (b + x, i + y));
    println!("{} files, {} MB, {instructions} instructions; {} failures", rows.len(), bytes / 1_000_000, failures.len());
    assert_none_failed(&failures, rows.len());
}

fn every_corpus_instruction_resolves_or_is_a_known_gap() {
    let (dir, rows) = corpus();
    let texts: Vec<String> = rows.iter().map(|(f, _, _)| std::fs::read_to_string(dir.join(f)).unwrap()).collect();
    let arena = Arena::new();
    let trees: Vec<_> = texts.iter().map(|t| parse(t, &arena).unwrap()).collect();
    let cov = coverage_of(&trees);
    println!("{cov}");
    // Every (chain, kind of finding) the corpus meets: chains no form has (coverage the tables
    // lack), operand shapes no variant takes, operands only the declarations can tell apart.
    let found: BTreeSet<String> =
        cov.groups.iter().flat_map(|g| g.findings.iter().map(move |f| format!("{}\t{}", g.chain, f.kind.label()))).collect();
    let listed = known_gaps();
    let new: Vec<&String> = found.difference(&listed).collect();
    let fixed: Vec<&String> = listed.difference(&found).collect();
    assert!(
        new.is_empty() && fixed.is_empty(),
        "findings not listed in tests/import_corpus_gaps.txt: {new:?}; listed but no longer found: {fixed:?}"
    );
    println!(
        "{} instructions, {:.2} % resolved or calls; {} known gaps",
        cov.instructions,
        100.0 * (cov.resolved + cov.calls) as f64 / cov.instructions as f64,
        listed.len()
    );
}

fn main() {
    common::harness::main(&[&[
        host!(every_corpus_file_parses_and_prints_to_the_same_code),
        host!(every_corpus_instruction_resolves_or_is_a_known_gap),
        host!(every_corpus_file_imports_to_a_module_of_the_same_code),
    ]]);
}
