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

use super::warp::{LaneMask, Shfl};
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

impl Kernel {
    fn block_shape(&mut self, block: u32) -> Shape {
        let t = self.thread_rank();
        let warp = ptx!(self, "shr.u32", t, 5u32);
        let lane = ptx!(self, "and.b32", t.bitcast::<B32>(), 31u32).bitcast::<U32>();
        Shape { warp, lane, nwarps: block / 32 }
    }

    fn scratch(&mut self, words: u32) -> SharedPtr<B32> {
        let name = self.fresh_name("__ptxkit_scratch");
        self.shared_array::<B32>(&name, words.max(1), 4)
    }

    /// Stores `v`'s words at `slot` of `s` (slot-major: word `j` of slot `i` at `i*W + j`).
    fn put<V: Value>(&mut self, s: SharedPtr<B32>, slot: Reg<U32>, v: V) {
        let ws = words(self, v);
        let base = ptx!(self, "mul.lo.u32", slot, ws.len() as u32);
        for (j, w) in ws.into_iter().enumerate() {
            let at = ptx!(self, "add.u32", base, j as u32);
            self.st(s.at(at), w);
        }
    }

    fn get<V: Value>(&mut self, s: SharedPtr<B32>, slot: Reg<U32>) -> V {
        let n = V::words_len() as u32;
        let base = ptx!(self, "mul.lo.u32", slot, n);
        let ws: Vec<Reg<B32>> = (0..n)
            .map(|j| {
                let at = ptx!(self, "add.u32", base, j);
                self.ld(s.at(at))
            })
            .collect();
        from_words(self, &ws)
    }

    /// Reduction over the `BLOCK` threads of the block, in thread order; every thread gets
    /// the result.
    pub fn block_reduce<const BLOCK: usize, V: Value>(&mut self, v: V, op: impl FnMut(&mut Kernel, V, V) -> V) -> V
    where
        Count<BLOCK>: WarpMultiple,
    {
        self.reduce_block(BLOCK as u32, v, op, false)
    }

    /// [`block_reduce`](Kernel::block_reduce) for an operator that commutes: each warp
    /// reduces with [`warp_reduce_commutative`](Kernel::warp_reduce_commutative).
    pub fn block_reduce_commutative<const BLOCK: usize, V: Value>(&mut self, v: V, op: impl FnMut(&mut Kernel, V, V) -> V) -> V
    where
        Count<BLOCK>: WarpMultiple,
    {
        self.reduce_block(BLOCK as u32, v, op, true)
    }

    fn reduce_block<V: Value>(&mut self, block: u32, v: V, mut op: impl FnMut(&mut Kernel, V, V) -> V, commutative: bool) -> V {
        let sh = self.block_shape(block);
        let part = self.reduce_lanes(v, LaneMask::FULL, &mut op, commutative);
        if sh.nwarps == 1 {
            return part;
        }
        let s = self.scratch(sh.nwarps * V::words_len() as u32);
        let first = ptx!(self, "setp.eq.u32", sh.lane, 0u32);
        self.if_(first, |k| k.put(s, sh.warp, part));
        ptx!(self, "bar.sync", 0u32);
        // Every warp scans the warp totals across all its lanes (lanes past the last warp
        // repeat its total; an inclusive scan never looks up, so they change nothing below)
        // and takes the scan at the last warp: the block's combination, in order.
        let t = self.clamped_total::<V>(s, &sh);
        let r = self.warp_scan(t, LaneMask::FULL, &mut op);
        self.shfl(Shfl::Idx, r, sh.nwarps - 1, LaneMask::FULL)
    }

    /// The total of warp `min(lane, nwarps - 1)` from the scratch.
    fn clamped_total<V: Value>(&mut self, s: SharedPtr<B32>, sh: &Shape) -> V {
        let beyond = ptx!(self, "setp.ge.u32", sh.lane, sh.nwarps);
        let idx = ptx!(self, "selp.u32", sh.nwarps - 1, sh.lane, beyond);
        self.get(s, idx)
    }

    /// Inclusive scan over the `BLOCK` threads of the block in thread order.
    pub fn block_scan<const BLOCK: usize, V: Value>(&mut self, v: V, op: impl FnMut(&mut Kernel, V, V) -> V) -> V
    where
        Count<BLOCK>: WarpMultiple,
    {
        self.block_scan_parts::<V>(BLOCK as u32, v, op).0
    }

    /// Exclusive scan over the `BLOCK` threads of the block: thread 0 gets `identity`.
    pub fn block_scan_exclusive<const BLOCK: usize, V: Value>(&mut self, v: V, identity: V, op: impl FnMut(&mut Kernel, V, V) -> V) -> V
    where
        Count<BLOCK>: WarpMultiple,
    {
        self.block_scan_exclusive_with_total::<BLOCK, V>(v, identity, op).0
    }

    /// [`block_scan_exclusive`](Kernel::block_scan_exclusive), and the combination of the
    /// whole block in every thread (one pass, no separate reduction).
    pub fn block_scan_exclusive_with_total<const BLOCK: usize, V: Value>(
        &mut self,
        v: V,
        identity: V,
        op: impl FnMut(&mut Kernel, V, V) -> V,
    ) -> (V, V)
    where
        Count<BLOCK>: WarpMultiple,
    {
        let (inc, prefix, total) = self.block_scan_parts::<V>(BLOCK as u32, v, op);
        let one: Reg<U32> = ptx!(self, "mov.u32", 1u32);
        let (up, in_warp) = self.shfl_checked(Shfl::Up, inc, one, LaneMask::FULL);
        // Lane 0 of warp w takes the total of warps before it (identity for warp 0).
        let lead = match prefix {
            Some((p, has_prefix)) => select(self, has_prefix, p, identity),
            None => identity,
        };
        (select(self, in_warp, up, lead), total)
    }

    /// The inclusive scan, (for blocks of several warps) the combined total of the warps
    /// before this thread's warp with whether there are any, and the block's total.
    fn block_scan_parts<V: Value>(
        &mut self,
        block: u32,
        v: V,
        mut op: impl FnMut(&mut Kernel, V, V) -> V,
    ) -> (V, Option<(V, Reg<Pred>)>, V) {
        let sh = self.block_shape(block);
        let inc = self.warp_scan(v, LaneMask::FULL, &mut op);
        if sh.nwarps == 1 {
            let total = self.shfl(Shfl::Idx, inc, 31u32, LaneMask::FULL);
            return (inc, None, total);
        }
        let s = self.scratch(sh.nwarps * V::words_len() as u32);
        let last = ptx!(self, "setp.eq.u32", sh.lane, 31u32);
        self.if_(last, |k| k.put(s, sh.warp, inc));
        ptx!(self, "bar.sync", 0u32);
        // Every warp scans the warp totals across all its lanes (see block_reduce).
        let t = self.clamped_total::<V>(s, &sh);
        let totals = self.warp_scan(t, LaneMask::FULL, &mut op);
        // The prefix of warp w is the scanned total of warp w - 1.
        let has_prefix = ptx!(self, "setp.ne.u32", sh.warp, 0u32);
        let wm1 = ptx!(self, "sub.u32", sh.warp, 1u32);
        let src = ptx!(self, "selp.u32", wm1, 0u32, has_prefix);
        let prefix = self.shfl(Shfl::Idx, totals, src, LaneMask::FULL);
        let with = op(self, prefix, inc);
        let out = select(self, has_prefix, with, inc);
        let total = self.shfl(Shfl::Idx, totals, sh.nwarps - 1, LaneMask::FULL);
        (out, Some((prefix, has_prefix)), total)
    }
}
