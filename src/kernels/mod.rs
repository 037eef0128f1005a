//! Ready-made kernels built with the typed builder: the ones the examples and the
//! bandwidth benches run. Each takes element counts, so any length works; the vector forms
//! move 16 bytes per access and finish a ragged tail element by element.
//!
//! The copies, vector add and saxpy, the two-pass sum and the scans are each in a file of
//! their own; all of them are re-exported here.

pub mod attention;
mod copy;
pub mod gemm;
mod reduce;
mod scan;

pub use copy::*;
pub use reduce::*;
pub use scan::*;

use crate::builder::Kernel;
use crate::prelude::*;

/// `a + b`, rounded to nearest: the combining step of the sums and scans.
fn add_f32(k: &mut Kernel, a: Reg<F32>, b: Reg<F32>) -> Reg<F32> {
    ptx!(k, "add.rn.f32", a, b)
}

/// The block's sum of `s`, written by thread 0 to `out[blockIdx.x]`.
fn block_sum_to<const B: usize>(k: &mut Kernel, s: Reg<F32>, out: GlobalPtr<F32>)
where
    crate::intrinsics::Count<B>: crate::intrinsics::WarpMultiple,
{
    let total = k.block_reduce_commutative::<B, _>(s, add_f32);
    let t = ptx!(k, "mov.u32", sreg::TID_X);
    let first = ptx!(k, "setp.eq.u32", t, 0u32);
    let cta = ptx!(k, "mov.u32", sreg::CTAID_X);
    k.if_(first, |k| k.st(out.at(cta), total));
}
