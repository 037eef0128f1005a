//! The sm_80 GEMM: `mma.sync` tensor-core instructions fed by `ldmatrix` from a ring of
//! shared-memory stages that `cp.async` fills, `C = A·Bᵀ` as [`gemm`](super::gemm)
//! computes it (A M×K, B N×K, C M×N, row-major; bf16 in, f32 accumulation, bf16 or f32 C).
//!
//! - **Tiles.** A CTA computes a `bm × bn` tile of C with `warps_m × warps_n` warps, each a
//!   `bm/warps_m × bn/warps_n` block of `m16n8k16` products whose f32 accumulators stay in
//!   registers. Both operands are K-contiguous, so the non-transposed `ldmatrix.x4` loads
//!   A's fragments (`.row`) and B's (`.col`) alike: one x4 for 16 rows of A or 16 columns of
//!   B and 16 K.
//! - **Pipeline.** Shared memory is a ring of `stages` stages, each the A tile (`bm × bk`)
//!   and the B tile (`bn × bk`). Every thread copies 16-byte chunks with `cp.async.cg`, one
//!   commit group per k-tile; `stages − 1` k-tiles are in flight while the warps compute on
//!   the oldest. One `bar.sync` per k-tile publishes the next stage and frees the one just
//!   read. The fragments of the next 16 K are loaded while the products of these run.
//! - **Banks.** A tile row is `bk` bf16 (64 or 128 bytes) of 16-byte chunks; the chunk index
//!   is XORed with the row's place in its 128-byte line group, so the 8 rows an `ldmatrix`
//!   phase reads (and the chunks a `cp.async` phase writes) fall in 8 different bank groups.
//! - **Edges.** Any M and N, K a multiple of 8: a chunk outside A or B is filled with zeros
//!   (`cp.async` with ignore-src, from a clamped address), and stores outside C are
//!   predicated off. Tiles inside C store pairs unpredicated.
//! - **Epilogue.** With `staged_store` (the default) each warp converts its accumulators into
//!   a buffer of its own after the ring, padded so the fragment stores hit 32 different
//!   banks, and writes C from it in 16-byte stores, 8 lanes to a 128-byte line; tiles at the
//!   edges of C (or rows not on 16 bytes) store from registers under predicates.
//! - **Order.** Tiles are numbered in bands of `group_m` tile rows, column by column inside
//!   a band, so the CTAs running at once share their A and B tiles in L2. With
//!   `persistent` (the default) the grid is the CTAs resident at once and CTA `c` of `g`
//!   takes tiles `c`, `c + g`, …: its copies run on from a tile's last k-tile into the next
//!   tile's first, so those are in flight while the tile is stored. Only the last
//!   `stages − 1` k-tiles of a tile check for that crossing, in a loop of their own; the
//!   others run in a loop with no branch, which ptxas schedules as one block.
//!
//! ```
//! use ptxkit::kernels::gemm::ampere::{gemm_tn_mma, Config};
//! use ptxkit::prelude::*;
//!
//! let cfg = Config::default();
//! let mut m = Module::new(Target::SM_80);
//! gemm_tn_mma::<Bf16>(&mut m, "gemm", &cfg)?;
//! let ptx = m.to_ptx()?;
//! assert!(ptx.contains("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
//! assert!(ptx.contains("ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
//! assert_eq!(cfg.threads(), 256);
//! # Ok::<(), ptxkit::Error>(())
//! ```

use super::ampere_store::Store;
use super::{invalid, GemmConfig, GemmOut, StageRing};
use crate::builder::{Error, Kernel, KernelRef, Module};
use crate::prelude::*;
use crate::regs::Const;

/// The parameters of [`gemm_tn_mma`]: A, B, C, and M, N, K.
pub type Params<O> = (GlobalPtr<Bf16>, GlobalPtr<Bf16>, GlobalPtr<O>, Reg<U32>, Reg<U32>, Reg<U32>);

/// Shared memory a CTA may use on sm_90 (227 KB; sm_80 allows 163 KB, sm_86 99 KB, and the
/// launch refuses more than the device has).
pub const MMA_MAX_SHARED: u32 = 227 * 1024;

