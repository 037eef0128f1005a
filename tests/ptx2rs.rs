//! ptx2rs (`ptxkit::import::to_rust`): the Rust it writes compiles, and run, prints PTX that
//! ptxas assembles to the same code as the input. The inputs are the golden files and, with
//! `PTXKIT_PTX_CORPUS` set (as CI sets it), every corpus file of at most 300 instructions
//! (`PTXKIT_PTX2RS_ALL=1`: every corpus file, a run of about half an hour;
//! `PTXKIT_PTX2RS_ONLY=A,B`: the files whose name contains `A` or `B`). The
//! generated sources become a crate under `target/ptx2rs-check`, built by cargo against
//! this checkout, in batches of at most 3 MB of Rust; its binary writes each module's PTX,
//! and each is assembled beside its input (one that differs is kept there as
//! `differs-f{i}.ptx`). A file ptx2rs refuses (a construct it does not translate) is
//! listed with the reason; the golden files must all translate, and at least as many
//! corpus files as today.

#[macro_use]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Corpus files of at most this many instructions are translated in a normal run.
const MAX_INSTRUCTIONS: usize = 300;
/// Corpus files of at most `MAX_INSTRUCTIONS` that ptxas translates today: fewer fails.
const CORPUS_FLOOR: usize = 47;

/// The inputs: (name, text, target, relocatable). `PTXKIT_PTX2RS_ONLY=A,B` keeps those whose
/// name contains `A` or `B` (a file or a few, to look at what ptx2rs writes), of any size.
fn inputs() -> Vec<(String, String, String, bool)> {
    let mut out = vec![];
    let only = std::env::var("PTXKIT_PTX2RS_ONLY").ok();
    for e in std::fs::read_dir("tests/golden").unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "ptx") {
            let text = std::fs::read_to_string(&p).unwrap();
            let target =
                text.lines().find_map(|l| l.trim().strip_prefix(".target ")).unwrap().split(',').next().unwrap().trim().to_string();
            out.push((format!("golden/{}", p.file_name().unwrap().to_string_lossy()), text, target, false));
        }
    }
    if let Ok(dir) = std::env::var("PTXKIT_PTX_CORPUS") {
        let all = std::env::var("PTXKIT_PTX2RS_ALL").is_ok_and(|v| v == "1") || only.is_some();
        let manifest = std::fs::read_to_string(Path::new(&dir).join("MANIFEST.tsv")).expect("the corpus's MANIFEST.tsv");
        for l in manifest.lines().skip(1).filter(|l| !l.trim().is_empty()) {
            let f: Vec<&str> = l.split('\t').collect();
            let text = std::fs::read_to_string(Path::new(&dir).join(f[0])).unwrap();
            let arena = ptxkit::import::ast::Arena::new();
            let n = ptxkit::import::parse::parse(&text, &arena).map(|t| t.instructions().len()).unwrap_or(usize::MAX);
            if all || n <= MAX_INSTRUCTIONS {
                out.push((f[0].to_string(), text, f[3].to_string(), f.get(4).is_some_and(|x| x.contains("rdc"))));
            }
        }
    } else {
        println!("PTXKIT_PTX_CORPUS is not set: the golden files only (scripts/ptx_corpus.sh DIR makes the corpus)");
    }
    if let Some(only) = only {
        out.retain(|(name, ..)| only.split(',').any(|o| name.contains(o)));
    }
    out
}

