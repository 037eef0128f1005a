//! Typed values beyond plain registers: immediates (with legal-value sets), special
//! registers, pointers typed by state space and the addresses built from them, symbols,
//! tensor-map coordinates, texture, sampler and surface handles and their coordinates,
//! tensor-memory addresses, and registers with the part selectors of the video
//! instructions (`a.b1()`, negated `-a`), and registers wider than an instruction's type
//! (`r.wide()`), or in braces (`r.braced()`). Registers themselves are in
//! [`crate::types`]; every value here lowers to the untyped IR through
//! [`Operand`](crate::ops::Operand).

mod handle;
mod imm;
mod part;
mod ptr;
mod sreg_table;
mod wide;

pub use crate::core::{BranchTargets, Label};
pub use crate::types::{IntoGuard, NotPred, Reg};
pub use handle::{At, Sampler, Surface, TexSampler, Texture};
pub use imm::{Const, IntImm};
pub use part::{Negative, Part};
pub use ptr::{
    elem_bytes, Address, ConstPtr, Elem, GenericPtr, GlobalPtr, Index, LocalPtr, ParamPtr, PointsTo, Ptr, SharedPtr, SymAddr, TensorAt,
    TmemAddr,
};
pub use sreg_table::{sreg, SReg};
pub use wide::{Braced, BracedDst, Wide};
