//! A PTX module under construction: target, variables, device functions and kernels. The
//! typed ways to add to it (`Module::kernel`, `Module::func`, variables) are in
//! `crate::builder`.

use super::error::{check_ident, Error};
use super::kernel::{fresh_id, Kernel};
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
    pub(crate) items: Vec<Item>,
    names: Vec<String>,
    /// Skip the ISA checks (for the ptxas sweep, which asks ptxas instead).
    pub(crate) unchecked: bool,
}

impl Module {
    /// A module for `target`; `.version` is inferred from what the module uses.
    pub fn new(target: Target) -> Module {
        Module { id: fresh_id(), target, version: None, items: Vec::new(), names: Vec::new(), unchecked: false }
    }

    pub fn target(&self) -> Target {
        self.target
    }

    /// Asks for a specific `.version`; printing fails if the module needs a newer one.
    pub fn set_version(&mut self, v: Version) {
        self.version = Some(v);
    }

    /// Reserves a module-scope name.
    pub(crate) fn claim(&mut self, name: &str) -> Result<(), Error> {
        check_ident(name)?;
        if self.names.iter().any(|n| n == name) || name == DYN_SMEM {
            return Err(Error::DuplicateSymbol { name: name.to_string() });
        }
        self.names.push(name.to_string());
        Ok(())
    }

    /// The whole module as PTX text, with `.version` inferred and every instruction
    /// checked against the target.
    pub fn to_ptx(&self) -> Result<String, Error> {
        super::print::module(self)
    }
}
