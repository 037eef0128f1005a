//! A consumer warpgroup: 64 query rows against every key block it sees, then O and the
//! log-sum-exp of its rows.

use super::softmax::{Rows, Softmax};
use super::{Plan, Tile, CHUNK};
use ptxkit::descriptors::AtomOrder;
use ptxkit::intrinsics::mbarrier::Slot;
use ptxkit::intrinsics::roles::{Consumer, NamedBarrier};
use ptxkit::intrinsics::wgmma::{self, Mma, Pending, WgmmaForm};
use ptxkit::prelude::*;

/// Where the results go.
pub(crate) struct Out {
    pub(crate) o: GlobalPtr<Bf16>,
    pub(crate) lse: GlobalPtr<F32>,
    /// O's strides in elements along S, H and B.
    pub(crate) strides: (Reg<U32>, Reg<U32>, Reg<U32>),
    pub(crate) scale_log2: Reg<F32>,
}

/// The tile layouts: a 64 × 64 chunk of Q (A, K-major), a `bn` × 64 chunk of K (B of
/// `Q·Kᵀ`, K-major) and the V block (B of `P·V`, N-major: `d / 64` boxes of 64 columns ×
/// `bn` keys side by side, so its swizzle atoms run K-first).
fn layouts(d: u32, bn: u32) -> (TileLayout, TileLayout, TileLayout) {
    let q = TileLayout::new(ElemBytes::B2, 64, CHUNK, Major::K, Swizzle::B128);
    let kk = TileLayout::new(ElemBytes::B2, bn, CHUNK, Major::K, Swizzle::B128);
    let v = TileLayout::new(ElemBytes::B2, d, bn, Major::MN, Swizzle::B128).map(|l| l.with_order(AtomOrder::KFirst));
    match (q, kk, v) {
        (Ok(q), Ok(kk), Ok(v)) => (q, kk, v),
        e => unreachable!("the attention tiles are canonical layouts: {e:?}"),
    }
}

pub(crate) fn consume<const D: u32, const RD: usize, const BN: u32, const RB: usize>(k: &mut Kernel, plan: &Plan, c: Consumer, out: &Out)
where
    Mma<D, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RD>>,
    Mma<BN, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RB>>,
{
    let parts = Parts::<RD, RB>::new::<D, BN>(k, plan, c);
    if plan.cfg.causal || !plan.cfg.stream {
        plan.for_each_tile(k, |k, tile| parts.tile::<D, BN>(k, tile, out));
    } else {
        super::stream::stream::<D, RD, BN, RB>(k, &parts, out);
    }
}

/// What a consumer's products need, whatever the tile: the shapes and barriers, its place,
/// the descriptors of its rows of Q (the same shared memory in every tile), and S, O and P.
pub(crate) struct Parts<'a, const RD: usize, const RB: usize> {
    pub(crate) plan: &'a Plan,
    pub(crate) c: Consumer,
    /// The warpgroup's first thread; whether S_k > 0 (always, but ptxas cannot know).
    pub(crate) lead: Reg<Pred>,
    pub(crate) live: Reg<Pred>,
    layouts: (TileLayout, TileLayout, TileLayout),
    qd: Vec<Reg<Gdesc>>,
    /// The scores of a key block, then its P in f32.
    pub(crate) s: Acc<F32, RB>,
    /// The output accumulator.
    pub(crate) o: Acc<F32, RD>,
    /// P, as bf16 pairs: the A operand of `P·V`.
    pub(crate) p: Vec<Reg<B32>>,
    /// This consumer's Q barriers.
    pub(crate) q_full: Mbarrier,
    pub(crate) q_empty: Mbarrier,
}

