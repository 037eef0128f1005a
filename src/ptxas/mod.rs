//! Finding and running `ptxas`, NVIDIA's PTX assembler, to check emitted text.
//!
//! Looked up in this order: `$PTXAS`, `ptxas` on `PATH`, `$CUDA_HOME/bin/ptxas`,
//! `/usr/local/cuda/bin/ptxas`, and the `nvidia-cuda-nvcc` Python package
//! (`python3 -m pip install nvidia-cuda-nvcc==13.0.88`). [`sass`] adds NVIDIA's disassembler
//! (nvdisasm) for SASS with the Rust line of each instruction.

mod compile;
mod report;
pub mod sample;
mod sass;

pub use compile::{compile, newest_version, version, CompileOptions, Compiled};
pub use report::{parse as parse_report, report, KernelReport, Report};
pub use sass::{cubin_with_line_info, find_nvdisasm, parse as parse_sass, sass, Sass, SassKernel, SassLine};

use crate::core::Target;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The ptxas executable, if one can be found.
pub fn find() -> Option<PathBuf> {
    find_tool("ptxas", "PTXAS")
}

/// A CUDA tool: `$env`, `name` on `PATH`, `$CUDA_HOME/bin`, `/usr/local/cuda/bin`, then the
/// `nvidia` Python packages' `cu13/bin`.
fn find_tool(name: &str, env: &str) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env) {
        return Some(PathBuf::from(p));
    }
    let mut cands: Vec<PathBuf> = Vec::new();
    if let Some(path) = std::env::var_os("PATH") {
        cands.extend(std::env::split_paths(&path).map(|d| d.join(name)));
    }
    if let Some(h) = std::env::var_os("CUDA_HOME") {
        cands.push(Path::new(&h).join("bin").join(name));
    }
    cands.push(Path::new("/usr/local/cuda/bin").join(name));
    if let Some(p) = cands.into_iter().find(|p| p.is_file()) {
        return Some(p);
    }
    let script = format!("import nvidia, os; print('\\n'.join(os.path.join(p, 'cu13', 'bin', '{name}') for p in nvidia.__path__))");
    let out = Command::new("python3").args(["-c", &script]).output().ok()?;
    String::from_utf8_lossy(&out.stdout).lines().map(PathBuf::from).find(|p| p.is_file())
}

/// A fresh path in the temporary directory, ending in `.ext`.
fn scratch_file(ext: &str) -> PathBuf {
    let n = std::process::id() as u64 * 1_000_003 + COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!("ptxkit-{n}.{ext}"))
}

/// How to run ptxas: real assembly for a GPU, or parse-only for a virtual architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Assemble,
    ParseOnly,
}

/// Assembles `ptx` for `target`. `Ok` carries what ptxas said about text it accepted (empty
/// when it said nothing), `Err` its messages, verbatim. ptxas runs without `-v`, so on
/// success it speaks only to warn: warnings, and the advisories it prints unasked, such as
/// the C75xx messages about the wgmma pipeline (a wait it injected, a pipeline it
/// serialised). [`check_clean`] treats any of them as a failure.
pub fn check(ptxas: &Path, ptx: &str, target: Target, mode: Mode) -> Result<Vec<String>, String> {
    let file = scratch_file("ptx");
    std::fs::write(&file, ptx).map_err(|e| format!("writing {}: {e}", file.display()))?;
    let arch = match mode {
        Mode::Assemble => target.to_string(),
        Mode::ParseOnly => target.to_string().replace("sm_", "compute_"),
    };
    let out =
        Command::new(ptxas).arg("-arch").arg(&arch).arg(&file).arg("-o").arg(if cfg!(windows) { "NUL" } else { "/dev/null" }).output();
    let _ = std::fs::remove_file(&file);
    let out = out.map_err(|e| format!("running {}: {e}", ptxas.display()))?;
    let mut msg = String::from_utf8_lossy(&out.stderr).into_owned();
    msg.push_str(&String::from_utf8_lossy(&out.stdout));
    let msg = msg.replace(&*file.to_string_lossy(), "input.ptx");
    if out.status.success() {
        Ok(msg.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect())
    } else {
        Err(msg)
    }
}

