//! Warp collectives over any [`Value`]: shuffles (values of any size go word by word),
//! inclusive and exclusive scans and reductions for any associative operator (the operator
//! need not commute: lanes combine in lane order), and votes, all with lane masks.
//!
//! The scans and reductions are real PTX loops over the shuffle distance; the operator is
//! emitted once per loop body. A reduction whose operator commutes
//! ([`WarpOps::warp_reduce_commutative`]) skips
//! the lane-order bookkeeping: over the full warp its loop is a `shfl.sync.bfly` and the
//! operator per step. With the full mask they use `shfl.sync.up`/`.bfly`; with a
//! partial mask each lane finds its partner among the participating lanes with `fns`
//! (the d-th participant below it), so any set of lanes works, in lane order. The result of
//! a reduction is in every participating lane.
//!
//! ```
//! use ptxkit::prelude::*;
//! use ptxkit::intrinsics::warp::LaneMask;
//!
//! let mut m = Module::new(Target::SM_80);
//! m.kernel("warp_sum", |k, (x, out): (GlobalPtr<F32>, GlobalPtr<F32>)| {
//!     let i = k.global_thread_index_x();
//!     let v = k.ld(x.at(i));
//!     let total = k.warp_reduce_commutative(v, LaneMask::FULL, |k, a, b| ptx!(k, "add.f32", a, b));
//!     k.st(out.at(i), total);
//! }).unwrap();
//! let text = m.to_ptx().unwrap();
//! assert!(text.contains("shfl.sync.bfly.b32"));
//! assert!(!text.contains("selp"), "a commutative reduction keeps no lane order: {text}");
//! ```

use super::sealed::Sealed;
use super::thread::ThreadIndex;
use super::{copy, from_words, select, words, Value};
use crate::builder::Kernel;
use crate::ops::Operand;
use crate::ptx;
use crate::regs::Reg;
use crate::types::{Pred, B32, S32, U32};

/// Shuffle directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shfl {
    /// From lane `i - d`; lanes below `d` keep their value.
    Up,
    /// From lane `i + d`; lanes past the end keep their value.
    Down,
    /// From lane `i ^ d`.
    Xor,
    /// From lane `d`.
    Idx,
}

/// The lanes taking part in a warp operation.
#[derive(Clone, Copy, Debug)]
pub struct LaneMask(Mask);

#[derive(Clone, Copy, Debug)]
enum Mask {
    Const(u32),
    Reg(Reg<B32>),
}

impl LaneMask {
    /// All 32 lanes.
    pub const FULL: LaneMask = LaneMask(Mask::Const(u32::MAX));
    /// The lanes whose bits are set in a register.
    pub fn reg(r: Reg<B32>) -> LaneMask {
        LaneMask(Mask::Reg(r))
    }
    fn is_full(self) -> bool {
        matches!(self.0, Mask::Const(u32::MAX))
    }
    #[track_caller]
    fn reg_in(self, k: &mut Kernel) -> Reg<B32> {
        match self.0 {
            Mask::Const(c) => ptx!(k, "mov.b32", c),
            Mask::Reg(r) => r,
        }
    }
}

impl From<u32> for LaneMask {
    fn from(m: u32) -> LaneMask {
        LaneMask(Mask::Const(m))
    }
}
impl From<Reg<B32>> for LaneMask {
    fn from(r: Reg<B32>) -> LaneMask {
        LaneMask::reg(r)
    }
}

impl Operand<B32> for LaneMask {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> crate::core::ir::Opnd {
        match self.0 {
            Mask::Const(c) => Operand::<B32>::lower(c, k),
            Mask::Reg(r) => Operand::<B32>::lower(r, k),
        }
    }
}

/// Warp collectives: shuffles, scans, reductions and votes, as [`Kernel`] methods (in scope
/// with `use ptxkit::prelude::*`).
pub trait WarpOps: Sealed {
    /// Shuffles any value across the warp (`shfl.sync` per 32-bit word). Returns the value
    /// and whether the source lane was in range (otherwise the lane kept its own value).
    /// Reading from a lane outside `mask` is undefined, as in PTX.
    fn shfl_checked<V: Value>(&mut self, dir: Shfl, v: V, d: impl Operand<U32> + Copy, mask: impl Into<LaneMask>) -> (V, Reg<Pred>);

    /// Shuffles any value across the warp; see [`shfl_checked`](WarpOps::shfl_checked).
    fn shfl<V: Value>(&mut self, dir: Shfl, v: V, d: impl Operand<U32> + Copy, mask: impl Into<LaneMask>) -> V;

    /// Inclusive scan over the lanes of `mask`, in lane order: lane `i` gets
    /// `op(op(x0, x1), ... xi)` over the participating lanes up to `i`.
    fn warp_scan<V: Value>(&mut self, v: V, mask: impl Into<LaneMask>, op: impl FnMut(&mut Kernel, V, V) -> V) -> V;