fn generated_rust_compiles_and_prints_the_same_code() {
    let px = common::ptxas("generated_rust_compiles_and_prints_the_same_code");
    let inputs = inputs();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let krate = root.join("target/ptx2rs-check");
    let src = krate.join("src");
    let _ = std::fs::remove_dir_all(&src);
    std::fs::create_dir_all(&src).unwrap();
    let mut translated = vec![];
    let mut refused = vec![];
    for (i, (name, text, target, rdc)) in inputs.iter().enumerate() {
        match ptxkit::import::to_rust(text, name) {
            Ok(rust) => {
                std::fs::write(src.join(format!("f{i}.rs")), rust).unwrap();
                translated.push((i, name, text, target, *rdc));
            }
            Err(e) => refused.push(format!("{name}: {e}")),
        }
    }
    println!("{} of {} inputs translated; refused:\n  {}", translated.len(), inputs.len(), refused.join("\n  "));
    // Every golden file translates.
    let only = std::env::var("PTXKIT_PTX2RS_ONLY").is_ok();
    let golden_refused: Vec<&String> = refused.iter().filter(|r| r.starts_with("golden/")).collect();
    assert!(golden_refused.is_empty(), "golden files refused: {golden_refused:?}");
    let corpus = translated.iter().filter(|(_, name, ..)| !name.starts_with("golden/")).count();
    if std::env::var("PTXKIT_PTX_CORPUS").is_ok() && !only {
        assert!(corpus >= CORPUS_FLOOR, "{corpus} corpus files translated; {CORPUS_FLOOR} did before");
    }
    // Batches of at most `BATCH_BYTES` of Rust (a file larger than that alone), each one
    // crate built and run in turn: the whole corpus as one crate needs about 12 GB to compile.
    let mut batches: Vec<Vec<Translated>> = vec![];
    let mut bytes = 0;
    for t in translated {
        let size = std::fs::metadata(src.join(format!("f{}.rs", t.0))).unwrap().len();
        if batches.is_empty() || bytes + size > BATCH_BYTES {
            batches.push(vec![]);
            bytes = 0;
        }
        bytes += size;
        batches.last_mut().unwrap().push(t);
    }
    let (mut same, mut failures, mut count) = (0, vec![], 0);
    for (b, batch) in batches.iter().enumerate() {
        let t = std::time::Instant::now();
        let (s, f) = build_and_compare(&px, &root, &krate, batch);
        println!(
            "batch {} of {}: {} files, built, run and assembled in {:.0} s; {s} the same",
            b + 1,
            batches.len(),
            batch.len(),
            t.elapsed().as_secs_f64()
        );
        same += s;
        count += batch.len();
        failures.extend(f);
    }
    println!("{same} of {count} generated modules assemble to their input's code");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// Most bytes of generated Rust one crate of the check holds.
const BATCH_BYTES: u64 = 3 << 20;

/// A translated input: (index, name, text, target, relocatable).
type Translated<'a> = (usize, &'a String, &'a String, &'a String, bool);

