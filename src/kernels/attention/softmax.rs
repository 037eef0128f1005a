//! The online softmax on wgmma accumulator fragments. A thread holds two rows of the
//! consumer's 64 (`r` and `r + 8`): register `i` of an accumulator is in the upper row when
//! `(i / 2) % 2 == 0`, at column `col0 + 8·(i / 4) + i % 2`
//! ([`crate::intrinsics::wgmma::acc_coord`]); the four threads of a quad share a row.

use super::consumer::Out;
use super::Plan;
use ptxkit::intrinsics::wgmma;
use ptxkit::prelude::*;

/// `2^x` into `out` for `x <= 0` (or -inf) without the MUFU unit, whose 16 results per cycle
/// per SM bound the softmax at small head dimensions: `x` clamped to -126, split into an
/// integer `n` (the 1.5·2^23 rounding trick) and `f` in [-0.5, 0.5], `2^f` by a cubic
/// (relative error 7.7e-5, far below bf16's 3.9e-3, which P is rounded to), and `n` added to
/// the exponent bits. Nine FP32/integer instructions instead of one `ex2`.
fn exp2_on_fma(k: &mut Kernel, x: Reg<F32>, out: Reg<F32>) {
    const MAGIC: f32 = 12_582_912.0; // 1.5 · 2^23
    const C: [f32; 4] = [0.999_928_9, 0.693_276_3, 0.242_604_35, 0.055_088_725];
    let xc = ptx!(k, "max.f32", x, -126f32);
    let t = ptx!(k, "add.rn.f32", xc, MAGIC);
    let n = ptx!(k, "sub.rn.f32", t, MAGIC);
    let f = ptx!(k, "sub.rn.f32", xc, n);
    let p = ptx!(k, "fma.rn.f32", f, C[3], C[2]);
    let p = ptx!(k, "fma.rn.f32", p, f, C[1]);
    let p = ptx!(k, "fma.rn.f32", p, f, C[0]);
    let e = ptx!(k, "shl.b32", t.bitcast::<B32>(), 23u32);
    ptx!(k, "add.s32" => out.bitcast::<S32>(), p.bitcast::<S32>(), e.bitcast::<S32>());
}

/// `vals` combined by `op` pairwise, as a tree (depth log2 of the count): a chain of
/// dependent instructions as long as the row would leave the warp waiting on each one's
/// latency, with too few other warps to issue meanwhile.
fn tree(k: &mut Kernel, vals: &[Reg<F32>], op: impl Fn(&mut Kernel, Reg<F32>, Reg<F32>) -> Reg<F32>) -> Reg<F32> {
    let mut level = vals.to_vec();
    while level.len() > 1 {
        let next: Vec<Reg<F32>> = level.chunks(2).map(|p| if p.len() == 2 { op(k, p[0], p[1]) } else { p[0] }).collect();
        level = next;
    }
    level[0]
}

/// How far (in log2 units) a row's maximum may grow before the running maximum moves.
pub(crate) const GROWTH: f32 = 8.0;

/// Whether register `i` is in the lower row, and its column in the tile.
const fn place(i: usize) -> (usize, u32) {
    ((i / 2) % 2, 8 * (i as u32 / 4) + i as u32 % 2)
}

/// The registers of an accumulator in the thread's upper row and in its lower row.
fn by_row(acc: &[Reg<F32>]) -> [Vec<Reg<F32>>; 2] {
    let mut rows = [vec![], vec![]];
    for (i, x) in acc.iter().enumerate() {
        rows[place(i).0].push(*x);
    }
    rows
}

/// `m`, or 0 where it is -inf (a row with no key seen yet): what the exponents subtract.
fn offset(k: &mut Kernel, m: Reg<F32>) -> Reg<F32> {
    let none = ptx!(k, "setp.eq.f32", m, f32::NEG_INFINITY);
    ptx!(k, "selp.f32", 0f32, m, none)
}

/// The thread's rows and first column.
pub(crate) struct Rows {
    /// The global indices of the thread's upper and lower rows.
    pub(crate) row: [Reg<U32>; 2],
    /// The thread's first column in a tile.
    pub(crate) col0: Reg<U32>,
}

impl Rows {
    pub(crate) fn new(k: &mut Kernel, first_row: Reg<U32>, thread: Reg<U32>) -> Rows {
        let r = wgmma::acc_row(k, thread);
        let col0 = wgmma::acc_col(k, thread);
        let upper = ptx!(k, "add.u32", first_row, r);
        let lower = ptx!(k, "add.u32", upper, 8u32);
        Rows { row: [upper, lower], col0 }
    }

