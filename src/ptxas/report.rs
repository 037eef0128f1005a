//! What ptxas says of each function it assembles (`ptxas -v`), parsed: registers, barriers,
//! stack frame, spill stores and loads, shared memory, and the warnings and advisories
//! naming the function. A test that wants a kernel free of spills, stack and serialised
//! wgmmas says so in one line:
//!
//! ```no_run
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_90A);
//! m.kernel("k", |k, (out, v): (GlobalPtr<U32>, Reg<U32>)| k.st(out, v))?;
//! let px = ptxkit::ptxas::find().expect("ptxas");
//! let report = ptxkit::ptxas::report(&px, &m.to_ptx()?, Target::SM_90A)?;
//! report.check_clean(Some(32))?; // at most 32 registers, no spill, no stack, no warning
//! assert!(report.kernel("k").is_some_and(|k| k.registers <= 32));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::core::Target;
use std::path::Path;

/// One function's resources, as ptxas reported them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelReport {
    /// The function's name.
    pub name: String,
    /// Registers per thread (for a kernel with `.maxnreg` and `setmaxnreg`, the count it
    /// starts with).
    pub registers: u32,
    /// Named barriers it uses.
    pub barriers: u32,
    /// Bytes of stack frame per thread.
    pub stack_frame: u32,
    /// Bytes stored to and loaded from local memory for spilled registers.
    pub spill_stores: u32,
    pub spill_loads: u32,
    /// Bytes of static shared memory.
    pub shared: u32,
    /// ptxas's warnings and advisories that name the function (the C75xx wgmma messages:
    /// a wait or arrive it injected, a pipeline it serialised), verbatim.
    pub notes: Vec<String>,
}

/// What ptxas reported for a module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Each function, in the order ptxas reported them.
    pub kernels: Vec<KernelReport>,
    /// Warnings and advisories that name no function.
    pub notes: Vec<String>,
}

impl KernelReport {
    /// What is wrong for a kernel meant to be lean: spills, a stack frame, more than
    /// `max_registers` registers, any warning, or an advisory that wgmmas were serialised
    /// ("Potential Performance Loss"). Injected waits and arrives (C7517, C7519) are
    /// advisories ptxas makes of correct code, and are not counted.
    pub fn problems(&self, max_registers: Option<u32>) -> Vec<String> {
        let mut out = vec![];
        let name = &self.name;
        if self.spill_stores > 0 || self.spill_loads > 0 {
            out.push(format!("{name}: {} bytes of spill stores, {} of spill loads", self.spill_stores, self.spill_loads));
        }
        if self.stack_frame > 0 {
            out.push(format!("{name}: a stack frame of {} bytes", self.stack_frame));
        }
        if let Some(cap) = max_registers.filter(|&cap| self.registers > cap) {
            out.push(format!("{name}: {} registers, more than {cap}", self.registers));
        }
        for n in &self.notes {
            if n.contains("warning") || n.contains("Potential Performance Loss") {
                out.push(format!("{name}: {n}"));
            }
        }
        out
    }
}

impl Report {
    /// The report of the function `name`.
    pub fn kernel(&self, name: &str) -> Option<&KernelReport> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// `Err` listing every function's [`KernelReport::problems`], and the module's warnings
    /// and serialisation advisories.
    pub fn check_clean(&self, max_registers: Option<u32>) -> Result<(), String> {
        let mut all: Vec<String> = self.kernels.iter().flat_map(|k| k.problems(max_registers)).collect();
        all.extend(self.notes.iter().filter(|n| n.contains("warning") || n.contains("Potential Performance Loss")).cloned());
        if all.is_empty() {
            Ok(())
        } else {
            Err(all.join("\n"))
        }
    }
}

/// Assembles `ptx` for `target` with `-v` and parses what ptxas reported; `Err` carries its
/// messages when it refused the text.
pub fn report(ptxas: &Path, ptx: &str, target: Target) -> Result<Report, String> {
    super::resources(ptxas, ptx, target).map(|lines| parse(&lines))
}