    /// Exclusive scan over the lanes of `mask`: lane `i` gets the combination of the
    /// participating lanes before it, and the first participating lane gets `identity`.
    fn warp_scan_exclusive<V: Value>(&mut self, v: V, identity: V, mask: impl Into<LaneMask>, op: impl FnMut(&mut Kernel, V, V) -> V) -> V;

    /// Reduction over the lanes of `mask`, in lane order (the operator need not commute),
    /// with the result in every participating lane.
    fn warp_reduce<V: Value>(&mut self, v: V, mask: impl Into<LaneMask>, op: impl FnMut(&mut Kernel, V, V) -> V) -> V;

    /// [`warp_reduce`](WarpOps::warp_reduce) for an operator that commutes (a sum, a max):
    /// over the full warp each step is one `shfl.sync.bfly` per word and the operator,
    /// without the lane-order bookkeeping. For IEEE addition, `max` and `min` the result
    /// equals the lane-order one bit for bit (each step combines the same two values, in the
    /// other order in half of the lanes).
    fn warp_reduce_commutative<V: Value>(&mut self, v: V, mask: impl Into<LaneMask>, op: impl FnMut(&mut Kernel, V, V) -> V) -> V;

    /// `vote.sync.all`: whether `p` holds in every lane of `mask`.
    fn vote_all(&mut self, p: Reg<Pred>, mask: impl Into<LaneMask>) -> Reg<Pred>;

    /// `vote.sync.any`: whether `p` holds in some lane of `mask`.
    fn vote_any(&mut self, p: Reg<Pred>, mask: impl Into<LaneMask>) -> Reg<Pred>;

    /// `vote.sync.uni`: whether `p` is the same in every lane of `mask`.
    fn vote_uni(&mut self, p: Reg<Pred>, mask: impl Into<LaneMask>) -> Reg<Pred>;

    /// `vote.sync.ballot`: bit `i` set where `p` holds in lane `i` of `mask`.
    fn ballot(&mut self, p: Reg<Pred>, mask: impl Into<LaneMask>) -> Reg<B32>;
}

impl WarpOps for Kernel {
    #[track_caller]
    fn shfl_checked<V: Value>(&mut self, dir: Shfl, v: V, d: impl Operand<U32> + Copy, mask: impl Into<LaneMask>) -> (V, Reg<Pred>) {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        let mask = mask.into();
        let c = if dir == Shfl::Up { 0u32 } else { 0x1f };
        let ws = words(self, v);
        let mut ok = None;
        let mut out = Vec::with_capacity(ws.len());
        for w in ws {
            let (r, p) = match dir {
                Shfl::Up => ptx!(self, "shfl.sync.up.b32" as pair, w, d, c, mask),
                Shfl::Down => ptx!(self, "shfl.sync.down.b32" as pair, w, d, c, mask),
                Shfl::Xor => ptx!(self, "shfl.sync.bfly.b32" as pair, w, d, c, mask),
                Shfl::Idx => ptx!(self, "shfl.sync.idx.b32" as pair, w, d, c, mask),
            };
            ok.get_or_insert(p);
            out.push(r);
        }
        let ok = ok.unwrap_or_else(|| ptx!(self, "setp.eq.u32", 0u32, 0u32));
        (from_words(self, &out), ok)
    }

    #[track_caller]
    fn shfl<V: Value>(&mut self, dir: Shfl, v: V, d: impl Operand<U32> + Copy, mask: impl Into<LaneMask>) -> V {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        self.shfl_checked(dir, v, d, mask).0
    }

    #[track_caller]
    fn warp_scan<V: Value>(&mut self, v: V, mask: impl Into<LaneMask>, mut op: impl FnMut(&mut Kernel, V, V) -> V) -> V {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        let mask = mask.into();
        let acc = copy(self, v);
        if mask.is_full() {
            doubling(self, |k, d| {
                let (t, ok) = k.shfl_checked(Shfl::Up, acc, d, LaneMask::FULL);
                let comb = op(k, t, acc);
                let next = select(k, ok, comb, acc);
                acc.assign(k, next);
            });
        } else {
            let mreg = mask.reg_in(self);
            let lane = self.lane_id();
            doubling(self, |k, d| {
                let (src, valid) = nth_below(k, mreg, lane, d);
                let t = k.shfl(Shfl::Idx, acc, src, LaneMask::reg(mreg));
                let comb = op(k, t, acc);
                let next = select(k, valid, comb, acc);
                acc.assign(k, next);
            });
        }
        acc
    }

