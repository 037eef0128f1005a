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

/// What the ptxas at `px` assembles, as `isa.tsv` records it per release: the targets it
/// knows and the newest `.version` it takes (ptxas 13.0.88: no sm_107, ISA up to 9.0). Tests
/// that draw targets, versions or forms keep to these and say how many they leave to a newer
/// release; `.ci/run` runs the forms tests under each release.
pub struct Release {
    pub name: String,
    pub newest: ptxkit::builder::Version,
}

impl Release {
    pub fn of(px: &std::path::Path) -> Release {
        let name = ptxkit::ptxas::version(px).unwrap_or_else(|e| panic!("{e}"));
        let newest = ptxkit::ops::isa::newest_of(&name).unwrap_or(ptxkit::builder::Version::MAX);
        Release { name, newest }
    }
    /// Whether the release knows the target.
    pub fn knows(&self, t: ptxkit::builder::Target) -> bool {
        ptxkit::ops::isa::target_version_of(t, &self.name).is_some()
    }
    /// The targets the release knows, in `Target::ALL`'s order.
    pub fn targets(&self) -> Vec<ptxkit::builder::Target> {
        ptxkit::builder::Target::ALL.iter().copied().filter(|t| self.knows(*t)).collect()
    }
    /// The release's own requirement of a form; `None` for a form newer than it.
    pub fn req(&self, f: &ptxkit::ops::FormDesc) -> Option<ptxkit::ops::isa::Req> {
        let r = f.req_of(&self.name)?;
        let known = self.targets().iter().fold(0u64, |m, t| m | 1 << t.index());
        (r.targets & known != 0).then_some(ptxkit::ops::isa::Req { version: r.version, targets: r.targets & known })
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

/// The sections of a cubin (a 64-bit ELF file) that hold its code and data, by name: all
/// but the debug sections (`.debug_*`, `.nv_debug_*`, which under line info hold the PTX
/// text itself) and the symbol and string tables (which name the PTX text's debug section
/// by a hash of the text).
pub fn code_sections(elf: &[u8]) -> Vec<(String, Vec<u8>)> {
    let u16_at = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap()) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap()) as usize;
    assert_eq!(&elf[..5], b"\x7fELF\x02", "a 64-bit ELF file");
    let (shoff, shentsize, shnum, shstrndx) = (u64_at(0x28), u16_at(0x3A), u16_at(0x3C), u16_at(0x3E));
    let strtab = u64_at(shoff + shstrndx * shentsize + 24);
    (0..shnum)
        .filter_map(|i| {
            let h = shoff + i * shentsize;
            let at = strtab + u32_at(h);
            let name = String::from_utf8_lossy(&elf[at..at + elf[at..].iter().position(|&b| b == 0).unwrap()]).into_owned();
            let (kind, offset, size) = (u32_at(h + 4), u64_at(h + 24), u64_at(h + 32));
            let skip = name.contains("debug") || matches!(name.as_str(), ".symtab" | ".strtab" | ".shstrtab");
            // SHT_NOBITS (8) has no bytes in the file.
            (!skip).then(|| (name, if kind == 8 { vec![] } else { elf[offset..offset + size].to_vec() }))
        })
        .collect()
}
