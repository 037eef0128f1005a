//! Writing the accumulators of the sm_80 GEMM ([`super::gemm_tn_mma`]) to C. Where the CTA
//! tile lies inside C and C's rows start on 16-byte boundaries, each warp stages its block in
//! a buffer of its own in shared memory and writes whole 128-byte lines with 16-byte stores
//! (`staged_store`); otherwise bf16 (or f32) pairs straight from registers where N is even,
//! single elements under predicates at the edges.

use super::epilogue::{store_one, store_pair};
use super::GemmOut;
use crate::builder::Kernel;
use crate::prelude::*;

/// Writing the accumulators to C. Lane `l` of the warp holds, for product (`i`, `j`), rows
/// `16i + l/4` and `+8` of its block, columns `8j + 2(l%4)` and `+1`: registers 0–1 the
/// upper row, 2–3 the lower.
pub(super) struct Store {
    pub(super) m: Reg<U32>,
    pub(super) n: Reg<U32>,
    pub(super) warp_m: Reg<U32>,
    pub(super) warp_n: Reg<U32>,
    pub(super) lane: Reg<U32>,
    pub(super) wm: u32,
    pub(super) wn: u32,
    pub(super) mi: usize,
    pub(super) nj: usize,
    pub(super) bm: u32,
    pub(super) bn: u32,
    /// The warp's staging buffer (a shared address), with `staged_store`.
    pub(super) stage: Option<Reg<U32>>,
}

/// Bytes of one row of a warp's staging buffer: a bf16 row of the warp block and 16 bytes
/// of padding, which puts the 8 rows a fragment store touches in different banks. An f32
/// block is staged in two passes of half the rows, each row twice as long.
pub(super) fn stage_pitch(wn: u32) -> u32 {
    2 * wn + 16
}

impl Store {
    /// Stores the tile whose first row and column are `row0` and `col0`: through the staging
    /// buffer where the tile is inside C and 16-byte stores are aligned, else from registers.
    pub(super) fn write<O: GemmOut>(&self, k: &mut Kernel, c: GlobalPtr<O>, acc: &[[Reg<F32>; 4]], row0: Reg<U32>, col0: Reg<U32>) {
        // Whether the whole CTA tile lies inside C.
        let m_end = ptx!(k, "add.u32", row0, self.bm);
        let n_end = ptx!(k, "add.u32", col0, self.bn);
        let rows_in = ptx!(k, "setp.le.u32", m_end, self.m);
        let cols_in = ptx!(k, "setp.le.u32", n_end, self.n);
        let inside = ptx!(k, "and.pred", rows_in, cols_in);
        let Some(stage) = self.stage else {
            return self.write_direct::<O>(k, c, acc, row0, col0, inside);
        };
        // Rows of C start on 16 bytes when N is a multiple of 8 (bf16) or 4 (f32).
        let per16 = if O::BF16 { 8u32 } else { 4 };
        let rest = ptx!(k, "and.b32", self.n, per16 - 1);
        let aligned = ptx!(k, "setp.eq.b32", rest, 0u32);
        let staged = ptx!(k, "and.pred", inside, aligned);
        k.if_else(
            staged,
            |k| self.write_staged::<O>(k, stage, c, acc, row0, col0),
            |k| self.write_direct::<O>(k, c, acc, row0, col0, inside),
        );
    }

