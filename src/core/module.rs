//! A PTX module under construction: target, variables, device functions and kernels. The
//! typed ways to add to it (`Module::kernel`, `Module::func`, variables) are in
//! `crate::builder`.

use super::desc::TexMode;
use super::error::{check_ident, Error};
use super::kernel::{fresh_id, BodyKind, Kernel};
use super::target::{Target, Version};

pub(crate) enum Item {
    Body(Kernel),
    Var(String),
}

/// The symbol of the launch's dynamic shared memory (`.extern .shared` at module scope).
pub(crate) const DYN_SMEM: &str = "ptxkit_dynamic_smem";

/// A PTX module: target, variables, device functions and kernels.
pub struct Module {
    pub(crate) id: u32,
    pub(crate) target: Target,
    pub(crate) version: Option<Version>,
    /// The newest `.version` inference may pick ([`Version::MAX`] unless raised).
    pub(crate) version_limit: Version,
    pub(crate) items: Vec<Item>,
    names: Vec<String>,
    /// Skip the ISA checks (for the ptxas sweep, which asks ptxas instead).
    pub(crate) unchecked: bool,
    /// How texture lookups find their sampler state (`.target ..., texmode_independent`).
    pub(crate) tex_mode: TexMode,
    /// The first kernel or function that failed to build: the module then has no text.
    pub(crate) failed: Option<Error>,
    /// Whether bodies built from now on record the Rust source line of each instruction.
    pub(crate) line_info: bool,
    /// Options of `.target` after the target and the texturing mode, kept from imported
    /// text (`debug`, `map_f64_to_f32`).
    pub(crate) target_options: Vec<String>,
}

impl Module {
    /// A module for `target`; `.version` is inferred from what the module uses.
    pub fn new(target: Target) -> Module {
        Module {
            id: fresh_id(),
            target,
            version: None,
            version_limit: Version::MAX,
            items: Vec::new(),
            names: Vec::new(),
            unchecked: false,
            tex_mode: TexMode::Unified,
            failed: None,
            line_info: false,
            target_options: Vec::new(),
        }
    }

    pub fn target(&self) -> Target {
        self.target
    }

    /// Asks for a specific `.version`; printing fails if the module needs a newer one.
    pub fn set_version(&mut self, v: Version) {
        self.version = Some(v);
    }

    /// The newest `.version` inference may pick: [`Version::MAX`] (PTX ISA 9.0, what CUDA
    /// 13.0's ptxas and driver take) unless raised. A module whose instructions or target
    /// need a newer ISA (an ISA 9.2 form, sm_107) fails to print with
    /// [`Error::NeedsNewerIsa`], naming what needs it and the CUDA release that brings it,
    /// instead of giving text the toolchain refuses. Raise it to use those forms (and
    /// assemble with a ptxas that takes the version, [`crate::ptxas::compile`]):
    ///
    /// ```
    /// use ptxkit::prelude::*;
    ///
    /// let build = |limit: Option<Version>| {
    ///     let mut m = Module::new(Target::SM_120F);
    ///     if let Some(v) = limit {
    ///         m.max_version(v);
    ///     }
    ///     m.kernel("k", |k, (x, out): (GlobalPtr<B32>, GlobalPtr<B32>)| {
    ///         let a = k.ld(x.offset(0));
    ///         let b = k.ld(x.offset(1));
    ///         let s = ptx!(k, "add.sat.u8x4", a, b); // PTX ISA 9.2
    ///         k.st(out.offset(0), s);
    ///     })?;
    ///     m.to_ptx()
    /// };
    /// let err = build(None).unwrap_err().to_string();
    /// assert!(err.contains("needs PTX ISA 9.2 (CUDA 13.2"), "{err}");
    /// assert!(build(Some(Version::NEWEST))?.contains(".version 9.2"));
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    pub fn max_version(&mut self, v: Version) -> &mut Self {
        self.version_limit = v;
        self
    }

    /// The texturing mode: [`TexMode::Unified`] unless set.
    pub fn tex_mode(&self) -> TexMode {
        self.tex_mode
    }

    /// Sets the texturing mode, before anything is added to the module (its bodies and
    /// variables are built for one mode). In the independent mode a texture lookup names a
    /// sampler (`[tex, smp, {..}]`) and `.samplerref` variables may be declared; in the
    /// unified mode (the default, what CUDA's texture objects are) the texture carries its
    /// sampler state. A lookup of the other mode is an error when the kernel is built.
    pub fn set_tex_mode(&mut self, mode: TexMode) -> Result<(), Error> {
        if !self.items.is_empty() && mode != self.tex_mode {
            return Err(Error::InvalidArgument {
                kernel: String::new(),
                what: "the texturing mode must be set before the module has variables or bodies".into(),
            });
        }
        self.tex_mode = mode;
        Ok(())
    }