impl<'a, const RD: usize, const RB: usize> Parts<'a, RD, RB> {
    fn new<const D: u32, const BN: u32>(k: &mut Kernel, plan: &'a Plan, c: Consumer) -> Self
    where
        Mma<D, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RD>>,
        Mma<BN, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RB>>,
    {
        let layouts = layouts(D, BN);
        let chunks = D / CHUNK;
        let lead = ptx!(k, "setp.eq.u32", c.thread, 0u32);
        let qd = {
            let base = plan.smem.addr(k);
            let mine = ptx!(k, "mad.lo.u32", c.index, chunks * 64 * CHUNK * 2, base);
            (0..chunks)
                .map(|ch| {
                    let at = ptx!(k, "add.u32", mine, ch * 64 * CHUNK * 2);
                    k.gmma_desc(&layouts.0, SharedPtr::<B8>::from_reg32(at))
                })
                .collect()
        };
        let p = (0..RB / 2).map(|_| k.reg()).collect();
        let live = ptx!(k, "setp.ne.u32", plan.seq_k, 0u32);
        let s = Mma::<BN, F32, Bf16>::zeroed(k);
        let o = Mma::<D, F32, Bf16>::zeroed(k);
        let (q_full, q_empty) = (plan.q_full.at(k, c.index), plan.q_empty.at(k, c.index));
        Parts { plan, c, lead, live, layouts, qd, s, o, p, q_full, q_empty }
    }

    /// The first of this consumer's rows in a tile whose first row is `q0`.
    pub(crate) fn first_row(&self, k: &mut Kernel, q0: Reg<U32>) -> Reg<U32> {
        ptx!(k, "mad.lo.u32", self.c.index, 64u32, q0)
    }

    /// Waits (bounded; a trap past the deadline) for this consumer's rows of Q of the CTA's
    /// `round`-th tile.
    pub(crate) fn wait_q(&self, k: &mut Kernel, round: Reg<U32>) {
        let parity = ptx!(k, "and.b32", round.bitcast::<B32>(), 1u32).bitcast::<U32>();
        let ready = self.q_full.wait(k, parity, &self.plan.deadline);
        k.if_(!ready, |k| ptx!(k, "trap"));
    }

    /// Q is no longer read: the producer may load the next tile's rows.
    pub(crate) fn release_q(&self, k: &mut Kernel) {
        k.if_(self.lead, |k| {
            self.q_empty.arrive(k);
        });
    }

    /// Issues S = Q·Kᵀ for the K block at `kb` (the head dimension 16 at a time), commits it.
    pub(crate) fn scores<const D: u32, const BN: u32>(&self, k: &mut Kernel, kb: Reg<U32>) -> Pending<Acc<F32, RB>>
    where
        Mma<BN, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RB>>,
    {
        let (q_layout, k_layout, _) = &self.layouts;
        wgmma::fence(k);
        for ch in 0..D / CHUNK {
            let at = ptx!(k, "add.u32", kb, ch * BN * CHUNK * 2);
            let kd = k.gmma_desc(k_layout, SharedPtr::<B8>::from_reg32(at));
            for step in 0..CHUNK / 16 {
                let (a, b) = (k.gmma_desc_k(self.qd[ch as usize], q_layout, step), k.gmma_desc_k(kd, k_layout, step));
                Mma::<BN, F32, Bf16>::ss(k, self.s, a, b, ch + step > 0, (Major::K, Major::K));
            }
        }
        wgmma::commit(k, self.s)
    }

    /// Issues O += P·V for the V block at `vb` (P the A operand, 16 keys per wgmma), commits it.
    pub(crate) fn values<const D: u32, const BN: u32>(&self, k: &mut Kernel, vb: Reg<U32>) -> Pending<Acc<F32, RD>>
    where
        Mma<D, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RD>>,
    {
        let v_layout = &self.layouts.2;
        let vd = k.gmma_desc(v_layout, SharedPtr::<B8>::from_reg32(vb));
        for t in 0..(BN / 16) as usize {
            let a = [self.p[4 * t], self.p[4 * t + 1], self.p[4 * t + 2], self.p[4 * t + 3]];
            let b = k.gmma_desc_k(vd, v_layout, t as u32);
            Mma::<D, F32, Bf16>::rs(k, self.o, a, b, true, Major::MN);
        }
        wgmma::commit(k, self.o)
    }

    /// Masks keys past S_k, or (causal) past the thread's rows, in key block `j` if it has
    /// any, for the consumer's rows from `first_row` on.
    pub(crate) fn mask<const BN: u32>(&self, k: &mut Kernel, j: Reg<U32>, first_row: Reg<U32>) {
        let plan = self.plan;
        let key0 = ptx!(k, "mul.lo.u32", j, BN);
        let key_end = ptx!(k, "add.u32", key0, BN);
        let past_end = ptx!(k, "setp.gt.u32", key_end, plan.seq_k);
        let needs = if plan.cfg.causal {
            let last = ptx!(k, "sub.u32", key_end, 1u32);
            let diagonal = ptx!(k, "setp.gt.u32", last, first_row);
            ptx!(k, "or.pred", past_end, diagonal)
        } else {
            past_end
        };
        k.if_(needs, |k| {
            let rows = Rows::new(k, first_row, self.c.thread);
            rows.mask(k, &self.s.0, key0, plan.seq_k, plan.cfg.causal)
        });
    }

    /// Iteration `i` of K's ring (`v` false) or V's: waits (bounded) until it is loaded; its
    /// slot and shared address.
    pub(crate) fn wait_full(&self, k: &mut Kernel, v: bool, i: Reg<U32>) -> (Slot, Reg<U32>) {
        let plan = self.plan;
        let slot = if v { plan.v_ring.slot(k, i) } else { plan.k_ring.slot(k, i) };
        let full = slot.wait(k, &plan.deadline);
        k.if_(!full, |k| ptx!(k, "trap"));
        (slot, plan.stage_at(k, v, slot.stage))
    }

    /// Releases a stage (the warpgroup's first thread arrives for it).
    pub(crate) fn release(&self, k: &mut Kernel, slot: Slot) {
        k.if_(self.lead, |k| slot.release(k));
    }

    /// O and the log-sum-exp of this consumer's rows of the tile at `q0`, `head`, `batch`.
    pub(crate) fn finish(&self, k: &mut Kernel, soft: &mut Softmax, q0: Reg<U32>, head: Reg<U32>, batch: Reg<U32>, out: &Out) {
        let first_row = self.first_row(k, q0);
        let rows = Rows::new(k, first_row, self.c.thread);
        soft.finish(k, &self.o.0, &rows, self.plan, head, batch, out);
    }

    /// A tile's first key block (iteration `i` of the rings, block `j` of the tile): its
    /// scores and P. O is zero: no correction.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn first_block<const D: u32, const BN: u32>(
        &self,
        k: &mut Kernel,
        soft: &mut Softmax,
        i: Reg<U32>,
        j: Reg<U32>,
        first_row: Reg<U32>,
        turns: &Turns,
    ) where
        Mma<BN, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RB>>,
    {
        let (k_slot, kb) = self.wait_full(k, false, i);
        turns.take(k);
        let pending = self.scores::<D, BN>(k, kb);
        turns.hand_over(k);
        let _ = pending.wait(k, 0);
        self.release(k, k_slot);
        self.mask::<BN>(k, j, first_row);
        let _ = soft.step(k, &self.s.0);
        Softmax::pack(k, &self.s.0, &self.p);
    }

