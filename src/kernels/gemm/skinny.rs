//! Products of few rows (M ≤ 64): `C = α·A·Bᵀ` (TN) as a stream of B through `mma.sync`,
//! for the shapes where the tiled kernels leave most of B's bandwidth unused (a matrix
//! times a few vectors, decode-time linear layers).
//!
//! With M that small the product is bound by reading B once, so the kernel is built to
//! keep as many of B's bytes in flight as the GPU allows and to need nothing between them:
//!
//! - **Warps own rows of B.** Each warp takes `8 · n_blocks` rows of B (columns of C) and a
//!   range of K. Lane `l` reads 16 bytes of row `8j + l/4` at byte `16 · (l % 4)` of each
//!   64-byte step of K, so four lanes read 64 contiguous bytes of a row and a warp's load is
//!   `8` such runs. A whole iteration (`unroll` steps) is loaded an iteration ahead of its
//!   products. B's loads bypass L1 (it is read once), A's stay in it for the CTA's other
//!   warps; both ask L2 for 256-byte lines.
//! - **No shared memory, no barrier.** The 16 bytes a lane holds are two `mma.sync`
//!   B fragments, not the ones the instruction's layout names: a dot product does not
//!   depend on the order of K, so the kernel renumbers K inside each 64-byte step so that
//!   lane `l`'s logical fragment elements are its physical bytes, and loads A's rows
//!   (`16 · m_blocks` of them, zero past M; small, and read by every warp from L1) in the same
//!   order. bf16 uses `m16n8k16`, e4m3 `m16n8k32`: in both a lane's 16 bytes are two
//!   products' B registers (words 0–1 and 2–3), and A's words pair the same way.
//! - **Split K.** Too few warps for the GPU (N = 4096 gives 256 warps of 16 rows) would leave
//!   bandwidth unused, so the host splits K into `splits` ranges, one per CTA of a column of
//!   CTAs. Each warp writes its f32 partial sums to its slot of a workspace, then counts
//!   itself in on its rows' counter (`atom.add` after a release fence); the last warp to
//!   arrive adds the slots in split order (the result does not depend on which warp came
//!   last), stores C and sets the counter back to 0 for the next launch. Nothing waits.
//!
//! ```
//! use ptxkit::kernels::gemm::{skinny, E4m3};
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_90A);
//! let cfg = skinny::Config::for_rows(16);
//! skinny::gemm_skinny::<Bf16, Bf16>(&mut m, "skinny", &cfg)?;
//! skinny::gemm_skinny::<Bf16, E4m3>(&mut m, "skinny_fp8", &skinny::Config::for_rows(64))?;
//! let ptx = m.to_ptx()?;
//! assert!(ptx.contains("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
//! assert!(ptx.contains("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"));
//! assert!(ptx.contains("ld.global.nc.L1::no_allocate.L2::256B.v4.b32"));
//! # Ok::<(), ptxkit::Error>(())
//! ```

use super::epilogue::store_one;
use super::{invalid, GemmIn, GemmOut};
use crate::builder::{Error, Kernel, KernelRef, Module};
use crate::prelude::*;

/// Bytes of K a warp's lanes read of each row per step: 4 lanes × 16 bytes.
pub const STEP_BYTES: u32 = 64;

/// The shape of the kernel's work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Blocks of 16 rows of A (and C) each warp computes, 1 to 4: the kernel takes M up to
    /// `16 · m_blocks`.
    pub m_blocks: u32,
    /// Blocks of 8 rows of B (columns of C) per warp, 1 to 4.
    pub n_blocks: u32,
    /// Steps of [`STEP_BYTES`] of K loaded before they are used, 1 to 8.
    pub unroll: u32,
    /// Warps per CTA, 1 to 16.
    pub warps: u32,
    /// Load each iteration's bytes an iteration ahead of its products (twice the registers
    /// for them), rather than just before.
    pub ahead: bool,
}

