//! Where the executing thread is: its lane, its rank in the block, its global index.
//!
//! ```
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_80);
//! m.kernel("where", |k, (out,): (GlobalPtr<U32>,)| {
//!     let i = k.global_thread_index_x();
//!     let lane = k.lane_id();
//!     k.st(out.at(i), lane);
//! })?;
//! let text = m.to_ptx()?;
//! assert!(text.contains("mad.lo.u32") && text.contains("%laneid"));
//! # Ok::<(), ptxkit::Error>(())
//! ```

use super::sealed::Sealed;
use crate::builder::Kernel;
use crate::ptx;
use crate::regs::{sreg, Reg};
use crate::types::U32;

/// Thread indices, as [`Kernel`] methods (in scope with `use ptxkit::prelude::*`).
pub trait ThreadIndex: Sealed {
    /// The warp size (`WARP_SZ`, 32 on NVIDIA GPUs).
    fn warp_size(&mut self) -> Reg<U32>;
    /// This thread's lane in its warp, from 0 (`%laneid`).
    fn lane_id(&mut self) -> Reg<U32>;
    /// This thread's index in its block, flattened over x, y and z.
    fn thread_rank(&mut self) -> Reg<U32>;
    /// The thread's index over the grid in x: `%ctaid.x * %ntid.x + %tid.x`.
    fn global_thread_index_x(&mut self) -> Reg<U32>;
}

impl ThreadIndex for Kernel {
    #[track_caller]
    fn warp_size(&mut self) -> Reg<U32> {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        ptx!(self, "mov.u32", sreg::WARP_SZ)
    }
    #[track_caller]
    fn lane_id(&mut self) -> Reg<U32> {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        ptx!(self, "mov.u32", sreg::LANEID)
    }
    #[track_caller]
    fn thread_rank(&mut self) -> Reg<U32> {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        let (tx, ty, tz) = (ptx!(self, "mov.u32", sreg::TID_X), ptx!(self, "mov.u32", sreg::TID_Y), ptx!(self, "mov.u32", sreg::TID_Z));
        let (nx, ny) = (ptx!(self, "mov.u32", sreg::NTID_X), ptx!(self, "mov.u32", sreg::NTID_Y));
        let zy = ptx!(self, "mad.lo.u32", tz, ny, ty);
        ptx!(self, "mad.lo.u32", zy, nx, tx)
    }
    #[track_caller]
    fn global_thread_index_x(&mut self) -> Reg<U32> {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        let tid = ptx!(self, "mov.u32", sreg::TID_X);
        let ntid = ptx!(self, "mov.u32", sreg::NTID_X);
        let ctaid = ptx!(self, "mov.u32", sreg::CTAID_X);
        ptx!(self, "mad.lo.u32", ctaid, ntid, tid)
    }
}
