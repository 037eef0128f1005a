//! Kernel directives (`.maxntid`, `.reqntid`, `.minnctapersm`, `.maxnreg`, cluster shape),
//! each given at most once, on kernels only; their ISA needs are checked like instructions'.

use crate::core::kernel::{BodyKind, Directive};
use crate::core::Kernel;

impl Kernel {
    fn directive(&mut self, d: Directive, vals: &[u32]) {
        if self.kind != BodyKind::Entry {
            self.invalid(format!("{} applies to kernels only", d.keyword()));
        } else if vals.iter().any(|v| *v == 0) {
            self.invalid(format!("{} takes positive values", d.keyword()));
        } else if self.directives.iter().any(|x| x.keyword() == d.keyword()) {
            self.invalid(format!("{} given twice", d.keyword()));
        } else {
            self.directives.push(d);
        }
    }
    /// `.maxntid x, y, z`
    pub fn maxntid(&mut self, x: u32, y: u32, z: u32) {
        self.directive(Directive::MaxNTid(x, y, z), &[x, y, z]);
    }
    /// `.reqntid x, y, z`
    pub fn reqntid(&mut self, x: u32, y: u32, z: u32) {
        self.directive(Directive::ReqNTid(x, y, z), &[x, y, z]);
    }
    /// `.minnctapersm n`
    pub fn minnctapersm(&mut self, n: u32) {
        self.directive(Directive::MinNCtaPerSm(n), &[n]);
    }
    /// `.maxnreg n` (at most 255)
    pub fn maxnreg(&mut self, n: u32) {
        if n > 255 {
            self.invalid(format!(".maxnreg {n} exceeds 255"));
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