    /// Blocks `1..n` of a tile whose block 0 is iteration `base` of the rings. Block j: its
    /// scores issued, then block j-1's P·V; block j's softmax runs while both are on the
    /// tensor cores; then O is corrected and block j's P replaces block j-1's. K_j is
    /// released when its scores are done, V_(j-1) when its product is.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn blocks<const D: u32, const BN: u32>(
        &self,
        k: &mut Kernel,
        soft: &mut Softmax,
        base: Reg<U32>,
        n: Reg<U32>,
        first_row: Reg<U32>,
        turns: &Turns,
    ) where
        Mma<D, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RD>>,
        Mma<BN, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RB>>,
    {
        k.for_range(1u32, n, 1, |k, j| {
            let i = ptx!(k, "add.u32", base, j);
            let prev = ptx!(k, "sub.u32", i, 1u32);
            let (pending_o, v_slot) = self.scores_and_values::<D, BN>(k, i, prev, turns);
            self.mask::<BN>(k, j, first_row);
            let (corr, moved) = soft.step(k, &self.s.0);
            // The wait for P·V in a block of its own: in the same block ptxas schedules it
            // above the softmax (to start the O rescale early), which then no longer overlaps
            // the product. `live` always holds, but ptxas cannot know it.
            k.if_(self.live, |k| {
                let _ = pending_o.wait(k, 0);
                self.release(k, v_slot);
                k.if_(moved, |k| Softmax::rescale(k, &self.o.0, corr));
                Softmax::pack(k, &self.s.0, &self.p);
            });
        });
    }

    /// One turn with two products: the scores of the K block at ring iteration `ki` and
    /// `P·V` with the V block at `vi`, each waited for (bounded) first. The K stage is
    /// released once the scores are done; the product, still running, and the V stage (to
    /// release after it) are returned.
    pub(crate) fn scores_and_values<const D: u32, const BN: u32>(
        &self,
        k: &mut Kernel,
        ki: Reg<U32>,
        vi: Reg<U32>,
        turns: &Turns,
    ) -> (Pending<Acc<F32, RD>>, Slot)
    where
        Mma<D, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RD>>,
        Mma<BN, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RB>>,
    {
        let (k_slot, kb) = self.wait_full(k, false, ki);
        let (v_slot, vb) = self.wait_full(k, true, vi);
        turns.take(k);
        let pending_s = self.scores::<D, BN>(k, kb);
        let pending_o = self.values::<D, BN>(k, vb);
        turns.hand_over(k);
        let _ = pending_s.wait(k, 1);
        self.release(k, k_slot);
        (pending_o, v_slot)
    }

    /// A tile's last product, of the V block at iteration `i`, alone in its turn.
    pub(crate) fn last_product<const D: u32, const BN: u32>(&self, k: &mut Kernel, i: Reg<U32>, turns: &Turns)
    where
        Mma<D, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RD>>,
    {
        let (v_slot, vb) = self.wait_full(k, true, i);
        turns.take(k);
        wgmma::fence(k);
        let pending = self.values::<D, BN>(k, vb);
        turns.hand_over(k);
        let _ = pending.wait(k, 0);
        self.release(k, v_slot);
    }

    /// One tile, on its own: 64 query rows against every key block they see, then O and the
    /// log-sum-exp. Returns the key blocks that went through the rings.
    fn tile<const D: u32, const BN: u32>(&self, k: &mut Kernel, tile: &Tile, out: &Out) -> Reg<U32>
    where
        Mma<D, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RD>>,
        Mma<BN, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RB>>,
    {
        let plan = self.plan;
        let first_row = self.first_row(k, tile.q0);
        let zero = ptx!(k, "mov.u32", 0u32);
        self.wait_q(k, tile.round);
        for x in self.s.0.iter().chain(self.o.0.iter()) {
            ptx!(k, "mov.f32" => *x, 0f32);
        }
        let mut soft = Softmax::new(k, out.scale_log2, plan.cfg.soft_exp);
        let rows_end = ptx!(k, "add.u32", first_row, 64u32);
        let mine = plan.blocks_until(k, rows_end);
        let all = {
            let end = ptx!(k, "add.u32", tile.q0, plan.cfg.bm());
            plan.blocks_until(k, end)
        };
        // Each consumer takes `all + 1` turns: its first block's scores, one per later block,
        // the last block's product, and one per block it only releases.
        let turns = Turns::new(k, self.c, plan.cfg.consumers);
        let total_turns = ptx!(k, "add.u32", all, 1u32);
        turns.begin(k, total_turns);
        // A consumer whose rows all lie past S_q (in the last tile of a sequence) computes
        // nothing: it takes its turns and releases every block unread.
        let active = ptx!(k, "setp.lt.u32", first_row, plan.seq_q);
        k.if_else(
            active,
            |k| {
                self.first_block::<D, BN>(k, &mut soft, tile.base, zero, first_row, &turns);
                self.blocks::<D, BN>(k, &mut soft, tile.base, mine, first_row, &turns);
                self.release_q(k);
                let last = ptx!(k, "add.u32", tile.base, mine);
                let last = ptx!(k, "sub.u32", last, 1u32);
                self.last_product::<D, BN>(k, last, &turns);
            },
            |k| {
                turns.take(k);
                turns.hand_over(k);
                self.release_q(k);
            },
        );
        let unread_from = ptx!(k, "selp.u32", mine, 0u32, active);
        // Blocks the other consumers need and this one does not: released unread.
        k.for_range(unread_from, all, 1, |k, j| {
            turns.take(k);
            turns.hand_over(k);
            let i = ptx!(k, "add.u32", tile.base, j);
            for v in [false, true] {
                let (slot, _) = self.wait_full(k, v, i);
                self.release(k, slot);
            }
        });
        k.if_(active, |k| self.finish(k, &mut soft, tile.q0, tile.head, tile.batch, out));
        all
    }
}

