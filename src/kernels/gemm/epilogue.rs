//! Writing a consumer's accumulator, times α, to C: straight from registers, or staged
//! through shared memory with `stmatrix` and stored by TMA.
//!
//! Thread `t` of warp `w` of a consumer holds, for `i` in `0..bn/8`, rows `16w + t/4` and
//! `16w + t/4 + 8` of the consumer's 64, columns `8i + 2(t%4)` and `+1`: registers
//! `4i, 4i+1` (upper row) and `4i+2, 4i+3` (lower row).

use super::{hopper, GemmOut, ROWS_PER_CONSUMER};
use crate::builder::{Kernel, TensorMap};
use crate::intrinsics::roles::NamedBarrier;
use crate::ops::Acc;
use crate::prelude::*;

/// Where C goes.
pub(super) enum Out<O: GemmOut> {
    /// Stores from registers to C (row-major, N columns, rows `ldc` elements apart): pairs
    /// where the tile is inside C and `ldc` is even, single elements checked against M and N
    /// otherwise.
    Direct(GlobalPtr<O>, Reg<U32>),
    /// bf16 C through its tensor map (dims `[N, M]`, 64 × 64 boxes, 128-byte swizzle).
    Staged(TensorMap<Bf16, 2>),
}

/// Columns (and rows) of one staged chunk: one 128-byte swizzle row of bf16.
pub(super) const CHUNK: u32 = 64;
/// Bytes of one staging buffer.
pub(super) const CHUNK_BYTES: u32 = CHUNK * CHUNK * 2;

/// One consumer's epilogue, with what it computes once per kernel.
pub(super) struct Epilogue<'o, O: GemmOut> {
    cfg: hopper::Config,
    out: &'o Out<O>,
    alpha: Reg<F32>,
    consumer: Reg<U32>,
    lead: Reg<Pred>,
    /// The thread's upper row in the consumer's 64 and its first column: `16w + t/4`, `2(t%4)`.
    row: Reg<U32>,
    col: Reg<U32>,
    /// The thread's index in its consumer (for the `stmatrix` addresses, computed where they
    /// are used: registers held through the main loop are the scarcest).
    thread: Reg<U32>,
    smem: SharedPtr<B8>,
    /// Staged: a running chunk count.
    chunks: Reg<U32>,
}

impl<'o, O: GemmOut> Epilogue<'o, O> {
    pub(super) fn new(
        k: &mut Kernel,
        cfg: hopper::Config,
        smem: SharedPtr<B8>,
        consumer: Reg<U32>,
        thread: Reg<U32>,
        out: &'o Out<O>,
        alpha: Reg<F32>,
    ) -> Self {
        let row = wgmma::acc_row(k, thread);
        let col = wgmma::acc_col(k, thread);
        let lead = ptx!(k, "setp.eq.u32", thread, 0u32);
        let chunks = ptx!(k, "mov.u32", 0u32);
        Epilogue { cfg, out, alpha, consumer, lead, row, col, thread, smem, chunks }
    }

    /// This consumer's two staging buffers, and the `stmatrix` row address of each of the
    /// four x4 stores of a chunk (relative to a buffer).
    fn staging(&self, k: &mut Kernel) -> (Reg<U32>, [Reg<U32>; 4]) {
        let warp = ptx!(k, "shr.u32", self.thread, 5u32);
        let lane = ptx!(k, "and.b32", self.thread, 31u32).bitcast::<U32>();
        // stmatrix.x4: lane l gives the row address of matrix l/8, row l%8. Matrices 0 and 1
        // are the upper and lower 8 rows of column block 2j, 2 and 3 of block 2j+1; a row of
        // the chunk is 128 bytes whose 16-byte blocks are swizzled by the row's low 3 bits.
        let q = ptx!(k, "shr.u32", lane, 3u32);
        let r = ptx!(k, "and.b32", lane, 7u32).bitcast::<U32>();
        let lower = ptx!(k, "and.b32", q, 1u32).bitcast::<U32>();
        let block = ptx!(k, "shr.u32", q, 1u32);
        let upper8 = ptx!(k, "mad.lo.u32", warp, 2u32, lower);
        let chunk_row = ptx!(k, "mad.lo.u32", upper8, 8u32, r);
        let row_bytes = ptx!(k, "mul.lo.u32", chunk_row, 128u32);
        let offsets = std::array::from_fn(|j| {
            let b = ptx!(k, "add.u32", block, 2 * j as u32);
            let x = ptx!(k, "xor.b32", b.bitcast::<B32>(), r.bitcast::<B32>()).bitcast::<U32>();
            ptx!(k, "mad.lo.u32", x, 16u32, row_bytes)
        });
        let base = self.smem.addr(k);
        let first = ptx!(k, "add.u32", base, self.cfg.shared_bytes());
        (ptx!(k, "mad.lo.u32", self.consumer, 2 * CHUNK_BYTES, first), offsets)
    }