    /// The warp's block through its staging buffer: fragments in (bank-conflict free), a
    /// warp barrier, then 16-byte chunks out, 8 lanes to a 128-byte line of C. bf16 goes in
    /// one pass; f32 in two, the upper rows of each 16-row product (`d0`, `d1`) then the
    /// lower (`d2`, `d3`).
    fn write_staged<O: GemmOut>(
        &self,
        k: &mut Kernel,
        stage: Reg<U32>,
        c: GlobalPtr<O>,
        acc: &[[Reg<F32>; 4]],
        row0: Reg<U32>,
        col0: Reg<U32>,
    ) {
        let esize = if O::BF16 { 2u32 } else { 4 };
        let passes = if O::BF16 { 1 } else { 2 };
        let pitch = stage_pitch(self.wn) * passes;
        let (mi, nj2) = (self.mi, self.nj * 2);
        // In: lane (g, q) = (lane / 4, lane % 4) writes row g, columns 2q and 2q + 1 of each
        // 8-column product.
        let (group, quad) = wgmma::lane_group_quad(k, self.lane);
        let qoff = ptx!(k, "mul.lo.u32", quad, 2 * esize);
        let lane_in = ptx!(k, "mad.lo.u32", group, pitch, qoff);
        let lane_in = ptx!(k, "add.u32", lane_in, stage);
        let to = SharedPtr::<B32>::from_reg32(lane_in);
        // Out: a row is `chunks` 16-byte chunks; lane l reads chunk l % chunks of row
        // l / chunks, then the rows `32 / chunks` further on.
        let chunks = self.wn * esize / 16;
        let rows_per_step = 32 / chunks;
        let lr = ptx!(k, "shr.u32", self.lane, chunks.trailing_zeros());
        let lq = ptx!(k, "and.b32", self.lane, chunks - 1).bitcast::<U32>();
        let lq16 = ptx!(k, "mul.lo.u32", lq, 16u32);
        let lane_out = ptx!(k, "mad.lo.u32", lr, pitch, lq16);
        let lane_out = ptx!(k, "add.u32", lane_out, stage);
        let from = SharedPtr::<B32>::from_reg32(lane_out);
        // &C[row0 + warp_m·wm + lr][col0 + warp_n·wn + 16 lq / esize].
        let r = ptx!(k, "mad.lo.u32", self.warp_m, self.wm, row0);
        let r = ptx!(k, "add.u32", r, lr);
        let col = ptx!(k, "mad.lo.u32", self.warp_n, self.wn, col0);
        let elem = ptx!(k, "mul.wide.u32", r, self.n);
        let col_wide = ptx!(k, "cvt.u64.u32", col);
        let elem = ptx!(k, "add.u64", elem, col_wide);
        let base = c.addr(k);
        let lane_c = ptx!(k, "mad.lo.u64", elem, esize as u64, base);
        let lq16w = ptx!(k, "cvt.u64.u32", lq16);
        let lane_c = ptx!(k, "add.u64", lane_c, lq16w);
        let row_bytes = ptx!(k, "mul.wide.u32", self.n, esize);
        for pass in 0..passes {
            if pass > 0 {
                // Every lane has read the first pass's rows.
                ptx!(k, "bar.warp.sync", 0xFFFF_FFFFu32);
            }
            for i in 0..mi {
                for half in 0..2usize {
                    if passes == 2 && half != pass as usize {
                        continue;
                    }
                    // The buffer row of this product's rows g (upper) or g + 8 (lower).
                    let row = if passes == 1 { 16 * i + 8 * half } else { 8 * i } as u32;
                    for j in 0..nj2 {
                        let d = acc[i * nj2 + j];
                        let off = (row * pitch + 8 * j as u32 * esize) as i64;
                        let (lo, hi) = (d[2 * half], d[2 * half + 1]);
                        if O::BF16 {
                            let v = ptx!(k, "cvt.rn.bf16x2.f32", hi, lo);
                            ptx!(k, "st.shared.b32", to.byte_offset(off), v.bitcast::<B32>());
                        } else {
                            ptx!(k, "st.shared.v2.f32", to.cast::<F32>().byte_offset(off), [lo, hi]);
                        }
                    }
                }
            }
            ptx!(k, "bar.warp.sync", 0xFFFF_FFFFu32);
            let rows = self.wm / passes;
            for step in 0..rows / rows_per_step {
                let br = step * rows_per_step;
                // The C row of buffer row `br` (the lane adds its `lr`).
                let crow = if passes == 1 { br } else { 16 * (br / 8) + br % 8 + 8 * pass };
                let w = ptx!(k, "ld.shared.v4.b32", from.byte_offset((br * pitch) as i64));
                let at = ptx!(k, "mad.lo.u64", row_bytes, crow as u64, lane_c);
                ptx!(k, "st.global.v4.b32", GlobalPtr::<B32>::from_reg(at).offset(0), w);
            }
        }
        // The buffer is rewritten only after the main loop's next barrier.
    }