/// The shape of the sm_80 kernel: CTA tile, warps, pipeline depth and tile order.
///
/// ```
/// use ptxkit::kernels::gemm::{ampere::Config, GemmConfig};
///
/// let cfg = Config { bk: 64, stages: 3, ..Config::default() };
/// cfg.check().unwrap();
/// assert_eq!((cfg.threads(), cfg.warp_tile(), cfg.ring_bytes()), (256, (64, 64), 3 * 384 * 128));
/// assert_eq!(cfg.staging_bytes(), 8 * 64 * (2 * 64 + 16));
/// assert_eq!(cfg.tiles(4000, 4000), 32 * 16);
/// let too_deep = Config { stages: 5, ..cfg };
/// assert!(too_deep.check().unwrap_err().contains("shared memory"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Rows of C per CTA tile.
    pub bm: u32,
    /// Columns of C per CTA tile.
    pub bn: u32,
    /// K elements per stage: 32 or 64 (rows of 64 or 128 bytes).
    pub bk: u32,
    /// Warps along M; each computes a `bm/warps_m × bn/warps_n` block.
    pub warps_m: u32,
    /// Warps along N.
    pub warps_n: u32,
    /// Shared-memory stages, 2 to 8.
    pub stages: u32,
    /// Tile rows per band of the tile order (1 numbers tiles row by row).
    pub group_m: u32,
    /// CTAs per SM the kernel is built for (`.minnctapersm`): the register budget is the
    /// register file over `ctas_per_sm · threads`.
    pub ctas_per_sm: u32,
    /// Launch as many CTAs as are resident at once, each taking every `grid`-th tile, so
    /// that a CTA copies its next tile's first k-tiles while it stores the last one; `false`
    /// launches a CTA per tile. The kernel is the same; the runner picks the grid.
    pub persistent: bool,
    /// Write C through a buffer per warp in shared memory (`wm × (2 wn + 16)` bytes), in
    /// 16-byte stores that fill whole 128-byte lines, where the tile is inside C and C's rows
    /// start on 16 bytes; `false` stores from registers everywhere. Needs `wn` a power of
    /// two up to 128.
    pub staged_store: bool,
}

impl Default for Config {
    /// 128×256 tiles of 8 warps (64×64 each), k-tiles of 32, four stages (96 KB), bands of
    /// 8 tile rows, a persistent grid, C staged through shared memory (72 KB).
    fn default() -> Self {
        Config {
            bm: 128,
            bn: 256,
            bk: 32,
            warps_m: 2,
            warps_n: 4,
            stages: 4,
            group_m: 8,
            ctas_per_sm: 1,
            persistent: true,
            staged_store: true,
        }
    }
}

impl Config {
    /// Threads per CTA.
    pub fn threads(&self) -> u32 {
        32 * self.warps_m * self.warps_n
    }
    /// Rows and columns of one warp's block.
    pub fn warp_tile(&self) -> (u32, u32) {
        (self.bm / self.warps_m.max(1), self.bn / self.warps_n.max(1))
    }
    /// Bytes of one stage: the A tile, then the B tile.
    pub fn stage_bytes(&self) -> u32 {
        (self.bm + self.bn) * self.bk * 2
    }
    /// Bytes of the ring of stages.
    pub fn ring_bytes(&self) -> u32 {
        self.stages * self.stage_bytes()
    }
    /// Bytes of one warp's staging buffer for C (0 without `staged_store`).
    pub fn warp_staging_bytes(&self) -> u32 {
        let (wm, wn) = self.warp_tile();
        if self.staged_store {
            wm * super::ampere_store::stage_pitch(wn)
        } else {
            0
        }
    }
    /// Bytes of the warps' staging buffers for C.
    pub fn staging_bytes(&self) -> u32 {
        self.warps_m * self.warps_n * self.warp_staging_bytes()
    }
    /// Dynamic shared memory the kernel is launched with: the ring, then the staging buffers.
    pub fn shared_bytes(&self) -> u32 {
        self.ring_bytes() + self.staging_bytes()
    }
    /// Tiles of an `m × n` product: the grid when not persistent.
    pub fn tiles(&self, m: u32, n: u32) -> u64 {
        m.div_ceil(self.bm) as u64 * n.div_ceil(self.bn) as u64
    }
}