    /// The first row and column of C that this consumer writes of tile (`tm`, `tn`).
    pub(super) fn origin(&self, k: &mut Kernel, tm: Reg<U32>, tn: Reg<U32>) -> (Reg<U32>, Reg<U32>) {
        let tile_row = ptx!(k, "mul.lo.u32", tm, self.cfg.bm());
        let m0 = ptx!(k, "mad.lo.u32", self.consumer, ROWS_PER_CONSUMER, tile_row);
        (m0, ptx!(k, "mul.lo.u32", tn, self.cfg.bn))
    }

    /// Writes tile (`tm`, `tn`) of this consumer from `acc`.
    pub(super) fn store<const R: usize>(&mut self, k: &mut Kernel, m: Reg<U32>, n: Reg<U32>, tm: Reg<U32>, tn: Reg<U32>, acc: Acc<F32, R>) {
        let (m0, n0) = self.origin(k, tm, tn);
        match self.out {
            Out::Direct(c, ldc) => self.direct(k, (m, n, *ldc), m0, n0, *c, acc),
            // Each chunk's pairs packed as it is written: few registers live at once.
            Out::Staged(map) => self.write_chunks(k, m0, n0, *map, |k, p| std::array::from_fn(|i| self.pair(k, acc, p + i, None))),
        }
    }

    /// Accumulator registers `2p` and `2p + 1` times α as one bf16 pair (into `dst` if given):
    /// pair `p` holds columns `2p mod 8`.. of product `p / 4`'s rows, the order the `stmatrix`
    /// stores of [`write_chunks`](Self::write_chunks) take them in.
    fn pair<const R: usize>(&self, k: &mut Kernel, acc: Acc<F32, R>, p: usize, dst: Option<Reg<B32>>) -> Reg<B32> {
        let (l, h) = (ptx!(k, "mul.f32", acc[2 * p], self.alpha), ptx!(k, "mul.f32", acc[2 * p + 1], self.alpha));
        match dst {
            Some(d) => ptx!(k, "cvt.rn.bf16x2.f32" => d.bitcast::<Bf16x2>(), h, l).bitcast::<B32>(),
            None => ptx!(k, "cvt.rn.bf16x2.f32", h, l).bitcast::<B32>(),
        }
    }

    /// The whole accumulator times α as bf16 pairs, into `packed` (`R / 2` registers), for a
    /// deferred [`write_packed`](Self::write_packed).
    pub(super) fn pack<const R: usize>(&self, k: &mut Kernel, acc: Acc<F32, R>, packed: &[Reg<B32>]) {
        for (p, dst) in packed.iter().enumerate() {
            self.pair(k, acc, p, Some(*dst));
        }
    }

    /// Writes the pairs [`pack`](Self::pack) left in `packed`.
    pub(super) fn write_packed(&self, k: &mut Kernel, m0: Reg<U32>, n0: Reg<U32>, map: TensorMap<Bf16, 2>, packed: &[Reg<B32>]) {
        self.write_chunks(k, m0, n0, map, |_, p| [packed[p], packed[p + 1], packed[p + 2], packed[p + 3]]);
    }

    /// After the last tile: the staged stores have read shared memory before the CTA exits.
    pub(super) fn finish(&self, k: &mut Kernel) {
        if let Out::Staged(_) = self.out {
            k.if_(self.lead, |k| ptx!(k, "cp.async.bulk.wait_group", 0));
        }
    }

    fn direct<const R: usize>(
        &self,
        k: &mut Kernel,
        (m, n, ldc): (Reg<U32>, Reg<U32>, Reg<U32>),
        m0: Reg<U32>,
        n0: Reg<U32>,
        c: GlobalPtr<O>,
        acc: Acc<F32, R>,
    ) {
        let esize = if O::BF16 { 2u32 } else { 4 };
        let r0 = ptx!(k, "add.u32", m0, self.row);
        let r1 = ptx!(k, "add.u32", r0, 8u32);
        let col0 = ptx!(k, "add.u32", n0, self.col);
        // &C[r0][col0] and &C[r1][col0].
        let row_elems = ptx!(k, "mul.wide.u32", r0, ldc);
        let col_wide = ptx!(k, "cvt.u64.u32", col0);
        let elem = ptx!(k, "add.u64", row_elems, col_wide);
        let base = c.addr(k);
        let p0 = ptx!(k, "mad.lo.u64", elem, esize as u64, base);
        let pitch8 = ptx!(k, "mul.wide.u32", ldc, 8 * esize);
        let p1 = ptx!(k, "add.u64", p0, pitch8);
        let (c0, c1) = (GlobalPtr::<O>::from_reg(p0), GlobalPtr::<O>::from_reg(p1));

        // Interior: all 64 rows and bn columns inside, and ldc even (pairs are aligned).
        let m_end = ptx!(k, "add.u32", m0, ROWS_PER_CONSUMER);
        let n_end = ptx!(k, "add.u32", n0, self.cfg.bn);
        let rows_in = ptx!(k, "setp.le.u32", m_end, m);
        let cols_in = ptx!(k, "setp.le.u32", n_end, n);
        let odd = ptx!(k, "and.b32", ldc, 1u32);
        let even = ptx!(k, "setp.eq.b32", odd, 0u32);
        let inside = ptx!(k, "and.pred", rows_in, cols_in);
        let interior = ptx!(k, "and.pred", inside, even);
        let blocks = R / 4;
        k.if_else(
            interior,
            |k| {
                for i in 0..blocks {
                    let off = (8 * esize * i as u32) as i64;
                    for (half, ptr) in [(0, &c0), (1, &c1)] {
                        let lo = ptx!(k, "mul.f32", acc[4 * i + 2 * half], self.alpha);
                        let hi = ptx!(k, "mul.f32", acc[4 * i + 2 * half + 1], self.alpha);
                        store_pair::<O>(k, ptr.byte_offset(off), lo, hi);
                    }
                }
            },
            |k| {
                let r0_in = ptx!(k, "setp.lt.u32", r0, m);
                let r1_in = ptx!(k, "setp.lt.u32", r1, m);
                // Columns left from col0: col0 + j is inside when j < left.
                let left = ptx!(k, "sub.s32", n.bitcast::<S32>(), col0.bitcast::<S32>());
                for i in 0..blocks {
                    for j in 0..2u32 {
                        let col = 8 * i as i32 + j as i32;
                        let col_in = ptx!(k, "setp.gt.s32", left, col);
                        let off = (col as u32 * esize) as i64;
                        for (half, ptr, row_in) in [(0usize, &c0, r0_in), (1, &c1, r1_in)] {
                            let ok = ptx!(k, "and.pred", col_in, row_in);
                            let v = acc[4 * i + 2 * half + j as usize];
                            let alpha = self.alpha;
                            k.if_(ok, |k| {
                                let v = ptx!(k, "mul.f32", v, alpha);
                                store_one::<O>(k, ptr.byte_offset(off), v)
                            });
                        }
                    }
                }
            },
        );
    }