/// The first number in `s` after `key` (`"Used "` in `"Used 40 registers"`).
fn number_after(s: &str, key: &str) -> Option<u32> {
    let rest = &s[s.find(key)? + key.len()..];
    rest.split(|c: char| !c.is_ascii_digit()).find(|t| !t.is_empty())?.parse().ok()
}

/// The number just before `unit` in a comma-separated list (`"1024 bytes smem"`).
fn number_before(s: &str, unit: &str) -> Option<u32> {
    s.split(',').find(|p| p.trim_end().ends_with(unit))?.split_whitespace().find_map(|t| t.parse().ok())
}

/// Parses `ptxas -v` output: a function's record starts at `Function properties for NAME`
/// (its stack and spill line follows) and takes the `Used … registers` line after it;
/// a message saying `in function 'NAME'` or `in the function 'NAME'` goes to that function.
pub fn parse(lines: &[String]) -> Report {
    let mut r = Report::default();
    let mut pending_notes: Vec<(String, String)> = vec![];
    let mut current: Option<usize> = None;
    for line in lines {
        let l = line.trim();
        if l.is_empty() {
            continue;
        }
        if let Some(name) = l.split("Function properties for ").nth(1) {
            let name = name.trim().to_string();
            current = Some(match r.kernels.iter().position(|k| k.name == name) {
                Some(i) => i,
                None => {
                    r.kernels.push(KernelReport { name, ..KernelReport::default() });
                    r.kernels.len() - 1
                }
            });
        } else if l.contains("bytes stack frame") {
            if let Some(k) = current.map(|i| &mut r.kernels[i]) {
                k.stack_frame = number_before(l, "bytes stack frame").unwrap_or(0);
                k.spill_stores = number_before(l, "bytes spill stores").unwrap_or(0);
                k.spill_loads = number_before(l, "bytes spill loads").unwrap_or(0);
            }
        } else if l.contains("Used ") && l.contains(" registers") {
            if let Some(k) = current.map(|i| &mut r.kernels[i]) {
                k.registers = number_after(l, "Used ").unwrap_or(0);
                k.barriers = number_before(l, "barriers").unwrap_or(0);
                k.shared = number_before(l, "bytes smem").unwrap_or(0);
            }
        } else if let Some(name) =
            ["in function '", "in the function '"].iter().find_map(|key| l.split(key).nth(1)).and_then(|t| t.split('\'').next())
        {
            pending_notes.push((name.to_string(), l.to_string()));
        } else if l.contains("warning") || l.contains("(C7") {
            r.notes.push(l.to_string());
        }
    }
    // Messages about a function may come before its record.
    for (name, note) in pending_notes {
        match r.kernels.iter_mut().find(|k| k.name == name) {
            Some(k) => k.notes.push(note),
            None => r.notes.push(note),
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_kernel_record_and_its_advisories() {
        let text = "ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized due to x in the function 'attn'
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'attn' for 'sm_90a'
ptxas info    : Function properties for attn
    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 168 registers, used 3 barriers, 1024 bytes smem
ptxas info    : Function properties for helper
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas warning : something about the module";
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let r = parse(&lines);
        let attn = r.kernel("attn").expect("attn's record");
        assert_eq!((attn.registers, attn.barriers, attn.shared), (168, 3, 1024));
        assert_eq!((attn.stack_frame, attn.spill_stores, attn.spill_loads), (16, 8, 4));
        assert_eq!(attn.notes.len(), 1);
        assert_eq!(attn.problems(Some(200)).len(), 3, "{:?}", attn.problems(Some(200)));
        assert_eq!(attn.problems(Some(100)).len(), 4);
        let helper = r.kernel("helper").expect("helper's record");
        assert_eq!((helper.registers, helper.stack_frame), (0, 0));
        assert!(helper.problems(None).is_empty());
        assert_eq!(r.notes, ["ptxas warning : something about the module"]);
        let err = r.check_clean(None).unwrap_err();
        assert!(
            err.contains("spill") && err.contains("stack frame") && err.contains("Potential Performance Loss") && err.contains("module"),
            "{err}"
        );
    }
}