    /// Sets to -inf the scores of keys `key0 + column` at or past `seq_k`, and (causal) past
    /// each row.
    pub(crate) fn mask(&self, k: &mut Kernel, s: &[Reg<F32>], key0: Reg<U32>, seq_k: Reg<U32>, causal: bool) {
        // Column offsets below `limit[r]` are seen: S_k - (key0 + col0), and at most
        // row - (key0 + col0) + 1 when causal.
        let first = ptx!(k, "add.u32", key0, self.col0);
        let keys = ptx!(k, "sub.s32", seq_k.bitcast::<S32>(), first.bitcast::<S32>());
        let limit: [Reg<S32>; 2] = core::array::from_fn(|r| {
            if causal {
                let diag = ptx!(k, "sub.s32", self.row[r].bitcast::<S32>(), first.bitcast::<S32>());
                let diag = ptx!(k, "add.s32", diag, 1i32);
                ptx!(k, "min.s32", keys, diag)
            } else {
                keys
            }
        });
        let ninf = ptx!(k, "mov.f32", f32::NEG_INFINITY);
        for (i, &x) in s.iter().enumerate() {
            let (half, col) = place(i);
            let seen = ptx!(k, "setp.lt.s32", col as i32, limit[half]);
            ptx!(k, "selp.f32" => x, x, ninf, seen);
        }
    }
}

/// The running maximum (in log2 units, scaled) and the thread's part of the running sum of
/// each of its two rows.
pub(crate) struct Softmax {
    m: [Reg<F32>; 2],
    l: [Reg<F32>; 2],
    scale_log2: Reg<F32>,
    /// Of each 16 scores, how many take their `2^x` on the FMA units ([`exp2_on_fma`]).
    soft_exp: u32,
}

impl Softmax {
    pub(crate) fn new(k: &mut Kernel, scale_log2: Reg<F32>, soft_exp: u32) -> Softmax {
        let m = core::array::from_fn(|_| ptx!(k, "mov.f32", f32::NEG_INFINITY));
        let l = core::array::from_fn(|_| ptx!(k, "mov.f32", 0f32));
        Softmax { m, l, scale_log2, soft_exp }
    }

    /// Starts the statistics of a new tile (maxima -inf, sums 0) and returns the finished
    /// tile's, in registers of their own, for its [`finish`](Self::finish).
    pub(crate) fn restart(&mut self, k: &mut Kernel) -> Softmax {
        let m = self.m.map(|m| ptx!(k, "mov.f32", m));
        let l = self.l.map(|l| ptx!(k, "mov.f32", l));
        for r in 0..2 {
            ptx!(k, "mov.f32" => self.m[r], f32::NEG_INFINITY);
            ptx!(k, "mov.f32" => self.l[r], 0f32);
        }
        Softmax { m, l, ..*self }
    }

    /// One key block's statistics: the row maxima and running sums, and `s` overwritten with
    /// P = `2^(s·scale - m)` (f32). The maxima move only when some row of the warp grew by
    /// more than [`GROWTH`] (in log2 units; until then P stays below `2^GROWTH`, which f32
    /// sums and bf16 P hold): most blocks then need no correction of O. Returns each row's
    /// correction `2^(m_old - m_new)` and whether there is one (the same in the whole warp):
    /// then O must be multiplied by it ([`Softmax::rescale`]) before P·V is added.
    pub(crate) fn step(&mut self, k: &mut Kernel, s: &[Reg<F32>]) -> ([Reg<F32>; 2], Reg<Pred>) {
        let rows = by_row(s);
        let mut candidate = [self.m[0]; 2];
        let mut grows = vec![];
        for r in 0..2 {
            let mut mx = tree(k, &rows[r], |k, a, b| ptx!(k, "max.f32", a, b));
            // The quad's four threads hold the row.
            for d in [1u32, 2] {
                let other = ptx!(k, "shfl.sync.bfly.b32", mx.bitcast::<B32>(), d, 31u32, 0xFFFF_FFFFu32);
                mx = ptx!(k, "max.f32", mx, other.bitcast::<F32>());
            }
            let scaled = ptx!(k, "mul.f32", mx, self.scale_log2);
            candidate[r] = ptx!(k, "max.f32", self.m[r], scaled);
            let bound = ptx!(k, "add.f32", self.m[r], GROWTH);
            grows.push(ptx!(k, "setp.gt.f32", candidate[r], bound));
        }
        let grows = ptx!(k, "or.pred", grows[0], grows[1]);
        let any = k.vote_any(grows, LaneMask::FULL);
        let corr: [Reg<F32>; 2] = core::array::from_fn(|_| ptx!(k, "mov.f32", 1f32));
        k.if_(any, |k| {
            for r in 0..2 {
                let m_use = offset(k, candidate[r]);
                let diff = ptx!(k, "sub.f32", self.m[r], m_use);
                ptx!(k, "ex2.approx.ftz.f32" => corr[r], diff);
                ptx!(k, "mov.f32" => self.m[r], candidate[r]);
                ptx!(k, "mul.f32" => self.l[r], self.l[r], corr[r]);
            }
        });
        let neg_m: [Reg<F32>; 2] = core::array::from_fn(|r| {
            let m_use = offset(k, self.m[r]);
            ptx!(k, "neg.f32", m_use)
        });
        for (i, x) in s.iter().enumerate() {
            let r = place(i).0;
            let t = ptx!(k, "fma.rn.f32", *x, self.scale_log2, neg_m[r]);
            if (i % 16) < self.soft_exp as usize {
                exp2_on_fma(k, t, *x);
            } else {
                ptx!(k, "ex2.approx.ftz.f32" => *x, t);
            }
        }
        for r in 0..2 {
            let sum = tree(k, &rows[r], |k, a, b| ptx!(k, "add.f32", a, b));
            ptx!(k, "add.f32" => self.l[r], self.l[r], sum);
        }
        (corr, any)
    }

