//! The untyped core under the typed facade: data types and register classes known at run
//! time, form descriptors, part selectors, the instruction list (IR), kernels and modules under
//! construction, targets and versions, the ISA requirements measured by ptxas, errors, and
//! the printer. Everything above (`types`, `ops`, `regs`, `builder`, `intrinsics`) lowers
//! to what is here; nothing here depends on them.

pub mod desc;
pub mod dtype;
pub mod error;
pub mod ir;
pub mod isa;
pub mod kernel;
pub mod module;
pub mod names;
pub(crate) mod print;
pub mod probes;
pub(crate) mod segments;
pub mod sel;
pub mod target;
pub mod wait_report;

pub use desc::{DstKind, FormDesc, Handles, Kind, Space, TexMode};
pub use dtype::{DType, Family, RegClass};
pub use error::{check_ident, Error};
pub use kernel::{BranchTargets, Directive, Kernel, Label, MAX_BRANCH_TARGETS};
pub use module::Module;
pub use probes::{Probes, WaitSite};
pub use sel::{Sel, SelSet};
pub use target::{Suffix, Target, Version};
pub use wait_report::{WaitRecord, WaitReport};
