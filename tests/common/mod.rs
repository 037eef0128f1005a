//! Shared test helpers and the runner of the binaries that need ptxas or a GPU.
#![allow(dead_code)]

#[macro_use]
pub mod harness;

use std::path::PathBuf;

/// ptxas. Where there is none, the test ends as ignored (`harness::skip`) when
/// `PTXKIT_SKIP_PTXAS=1` says to skip, and fails otherwise: CI installs it from the
/// `nvidia-cuda-nvcc` PyPI package.
pub fn ptxas(test: &str) -> PathBuf {
    match ptxkit::ptxas::find() {
        Some(p) => p,
        None if std::env::var("PTXKIT_SKIP_PTXAS").as_deref() == Ok("1") => harness::skip("ptxas not found and PTXKIT_SKIP_PTXAS=1"),
        None => panic!(
            "{test}: ptxas not found. Install it (python3 -m pip install nvidia-cuda-nvcc==13.0.88), \
             point PTXAS at it, or set PTXKIT_SKIP_PTXAS=1 to skip the ptxas checks"
        ),
    }
}

/// The module's text, assembled by ptxas (when there is one) with no warning allowed.
pub fn assemble(name: &str, m: &ptxkit::Module) -> String {
    assemble_allowing(name, m, &[])
}

/// The module's text, assembled by ptxas (when there is one); a warning fails unless it
/// contains one of `allowed`.
pub fn assemble_allowing(name: &str, m: &ptxkit::Module, allowed: &[&str]) -> String {
    let text = m.to_ptx().unwrap_or_else(|e| panic!("{name}: {e}"));
    let px = ptxas(name);
    let warnings = ptxkit::ptxas::check(&px, &text, m.target(), ptxkit::ptxas::Mode::Assemble)
        .unwrap_or_else(|e| panic!("{name}: ptxas:\n{e}\n{text}"));
    let unexpected: Vec<&String> = warnings.iter().filter(|w| !allowed.iter().any(|a| w.contains(a))).collect();
    assert!(unexpected.is_empty(), "{name}: ptxas warned:\n{unexpected:?}\n{text}");
    text
}
