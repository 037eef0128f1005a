//! Kernel directives (`.maxntid`, `.reqntid`, `.minnctapersm`, `.maxnreg`, cluster shape),
//! each given at most once, on kernels only, with values a launch can meet; their ISA
//! needs are checked like instructions'.

use crate::core::kernel::{BodyKind, Directive};
use crate::core::Kernel;

impl Kernel {
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
    fn block_shape_ok(&mut self, d: Directive, x: u32, y: u32, z: u32) -> bool {
        let threads = x as u128 * y as u128 * z as u128;
        let ok = x <= 1024 && y <= 1024 && z <= 64 && threads <= 1024;
        if !ok {
            self.invalid(format!("{} {x}, {y}, {z}: a block has at most 1024 threads, 1024 in x and y and 64 in z", d.keyword()));
        }
        ok
    }
    /// `.maxntid x, y, z`
    pub fn maxntid(&mut self, x: u32, y: u32, z: u32) {
        if self.block_shape_ok(Directive::MaxNTid(x, y, z), x, y, z) {
            self.directive(Directive::MaxNTid(x, y, z), &[x, y, z]);
        }
    }
    /// `.reqntid x, y, z`
    pub fn reqntid(&mut self, x: u32, y: u32, z: u32) {
        if self.block_shape_ok(Directive::ReqNTid(x, y, z), x, y, z) {
            self.directive(Directive::ReqNTid(x, y, z), &[x, y, z]);
        }
    }
    /// `.minnctapersm n`
    pub fn minnctapersm(&mut self, n: u32) {
        self.directive(Directive::MinNCtaPerSm(n), &[n]);
    }
    /// `.maxnreg n` (24 to 255: ptxas raises a smaller cap to 24, with a warning)
    pub fn maxnreg(&mut self, n: u32) {
        if !(24..=255).contains(&n) {
            self.invalid(format!(".maxnreg {n} is outside 24..=255"));
            return;
        }
        self.directive(Directive::MaxNReg(n), &[n]);
    }
    /// `.reqnctapercluster x, y, z`
    pub fn reqnctapercluster(&mut self, x: u32, y: u32, z: u32) {
        self.directive(Directive::ReqNCtaPerCluster(x, y, z), &[x, y, z]);
    }
    /// `.explicitcluster`
    pub fn explicitcluster(&mut self) {
        self.directive(Directive::ExplicitCluster, &[1]);
    }
    /// `.maxclusterrank n`
    pub fn maxclusterrank(&mut self, n: u32) {
        self.directive(Directive::MaxClusterRank(n), &[n]);
    }
}