impl Config {
    /// The configuration for products of at most `m` rows (1 to 64).
    pub fn for_rows(m: u32) -> Config {
        let m_blocks = m.div_ceil(16).clamp(1, 4);
        // More rows of A per warp hold more registers: fewer rows of B and steps per
        // iteration. Measured on an H200 (bench/results/2026-11-28-h200-gemm-skinny.md).
        let (n_blocks, unroll) = match m_blocks {
            1 => (2, 8),
            2 => (2, 2),
            _ => (2, 1),
        };
        Config { m_blocks, n_blocks, unroll, warps: 4, ahead: true }
    }
    /// Rows of M the kernel takes.
    pub fn max_m(&self) -> u32 {
        16 * self.m_blocks
    }
    /// Rows of B (columns of C) per warp.
    pub fn warp_n(&self) -> u32 {
        8 * self.n_blocks
    }
    /// Threads per CTA.
    pub fn threads(&self) -> u32 {
        32 * self.warps
    }
    /// Bytes of K per loop iteration; a split's range of K is a multiple of it.
    pub fn iter_bytes(&self) -> u32 {
        STEP_BYTES * self.unroll
    }
    /// f32 partial sums per warp slot of the workspace.
    pub fn slot_floats(&self) -> u32 {
        32 * 4 * self.m_blocks * self.n_blocks
    }
    /// Warps along N for `n` columns of C.
    pub fn warps_n(&self, n: u32) -> u32 {
        n.div_ceil(self.warp_n())
    }
    /// CTAs along N for `n` columns of C (each of `warps` warps).
    pub fn ctas_n(&self, n: u32) -> u32 {
        self.warps_n(n).div_ceil(self.warps)
    }
    /// `Err` naming the field out of range.
    pub fn check(&self) -> Result<(), String> {
        let range =
            |name: &str, v: u32, hi: u32| if (1..=hi).contains(&v) { Ok(()) } else { Err(format!("{name} = {v} is not 1 to {hi}")) };
        range("m_blocks", self.m_blocks, 4)?;
        range("n_blocks", self.n_blocks, 4)?;
        range("unroll", self.unroll, 8)?;
        range("warps", self.warps, 16)
    }
}

/// The parameters of [`gemm_skinny`]: A (M × `lda`, row-major), B (N × `ldb`, row-major),
/// C (M × `ldc`), the split-K workspace (f32 slots, one per warp of each split; u32
/// counters, one per warp along N, 0 before the first launch and after each), α, M, N,
/// then in bytes: K, A's and B's row pitches; then `ldc` in elements, the number of splits
/// and the bytes of K per split (a multiple of [`Config::iter_bytes`]).
pub type Params<O, I> = (
    GlobalPtr<<I as GemmIn>::Elem>,
    GlobalPtr<<I as GemmIn>::Elem>,
    GlobalPtr<O>,
    GlobalPtr<F32>,
    GlobalPtr<U32>,
    Reg<F32>,
    Reg<U32>,
    Reg<U32>,
    Reg<U32>,
    Reg<U32>,
    Reg<U32>,
    Reg<U32>,
    Reg<U32>,
    Reg<U32>,
);

/// Adds the skinny kernel for C in `O` and inputs in `I` (bf16 or e4m3) to `m` as `name`.
/// The host ([`runtime::SkinnyGemm`](crate::runtime)) launches `ctas_n(N) · splits` CTAs
/// of [`Config::threads`]; K and the row pitches must be multiples of 16 bytes.
pub fn gemm_skinny<O: GemmOut, I: GemmIn>(m: &mut Module, name: &str, cfg: &Config) -> Result<KernelRef<Params<O, I>>, Error> {
    cfg.check().map_err(|e| invalid(name, format!("skinny GEMM configuration: {e}")))?;
    let cfg = *cfg;
    m.kernel(name, move |k, p: Params<O, I>| body::<O, I>(k, &cfg, p))
}

/// The lane's rows `first + 8·i` (i < count) of a matrix at `base` with rows of `pitch`
/// bytes, at byte `col` of each. A row past `limit` reads row 0 instead: what it feeds only
/// reaches elements of C past M or N, which are not stored.
fn rows(k: &mut Kernel, base: Reg<U64>, pitch: Reg<U32>, first: Reg<U32>, count: u32, limit: Reg<U32>, col: Reg<U32>) -> Vec<Reg<U64>> {
    (0..count)
        .map(|i| {
            let r = ptx!(k, "add.u32", first, 8 * i);
            let ok = ptx!(k, "setp.lt.u32", r, limit);
            let r = ptx!(k, "selp.u32", r, 0u32, ok);
            let off = ptx!(k, "mul.wide.u32", r, pitch);
            let col = ptx!(k, "cvt.u64.u32", col);
            let off = ptx!(k, "add.u64", off, col);
            ptx!(k, "add.u64", base, off)
        })
        .collect()
}

