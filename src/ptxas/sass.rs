//! SASS with the Rust line of each instruction: a module with line info on
//! ([`Module::set_line_info`](crate::Module::set_line_info)) is assembled by ptxas with
//! `-lineinfo` into a cubin, which `nvdisasm --print-code --print-line-info` disassembles;
//! [`parse`] reads that listing into kernels of [`SassLine`]s, each with the `.file`/`.loc`
//! location ptxas carried through from the PTX: the Rust file and line of the builder call
//! that emitted it.
//!
//! nvdisasm is found like ptxas: `$NVDISASM`, `PATH`, `$CUDA_HOME/bin`,
//! `/usr/local/cuda/bin`, or the `nvidia-cuda-nvdisasm` Python package (CUDA 13.2 is the
//! oldest on PyPI; it reads 13.0's cubins).

use super::{find_tool, scratch_file};
use crate::core::Target;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The nvdisasm executable, if one can be found.
pub fn find_nvdisasm() -> Option<PathBuf> {
    find_tool("nvdisasm", "NVDISASM")
}

/// One SASS instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SassLine {
    /// Its byte offset in the kernel's code.
    pub offset: u32,
    /// The instruction as nvdisasm prints it (`LDG.E R2, desc[UR4][R2.64] ;`).
    pub text: String,
    /// The source file and line it came from, when the cubin has line info for it.
    pub source: Option<(String, u32)>,
}

/// The SASS of one kernel or function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SassKernel {
    pub name: String,
    pub lines: Vec<SassLine>,
}

/// The SASS of a module, kernel by kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sass {
    pub kernels: Vec<SassKernel>,
}

impl Sass {
    /// The kernel or function `name`.
    pub fn kernel(&self, name: &str) -> Option<&SassKernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

/// Each instruction with its source location beside it (padding instructions after the
/// last `EXIT`/`BRA` trap loop left out).
impl fmt::Display for SassKernel {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        writeln!(f, "{}:", self.name)?;
        let width = self.lines.iter().map(|l| l.text.len()).max().unwrap_or(0).min(60);
        for l in self.lines.iter().filter(|l| !l.text.starts_with("NOP")) {
            write!(f, "  /*{:04x}*/ {:<width$}", l.offset, l.text)?;
            if let Some((file, line)) = &l.source {
                write!(f, "  // {file}:{line}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl fmt::Display for Sass {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.kernels.iter().try_for_each(|k| k.fmt(f))
    }
}

/// Assembles `ptx` for `target` with line info (`ptxas -lineinfo`) into a cubin.
pub fn cubin_with_line_info(ptxas: &Path, ptx: &str, target: Target) -> Result<Vec<u8>, String> {
    let opts = super::CompileOptions { line_info: true, ..Default::default() };
    super::compile(ptxas, ptx, target, &opts).map(|c| c.cubin)
}

/// The SASS of `ptx` assembled for `target`, each instruction with its source line (the
/// Rust line when the module was built with line info on).
///
/// ```no_run
/// use ptxkit::prelude::*;
/// let mut m = Module::new(Target::SM_90A);
/// m.set_line_info(true);
/// m.kernel("k", |k, (out,): (GlobalPtr<U32>,)| {
///     let i = k.global_thread_index_x();
///     k.st(out.at(i), i);
/// })?;
/// let (ptxas, nvdisasm) = (ptxkit::ptxas::find().unwrap(), ptxkit::ptxas::find_nvdisasm().unwrap());
/// let sass = ptxkit::ptxas::sass(&ptxas, &nvdisasm, &m.to_ptx()?, m.target())?;
/// print!("{sass}"); // `/*0080*/ STG.E desc[UR4][R2.64], R5 ;  // src/main.rs:7`
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sass(ptxas: &Path, nvdisasm: &Path, ptx: &str, target: Target) -> Result<Sass, String> {
    let cubin = cubin_with_line_info(ptxas, ptx, target)?;
    let file = scratch_file("cubin");
    std::fs::write(&file, &cubin).map_err(|e| format!("writing {}: {e}", file.display()))?;
    let out = Command::new(nvdisasm).args(["--print-code", "--print-line-info"]).arg(&file).output();
    let _ = std::fs::remove_file(&file);
    let out = out.map_err(|e| format!("running {}: {e}", nvdisasm.display()))?;
    if !out.status.success() {
        return Err(format!("nvdisasm: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(parse(&String::from_utf8_lossy(&out.stdout)))
}

/// Reads `nvdisasm --print-code --print-line-info` output: a kernel starts at its
/// `.text.<name>` section, a `//## File "f", line n` comment sets the location of the
/// instructions after it, and an instruction line is `/*offset*/ text ;`.
pub fn parse(listing: &str) -> Sass {
    let mut sass = Sass::default();
    let mut source: Option<(String, u32)> = None;
    for line in listing.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix(".section") {
            let name = rest.trim().trim_matches('"').split([',', '"']).next().unwrap_or("").trim();
            if let Some(k) = name.strip_prefix(".text.") {
                sass.kernels.push(SassKernel { name: k.to_string(), lines: Vec::new() });
            } else if !sass.kernels.is_empty() && !name.is_empty() {
                // Another section: the code of the last kernel has ended.
                source = None;
            }
            continue;
        }
        if let Some(rest) = t.strip_prefix("//## File \"") {
            source = rest.split_once("\", line ").and_then(|(f, l)| {
                let n: String = l.chars().take_while(char::is_ascii_digit).collect();
                n.parse().ok().map(|n| (f.to_string(), n))
            });
            continue;
        }
        let Some(k) = sass.kernels.last_mut() else { continue };
        let Some(rest) = t.strip_prefix("/*") else { continue };
        let Some((off, text)) = rest.split_once("*/") else { continue };
        let Ok(offset) = u32::from_str_radix(off.trim(), 16) else { continue };
        let text = text.trim();
        if text.is_empty() || text.starts_with(".byte") || text.starts_with(".dword") || text.starts_with(".word") {
            continue;
        }
        k.lines.push(SassLine { offset, text: text.split_whitespace().collect::<Vec<_>>().join(" "), source: source.clone() });
    }
    sass.kernels.retain(|k| !k.lines.is_empty());
    sass
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_is_read_kernel_by_kernel_with_each_line() {
        let listing = r#"	.target	sm_90a
//--------------------- .text.k                   --------------------------
	.section	.text.k,"ax",@progbits
k:
	//## File "tests/x.rs", line 20
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File "src/foo.rs", line 22
        /*0010*/                   S2R R5, SR_TID.X ;
        /*0020*/                   NOP;
//--------------------- .nv.info.k --------------------------
	.section	.nv.info.k,"",@"SHT_CUDA_INFO"
        /*0000*/ 	.byte	0x04, 0x2f
"#;
        let s = parse(listing);
        assert_eq!(s.kernels.len(), 1);
        let k = s.kernel("k").unwrap();
        assert_eq!(k.lines.len(), 3);
        assert_eq!(k.lines[0], SassLine { offset: 0, text: "LDC R1, c[0x0][0x28] ;".into(), source: Some(("tests/x.rs".into(), 20)) });
        assert_eq!(k.lines[1].source, Some(("src/foo.rs".into(), 22)));
        assert_eq!(k.lines[2].text, "NOP;");
        let text = k.to_string();
        assert!(text.contains("/*0010*/ S2R R5, SR_TID.X ;") && text.contains("// src/foo.rs:22"), "{text}");
    }
}