    /// Line info: with it on, each instruction of the bodies built afterwards carries a
    /// `.loc` naming the Rust file, line and column that emitted it (for `ptx!` and the
    /// typed calls, the user's line; for a helper, the helper's own line inside it), after
    /// `.file` entries for the files, so that `ptxas -lineinfo`, compute-sanitizer and
    /// `ncu --print-source` point at Rust. Off (the default), the text is as without it.
    ///
    /// ```
    /// use ptxkit::prelude::*;
    ///
    /// let mut m = Module::new(Target::SM_80);
    /// m.set_line_info(true);
    /// m.kernel("k", |k, (x,): (Reg<U32>,)| {
    ///     let _ = ptx!(k, "add.u32", x, 1u32); let here = line!();
    ///     assert!(here > 0);
    /// })?;
    /// let text = m.to_ptx()?;
    /// assert!(text.contains(".file 1 \"src/core/module.rs\"") || text.contains(".file 1"));
    /// assert!(text.lines().any(|l| l.trim_start().starts_with(".loc 1 ")));
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    pub fn set_line_info(&mut self, on: bool) {
        self.line_info = on;
    }

    /// Marks the module as a debug build (`.target sm_80, debug`, what nvcc `-G` writes):
    /// ptxas then keeps the module's DWARF sections and assembles it without optimisation
    /// unless told otherwise. Bodies' `.loc` lines ([`Kernel::loc`](crate::Kernel::loc)) and
    /// the `@@DWARF` and `.section` text ([`Module::raw`](crate::Module::raw)) are the
    /// caller's.
    ///
    /// ```
    /// use ptxkit::prelude::*;
    /// let mut m = Module::new(Target::SM_80);
    /// m.set_debug(true);
    /// m.kernel("k", |_, (): ()| {})?;
    /// assert!(m.to_ptx()?.contains(".target sm_80, debug\n"));
    /// m.set_debug(false);
    /// assert!(m.to_ptx()?.contains(".target sm_80\n"));
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    pub fn set_debug(&mut self, on: bool) {
        self.target_options.retain(|o| o != "debug");
        if on {
            self.target_options.push("debug".into());
        }
    }

    /// A new body of this module, built for its texturing mode and line info.
    pub(crate) fn new_body(&self, name: &str, kind: BodyKind) -> Kernel {
        let mut k = Kernel::new(name, self.id, kind);
        k.tex_mode = self.tex_mode;
        k.line_info = self.line_info;
        k
    }

    /// Reserves a module-scope name.
    pub(crate) fn claim(&mut self, name: &str) -> Result<(), Error> {
        check_ident(name)?;
        if self.claimed(name) || name == DYN_SMEM {
            return Err(Error::DuplicateSymbol { name: name.to_string() });
        }
        self.names.push(name.to_string());
        Ok(())
    }

    /// Records a name that imported text defines (already checked by ptxas's rules, which
    /// admit names the builder's own do not, such as `$str`); a second definition is an error.
    pub(crate) fn claim_imported(&mut self, name: &str) -> Result<(), Error> {
        if self.claimed(name) {
            return Err(Error::DuplicateSymbol { name: name.to_string() });
        }
        self.names.push(name.to_string());
        Ok(())
    }

    /// Takes the kernel or function `name` out of the module (to define it anew with the
    /// builder, say); false when the module has none.
    pub fn remove(&mut self, name: &str) -> bool {
        let before = self.items.len();
        self.items.retain(|i| match i {
            Item::Body(k) => &*k.name != name,
            Item::Var(_) => true,
        });
        let removed = self.items.len() < before;
        if removed {
            self.unclaim(name);
        }
        removed
    }

    /// The names of the module's kernels and functions with bodies, in order.
    pub fn bodies(&self) -> Vec<&str> {
        self.items.iter().filter_map(|i| if let Item::Body(k) = i { Some(&*k.name) } else { None }).collect()
    }

    /// The kernel or function `name`, to read its statements.
    pub fn body(&self, name: &str) -> Option<&Kernel> {
        self.items.iter().find_map(|i| match i {
            Item::Body(k) if &*k.name == name => Some(k),
            _ => None,
        })
    }

    /// Whether the module defines `name`.
    pub(crate) fn claimed(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    /// Frees a name (of a body taken out of the module).
    pub(crate) fn unclaim(&mut self, name: &str) {
        self.names.retain(|n| n != name);
    }

    /// Adds a finished body (a kernel or a function named `name`), or records why it could
    /// not be built: a module with a failed kernel or function prints no text. `build` checks
    /// the body (against the module's target first, then what else the caller checks).
    pub(crate) fn add_body<R>(&mut self, name: &str, build: impl FnOnce(&mut Module) -> Result<(Kernel, R), Error>) -> Result<R, Error> {
        let built = self.claim(name).and_then(|()| build(self));
        match built {
            Ok((k, r)) => {
                self.items.push(Item::Body(k));
                Ok(r)
            }
            Err(e) => {
                if self.failed.is_none() {
                    self.failed = Some(Error::BuildFailed { kernel: name.to_string(), error: Box::new(e.clone()) });
                }
                Err(e)
            }
        }
    }
}