/// One iteration's 16 bytes per step of each row (B's `b_rows` rows, then A's, per step),
/// and the rows' pointers moved on by the iteration. B's loads skip L1 (each byte is read
/// once); A's stay there for the other warps of the CTA. With `tail = Some((at, end))` (the lane's byte
/// of K in the first step, and where its range of K ends) a step whose bytes lie past
/// `end` loads zeros instead.
fn fetch(k: &mut Kernel, cfg: &Config, ptrs: &[Reg<U64>], tail: Option<(Reg<U32>, Reg<U32>)>) -> Vec<[Reg<B32>; 4]> {
    let b_rows = cfg.n_blocks as usize;
    let mut words = vec![];
    for u in 0..cfg.unroll {
        let off = (STEP_BYTES * u) as i64;
        let inside = tail.map(|(at, end)| {
            let at = ptx!(k, "add.u32", at, STEP_BYTES * u);
            ptx!(k, "setp.lt.u32", at, end)
        });
        for (i, &p) in ptrs.iter().enumerate() {
            let v: [Reg<B32>; 4] = std::array::from_fn(|_| k.reg());
            let at = GlobalPtr::<B32>::from_reg(p).byte_offset(off).offset(0);
            if let Some(ok) = inside {
                for r in v {
                    ptx!(k, "mov.b32" => r, 0u32);
                }
                k.guarded(ok, |k| load(k, v, at, i < b_rows));
            } else {
                load(k, v, at, i < b_rows);
            }
            words.push(v);
        }
    }
    for &p in ptrs {
        ptx!(k, "add.u64" => p, p, cfg.iter_bytes() as u64);
    }
    words
}

/// 16 bytes at `at` into `v`: past L1 for B, through it for A.
fn load(k: &mut Kernel, v: [Reg<B32>; 4], at: GlobalPtr<B32>, b: bool) {
    if b {
        ptx!(k, "ld.global.nc.L1::no_allocate.L2::256B.v4.b32" => v, at);
    } else {
        ptx!(k, "ld.global.nc.L2::256B.v4.b32" => v, at);
    }
}

