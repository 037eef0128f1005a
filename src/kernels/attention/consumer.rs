//! A consumer warpgroup: 64 query rows against every key block it sees, then O and the
//! log-sum-exp of its rows.

use super::softmax::{Rows, Softmax};
use super::{Plan, Tile, CHUNK};
use ptxkit::descriptors::AtomOrder;
use ptxkit::intrinsics::roles::{Consumer, NamedBarrier};
use ptxkit::intrinsics::wgmma::{self, Mma, WgmmaForm};
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
    let (q_layout, k_layout, v_layout) = layouts(D, BN);
    let chunks = D / CHUNK;
    let lead = ptx!(k, "setp.eq.u32", c.thread, 0u32);
    // Q's chunks: their descriptors (the same shared memory in every tile).
    let qd: Vec<Reg<Gdesc>> = {
        let base = plan.smem.addr(k);
        let mine = ptx!(k, "mad.lo.u32", c.index, chunks * 64 * CHUNK * 2, base);
        (0..chunks)
            .map(|ch| {
                let at = ptx!(k, "add.u32", mine, ch * 64 * CHUNK * 2);
                k.gmma_desc(&q_layout, SharedPtr::<B8>::from_reg32(at))
            })
            .collect()
    };
    let p: Vec<Reg<B32>> = (0..RB / 2).map(|_| k.reg()).collect();
    let live = ptx!(k, "setp.ne.u32", plan.seq_k, 0u32);
    plan.for_each_tile(k, |k, tile| {
        let ctx = Ctx { plan, tile, c, lead, live, layouts: (q_layout, k_layout, v_layout), qd: &qd, p: &p };
        ctx.tile::<D, RD, BN, RB>(k, out)
    });
}

/// What a consumer's tile needs.
struct Ctx<'a> {
    plan: &'a Plan,
    tile: &'a Tile,
    c: Consumer,
    /// The warpgroup's first thread; whether S_k > 0 (always, but ptxas cannot know).
    lead: Reg<Pred>,
    live: Reg<Pred>,
    layouts: (TileLayout, TileLayout, TileLayout),
    qd: &'a [Reg<Gdesc>],
    /// P, as bf16 pairs.
    p: &'a [Reg<B32>],
}