    /// 64 × 64 chunks of the tile whose first row and column are `m0`, `n0`, its pairs from
    /// `pairs(k, p)` (pairs `p..p + 4`): wait until the buffer's previous store has read it,
    /// `stmatrix` the chunk into it, fence it to the async proxy, and one thread stores it
    /// with TMA (which clips rows and columns outside C).
    fn write_chunks(
        &self,
        k: &mut Kernel,
        m0: Reg<U32>,
        n0: Reg<U32>,
        map: TensorMap<Bf16, 2>,
        mut pairs: impl FnMut(&mut Kernel, usize) -> [Reg<B32>; 4],
    ) {
        let id = ptx!(k, "add.u32", self.consumer, 1u32);
        let named = NamedBarrier::new(k, id, 128);
        let (staging, offsets) = self.staging(k);
        let y = m0.bitcast::<S32>();
        for chunk in 0..(self.cfg.bn / CHUNK) as usize {
            let parity = ptx!(k, "and.b32", self.chunks, 1u32).bitcast::<U32>();
            let buf = ptx!(k, "mad.lo.u32", parity, CHUNK_BYTES, staging);
            // At most one store (of the other buffer) may still be reading.
            k.if_(self.lead, |k| ptx!(k, "cp.async.bulk.wait_group.read", 1));
            named.sync(k);
            for (j, off) in offsets.iter().enumerate() {
                // Products 2j and 2j + 1 of the chunk: registers 4i..4i+8 of the accumulator.
                let regs = pairs(k, (chunk * 8 + 2 * j) * 2);
                let at = ptx!(k, "add.u32", buf, *off);
                ptx!(k, "stmatrix.sync.aligned.m8n8.x4.shared.b16", SharedPtr::<B16>::from_reg32(at), regs);
            }
            ptx!(k, "fence.proxy.async.shared::cta");
            named.sync(k);
            k.if_(self.lead, |k| {
                let x = ptx!(k, "add.u32", n0, chunk as u32 * CHUNK).bitcast::<S32>();
                map.store(k, [x, y], SharedPtr::<B8>::from_reg32(buf));
                ptx!(k, "cp.async.bulk.commit_group");
            });
            ptx!(k, "add.u32" => self.chunks, self.chunks, 1u32);
        }
    }
}

/// Two adjacent elements of C, as one 4-byte (bf16) or 8-byte (f32) store.
pub(super) fn store_pair<O: GemmOut>(k: &mut Kernel, at: GlobalPtr<O>, lo: Reg<F32>, hi: Reg<F32>) {
    if O::BF16 {
        let v = ptx!(k, "cvt.rn.bf16x2.f32", hi, lo);
        ptx!(k, "st.global.b32", at.cast::<B32>().offset(0), v.bitcast::<B32>());
    } else {
        ptx!(k, "st.global.v2.f32", at.cast::<F32>().offset(0), [lo, hi]);
    }
}

/// One element of C.
pub(super) fn store_one<O: GemmOut>(k: &mut Kernel, at: GlobalPtr<O>, v: Reg<F32>) {
    if O::BF16 {
        let b = ptx!(k, "cvt.rn.bf16.f32", v);
        ptx!(k, "st.global.b16", at.cast::<B16>().offset(0), b.bitcast::<B16>());
    } else {
        ptx!(k, "st.global.f32", at.cast::<F32>().offset(0), v);
    }
}