/// Builds `target/ptx2rs-check` with the modules of `batch` (written as `src/f{i}.rs`, which
/// stay), runs it, and assembles what each module prints beside its input: how many gave
/// the same code, and what went wrong for the others.
fn build_and_compare(px: &Path, root: &Path, krate: &Path, batch: &[Translated]) -> (usize, Vec<String>) {
    let src = krate.join("src");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // One crate: a module per file of the batch, and a main that writes each module's PTX.
    let mut main = String::from("use std::io::Write;\n");
    for (i, ..) in batch {
        main.push_str(&format!("mod f{i};\n"));
    }
    main.push_str("fn main() {\n    let out = std::path::PathBuf::from(std::env::args().nth(1).unwrap());\n");
    for (i, ..) in batch {
        main.push_str(&format!(
            "    match f{i}::module().and_then(|m| m.to_ptx()) {{\n        Ok(t) => std::fs::write(out.join(\"f{i}.ptx\"), t).unwrap(),\n        Err(e) => {{ let _ = writeln!(std::io::stderr(), \"f{i}: {{e}}\"); }}\n    }}\n"
        ));
    }
    main.push_str("}\n");
    std::fs::write(src.join("main.rs"), main).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        format!(
            "[package]\nname = \"ptx2rs-check\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[dependencies]\nptxkit = {{ path = {:?} }}\n\n[workspace]\n",
            root.display().to_string()
        ),
    )
    .unwrap();
    std::fs::copy(root.join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();
    let built = Command::new(&cargo)
        .args(["build", "--offline", "--quiet", "--message-format=short", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", root.join("target/ptx2rs-target"))
        // One crate of many megabytes: incremental compilation's dependency graph alone
        // took the whole corpus's build past 45 minutes; without it the build takes about 15.
        .env("CARGO_INCREMENTAL", "0")
        .output()
        .expect("cargo runs");
    if !built.status.success() {
        let log = String::from_utf8_lossy(&built.stderr);
        let errors: Vec<&str> = log.lines().filter(|l| l.contains("error")).take(40).collect();
        panic!("the generated crate (target/ptx2rs-check) does not build:\n{}", errors.join("\n"));
    }
    let out = krate.join("out");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let ran = Command::new(root.join("target/ptx2rs-target/debug/ptx2rs-check")).arg(&out).output().expect("the generated binary runs");
    assert!(ran.status.success(), "the generated binary failed: {}", String::from_utf8_lossy(&ran.stderr));
    let mut failures = vec![];
    let mut same = 0;
    for (i, name, text, target, rdc) in batch {
        let printed = match std::fs::read_to_string(out.join(format!("f{i}.ptx"))) {
            Ok(p) => p,
            Err(_) => {
                failures.push(format!("{name}: the module did not print: {}", String::from_utf8_lossy(&ran.stderr)));
                continue;
            }
        };
        let t = ptxkit::Target::parse(target).unwrap();
        let opts = ptxkit::ptxas::CompileOptions { relocatable: *rdc, ..Default::default() };
        let a = ptxkit::ptxas::compile(px, text, t, &opts).unwrap_or_else(|e| panic!("{name}: the input: {e}"));
        match ptxkit::ptxas::compile(px, &printed, t, &opts) {
            Err(e) => failures.push(format!("{name}: the generated module's PTX: {e}")),
            Ok(b) if common::code_sections(&a.cubin) != common::code_sections(&b.cubin) => {
                let keep = krate.join(format!("differs-f{i}.ptx"));
                std::fs::write(&keep, &printed).unwrap();
                failures.push(format!("{name}: the code differs ({})", keep.display()))
            }
            Ok(_) => same += 1,
        }
    }
    (same, failures)
}

/// What ptx2rs cannot express is refused with its place, never written as Rust that does
/// not build.
fn unsupported_constructs_are_refused_with_their_place() {
    let head = ".version 8.0\n.target sm_80\n.address_size 64\n";
    let cases: &[(&str, &str)] = &[
        (".visible .func f(.reg .b32 %a) { ret; }", "line 4, column 1: a device function of `.reg` parameters declared `.visible`"),
        (".func f(.reg .b32 %a, .param .b32 b) { ret; }", "a parameter that is no scalar `.reg` among `.reg` parameters"),
        (
            ".entry k() {\n.reg .b32 %r<3>;\n.reg .b64 %rd<2>;\nld.shared.v2.u16 {%r1, %r2}, [%rd1];\nret;\n}",
            "line 7, column 1: `ld.shared.v2.u16`: `%r1` (.b32) where a .u16 register goes",
        ),
        (".entry k() {\n.reg .b32 %r<2>;\nmov.u32 %r1, undeclared;\nret;\n}", "`undeclared` is not declared"),
    ];
    for (body, want) in cases {
        let e = ptxkit::import::to_rust(&format!("{head}{body}"), "t.ptx").expect_err(body).to_string();
        assert!(e.contains(want), "{body}: {e}");
    }
    let option =
        ptxkit::import::to_rust(".version 8.0\n.target sm_80, map_f64_to_f32\n.address_size 64\n", "t.ptx").unwrap_err().to_string();
    assert!(option.contains("the target option `map_f64_to_f32`"), "{option}");
}

fn main() {
    common::harness::main(&[&[
        host!(unsupported_constructs_are_refused_with_their_place),
        host!(generated_rust_compiles_and_prints_the_same_code),
    ]]);
}