impl Ctx<'_> {
    /// One tile: 64 query rows against every key block they see, then O and the log-sum-exp.
    /// Returns the key blocks that went through the rings.
    fn tile<const D: u32, const RD: usize, const BN: u32, const RB: usize>(&self, k: &mut Kernel, out: &Out) -> Reg<U32>
    where
        Mma<D, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RD>>,
        Mma<BN, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RB>>,
    {
        let Ctx { plan, tile, c, lead, live, layouts: (q_layout, k_layout, v_layout), qd, p } = *self;
        // This consumer's rows: q0 + 64c ..; the thread's two rows and first column of a tile.
        let first_row = ptx!(k, "mad.lo.u32", c.index, 64u32, tile.q0);
        let rows = Rows::new(k, first_row, c.thread);
        let zero = ptx!(k, "mov.u32", 0u32);
        let parity = ptx!(k, "and.b32", tile.round.bitcast::<B32>(), 1u32).bitcast::<U32>();
        let q_ready = plan.q_full.wait(k, parity, &plan.deadline);
        k.if_(!q_ready, |k| ptx!(k, "trap"));

        let s = Mma::<BN, F32, Bf16>::zeroed(k);
        let o = Mma::<D, F32, Bf16>::zeroed(k);
        let mut soft = Softmax::new(k, out.scale_log2, plan.cfg.soft_exp);
        let rows_end = ptx!(k, "add.u32", first_row, 64u32);
        let mine = plan.blocks_until(k, rows_end);
        let all = {
            let end = ptx!(k, "add.u32", tile.q0, plan.cfg.bm());
            plan.blocks_until(k, end)
        };
        // Issues S = Q·Kᵀ for the K block at `kb` (the head dimension 16 at a time), commits it.
        let scores = |k: &mut Kernel, kb: Reg<U32>| {
            wgmma::fence(k);
            for ch in 0..D / CHUNK {
                let at = ptx!(k, "add.u32", kb, ch * BN * CHUNK * 2);
                let kd = k.gmma_desc(&k_layout, SharedPtr::<B8>::from_reg32(at));
                for step in 0..CHUNK / 16 {
                    let (a, b) = (k.gmma_desc_k(qd[ch as usize], &q_layout, step), k.gmma_desc_k(kd, &k_layout, step));
                    Mma::<BN, F32, Bf16>::ss(k, s, a, b, ch + step > 0, (Major::K, Major::K));
                }
            }
            wgmma::commit(k, s)
        };
        // Issues O += P·V for the V block at `vb` (P the A operand, 16 keys per wgmma), commits it.
        let values = |k: &mut Kernel, vb: Reg<U32>| {
            let vd = k.gmma_desc(&v_layout, SharedPtr::<B8>::from_reg32(vb));
            for t in 0..(BN / 16) as usize {
                let a = [p[4 * t], p[4 * t + 1], p[4 * t + 2], p[4 * t + 3]];
                let b = k.gmma_desc_k(vd, &v_layout, t as u32);
                Mma::<D, F32, Bf16>::rs(k, o, a, b, true, Major::MN);
            }
            wgmma::commit(k, o)
        };
        // Keys past S_k, or (causal) past the thread's rows, masked in the blocks that have them.
        let mask = |k: &mut Kernel, j: Reg<U32>| {
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
            k.if_(needs, |k| rows.mask(k, &s.0, key0, plan.seq_k, plan.cfg.causal));
        };
        // Block j of K's ring (`v` false) or V's (iteration `base + j`): waits (bounded) until
        // it is loaded; its slot and shared address.
        let wait_full = |k: &mut Kernel, v: bool, j: Reg<U32>| {
            let i = ptx!(k, "add.u32", tile.base, j);
            let slot = if v { plan.v_ring.slot(k, i) } else { plan.k_ring.slot(k, i) };
            let full = slot.wait(k, &plan.deadline);
            k.if_(!full, |k| ptx!(k, "trap"));
            (slot, plan.stage_at(k, v, slot.stage))
        };
        // The consumers take turns issuing their products, in a cycle (named barrier 1 + i is
        // consumer i's turn: it syncs there, the one before it arrives): one consumer's softmax
        // runs under the others' wgmmas. Consumer 0 goes first. Each takes `all + 1` turns
        // (its first block's scores, one per later block, the last block's product, and one
        // per block it only releases), so the turns line up; the last consumer does not hand
        // over its last turn.
        let n = plan.cfg.consumers;
        let mine_id = ptx!(k, "add.u32", c.index, 1u32);
        let last_consumer = ptx!(k, "setp.eq.u32", mine_id, n);
        let after = ptx!(k, "add.u32", mine_id, 1u32);
        let next_id = ptx!(k, "selp.u32", 1u32, after, last_consumer);
        let (my_bar, next_bar) = (NamedBarrier::new(k, mine_id, 256), NamedBarrier::new(k, next_id, 256));
        let turn_count = ptx!(k, "mov.u32", 0u32);
        let total_turns = ptx!(k, "add.u32", all, 1u32);
        let my_turn = |k: &mut Kernel| my_bar.sync(k);
        let hand_over = |k: &mut Kernel| {
            ptx!(k, "add.u32" => turn_count, turn_count, 1u32);
            let last = ptx!(k, "setp.eq.u32", turn_count, total_turns);
            let keep = ptx!(k, "and.pred", last_consumer, last);
            k.if_(!keep, |k| next_bar.arrive(k));
        };
        k.if_(last_consumer, |k| next_bar.arrive(k));
        // A consumer whose rows all lie past S_q (in the last tile of a sequence) computes
        // nothing: it takes its turns and releases every block unread.
        let active = ptx!(k, "setp.lt.u32", first_row, plan.seq_q);
        k.if_else(
            active,
            |k| {
                // Block 0: its scores and P (O is still zero: no correction).
                let (k_slot, kb) = wait_full(k, false, zero);
                my_turn(k);
                let pending = scores(k, kb);
                hand_over(k);
                let _ = pending.wait(k, 0);
                k.if_(lead, |k| k_slot.release(k));
                mask(k, zero);
                let _ = soft.step(k, &s.0);
                Softmax::pack(k, &s.0, &p);
                // Block j: its scores issued, then block j-1's P·V; block j's softmax runs
                // while both are on the tensor cores; then O is corrected and block j's P
                // replaces block j-1's. K_j is released when its scores are done, V_(j-1)
                // when its product is.
                k.for_range(1u32, mine, 1, |k, j| {
                    let (k_slot, kb) = wait_full(k, false, j);
                    let prev = ptx!(k, "sub.u32", j, 1u32);
                    let (v_slot, vb) = wait_full(k, true, prev);
                    my_turn(k);
                    let pending_s = scores(k, kb);
                    let pending_o = values(k, vb);
                    hand_over(k);
                    let _ = pending_s.wait(k, 1);
                    k.if_(lead, |k| k_slot.release(k));
                    mask(k, j);
                    let (corr, moved) = soft.step(k, &s.0);
                    // The wait for P·V in a block of its own: in the same block ptxas
                    // schedules it above the softmax (to start the O rescale early), which
                    // then no longer overlaps the product. `live` always holds, but ptxas
                    // cannot know it.
                    k.if_(live, |k| {
                        let _ = pending_o.wait(k, 0);
                        k.if_(lead, |k| v_slot.release(k));
                        k.if_(moved, |k| Softmax::rescale(k, &o.0, corr));
                        Softmax::pack(k, &s.0, &p);
                    });
                });
                // Q is no longer read: the producer may load the next tile's.
                k.if_(lead, |k| {
                    plan.q_empty.arrive(k);
                });
                // The last block's P·V.
                let last = ptx!(k, "sub.u32", mine, 1u32);
                let (v_slot, vb) = wait_full(k, true, last);
                my_turn(k);
                wgmma::fence(k);
                let pending = values(k, vb);
                hand_over(k);
                let _ = pending.wait(k, 0);
                k.if_(lead, |k| v_slot.release(k));
            },
            |k| {
                my_turn(k);
                hand_over(k);
                k.if_(lead, |k| {
                    plan.q_empty.arrive(k);
                });
            },
        );
        let unread_from = ptx!(k, "selp.u32", mine, 0u32, active);
        // Blocks the other consumers need and this one does not: released unread.
        k.for_range(unread_from, all, 1, |k, j| {
            my_turn(k);
            hand_over(k);
            for v in [false, true] {
                let (slot, _) = wait_full(k, v, j);
                k.if_(lead, |k| slot.release(k));
            }
        });
        k.if_(active, |k| soft.finish(k, &o.0, &rows, plan, tile, out));
        all
    }
}