    #[track_caller]
    fn warp_scan_exclusive<V: Value>(&mut self, v: V, identity: V, mask: impl Into<LaneMask>, op: impl FnMut(&mut Kernel, V, V) -> V) -> V {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        let mask = mask.into();
        let inc = self.warp_scan(v, mask, op);
        let one: Reg<U32> = ptx!(self, "mov.u32", 1u32);
        if mask.is_full() {
            let (t, ok) = self.shfl_checked(Shfl::Up, inc, one, LaneMask::FULL);
            select(self, ok, t, identity)
        } else {
            let mreg = mask.reg_in(self);
            let lane = self.lane_id();
            let (src, valid) = nth_below(self, mreg, lane, one);
            let t = self.shfl(Shfl::Idx, inc, src, LaneMask::reg(mreg));
            select(self, valid, t, identity)
        }
    }

    #[track_caller]
    fn warp_reduce<V: Value>(&mut self, v: V, mask: impl Into<LaneMask>, op: impl FnMut(&mut Kernel, V, V) -> V) -> V {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        reduce_lanes(self, v, mask.into(), op, false)
    }

    #[track_caller]
    fn warp_reduce_commutative<V: Value>(&mut self, v: V, mask: impl Into<LaneMask>, op: impl FnMut(&mut Kernel, V, V) -> V) -> V {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        reduce_lanes(self, v, mask.into(), op, true)
    }

    #[track_caller]
    fn vote_all(&mut self, p: Reg<Pred>, mask: impl Into<LaneMask>) -> Reg<Pred> {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        ptx!(self, "vote.sync.all.pred", p, mask.into())
    }

    #[track_caller]
    fn vote_any(&mut self, p: Reg<Pred>, mask: impl Into<LaneMask>) -> Reg<Pred> {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        ptx!(self, "vote.sync.any.pred", p, mask.into())
    }

    #[track_caller]
    fn vote_uni(&mut self, p: Reg<Pred>, mask: impl Into<LaneMask>) -> Reg<Pred> {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        ptx!(self, "vote.sync.uni.pred", p, mask.into())
    }

    #[track_caller]
    fn ballot(&mut self, p: Reg<Pred>, mask: impl Into<LaneMask>) -> Reg<B32> {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        ptx!(self, "vote.sync.ballot.b32", p, mask.into())
    }
}

/// A reduction over the lanes of `mask` (the warp's, and each warp's step of the block's).
#[track_caller]
pub(crate) fn reduce_lanes<V: Value>(
    k: &mut Kernel,
    v: V,
    mask: LaneMask,
    mut op: impl FnMut(&mut Kernel, V, V) -> V,
    commutative: bool,
) -> V {
    if !mask.is_full() {
        let inc = k.warp_scan(v, mask, op);
        let mreg = mask.reg_in(k);
        let last = ptx!(k, "bfind.u32", mreg.bitcast::<U32>());
        return k.shfl(Shfl::Idx, inc, last, LaneMask::reg(mreg));
    }
    let acc = copy(k, v);
    if commutative {
        doubling(k, |k, d| {
            let t = k.shfl(Shfl::Xor, acc, d, LaneMask::FULL);
            let next = op(k, acc, t);
            acc.assign(k, next);
        });
        return acc;
    }
    // Butterfly: at distance d the lane whose bit d is clear holds the earlier block.
    let lane = k.lane_id();
    doubling(k, |k, d| {
        let t = k.shfl(Shfl::Xor, acc, d, LaneMask::FULL);
        let bit = ptx!(k, "and.b32", lane.bitcast::<B32>(), d.bitcast::<B32>());
        let upper = ptx!(k, "setp.ne.b32", bit, 0u32);
        let first = select(k, upper, t, acc);
        let second = select(k, upper, acc, t);
        let next = op(k, first, second);
        acc.assign(k, next);
    });
    acc
}

/// A counted loop over the shuffle distances 1, 2, 4, 8, 16 (`d = 1 << step`, five trips):
/// one loop body in the PTX, with a trip count ptxas can see.
#[track_caller]
fn doubling(k: &mut Kernel, mut body: impl FnMut(&mut Kernel, Reg<U32>)) {
    k.for_range(0u32, 5u32, 1, |k, step| {
        let d = ptx!(k, "shl.b32", 1u32, step).bitcast::<U32>();
        body(k, d);
    });
}

/// The lane of the `d`-th participant of `mask` below `lane`, and whether there is one.
#[track_caller]
fn nth_below(k: &mut Kernel, mask: Reg<B32>, lane: Reg<U32>, d: Reg<U32>) -> (Reg<U32>, Reg<Pred>) {
    let has_lower = ptx!(k, "setp.ne.u32", lane, 0u32);
    let one_below = ptx!(k, "sub.u32", lane, 1u32);
    let base = ptx!(k, "selp.u32", one_below, 0u32, has_lower);
    let back = ptx!(k, "neg.s32", d.bitcast::<S32>());
    let pos = ptx!(k, "fns.b32", mask, base, back);
    let found = ptx!(k, "setp.ne.b32", pos, 0xffff_ffffu32);
    let valid = ptx!(k, "and.pred", found, has_lower);
    let src = ptx!(k, "selp.u32", pos.bitcast::<U32>(), lane, valid);
    (src, valid)
}