/// The consumers take turns issuing their products, in a cycle (named barrier 1 + i is
/// consumer i's turn: it syncs there, the one before it arrives): one consumer's softmax runs
/// under the others' wgmmas. Consumer 0 goes first. All take the same number of turns; the
/// last consumer does not hand over its last one, so that the cycle starts again at
/// consumer 0.
pub(crate) struct Turns {
    mine: NamedBarrier,
    next: NamedBarrier,
    last_consumer: Reg<Pred>,
    taken: Reg<U32>,
    total: Reg<U32>,
}

impl Turns {
    pub(crate) fn new(k: &mut Kernel, c: Consumer, consumers: u32) -> Turns {
        let mine_id = ptx!(k, "add.u32", c.index, 1u32);
        let last_consumer = ptx!(k, "setp.eq.u32", mine_id, consumers);
        let after = ptx!(k, "add.u32", mine_id, 1u32);
        let next_id = ptx!(k, "selp.u32", 1u32, after, last_consumer);
        let (mine, next) = (NamedBarrier::new(k, mine_id, 256), NamedBarrier::new(k, next_id, 256));
        let taken = k.reg();
        let total = k.reg();
        Turns { mine, next, last_consumer, taken, total }
    }

    /// Starts a cycle of `total` turns each: the last consumer hands consumer 0 its first.
    pub(crate) fn begin(&self, k: &mut Kernel, total: Reg<U32>) {
        ptx!(k, "mov.u32" => self.taken, 0u32);
        ptx!(k, "mov.u32" => self.total, total);
        k.if_(self.last_consumer, |k| self.next.arrive(k));
    }

    /// Waits for this consumer's turn.
    pub(crate) fn take(&self, k: &mut Kernel) {
        self.mine.sync(k);
    }

    /// Gives the turn to the next consumer (unless this is the last consumer's last turn).
    pub(crate) fn hand_over(&self, k: &mut Kernel) {
        ptx!(k, "add.u32" => self.taken, self.taken, 1u32);
        let last = ptx!(k, "setp.eq.u32", self.taken, self.total);
        let keep = ptx!(k, "and.pred", self.last_consumer, last);
        k.if_(!keep, |k| self.next.arrive(k));
    }
}