impl GemmConfig for Config {
    const MAX_SHARED: u32 = MMA_MAX_SHARED;
    fn ring(&self) -> StageRing {
        StageRing {
            stages: self.stages,
            stage_bytes: self.stage_bytes(),
            extra_bytes: self.staging_bytes(),
            extra: "staging for C",
            group_m: self.group_m,
            wait_tries: None,
        }
    }
    fn check_kernel(&self) -> Result<(), String> {
        if self.bk != 32 && self.bk != 64 {
            return Err(format!("bk = {} is not 32 or 64", self.bk));
        }
        if self.warps_m == 0 || self.warps_n == 0 || self.threads() > 1024 {
            return Err(format!("{} × {} warps: between 1 and 32 warps", self.warps_m, self.warps_n));
        }
        let (wm, wn) = self.warp_tile();
        if !self.bm.is_multiple_of(self.warps_m)
            || !self.bn.is_multiple_of(self.warps_n)
            || !wm.is_multiple_of(16)
            || !wn.is_multiple_of(16)
            || wm == 0
            || wn == 0
        {
            return Err(format!(
                "a {}×{} tile over {}×{} warps: each warp's block must be a nonzero multiple of 16 both ways",
                self.bm, self.bn, self.warps_m, self.warps_n
            ));
        }
        if wm * wn > 64 * 64 {
            return Err(format!("{wm}×{wn} warp blocks need {} accumulator registers per thread; at most 128", wm * wn / 32));
        }
        // Each thread copies one chunk column; a pass of the CTA covers whole 8-row swizzle
        // groups, so the swizzle of a thread's chunk is the same in every pass.
        let chunks = self.bk / 8;
        let pass = self.threads() / chunks;
        if !pass.is_multiple_of(8) || !self.bm.is_multiple_of(pass) || !self.bn.is_multiple_of(pass) {
            return Err(format!(
                "{} threads copy {pass} rows of {chunks} chunks per pass: bm = {} and bn = {} must be multiples of it, and it of 8",
                self.threads(),
                self.bm,
                self.bn
            ));
        }
        if self.staged_store && (!wn.is_power_of_two() || wn > 128) {
            return Err(format!("staged_store needs each warp's block {wn} columns wide to be a power of two up to 128"));
        }
        if !(1..=4).contains(&self.ctas_per_sm) || self.ctas_per_sm * self.threads() > 2048 {
            return Err(format!("ctas_per_sm = {} with {} threads each", self.ctas_per_sm, self.threads()));
        }
        Ok(())
    }
}

/// Whether [`gemm_tn_mma`] with `cfg` computes an `m × n × k` product: M, N, K from 1 to
/// 2³¹ − 1, K a multiple of 8 (rows of A and B start on 16-byte boundaries for the 16-byte
/// copies), and at most 2³¹ − 1 tiles (one CTA each).
///
/// ```
/// use ptxkit::kernels::gemm::ampere::{check_mma_shape, Config};
///
/// let cfg = Config::default();
/// assert!(check_mma_shape(&cfg, 77, 130, 40).is_ok());
/// assert!(check_mma_shape(&cfg, 77, 130, 42).unwrap_err().contains("multiple of 8"));
/// ```
pub fn check_mma_shape(cfg: &Config, m: u32, n: u32, k: u32) -> Result<(), String> {
    // The same bounds as the wgmma GEMM's; here the 16-byte rows are for cp.async's chunks.
    super::check_shape::<Bf16>(super::Layout::TN, m, n, k)?;
    if cfg.tiles(m, n) > i32::MAX as u64 {
        return Err(format!("{m}×{n} needs {} tiles of {}×{}; a grid holds 2^31-1", cfg.tiles(m, n), cfg.bm, cfg.bn));
    }
    Ok(())
}

