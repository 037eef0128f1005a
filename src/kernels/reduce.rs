//! A device-wide sum in two passes: per-block partial sums, then one block that adds them.

use super::{add_f32, block_sum_to};
use crate::builder::{Error, KernelRef, Module};
use crate::prelude::*;

/// Threads per block of [`sum_partials`].
pub const SUM_BLOCK: usize = 512;

/// `x, partials, n`: one partial sum per block.
pub type SumParams = (GlobalPtr<F32>, GlobalPtr<F32>, Reg<U32>);

/// First pass of a device-wide sum: each block sums a grid-strided share of `x` (16-byte
/// loads, two in flight per thread, four accumulators) and reduces it with
/// [`block_reduce`](BlockOps::block_reduce); thread 0 writes the block's partial. Launch with
/// [`SUM_BLOCK`] threads per block; [`sum_final`] then adds the partials.
pub fn sum_partials(m: &mut Module) -> Result<KernelRef<SumParams>, Error> {
    m.kernel("sum_partials", |k, (x, partials, n): SumParams| {
        k.reqntid(SUM_BLOCK as u32, 1, 1);
        let i = k.global_thread_index_x();
        let nt = ptx!(k, "mov.u32", sreg::NTID_X);
        let nc = ptx!(k, "mov.u32", sreg::NCTAID_X);
        let stride = ptx!(k, "mul.lo.u32", nt, nc);
        let nvec = ptx!(k, "shr.u32", n, 2u32);
        let acc: [Reg<F32>; 4] = std::array::from_fn(|_| ptx!(k, "mov.f32", 0.0f32));
        let j = ptx!(k, "mov.u32", i);
        // Two vectors per iteration while both are in range.
        k.while_(
            |k| {
                let j2 = ptx!(k, "add.u32", j, stride);
                ptx!(k, "setp.lt.u32", j2, nvec)
            },
            |k| {
                let j2 = ptx!(k, "add.u32", j, stride);
                let e1 = ptx!(k, "shl.b32", j, 2u32).bitcast::<U32>();
                let e2 = ptx!(k, "shl.b32", j2, 2u32).bitcast::<U32>();
                let a = ptx!(k, "ld.global.nc.v4.f32", x.at(e1));
                let b = ptx!(k, "ld.global.nc.v4.f32", x.at(e2));
                for q in 0..4 {
                    ptx!(k, "add.rn.f32" => acc[q], acc[q], a[q]);
                    ptx!(k, "add.rn.f32" => acc[q], acc[q], b[q]);
                }
                ptx!(k, "add.u32" => j, j2, stride);
            },
        );
        let last = ptx!(k, "setp.lt.u32", j, nvec);
        k.if_(last, |k| {
            let e = ptx!(k, "shl.b32", j, 2u32).bitcast::<U32>();
            let a = ptx!(k, "ld.global.nc.v4.f32", x.at(e));
            for q in 0..4 {
                ptx!(k, "add.rn.f32" => acc[q], acc[q], a[q]);
            }
        });
        // The last n % 4 elements.
        let rem = ptx!(k, "and.b32", n, 3u32).bitcast::<U32>();
        let in_tail = ptx!(k, "setp.lt.u32", i, rem);
        k.if_(in_tail, |k| {
            let body = ptx!(k, "sub.u32", n, rem);
            let e = ptx!(k, "add.u32", body, i);
            let v = k.ld(x.at(e));
            ptx!(k, "add.rn.f32" => acc[0], acc[0], v);
        });
        let s01 = add_f32(k, acc[0], acc[1]);
        let s23 = add_f32(k, acc[2], acc[3]);
        let s = add_f32(k, s01, s23);
        block_sum_to::<SUM_BLOCK>(k, s, partials);
    })
}

/// Second pass of the sum: one block of 1024 threads adds `n` partials into `out[0]`.
pub fn sum_final(m: &mut Module) -> Result<KernelRef<SumParams>, Error> {
    m.kernel("sum_final", |k, (partials, out, n): SumParams| {
        k.reqntid(1024, 1, 1);
        let t = ptx!(k, "mov.u32", sreg::TID_X);
        let acc = ptx!(k, "mov.f32", 0.0f32);
        k.for_range(t, n, 1024, |k, j| {
            let v = k.ld(partials.at(j));
            ptx!(k, "add.rn.f32" => acc, acc, v);
        });
        let total = k.block_reduce_commutative::<1024, _>(acc, add_f32);
        let first = ptx!(k, "setp.eq.u32", t, 0u32);
        k.if_(first, |k| k.st(out.offset(0), total));
    })
}