/// `acc += A·B` for one 16-row block of A (`x`: its upper rows' words, `y`: the lower's) and
/// one 8-row block of B (`w`), over the two products a lane's 16 bytes hold.
fn mma_pair<I: GemmIn>(k: &mut Kernel, acc: [Reg<F32>; 4], x: [Reg<B32>; 4], y: [Reg<B32>; 4], w: [Reg<B32>; 4]) {
    for h in 0..2 {
        let a = [x[2 * h], y[2 * h], x[2 * h + 1], y[2 * h + 1]];
        let b = [w[2 * h], w[2 * h + 1]];
        if I::BYTES == 2 {
            let a = a.map(|r| r.bitcast::<Bf16x2>());
            let b = b.map(|r| r.bitcast::<Bf16x2>());
            ptx!(k, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" => acc, a, b, acc);
        } else {
            ptx!(k, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32" => acc, a, b, acc);
        }
    }
}

fn body<O: GemmOut, I: GemmIn>(k: &mut Kernel, cfg: &Config, p: Params<O, I>) {
    let (a, b, c, partials, counters, alpha, m, n, k_bytes, lda, ldb, ldc, splits, chunk) = p;
    k.maxntid(cfg.threads(), 1, 1);
    let (mb, nb) = (cfg.m_blocks as usize, cfg.n_blocks as usize);
    let tid = ptx!(k, "mov.u32", sreg::TID_X);
    let warp = ptx!(k, "shr.u32", tid, 5u32);
    let lane = ptx!(k, "and.b32", tid, 31u32).bitcast::<U32>();
    let (group, quad) = wgmma::lane_group_quad(k, lane);
    let cta = ptx!(k, "mov.u32", sreg::CTAID_X);
    let split = ptx!(k, "rem.u32", cta, splits);
    let column = ptx!(k, "div.u32", cta, splits);
    let warp_n = ptx!(k, "mad.lo.u32", column, cfg.warps, warp);
    let n0 = ptx!(k, "mul.lo.u32", warp_n, cfg.warp_n());
    let past = ptx!(k, "setp.ge.u32", n0, n);
    k.if_(past, |k| k.ret());

    let col = ptx!(k, "shl.b32", quad, 4u32).bitcast::<U32>();
    let kb0 = ptx!(k, "mul.lo.u32", split, chunk);
    let ke = ptx!(k, "add.u32", kb0, chunk);
    let ke = ptx!(k, "min.u32", ke, k_bytes);
    let col = ptx!(k, "add.u32", col, kb0);
    let b_first = ptx!(k, "add.u32", n0, group);
    let (a_base, b_base) = (a.addr(k), b.addr(k));
    let b_rows = rows(k, b_base, ldb, b_first, cfg.n_blocks, n, col);
    // A's rows 16i + group (upper) and 16i + 8 + group (lower), i < m_blocks.
    let a_rows = rows(k, a_base, lda, group, 2 * cfg.m_blocks, m, col);
    let acc: Vec<[Reg<F32>; 4]> = (0..mb * nb).map(|_| *k.zeroed_acc::<F32, 4>()).collect();

    // Whole iterations, loaded a whole iteration ahead of their products (the next one's
    // loads are issued before this one's `mma`s), then the part of an iteration that ends K.
    let span = ptx!(k, "sub.u32", ke, kb0);
    let whole = ptx!(k, "div.u32", span, cfg.iter_bytes());
    let ptrs: Vec<Reg<U64>> = b_rows.iter().chain(&a_rows).copied().collect();
    let products = |k: &mut Kernel, words: &[[Reg<B32>; 4]]| {
        let per_step = nb + 2 * mb;
        for step in words.chunks(per_step) {
            let (bw, aw) = step.split_at(nb);
            for i in 0..mb {
                for j in 0..nb {
                    mma_pair::<I>(k, acc[i * nb + j], aw[2 * i], aw[2 * i + 1], bw[j]);
                }
            }
        }
    };
    if cfg.ahead {
        let any = ptx!(k, "setp.ne.u32", whole, 0u32);
        k.if_(any, |k| {
            let cur = fetch(k, cfg, &ptrs, None);
            let it = ptx!(k, "mov.u32", 1u32);
            k.while_(
                |k| ptx!(k, "setp.lt.u32", it, whole),
                |k| {
                    let next = fetch(k, cfg, &ptrs, None);
                    products(k, &cur);
                    for (c, n) in cur.iter().zip(&next) {
                        for (x, y) in c.iter().zip(n) {
                            ptx!(k, "mov.b32" => *x, *y);
                        }
                    }
                    ptx!(k, "add.u32" => it, it, 1u32);
                },
            );
            products(k, &cur);
        });
    } else {
        let it = ptx!(k, "mov.u32", 0u32);
        k.while_(
            |k| ptx!(k, "setp.lt.u32", it, whole),
            |k| {
                let words = fetch(k, cfg, &ptrs, None);
                products(k, &words);
                ptx!(k, "add.u32" => it, it, 1u32);
            },
        );
    }
    // The rest of K: steps whose lane bytes lie past K load zeros.
    let done = ptx!(k, "mul.lo.u32", whole, cfg.iter_bytes());
    let rest = ptx!(k, "setp.lt.u32", done, span);
    k.if_(rest, |k| {
        let from = ptx!(k, "add.u32", kb0, done);
        let lane_k = ptx!(k, "shl.b32", quad, 4u32).bitcast::<U32>();
        let lane_at = ptx!(k, "add.u32", from, lane_k);
        let words = fetch(k, cfg, &ptrs, Some((lane_at, ke)));
        products(k, &words);
    });

    let one = ptx!(k, "setp.eq.u32", splits, 1u32);
    let store = |k: &mut Kernel, acc: &[[Reg<F32>; 4]]| store_c::<O>(k, cfg, c, acc, (m, n, ldc), alpha, (group, quad), n0);
    k.if_else(
        one,
        |k| store(k, &acc),
        |k| {
            // This warp's slot: warp_n · splits + split, `slot_floats` each; register r of
            // accumulator t at float (t·32 + lane)·4 + r (a 512-byte line per warp store).
            let slot = ptx!(k, "mad.lo.u32", warp_n, splits, split);
            let base = partials.addr(k);
            let slot_bytes = cfg.slot_floats() * 4;
            let off = ptx!(k, "mul.wide.u32", slot, slot_bytes);
            let mine = ptx!(k, "mul.wide.u32", lane, 16u32);
            let off = ptx!(k, "add.u64", off, mine);
            let at = GlobalPtr::<F32>::from_reg(ptx!(k, "add.u64", base, off));
            for (t, a) in acc.iter().enumerate() {
                ptx!(k, "st.global.v4.f32", at.byte_offset(512 * t as i64).offset(0), *a);
            }
            // Every lane's stores, then lane 0's release fence and count.
            ptx!(k, "bar.warp.sync", 0xFFFF_FFFFu32);
            let lead = ptx!(k, "setp.eq.u32", lane, 0u32);
            let counter = ptx!(k, "mul.wide.u32", warp_n, 4u32);
            let cbase = counters.addr(k);
            let counter = GlobalPtr::<U32>::from_reg(ptx!(k, "add.u64", cbase, counter));
            let before = ptx!(k, "mov.u32", 0u32);
            k.if_(lead, |k| {
                ptx!(k, "fence.acq_rel.gpu");
                ptx!(k, "atom.relaxed.gpu.global.add.u32" => before, counter.offset(0), 1u32);
            });
            let before = ptx!(k, "shfl.sync.idx.b32", before.bitcast::<B32>(), 0u32, 31u32, 0xFFFF_FFFFu32).bitcast::<U32>();
            let last = ptx!(k, "add.u32", before, 1u32);
            let last = ptx!(k, "setp.eq.u32", last, splits);
            k.if_(last, |k| {
                // Acquire every other warp's slot, then sum the slots in split order.
                ptx!(k, "fence.acq_rel.gpu");
                let first = ptx!(k, "mul.lo.u32", warp_n, splits);
                let off = ptx!(k, "mul.wide.u32", first, slot_bytes);
                let off = ptx!(k, "add.u64", off, mine);
                let at = ptx!(k, "add.u64", base, off);
                let sum: Vec<[Reg<F32>; 4]> = (0..mb * nb).map(|_| *k.zeroed_acc::<F32, 4>()).collect();
                let s = ptx!(k, "mov.u32", 0u32);
                k.while_(
                    |k| ptx!(k, "setp.lt.u32", s, splits),
                    |k| {
                        let p = GlobalPtr::<F32>::from_reg(at);
                        for (t, acc) in sum.iter().enumerate() {
                            let v = ptx!(k, "ld.relaxed.gpu.global.v4.f32", p.byte_offset(512 * t as i64).offset(0));
                            for (x, y) in acc.iter().zip(v) {
                                ptx!(k, "add.f32" => *x, *x, y);
                            }
                        }
                        ptx!(k, "add.u64" => at, at, slot_bytes as u64);
                        ptx!(k, "add.u32" => s, s, 1u32);
                    },
                );
                store(k, &sum);
                k.if_(lead, |k| ptx!(k, "st.relaxed.gpu.global.u32", counter.offset(0), 0u32));
            });
        },
    );
}

/// `C = α · acc` for the warp's columns `n0..`, each element predicated on M and N.
#[allow(clippy::too_many_arguments)]
fn store_c<O: GemmOut>(
    k: &mut Kernel,
    cfg: &Config,
    c: GlobalPtr<O>,
    acc: &[[Reg<F32>; 4]],
    (m, n, ldc): (Reg<U32>, Reg<U32>, Reg<U32>),
    alpha: Reg<F32>,
    (group, quad): (Reg<U32>, Reg<U32>),
    n0: Reg<U32>,
) {
    let esize = if O::BF16 { 2u32 } else { 4 };
    let base = c.addr(k);
    let col0 = ptx!(k, "mad.lo.u32", quad, 2u32, n0);
    for i in 0..cfg.m_blocks as usize {
        for half in 0..2usize {
            let row = ptx!(k, "add.u32", group, (16 * i + 8 * half) as u32);
            let row_in = ptx!(k, "setp.lt.u32", row, m);
            let elem = ptx!(k, "mul.wide.u32", row, ldc);
            let col = ptx!(k, "cvt.u64.u32", col0);
            let elem = ptx!(k, "add.u64", elem, col);
            let at = GlobalPtr::<O>::from_reg(ptx!(k, "mad.lo.u64", elem, esize as u64, base));
            for j in 0..cfg.n_blocks as usize {
                for x in 0..2usize {
                    let cx = ptx!(k, "add.u32", col0, (8 * j + x) as u32);
                    let col_in = ptx!(k, "setp.lt.u32", cx, n);
                    let ok = ptx!(k, "and.pred", col_in, row_in);
                    let v = ptx!(k, "mul.f32", acc[i * cfg.n_blocks as usize + j][2 * half + x], alpha);
                    k.if_(ok, |k| store_one::<O>(k, at.byte_offset(((8 * j + x) as u32 * esize) as i64), v));
                }
            }
        }
    }
}
