//! Kernel directives (`.maxntid`, `.reqntid`, `.minnctapersm`, `.maxnreg`, cluster shape),
//! each given at most once, on kernels only, with values a launch can meet; their ISA
//! needs are checked like instructions'.

use crate::core::kernel::{BodyKind, Directive};
use crate::core::{Kernel, Target};

impl Kernel {
    #[track_caller]
    fn directive(&mut self, d: Directive, vals: &[u32]) {
        if self.kind != BodyKind::Entry {
            self.invalid(format!("{} applies to kernels only", d.keyword()));
        } else if vals.contains(&0) {
            self.invalid(format!("{} takes positive values", d.keyword()));
        } else if self.directives.iter().any(|x| x.keyword() == d.keyword()) {
            self.invalid(format!("{} given twice", d.keyword()));
        } else {
            self.directives.push(d);
        }
    }
    /// A block shape no launch can have: more than 1,024 threads, or a dimension beyond
    /// 1,024 (x, y) or 64 (z).
    #[track_caller]
    fn block_shape_ok(&mut self, d: Directive, x: u32, y: u32, z: u32) -> bool {
        let threads = x as u128 * y as u128 * z as u128;
        let ok = x <= 1024 && y <= 1024 && z <= 64 && threads <= 1024;
        if !ok {
            self.invalid(format!("{} {x}, {y}, {z}: a block has at most 1024 threads, 1024 in x and y and 64 in z", d.keyword()));
        }
        ok
    }
    /// A `.loc` line of another source, for code generated from it (as a compiler writes
    /// it): `text` is what follows `.loc`, `1 12 3`, or with inlining, `1 13 5,
    /// function_name $L__info_string0, inlined_at 1 12 3`. Its file number names a `.file`
    /// line of the module ([`Module::raw`](crate::Module::raw)). Not with the module's own
    /// line info, whose `.loc` lines name the Rust source.
    #[track_caller]
    pub fn loc(&mut self, text: &str) {
        let ok = text.split([' ', ',']).next().is_some_and(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
            && !text.contains(['\n', '\r', ';', '{', '}']);
        if !ok {
            self.invalid(format!("`.loc {text}`: a .loc line is a file number, a line and a column, and what may follow them on one line"));
        } else if self.line_info {
            self.invalid("`.loc` lines of another source need the module's line info off".into());
        } else {
            self.push_text(format!("\t.loc {text}"));
        }
    }
    /// `.maxntid x, y, z`
    #[track_caller]
    pub fn maxntid(&mut self, x: u32, y: u32, z: u32) {
        if self.block_shape_ok(Directive::MaxNTid(x, y, z), x, y, z) {
            self.directive(Directive::MaxNTid(x, y, z), &[x, y, z]);
        }
    }
    /// `.reqntid x, y, z`
    #[track_caller]
    pub fn reqntid(&mut self, x: u32, y: u32, z: u32) {
        if self.block_shape_ok(Directive::ReqNTid(x, y, z), x, y, z) {
            self.directive(Directive::ReqNTid(x, y, z), &[x, y, z]);
        }
    }
    /// `.minnctapersm n`
    #[track_caller]
    pub fn minnctapersm(&mut self, n: u32) {
        self.directive(Directive::MinNCtaPerSm(n), &[n]);
    }
    /// `.maxnreg n` (24 to 255: ptxas raises a smaller cap to 24, with a warning)
    #[track_caller]
    pub fn maxnreg(&mut self, n: u32) {
        if !(24..=255).contains(&n) {
            self.invalid(format!(".maxnreg {n} is outside 24..=255"));
            return;
        }
        self.directive(Directive::MaxNReg(n), &[n]);
    }
    /// `.reqnctapercluster x, y, z`
    #[track_caller]
    pub fn reqnctapercluster(&mut self, x: u32, y: u32, z: u32) {
        self.directive(Directive::ReqNCtaPerCluster(x, y, z), &[x, y, z]);
    }
    /// `.explicitcluster`
    #[track_caller]
    pub fn explicitcluster(&mut self) {
        self.directive(Directive::ExplicitCluster, &[1]);
    }
    /// `.maxclusterrank n`
    #[track_caller]
    pub fn maxclusterrank(&mut self, n: u32) {
        self.directive(Directive::MaxClusterRank(n), &[n]);
    }

    /// Declares the kernel `.weak .entry` rather than `.visible .entry`: a definition the
    /// linker may merge with another of the same name, as compilers declare the kernels of a
    /// C++ template. Kernels only.
    ///
    /// ```
    /// use ptxkit::prelude::*;
    ///
    /// let mut m = Module::new(Target::SM_80);
    /// m.kernel("scale_f32", |k, (): ()| k.weak())?;
    /// assert!(m.to_ptx()?.contains(".weak .entry scale_f32("));
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    #[track_caller]
    pub fn weak(&mut self) {
        if self.kind != crate::core::kernel::BodyKind::Entry {
            self.invalid("`weak` is a kernel's linkage; a device function has its own (`Linkage::Weak`)".into());
        }
        self.linkage = ".weak ";
    }

    /// The directives together, for a kernel on `target`: the combinations ptxas refuses
    /// (`.maxntid` with `.reqntid`, `.reqnctapercluster` with `.maxclusterrank`), and those it
    /// would warn about and ignore (`.minnctapersm` without a block size, or asking for more
    /// CTAs or threads than an SM holds; `setmaxnreg` in a kernel whose register count at
    /// entry ptxas cannot tell).
    #[track_caller]
    pub(crate) fn check_directives(&mut self, target: Target) {
        let find = |k: &Kernel, kw: &str| k.directives.iter().find(|d| d.keyword() == kw).cloned();
        let block = match (find(self, ".maxntid"), find(self, ".reqntid")) {
            (Some(_), Some(_)) => {
                self.invalid(".maxntid and .reqntid cannot both be given: .reqntid already bounds the block".into());
                None
            }
            (Some(Directive::MaxNTid(x, y, z)), None) | (None, Some(Directive::ReqNTid(x, y, z))) => Some(x * y * z),
            _ => None,
        };
        if find(self, ".reqnctapercluster").is_some() && find(self, ".maxclusterrank").is_some() {
            self.invalid(".reqnctapercluster and .maxclusterrank cannot both be given: the cluster shape fixes its size".into());
        }
        let min_ctas = find(self, ".minnctapersm").map(|d| if let Directive::MinNCtaPerSm(n) = d { n } else { 0 });
        if let Some(n) = min_ctas {
            let (ctas, threads) = target.per_sm();
            match block {
                // ptxas ignores it (with a warning) without a block size to divide by.
                None => self.invalid(".minnctapersm needs .maxntid or .reqntid".into()),
                Some(_) if n > ctas => self.invalid(format!(".minnctapersm {n}: an SM of {target} holds at most {ctas} CTAs")),
                Some(b) if n as u64 * b as u64 > threads as u64 => {
                    self.invalid(format!(".minnctapersm {n} of {b} threads each: an SM of {target} holds at most {threads} threads"))
                }
                Some(_) => {}
            }
        }
        let sized = find(self, ".maxnreg").is_some() || (min_ctas.is_some() && block.is_some());
        if !sized && self.forms.iter().any(|f| f.chain.starts_with("setmaxnreg.")) {
            // ptxas drops it ("unable to determine register count at entry", C7508).
            self.invalid(
                "setmaxnreg needs the register count at entry: give the kernel .maxnreg, or \
                 .minnctapersm with .maxntid or .reqntid"
                    .into(),
            );
        }
    }
}
