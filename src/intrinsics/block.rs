//! Block collectives built on the warp ones: reduction and inclusive/exclusive scan over
//! the threads of a block, in thread-rank order, for any [`Value`] and associative
//! operator. The block size is a const parameter, a multiple of 32 up to 1024, checked by
//! the type system; each call takes its own shared-memory scratch (one word per warp and value
//! word) and synchronises the block with `bar.sync 0`, so every thread must reach it.
//!
//! ```
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_80);
//! m.kernel("block_sum", |k, (x, out): (GlobalPtr<U32>, GlobalPtr<U32>)| {
//!     let i = k.global_thread_index_x();
//!     let v = k.ld(x.at(i));
//!     let total = k.block_reduce::<256, _>(v, |k, a, b| ptx!(k, "add.u32", a, b));
//!     k.st(out.at(i), total);
//! }).unwrap();
//! assert!(m.to_ptx().unwrap().contains("bar.sync 0;"));
//! ```

use super::order::MemoryOps;
use super::sealed::Sealed;
use super::thread::ThreadIndex;
use super::warp::{reduce_lanes, LaneMask, Shfl, WarpOps};
use super::{from_words, select, words, Count, Value, WarpMultiple};
use crate::builder::Kernel;
use crate::ptx;
use crate::regs::{Reg, SharedPtr};
use crate::types::{Pred, B32, U32};

struct Shape {
    warp: Reg<U32>,
    lane: Reg<U32>,
    nwarps: u32,
}

/// Block collectives: reductions and scans over the threads of a block, as [`Kernel`]
/// methods (in scope with `use ptxkit::prelude::*`).
pub trait BlockOps: Sealed {
    /// Reduction over the `BLOCK` threads of the block, in thread order; every thread gets
    /// the result.
    fn block_reduce<const BLOCK: usize, V: Value>(&mut self, v: V, op: impl FnMut(&mut Kernel, V, V) -> V) -> V
    where
        Count<BLOCK>: WarpMultiple;

    /// [`block_reduce`](BlockOps::block_reduce) for an operator that commutes: each warp
    /// reduces with [`warp_reduce_commutative`](super::warp::WarpOps::warp_reduce_commutative).
    fn block_reduce_commutative<const BLOCK: usize, V: Value>(&mut self, v: V, op: impl FnMut(&mut Kernel, V, V) -> V) -> V
    where
        Count<BLOCK>: WarpMultiple;

    /// Inclusive scan over the `BLOCK` threads of the block in thread order.
    fn block_scan<const BLOCK: usize, V: Value>(&mut self, v: V, op: impl FnMut(&mut Kernel, V, V) -> V) -> V
    where
        Count<BLOCK>: WarpMultiple;

    /// Exclusive scan over the `BLOCK` threads of the block: thread 0 gets `identity`.
    fn block_scan_exclusive<const BLOCK: usize, V: Value>(&mut self, v: V, identity: V, op: impl FnMut(&mut Kernel, V, V) -> V) -> V
    where
        Count<BLOCK>: WarpMultiple;

    /// [`block_scan_exclusive`](BlockOps::block_scan_exclusive), and the combination of the
    /// whole block in every thread (one pass, no separate reduction).
    fn block_scan_exclusive_with_total<const BLOCK: usize, V: Value>(
        &mut self,
        v: V,
        identity: V,
        op: impl FnMut(&mut Kernel, V, V) -> V,
    ) -> (V, V)
    where
        Count<BLOCK>: WarpMultiple;
}

impl BlockOps for Kernel {
    #[track_caller]
    fn block_reduce<const BLOCK: usize, V: Value>(&mut self, v: V, op: impl FnMut(&mut Kernel, V, V) -> V) -> V
    where
        Count<BLOCK>: WarpMultiple,
    {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        reduce_block(self, BLOCK as u32, v, op, false)
    }

    #[track_caller]
    fn block_reduce_commutative<const BLOCK: usize, V: Value>(&mut self, v: V, op: impl FnMut(&mut Kernel, V, V) -> V) -> V
    where
        Count<BLOCK>: WarpMultiple,
    {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        reduce_block(self, BLOCK as u32, v, op, true)
    }

    #[track_caller]
    fn block_scan<const BLOCK: usize, V: Value>(&mut self, v: V, op: impl FnMut(&mut Kernel, V, V) -> V) -> V
    where
        Count<BLOCK>: WarpMultiple,
    {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        block_scan_parts::<V>(self, BLOCK as u32, v, op).0
    }

    #[track_caller]
    fn block_scan_exclusive<const BLOCK: usize, V: Value>(&mut self, v: V, identity: V, op: impl FnMut(&mut Kernel, V, V) -> V) -> V
    where
        Count<BLOCK>: WarpMultiple,
    {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        self.block_scan_exclusive_with_total::<BLOCK, V>(v, identity, op).0
    }

    #[track_caller]
    fn block_scan_exclusive_with_total<const BLOCK: usize, V: Value>(
        &mut self,
        v: V,
        identity: V,
        op: impl FnMut(&mut Kernel, V, V) -> V,
    ) -> (V, V)
    where
        Count<BLOCK>: WarpMultiple,
    {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        let (inc, prefix, total) = block_scan_parts::<V>(self, BLOCK as u32, v, op);
        let one: Reg<U32> = ptx!(self, "mov.u32", 1u32);
        let (up, in_warp) = self.shfl_checked(Shfl::Up, inc, one, LaneMask::FULL);
        // Lane 0 of warp w takes the total of warps before it (identity for warp 0).
        let lead = match prefix {
            Some((p, has_prefix)) => select(self, has_prefix, p, identity),
            None => identity,
        };
        (select(self, in_warp, up, lead), total)
    }
}

