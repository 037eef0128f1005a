//! Shared test helpers.
#![allow(dead_code)]

use std::path::PathBuf;

/// ptxas, or `None` when `PTXKIT_SKIP_PTXAS=1` says to skip. A missing ptxas otherwise
/// fails the test: CI installs it from the `nvidia-cuda-nvcc` PyPI package.
pub fn ptxas(test: &str) -> Option<PathBuf> {
    match ptxkit::ptxas::find() {
        Some(p) => Some(p),
        None if std::env::var("PTXKIT_SKIP_PTXAS").as_deref() == Ok("1") => {
            println!("skipped {test}: ptxas not found and PTXKIT_SKIP_PTXAS=1");
            None
        }
        None => panic!(
            "{test}: ptxas not found. Install it (python3 -m pip install nvidia-cuda-nvcc==13.0.88), \
             point PTXAS at it, or set PTXKIT_SKIP_PTXAS=1 to skip the ptxas checks"
        ),
    }
}
