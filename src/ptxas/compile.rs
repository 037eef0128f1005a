//! Ahead-of-time code: PTX text assembled by a chosen ptxas into a cubin for one target,
//! with ptxas's resource report (registers, spills, stack, shared memory) and its warnings.
//! `runtime::Gpu::load_cubin` loads the result as `Gpu::load` loads PTX, with no JIT.

use super::report::{parse, Report};
use super::scratch_file;
use crate::core::Target;
use std::path::Path;
use std::process::Command;

/// How to assemble.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// `-lineinfo`: keep the `.loc` lines (the Rust lines of a module built with line info)
    /// for compute-sanitizer, the profilers and [`sass`](super::sass).
    pub line_info: bool,
    /// `-c`: a relocatable object whose external functions another object defines.
    pub relocatable: bool,
    /// More arguments for ptxas (`-O3`, `--maxrregcount=128`, …).
    pub extra: Vec<String>,
}

/// What ptxas made of a module.
#[derive(Clone, Debug, PartialEq)]
pub struct Compiled {
    /// The cubin (an ELF image for `target`).
    pub cubin: Vec<u8>,
    /// Per kernel: registers, spills, stack, shared memory, and the warnings and advisories.
    pub report: Report,
}

/// Assembles `ptx` for `target` with `ptxas` into a cubin. `Err` carries ptxas's messages
/// when it refused the text (an instruction the target lacks, a `.version` newer than this
/// ptxas knows).
///
/// ```no_run
/// use ptxkit::prelude::*;
/// use ptxkit::ptxas::{compile, CompileOptions};
/// let mut m = Module::new(Target::SM_90A);
/// ptxkit::kernels::saxpy(&mut m)?;
/// let c = compile(&ptxkit::ptxas::find().unwrap(), &m.to_ptx()?, m.target(), &CompileOptions::default())?;
/// c.report.check_clean(Some(255))?;
/// std::fs::write("saxpy.sm_90a.cubin", &c.cubin)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn compile(ptxas: &Path, ptx: &str, target: Target, opts: &CompileOptions) -> Result<Compiled, String> {
    let (input, output) = (scratch_file("ptx"), scratch_file("cubin"));
    std::fs::write(&input, ptx).map_err(|e| format!("writing {}: {e}", input.display()))?;
    let mut cmd = Command::new(ptxas);
    cmd.arg("-v").arg("-arch").arg(target.to_string());
    if opts.line_info {
        cmd.arg("-lineinfo");
    }
    if opts.relocatable {
        cmd.arg("-c");
    }
    cmd.args(&opts.extra).arg(&input).arg("-o").arg(&output);
    let out = cmd.output();
    let _ = std::fs::remove_file(&input);
    let out = out.map_err(|e| format!("running {}: {e}", ptxas.display()))?;
    let cubin = std::fs::read(&output);
    let _ = std::fs::remove_file(&output);
    let msg = format!("{}{}", String::from_utf8_lossy(&out.stderr), String::from_utf8_lossy(&out.stdout));
    let msg = msg.replace(&*input.to_string_lossy(), "input.ptx");
    if !out.status.success() {
        return Err(match too_new(&msg) {
            Some(hint) => format!("{msg}\n{hint}"),
            None => msg,
        });
    }
    let lines: Vec<String> = msg.lines().map(str::to_string).collect();
    Ok(Compiled { cubin: cubin.map_err(|e| format!("reading ptxas's cubin: {e}"))?, report: parse(&lines) })
}

/// For ptxas's "Unsupported .version 9.2; current version is '9.0'": which CUDA release
/// brings the version the text asks for.
fn too_new(msg: &str) -> Option<String> {
    let rest = msg.split("Unsupported .version ").nth(1)?;
    let asked = crate::core::Version::parse(rest.split(';').next()?.trim())?;
    let (a, b) = asked.cuda_release()?;
    Some(format!(
        "the text needs PTX ISA {asked}, which ptxas {a}.{b} and newer assemble (`pip install nvidia-cuda-nvcc=={a}.{b}.*`); \
         a cubin it makes for an ISA this driver's JIT does not take still loads (`Gpu::load_cubin`)"
    ))
}

/// The newest `.version` the ptxas at `ptxas` takes (9.0 for 13.0.88): the newest of
/// [`Version::ALL`](crate::core::Version::ALL) at which it parses an empty kernel.
pub fn newest_version(ptxas: &Path) -> Option<crate::core::Version> {
    crate::core::Version::ALL.iter().rev().copied().find(|v| {
        let text = format!(".version {v}\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n\tret;\n}}\n");
        super::check(ptxas, &text, Target::SM_80, super::Mode::ParseOnly).is_ok()
    })
}

/// The release of `ptxas` (`13.0.88`), from `ptxas --version`.
pub fn version(ptxas: &Path) -> Result<String, String> {
    let out = Command::new(ptxas).arg("--version").output().map_err(|e| format!("running {}: {e}", ptxas.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    // `Cuda compilation tools, release 13.0, V13.0.88`
    text.lines()
        .find_map(|l| l.split(", V").nth(1))
        .map(|v| v.trim().to_string())
        .ok_or_else(|| format!("{} --version printed no release: {text}", ptxas.display()))
}
