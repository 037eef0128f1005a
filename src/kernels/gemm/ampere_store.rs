//! Writing the accumulators of the sm_80 GEMM ([`super::gemm_tn_mma`]) to C, straight from
//! registers: bf16 (or f32) pairs where the CTA tile lies inside C and N is even, single
//! elements under predicates otherwise.

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
}

impl Store {
    /// Stores the tile whose first row and column are `row0` and `col0`.
    pub(super) fn write<O: GemmOut>(&self, k: &mut Kernel, c: GlobalPtr<O>, acc: &[[Reg<F32>; 4]], row0: Reg<U32>, col0: Reg<U32>) {
        let esize = if O::BF16 { 2u32 } else { 4 };
        let group = ptx!(k, "shr.u32", self.lane, 2u32);
        let quad = ptx!(k, "and.b32", self.lane, 3u32).bitcast::<U32>();
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
        // Inside: the whole CTA tile inside C, and N even (pairs aligned).
        let m_end = ptx!(k, "add.u32", row0, self.bm);
        let n_end = ptx!(k, "add.u32", col0, self.bn);
        let rows_in = ptx!(k, "setp.le.u32", m_end, self.m);
        let cols_in = ptx!(k, "setp.le.u32", n_end, self.n);
        let odd = ptx!(k, "and.b32", self.n, 1u32);
        let even = ptx!(k, "setp.eq.b32", odd, 0u32);
        let inside = ptx!(k, "and.pred", rows_in, cols_in);
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