    /// `o` times each row's correction.
    pub(crate) fn rescale(k: &mut Kernel, o: &[Reg<F32>], corr: [Reg<F32>; 2]) {
        for (i, x) in o.iter().enumerate() {
            ptx!(k, "mul.f32" => *x, *x, corr[place(i).0]);
        }
    }

    /// P (in `s`) packed to bf16 pairs into `p`, in the A-fragment order: register `j`
    /// holds columns `2j`, `2j + 1` of the thread's part of the block.
    pub(crate) fn pack(k: &mut Kernel, s: &[Reg<F32>], p: &[Reg<B32>]) {
        for (pair, d) in s.chunks(2).zip(p) {
            ptx!(k, "cvt.rn.bf16x2.f32" => d.bitcast::<Bf16x2>(), pair[1], pair[0]);
        }
    }

    /// The rows' sums across the quad, O divided by them and stored as bf16 (rows before
    /// S_q), and the log-sum-exp `ln 2 · (m + log2 l)` by the first thread of each quad.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn finish(&mut self, k: &mut Kernel, o: &[Reg<F32>], rows: &Rows, plan: &Plan, head: Reg<U32>, batch: Reg<U32>, out: &Out) {
        let (ss, sh, sb) = out.strides;
        let bh = {
            let b = ptx!(k, "mul.wide.u32", batch, sb);
            let h = ptx!(k, "mul.wide.u32", head, sh);
            ptx!(k, "add.u64", b, h)
        };
        let lse_row0 = {
            let bh = ptx!(k, "mad.lo.u32", batch, plan.heads, head);
            ptx!(k, "mul.wide.u32", bh, plan.seq_q)
        };
        let quad_lead = ptx!(k, "setp.eq.u32", rows.col0, 0u32);
        let o_rows = by_row(o);
        for r in 0..2 {
            for d in [1u32, 2] {
                let other = ptx!(k, "shfl.sync.bfly.b32", self.l[r].bitcast::<B32>(), d, 31u32, 0xFFFF_FFFFu32);
                ptx!(k, "add.f32" => self.l[r], self.l[r], other.bitcast::<F32>());
            }
            let inv = ptx!(k, "rcp.rn.f32", self.l[r]);
            let inside = ptx!(k, "setp.lt.u32", rows.row[r], plan.seq_q);
            // &O[b, h, row, col0]
            let row_off = ptx!(k, "mul.wide.u32", rows.row[r], ss);
            let col = ptx!(k, "cvt.u64.u32", rows.col0);
            let at = ptx!(k, "add.u64", bh, row_off);
            let at = ptx!(k, "add.u64", at, col);
            let at = ptx!(k, "mad.lo.u64", at, 2u64, out.o.addr(k));
            let mine = &o_rows[r];
            k.if_(inside, |k| {
                for (j, pair) in mine.chunks(2).enumerate() {
                    let lo = ptx!(k, "mul.f32", pair[0], inv);
                    let hi = ptx!(k, "mul.f32", pair[1], inv);
                    let v = ptx!(k, "cvt.rn.bf16x2.f32", hi, lo);
                    let to = GlobalPtr::<B32>::from_reg(at).byte_offset(16 * j as i64);
                    ptx!(k, "st.global.b32", to.offset(0), v.bitcast::<B32>());
                }
                k.if_(quad_lead, |k| {
                    let lg = ptx!(k, "lg2.approx.ftz.f32", self.l[r]);
                    let sum = ptx!(k, "add.f32", self.m[r], lg);
                    let v = ptx!(k, "mul.f32", sum, core::f32::consts::LN_2);
                    let row = ptx!(k, "cvt.u64.u32", rows.row[r]);
                    let idx = ptx!(k, "add.u64", lse_row0, row);
                    let at = ptx!(k, "mad.lo.u64", idx, 4u64, out.lse.addr(k));
                    ptx!(k, "st.global.f32", GlobalPtr::<F32>::from_reg(at).offset(0), v);
                });
            });
        }
    }
}
