//! A consumer's tiles as one stream of key blocks, when not causal (every tile then has the
//! same `all = ceil(S_k / bn)` blocks). Block `g` of the stream is block `g mod all` of the
//! CTA's tile `g / all`, and iteration `g` of both rings. Each turn issues block `g`'s scores
//! and block `g - 1`'s product, across a tile boundary too: the turn that issues a tile's
//! last product issues the next tile's first scores, and the finished tile's output is
//! written while they and the other consumers' products run. Tile by tile, the tensor cores
//! would wait for that output and for the next tile's first scores and softmax.

use super::consumer::{Out, Parts, Turns};
use super::softmax::Softmax;
use ptxkit::intrinsics::wgmma::{Mma, WgmmaForm};
use ptxkit::prelude::*;

pub(crate) fn stream<const D: u32, const RD: usize, const BN: u32, const RB: usize>(k: &mut Kernel, parts: &Parts<RD, RB>, out: &Out)
where
    Mma<D, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RD>>,
    Mma<BN, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RB>>,
{
    let plan = parts.plan;
    let (s, o, p) = (parts.s, parts.o, &parts.p);
    let all = plan.blocks_until(k, plan.seq_k);
    let tiles = plan.tiles_of_cta(k);
    let some = {
        let total = ptx!(k, "mul.lo.u32", tiles, all);
        ptx!(k, "setp.ne.u32", total, 0u32)
    };
    k.if_(some, |k| {
        // Tile `round` of the CTA is tile `first + round · step`; its block 0 is iteration
        // `round · all` of the rings.
        let (first, step) = plan.first_tile(k);
        let zero = ptx!(k, "mov.u32", 0u32);
        let tile_of = |k: &mut Kernel, round: Reg<U32>| {
            let t = ptx!(k, "mad.lo.u32", round, step, first);
            plan.tile_at(k, t, round, zero)
        };
        let first_row = {
            let tile = tile_of(k, zero);
            parts.first_row(k, tile.q0)
        };
        for x in s.0.iter().chain(o.0.iter()) {
            ptx!(k, "mov.f32" => *x, 0f32);
        }
        let mut soft = Softmax::new(k, out.scale_log2, plan.cfg.soft_exp);
        // One turn per block, and one for the last product.
        let turns = Turns::new(k, parts.c, plan.cfg.consumers);
        let total_turns = ptx!(k, "mad.lo.u32", tiles, all, 1u32);
        turns.begin(k, total_turns);

        // Blocks 1.. of the CTA's tile `round`, after block 0 (its scores and P); Q released.
        // Returns the ring iteration of its last block.
        let rest_of_tile = |k: &mut Kernel, soft: &mut Softmax, round: Reg<U32>| {
            let base = ptx!(k, "mul.lo.u32", round, all);
            parts.blocks::<D, BN>(k, soft, base, all, first_row, &turns);
            parts.release_q(k);
            let next = ptx!(k, "add.u32", base, all);
            ptx!(k, "sub.u32", next, 1u32)
        };

        parts.wait_q(k, zero);
        parts.first_block::<D, BN>(k, &mut soft, zero, zero, first_row, &turns);
        k.for_range(1u32, tiles, 1, |k, round| {
            let prev = ptx!(k, "sub.u32", round, 1u32);
            let last = rest_of_tile(k, &mut soft, prev);
            // One turn: the last tile's last product and this tile's first scores; this
            // tile's first softmax, then the last tile's output while the products run.
            let next = ptx!(k, "add.u32", last, 1u32);
            let tile = tile_of(k, round);
            let row = parts.first_row(k, tile.q0);
            ptx!(k, "mov.u32" => first_row, row);
            parts.wait_q(k, round);
            let (pending_o, v_slot) = parts.scores_and_values::<D, BN>(k, next, last, &turns);
            let mut finished = soft.restart(k);
            parts.mask::<BN>(k, zero, first_row);
            let _ = soft.step(k, &s.0);
            // The wait for P·V in a block of its own (see `Parts::blocks`).
            k.if_(parts.live, |k| {
                let _ = pending_o.wait(k, 0);
                parts.release(k, v_slot);
                let tile = tile_of(k, prev);
                parts.finish(k, &mut finished, tile.q0, tile.head, tile.batch, out);
                for x in o.0 {
                    ptx!(k, "mov.f32" => x, 0f32);
                }
                Softmax::pack(k, &s.0, p);
            });
        });
        // The rest of the last tile, its last product and its output.
        let last_round = ptx!(k, "sub.u32", tiles, 1u32);
        let last = rest_of_tile(k, &mut soft, last_round);
        parts.last_product::<D, BN>(k, last, &turns);
        let tile = tile_of(k, last_round);
        parts.finish(k, &mut soft, tile.q0, tile.head, tile.batch, out);
    });
}