/// Assembles `ptx` for `target` with `-v`: `Ok` carries every line ptxas printed (its
/// resource report per function: registers, stack, spill stores and loads; and any
/// warning), `Err` its messages when it refused the text.
pub fn resources(ptxas: &Path, ptx: &str, target: Target) -> Result<Vec<String>, String> {
    let file = scratch_file("ptx");
    std::fs::write(&file, ptx).map_err(|e| format!("writing {}: {e}", file.display()))?;
    let out = Command::new(ptxas)
        .arg("-v")
        .arg("-arch")
        .arg(target.to_string())
        .arg(&file)
        .arg("-o")
        .arg(if cfg!(windows) { "NUL" } else { "/dev/null" })
        .output();
    let _ = std::fs::remove_file(&file);
    let out = out.map_err(|e| format!("running {}: {e}", ptxas.display()))?;
    let mut msg = String::from_utf8_lossy(&out.stderr).into_owned();
    msg.push_str(&String::from_utf8_lossy(&out.stdout));
    let msg = msg.replace(&*file.to_string_lossy(), "input.ptx");
    if out.status.success() {
        Ok(msg.lines().map(str::to_string).collect())
    } else {
        Err(msg)
    }
}

/// Like [`check`], but a warning is a failure too.
pub fn check_clean(ptxas: &Path, ptx: &str, target: Target, mode: Mode) -> Result<(), String> {
    let warnings = check(ptxas, ptx, target, mode)?;
    if warnings.is_empty() {
        Ok(())
    } else {
        Err(format!("ptxas accepted the text with warnings:\n{}", warnings.join("\n")))
    }
}

static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Line numbers (1-based) that ptxas's messages blame.
pub fn error_lines(msg: &str) -> Vec<usize> {
    let mut v: Vec<usize> = msg
        .lines()
        .filter(|l| l.contains("error"))
        // An error inside one of ptxas's own macro expansions (`ptxas <macro util>, line 8`)
        // numbers the macro's lines, not the input's: it blames no input line.
        .filter(|l| !l.starts_with("ptxas <"))
        .filter_map(|l| {
            let i = l.find(", line ")? + 7;
            let rest = &l[i..];
            rest[..rest.find(|c: char| !c.is_ascii_digit())?].parse().ok()
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

/// What ptxas said about each line it blamed (1-based): whether an error (else a warning),
/// and the first such message, an error in preference to a warning.
pub fn line_messages(msg: &str) -> std::collections::HashMap<usize, (bool, String)> {
    let mut out: std::collections::HashMap<usize, (bool, String)> = std::collections::HashMap::new();
    for l in msg.lines() {
        let Some(i) = l.find(", line ") else { continue };
        let rest = &l[i + 7..];
        let Some(end) = rest.find(|c: char| !c.is_ascii_digit()) else { continue };
        let Ok(n) = rest[..end].parse::<usize>() else { continue };
        let tail = rest[end..].trim_start_matches(';').trim_start();
        let err = tail.starts_with("error");
        let text = tail.split_once(": ").map_or(tail, |x| x.1).trim().to_string();
        match out.get_mut(&n) {
            Some(e) if err && !e.0 => *e = (true, text),
            Some(_) => {}
            None => {
                out.insert(n, (err, text));
            }
        }
    }
    out
}

/// `f` applied to every job on `threads` threads (at least one), results in job order: how
/// the sweeps run many ptxas processes at once.
pub fn par_map<J: Sync, R: Send>(threads: usize, jobs: &[J], f: impl Fn(&J) -> R + Sync) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = threads.min(jobs.len()).max(1);
    let next = AtomicUsize::new(0);
    let out: std::sync::Mutex<Vec<Option<R>>> = std::sync::Mutex::new((0..jobs.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= jobs.len() {
                    break;
                }
                let r = f(&jobs[i]);
                out.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
            });
        }
    });
    out.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().map(|r| r.expect("every job ran")).collect()
}