#[track_caller]
fn block_shape(k: &mut Kernel, block: u32) -> Shape {
    let t = k.thread_rank();
    let warp = ptx!(k, "shr.u32", t, 5u32);
    let lane = ptx!(k, "and.b32", t.bitcast::<B32>(), 31u32).bitcast::<U32>();
    Shape { warp, lane, nwarps: block / 32 }
}

#[track_caller]
fn scratch(k: &mut Kernel, words: u32) -> SharedPtr<B32> {
    let name = k.fresh_name("__ptxkit_scratch");
    k.shared_array::<B32>(&name, words.max(1), 4)
}

/// Stores `v`'s words at `slot` of `s` (slot-major: word `j` of slot `i` at `i*W + j`).
#[track_caller]
fn put<V: Value>(k: &mut Kernel, s: SharedPtr<B32>, slot: Reg<U32>, v: V) {
    let ws = words(k, v);
    let base = ptx!(k, "mul.lo.u32", slot, ws.len() as u32);
    for (j, w) in ws.into_iter().enumerate() {
        let at = ptx!(k, "add.u32", base, j as u32);
        k.st(s.at(at), w);
    }
}

#[track_caller]
fn get<V: Value>(k: &mut Kernel, s: SharedPtr<B32>, slot: Reg<U32>) -> V {
    let n = V::words_len() as u32;
    let base = ptx!(k, "mul.lo.u32", slot, n);
    let ws: Vec<Reg<B32>> = (0..n)
        .map(|j| {
            let at = ptx!(k, "add.u32", base, j);
            k.ld(s.at(at))
        })
        .collect();
    from_words(k, &ws)
}

#[track_caller]
fn reduce_block<V: Value>(k: &mut Kernel, block: u32, v: V, mut op: impl FnMut(&mut Kernel, V, V) -> V, commutative: bool) -> V {
    let sh = block_shape(k, block);
    let part = reduce_lanes(k, v, LaneMask::FULL, &mut op, commutative);
    if sh.nwarps == 1 {
        return part;
    }
    // Takes the scan at the last warp: the block's combination, in order.
    let r = scan_warp_totals(k, &sh, 0, part, &mut op);
    k.shfl(Shfl::Idx, r, sh.nwarps - 1, LaneMask::FULL)
}

/// Each warp's total (held by its lane `holder`) through shared memory, then in every warp
/// the inclusive scan of the warp totals across its lanes: lane `l` holds the combination
/// of warps `0..=min(l, nwarps - 1)` (lanes past the last warp repeat its total; an
/// inclusive scan never looks up, so they change nothing below).
#[track_caller]
fn scan_warp_totals<V: Value>(k: &mut Kernel, sh: &Shape, holder: u32, total: V, op: &mut impl FnMut(&mut Kernel, V, V) -> V) -> V {
    let s = scratch(k, sh.nwarps * V::words_len() as u32);
    let holds = ptx!(k, "setp.eq.u32", sh.lane, holder);
    k.if_(holds, |k| put(k, s, sh.warp, total));
    ptx!(k, "bar.sync", 0u32);
    let t = clamped_total::<V>(k, s, sh);
    k.warp_scan(t, LaneMask::FULL, op)
}

/// The total of warp `min(lane, nwarps - 1)` from the scratch.
#[track_caller]
fn clamped_total<V: Value>(k: &mut Kernel, s: SharedPtr<B32>, sh: &Shape) -> V {
    let beyond = ptx!(k, "setp.ge.u32", sh.lane, sh.nwarps);
    let idx = ptx!(k, "selp.u32", sh.nwarps - 1, sh.lane, beyond);
    get(k, s, idx)
}

/// The inclusive scan, (for blocks of several warps) the combined total of the warps
/// before this thread's warp with whether there are any, and the block's total.
#[track_caller]
fn block_scan_parts<V: Value>(
    k: &mut Kernel,
    block: u32,
    v: V,
    mut op: impl FnMut(&mut Kernel, V, V) -> V,
) -> (V, Option<(V, Reg<Pred>)>, V) {
    let sh = block_shape(k, block);
    let inc = k.warp_scan(v, LaneMask::FULL, &mut op);
    if sh.nwarps == 1 {
        let total = k.shfl(Shfl::Idx, inc, 31u32, LaneMask::FULL);
        return (inc, None, total);
    }
    let totals = scan_warp_totals(k, &sh, 31, inc, &mut op);
    // The prefix of warp w is the scanned total of warp w - 1.
    let has_prefix = ptx!(k, "setp.ne.u32", sh.warp, 0u32);
    let wm1 = ptx!(k, "sub.u32", sh.warp, 1u32);
    let src = ptx!(k, "selp.u32", wm1, 0u32, has_prefix);
    let prefix = k.shfl(Shfl::Idx, totals, src, LaneMask::FULL);
    let with = op(k, prefix, inc);
    let out = select(k, has_prefix, with, inc);
    let total = k.shfl(Shfl::Idx, totals, sh.nwarps - 1, LaneMask::FULL);
    (out, Some((prefix, has_prefix)), total)
}