/// Adds the kernel `name` computing `C = A·Bᵀ` to `m` (any target from sm_80). The host
/// launches at most `cfg.tiles(M, N)` CTAs (CTA `c` of `g` computes tiles `c`, `c + g`, …)
/// of `cfg.threads()` threads with `cfg.shared_bytes()` of dynamic shared memory
/// (`ptxkit::runtime::MmaGemm` does, with feature `cuda`).
///
/// ```
/// use ptxkit::kernels::gemm::ampere::{gemm_tn_mma, Config};
/// use ptxkit::prelude::*;
///
/// let mut m = Module::new(Target::SM_80);
/// gemm_tn_mma::<F32>(&mut m, "gemm_f32", &Config { persistent: false, ..Config::default() })?;
/// let ptx = m.to_ptx()?;
/// assert!(ptx.contains("cp.async.cg.shared.global"));
/// assert!(ptx.contains("st.global.v2.f32"));
/// # Ok::<(), ptxkit::Error>(())
/// ```
pub fn gemm_tn_mma<O: GemmOut>(m: &mut Module, name: &str, cfg: &Config) -> Result<KernelRef<Params<O>>, Error> {
    cfg.check().map_err(|e| invalid(name, format!("mma GEMM configuration: {e}")))?;
    let cfg = *cfg;
    m.kernel(name, move |k, (a, b, c, mm, nn, kk): Params<O>| body::<O>(k, &cfg, a, b, c, mm, nn, kk))
}

/// Fragments of one warp for one 16-K step: an x4 per 16 rows of A, an x4 per 16 columns of B
/// (two `n8` operands: registers 0–1 and 2–3).
struct Frags {
    a: Vec<[Reg<B32>; 4]>,
    b: Vec<[Reg<B32>; 4]>,
}

impl Frags {
    fn new(k: &mut Kernel, mi: usize, nj: usize) -> Frags {
        let x4 = |k: &mut Kernel| -> [Reg<B32>; 4] { std::array::from_fn(|_| k.reg()) };
        Frags { a: (0..mi).map(|_| x4(k)).collect(), b: (0..nj).map(|_| x4(k)).collect() }
    }
}

/// The lane's `ldmatrix` byte offsets in a stage's A tile and B tile (rows of its warp
/// block, swizzled chunk) in the first 16-K step of a k-tile.
struct Lanes {
    a: Reg<U32>,
    b: Reg<U32>,
}