    /// The tile straight from registers: pairs where the tile is `inside` C and N is even,
    /// single elements under predicates otherwise.
    fn write_direct<O: GemmOut>(
        &self,
        k: &mut Kernel,
        c: GlobalPtr<O>,
        acc: &[[Reg<F32>; 4]],
        row0: Reg<U32>,
        col0: Reg<U32>,
        inside: Reg<Pred>,
    ) {
        let esize = if O::BF16 { 2u32 } else { 4 };
        let (group, quad) = wgmma::lane_group_quad(k, self.lane);
        let r = ptx!(k, "mad.lo.u32", self.warp_m, self.wm, row0);
        let r0 = ptx!(k, "add.u32", r, group);
        let cc = ptx!(k, "mad.lo.u32", self.warp_n, self.wn, col0);
        let col = ptx!(k, "mad.lo.u32", quad, 2u32, cc);
        // &C[r0][col].
        let elem = ptx!(k, "mul.wide.u32", r0, self.n);
        let col_wide = ptx!(k, "cvt.u64.u32", col);
        let elem = ptx!(k, "add.u64", elem, col_wide);
        let base = c.addr(k);
        let p0 = ptx!(k, "mad.lo.u64", elem, esize as u64, base);
        let pitch8 = ptx!(k, "mul.wide.u32", self.n, 8 * esize);
        // Interior: the whole CTA tile inside C, and N even (pairs aligned).
        let odd = ptx!(k, "and.b32", self.n, 1u32);
        let even = ptx!(k, "setp.eq.b32", odd, 0u32);
        let interior = ptx!(k, "and.pred", inside, even);
        let (mi, nj2) = (self.mi, self.nj * 2);
        k.if_else(
            interior,
            |k| {
                let mut p = p0;
                for i in 0..mi {
                    let lower = ptx!(k, "add.u64", p, pitch8);
                    for (half, row) in [(0usize, p), (1, lower)] {
                        let at = GlobalPtr::<O>::from_reg(row);
                        for j in 0..nj2 {
                            let d = acc[i * nj2 + j];
                            store_pair::<O>(k, at.byte_offset((8 * esize * j as u32) as i64), d[2 * half], d[2 * half + 1]);
                        }
                    }
                    if i + 1 < mi {
                        p = ptx!(k, "add.u64", lower, pitch8);
                    }
                }
            },
            |k| {
                // Columns left from col: col + x is inside when x < left.
                let left = ptx!(k, "sub.s32", self.n.bitcast::<S32>(), col.bitcast::<S32>());
                let mut p = p0;
                for i in 0..mi {
                    let lower = ptx!(k, "add.u64", p, pitch8);
                    for (half, row) in [(0usize, p), (1, lower)] {
                        let rr = ptx!(k, "add.u32", r0, (16 * i + 8 * half) as u32);
                        let row_in = ptx!(k, "setp.lt.u32", rr, self.m);
                        let at = GlobalPtr::<O>::from_reg(row);
                        for j in 0..nj2 {
                            for x in 0..2u32 {
                                let cx = 8 * j as i32 + x as i32;
                                let col_in = ptx!(k, "setp.gt.s32", left, cx);
                                let ok = ptx!(k, "and.pred", col_in, row_in);
                                let v = acc[i * nj2 + j][2 * half + x as usize];
                                let off = (cx as u32 * esize) as i64;
                                k.if_(ok, |k| store_one::<O>(k, at.byte_offset(off), v));
                            }
                        }
                    }
                    if i + 1 < mi {
                        p = ptx!(k, "add.u64", lower, pitch8);
                    }
                }
            },
        );
    }
}