#[allow(clippy::too_many_arguments)]
fn body<O: GemmOut>(
    k: &mut Kernel,
    cfg: &Config,
    a: GlobalPtr<Bf16>,
    b: GlobalPtr<Bf16>,
    c: GlobalPtr<O>,
    m: Reg<U32>,
    n: Reg<U32>,
    kk: Reg<U32>,
) {
    let threads = cfg.threads();
    k.maxntid(threads, 1, 1);
    k.minnctapersm(cfg.ctas_per_sm);
    let (wm, wn) = cfg.warp_tile();
    let (mi, nj) = ((wm / 16) as usize, (wn / 16) as usize);
    let steps = (cfg.bk / 16) as usize;
    let row_bytes = cfg.bk * 2;
    let a_tile = cfg.bm * row_bytes;
    let smem = k.dynamic_shared_aligned::<B8>(128);
    let smem = smem.addr(k);

    let tid = ptx!(k, "mov.u32", sreg::TID_X);
    let warp = ptx!(k, "shr.u32", tid, 5u32);
    let lane = ptx!(k, "and.b32", tid, 31u32).bitcast::<U32>();
    let warp_m = ptx!(k, "rem.u32", warp, cfg.warps_m);
    let warp_n = ptx!(k, "div.u32", warp, cfg.warps_m);

    let order = Order::new(k, cfg, m, n);
    let k_tiles = ptx!(k, "add.u32", kk, cfg.bk - 1);
    let k_tiles = ptx!(k, "div.u32", k_tiles, cfg.bk);
    let lanes = lane_offsets(k, cfg, lane, warp_m, warp_n);
    let copies = Copies::new(k, cfg, &order, tid, a, b, m, n, kk, k_tiles);
    let acc: Vec<[Reg<F32>; 4]> = (0..mi * nj * 2).map(|_| *k.zeroed_acc::<F32, 4>()).collect();

    // Prologue: the first `stages - 1` k-tiles of the stream in flight, the first landed.
    for s in 0..cfg.stages - 1 {
        let stage = ptx!(k, "add.u32", smem, s * cfg.stage_bytes());
        copies.issue(k, cfg, &order, stage, true);
    }
    ptx!(k, "cp.async.wait_group", cfg.stages - 2);
    ptx!(k, "bar.sync", 0u32);
    let frags = [Frags::new(k, mi, nj), Frags::new(k, mi, nj)];
    let read = ptx!(k, "mov.u32", smem);
    let write = ptx!(k, "add.u32", smem, (cfg.stages - 1) * cfg.stage_bytes());
    let end = ptx!(k, "add.u32", smem, cfg.ring_bytes());
    load_frags(k, &frags[0], read, &lanes, 0, a_tile, row_bytes);

    // Warp `w`'s staging buffer follows the ring.
    let stage = cfg.staged_store.then(|| {
        let ring_end = ptx!(k, "add.u32", smem, cfg.ring_bytes());
        ptx!(k, "mad.lo.u32", warp, cfg.warp_staging_bytes(), ring_end)
    });
    let out = Store { m, n, warp_m, warp_n, lane, wm, wn, mi, nj, bm: cfg.bm, bn: cfg.bn, stage };
    // One k-tile: its 16-K steps, the copies of the stream's k-tile `stages - 1` further
    // (`cross`: that k-tile may be the next tile's), the barrier before the last step.
    let k_tile = |k: &mut Kernel, cross: bool| {
        for s in 0..steps {
            let (cur, next) = (&frags[s % 2], &frags[(s + 1) % 2]);
            if s + 1 == steps {
                // The next k-tile of the stream (this tile's or the next one's) has landed,
                // and every warp is done reading the stage the copies refill.
                ptx!(k, "cp.async.wait_group", cfg.stages - 2);
                ptx!(k, "bar.sync", 0u32);
                advance(k, read, cfg.stage_bytes(), smem, end);
                load_frags(k, next, read, &lanes, 0, a_tile, row_bytes);
            } else {
                load_frags(k, next, read, &lanes, s + 1, a_tile, row_bytes);
            }
            if s == 0 {
                copies.issue(k, cfg, &order, write, cross);
                advance(k, write, cfg.stage_bytes(), smem, end);
            }
            for i in 0..mi {
                let fa = cur.a[i].map(|r| r.bitcast::<Bf16x2>());
                for j in 0..nj * 2 {
                    // Serpentine over N, so consecutive products share a B fragment.
                    let j = if i % 2 == 0 { j } else { nj * 2 - 1 - j };
                    let fb = [cur.b[j / 2][2 * (j % 2)].bitcast::<Bf16x2>(), cur.b[j / 2][2 * (j % 2) + 1].bitcast::<Bf16x2>()];
                    let d = acc[i * nj * 2 + j];
                    ptx!(k, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" => d, fa, fb, d);
                }
            }
        }
    };
    let tile = ptx!(k, "mov.u32", sreg::CTAID_X);
    if cfg.persistent {
        // The copies of the first `k_tiles - (stages - 1)` k-tiles stay in the tile (a loop
        // with no branch but its own), the last `stages - 1` may start the next tile.
        let cross_at = ptx!(k, "max.u32", k_tiles, cfg.stages - 1);
        let cross_at = ptx!(k, "sub.u32", cross_at, cfg.stages - 1);
        k.while_(
            |k| ptx!(k, "setp.lt.u32", tile, order.tiles),
            |k| {
                k.for_range(0u32, cross_at, 1, |k, _| k_tile(k, false));
                k.for_range(cross_at, k_tiles, 1, |k, _| k_tile(k, true));
                // The next tile's first k-tiles are in flight while this one is stored.
                let (row0, col0) = order.origin(k, cfg, tile);
                out.write::<O>(k, c, &acc, row0, col0);
                for d in acc.iter().flatten() {
                    ptx!(k, "mov.b32" => d.bitcast::<B32>(), 0u32);
                }
                ptx!(k, "add.u32" => tile, tile, order.step);
            },
        );
    } else {
        // One tile; the copies past its last k-tile are zero fills.
        k.for_range(0u32, k_tiles, 1, |k, _| k_tile(k, false));
        let (row0, col0) = order.origin(k, cfg, tile);
        out.write::<O>(k, c, &acc, row0, col0);
    }
    // Copies past the last tile (zero fills) may still be landing.
    ptx!(k, "cp.async.wait_group", 0u32);
}

/// `x += step`, back to `start` at `end`.
fn advance(k: &mut Kernel, x: Reg<U32>, step: u32, start: Reg<U32>, end: Reg<U32>) {
    ptx!(k, "add.u32" => x, x, step);
    let wrap = ptx!(k, "setp.ge.u32", x, end);
    ptx!(k, "selp.u32" => x, start, x, wrap);
}

/// The tile order: CTA `c` of `g` takes tiles `c`, `c + g`, …; tiles are numbered in bands
/// of `group_m` tile rows, column by column inside a band.
struct Order {
    tiles_m: Reg<U32>,
    tiles: Reg<U32>,
    step: Reg<U32>,
    per_band: Reg<U32>,
}

impl Order {
    fn new(k: &mut Kernel, cfg: &Config, m: Reg<U32>, n: Reg<U32>) -> Order {
        let tiles_m = ptx!(k, "add.u32", m, cfg.bm - 1);
        let tiles_m = ptx!(k, "div.u32", tiles_m, cfg.bm);
        let tiles_n = ptx!(k, "add.u32", n, cfg.bn - 1);
        let tiles_n = ptx!(k, "div.u32", tiles_n, cfg.bn);
        let tiles = ptx!(k, "mul.lo.u32", tiles_m, tiles_n);
        let step = ptx!(k, "mov.u32", sreg::NCTAID_X);
        let per_band = ptx!(k, "mul.lo.u32", tiles_n, cfg.group_m);
        Order { tiles_m, tiles, step, per_band }
    }

    /// The first row and column of C in tile `t` (`t` below the tile count).
    fn origin(&self, k: &mut Kernel, cfg: &Config, t: Reg<U32>) -> (Reg<U32>, Reg<U32>) {
        let band = ptx!(k, "div.u32", t, self.per_band);
        let first_m = ptx!(k, "mul.lo.u32", band, cfg.group_m);
        let left = ptx!(k, "sub.u32", self.tiles_m, first_m);
        let rows = ptx!(k, "min.u32", left, cfg.group_m);
        let in_band = ptx!(k, "rem.u32", t, self.per_band);
        let r = ptx!(k, "rem.u32", in_band, rows);
        let tm = ptx!(k, "add.u32", first_m, r);
        let tn = ptx!(k, "div.u32", in_band, rows);
        (ptx!(k, "mul.lo.u32", tm, cfg.bm), ptx!(k, "mul.lo.u32", tn, cfg.bn))
    }
}

/// The swizzled byte offset of chunk `chunk` of row `row` in a tile of `bk`-element rows:
/// rows of `bk/8` 16-byte chunks, `8/(bk/8)` rows per 128-byte line; the chunk is XORed with
/// the line's index mod `bk/8`.
fn swizzled(k: &mut Kernel, bk: u32, row: Reg<U32>, chunk: Reg<U32>) -> Reg<U32> {
    let chunks = bk / 8;
    let line = ptx!(k, "shr.u32", row, (8 / chunks).trailing_zeros());
    let key = ptx!(k, "and.b32", line, chunks - 1);
    let phys = ptx!(k, "xor.b32", chunk.bitcast::<B32>(), key).bitcast::<U32>();
    let at = ptx!(k, "mul.lo.u32", row, bk * 2);
    ptx!(k, "mad.lo.u32", phys, 16u32, at)
}

/// The lane's `ldmatrix` row offsets. A x4 of A: matrices (rows 0–7, k 0–7), (rows 8–15,
/// k 0–7), (rows 0–7, k 8–15), (rows 8–15, k 8–15), lane `l` naming row `l%8 + 8·(l/8 %2)`,
/// chunk `l/16`. A x4 of B (rows are N): (n 0–7, k 0–7), (n 0–7, k 8–15), (n 8–15, k 0–7),
/// (n 8–15, k 8–15): row `l%8 + 8·(l/16)`, chunk `l/8 % 2`. The offsets are those of the
/// first 16-K step; step `s` reads chunk `c + 2s`, whose swizzled offset is the first one
/// XOR `32·s`: the chunk sits in bits 4–6 of the offset, clear of the row's bits (rows of
/// 128 bytes) or above them with `2s` touching only bit 5 (rows of 64 bytes), and a stage
/// starts on a multiple of 128 bytes.
fn lane_offsets(k: &mut Kernel, cfg: &Config, lane: Reg<U32>, warp_m: Reg<U32>, warp_n: Reg<U32>) -> Lanes {
    let (wm, wn) = cfg.warp_tile();
    let r8 = ptx!(k, "and.b32", lane, 7u32).bitcast::<U32>();
    let bit3 = ptx!(k, "bfe.u32", lane, 3u32, 1u32);
    let bit4 = ptx!(k, "bfe.u32", lane, 4u32, 1u32);
    let a_row = ptx!(k, "mad.lo.u32", bit3, 8u32, r8);
    let a_row = ptx!(k, "mad.lo.u32", warp_m, wm, a_row);
    let b_row = ptx!(k, "mad.lo.u32", bit4, 8u32, r8);
    let b_row = ptx!(k, "mad.lo.u32", warp_n, wn, b_row);
    let a = swizzled(k, cfg.bk, a_row, bit4);
    let b = swizzled(k, cfg.bk, b_row, bit3);
    Lanes { a, b }
}

/// The fragments of 16-K step `s` of the stage at `stage` into `f`.
fn load_frags(k: &mut Kernel, f: &Frags, stage: Reg<U32>, lanes: &Lanes, s: usize, a_tile: u32, row_bytes: u32) {
    let pa = ptx!(k, "add.u32", stage, lanes.a);
    let pb = ptx!(k, "add.u32", stage, lanes.b);
    let (pa, pb) = if s == 0 {
        (pa, pb)
    } else {
        let x = 32 * s as u32;
        (ptx!(k, "xor.b32", pa, x).bitcast::<U32>(), ptx!(k, "xor.b32", pb, x).bitcast::<U32>())
    };
    let (pa, pb) = (SharedPtr::<B16>::from_reg32(pa), SharedPtr::<B16>::from_reg32(pb));
    // Interleave A and B so the first products' operands arrive first.
    for i in 0..f.a.len().max(f.b.len()) {
        if let Some(dst) = f.a.get(i) {
            let at = pa.byte_offset((i as u32 * 16 * row_bytes) as i64);
            ptx!(k, "ldmatrix.sync.aligned.m8n8.x4.shared.b16" => *dst, at);
        }
        if let Some(dst) = f.b.get(i) {
            let at = pb.byte_offset((a_tile + i as u32 * 16 * row_bytes) as i64);
            ptx!(k, "ldmatrix.sync.aligned.m8n8.x4.shared.b16" => *dst, at);
        }
    }
}

/// One thread's share of the copies of a stage: chunk `tid % (bk/8)` of row `tid / (bk/8)`,
/// and of every `threads / (bk/8)` rows further (a pass), of the A tile and of the B tile.
/// The k-tiles of the CTA's tiles are one stream: after a tile's last k-tile come the next
/// tile's first, and after the last tile, zeros.
struct Copies {
    /// The tile being copied, and its k-tiles left to copy.
    tile: Reg<U32>,
    left_k: Reg<U32>,
    /// The chunk's global address in the thread's first row of A and of B, at the next
    /// k-tile to copy, and the bytes between passes.
    a: Reg<U64>,
    b: Reg<U64>,
    pass_bytes: Reg<U64>,
    /// Rows of A and B left from the thread's first row (none when not positive).
    a_left: Reg<S32>,
    b_left: Reg<S32>,
    /// A and B themselves: the (valid) source named by the chunks that are zero-filled.
    a_base: Reg<U64>,
    b_base: Reg<U64>,
    /// The chunk's K in the next k-tile, its K in a tile's first, K, k-tiles per tile, M, N.
    k_next: Reg<U32>,
    k_first: Reg<U32>,
    kk: Reg<U32>,
    k_tiles: Reg<U32>,
    m: Reg<U32>,
    n: Reg<U32>,
    /// The thread's row in a pass, and its chunk's destination offset in the first pass of
    /// a stage's A tile.
    row: Reg<U32>,
    dst0: Reg<U32>,
}

impl Copies {
    #[allow(clippy::too_many_arguments)]
    fn new(
        k: &mut Kernel,
        cfg: &Config,
        order: &Order,
        tid: Reg<U32>,
        a: GlobalPtr<Bf16>,
        b: GlobalPtr<Bf16>,
        m: Reg<U32>,
        n: Reg<U32>,
        kk: Reg<U32>,
        k_tiles: Reg<U32>,
    ) -> Copies {
        let chunks = cfg.bk / 8;
        let pass = cfg.threads() / chunks;
        let chunk = ptx!(k, "and.b32", tid, chunks - 1).bitcast::<U32>();
        let row = ptx!(k, "div.u32", tid, chunks);
        let dst0 = swizzled(k, cfg.bk, row, chunk);
        let k_first = ptx!(k, "mul.lo.u32", chunk, 8u32);
        let pass_bytes = ptx!(k, "mul.wide.u32", kk, pass * 2);
        let c = Copies {
            tile: ptx!(k, "mov.u32", sreg::CTAID_X),
            left_k: k.reg(),
            a: k.reg(),
            b: k.reg(),
            pass_bytes,
            a_left: k.reg(),
            b_left: k.reg(),
            a_base: a.addr(k),
            b_base: b.addr(k),
            k_next: k.reg(),
            k_first,
            kk,
            k_tiles,
            m,
            n,
            row,
            dst0,
        };
        c.start_tile(k, cfg, order);
        c
    }

    /// Points the copies at the first k-tile of tile `self.tile` (all rows outside A and B
    /// past the last tile).
    fn start_tile(&self, k: &mut Kernel, cfg: &Config, order: &Order) {
        let inside = ptx!(k, "setp.lt.u32", self.tile, order.tiles);
        let t = ptx!(k, "selp.u32", self.tile, 0u32, inside);
        let (row0, col0) = order.origin(k, cfg, t);
        for (ptr, base, left, tile0, rows) in
            [(self.a, self.a_base, self.a_left, row0, self.m), (self.b, self.b_base, self.b_left, col0, self.n)]
        {
            let r = ptx!(k, "add.u32", tile0, self.row);
            let l = ptx!(k, "sub.s32", rows.bitcast::<S32>(), r.bitcast::<S32>());
            ptx!(k, "selp.s32" => left, l, 0i32, inside);
            let elem = ptx!(k, "mul.wide.u32", r, self.kk);
            let kw = ptx!(k, "cvt.u64.u32", self.k_first);
            let elem = ptx!(k, "add.u64", elem, kw);
            ptx!(k, "mad.lo.u64" => ptr, elem, 2u64, base);
        }
        ptx!(k, "mov.u32" => self.k_next, self.k_first);
        ptx!(k, "mov.u32" => self.left_k, self.k_tiles);
    }

    /// Copies the next k-tile of the stream into the stage at `stage` (zeros outside A and
    /// B) and commits the group. Without `cross` the k-tile must be the current tile's (or
    /// past K: zeros).
    fn issue(&self, k: &mut Kernel, cfg: &Config, order: &Order, stage: Reg<U32>, cross: bool) {
        if cross {
            let done = ptx!(k, "setp.eq.u32", self.left_k, 0u32);
            k.if_(done, |k| {
                ptx!(k, "add.u32" => self.tile, self.tile, order.step);
                self.start_tile(k, cfg, order);
            });
        }
        let pass = cfg.threads() / (cfg.bk / 8);
        let past_k = ptx!(k, "setp.ge.u32", self.k_next, self.kk);
        let dst = ptx!(k, "add.u32", stage, self.dst0);
        let dst = SharedPtr::<B8>::from_reg32(dst);
        let a_bytes = cfg.bm * cfg.bk * 2;
        let operands = [(self.a, self.a_left, self.a_base, cfg.bm, 0), (self.b, self.b_left, self.b_base, cfg.bn, a_bytes)];
        for (first, left, base, tile, off) in operands {
            let mut at = first;
            for p in 0..tile / pass {
                if p > 0 {
                    at = ptx!(k, "add.u64", at, self.pass_bytes);
                }
                let outside = ptx!(k, "setp.le.s32", left, (p * pass) as i32);
                let zero = ptx!(k, "or.pred", outside, past_k);
                let from = GlobalPtr::<B8>::from_reg(ptx!(k, "selp.u64", base, at, zero));
                let to = dst.byte_offset((off + p * pass * cfg.bk * 2) as i64);
                ptx!(k, "cp.async.cg.shared.global" as ignore_src, to, from, Const::<16>, zero);
            }
        }
        ptx!(k, "cp.async.commit_group");
        ptx!(k, "add.u32" => self.k_next, self.k_next, cfg.bk);
        ptx!(k, "sub.u32" => self.left_k, self.left_k, 1u32);
        ptx!(k, "add.u64" => self.a, self.a, cfg.bk as u64 * 2);
        ptx!(k, "add.u64" => self.b, self.b, cfg.bk as u64 * 2);
    }
}
