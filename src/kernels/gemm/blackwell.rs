//! The sm_100a kernel: `D = A·Bᵀ` on the fifth-generation tensor cores (`tcgen05.mma`), the
//! accumulator in tensor memory.
//!
//! A CTA is six warps with three roles, and computes 128 × `bn` tiles of C (`bn` 128 or 256)
//! in the persistent, banded order of the Hopper kernel:
//!
//! - **Producer** (warp 4, one thread): the Hopper kernel's TMA producer. For every k-tile
//!   it waits until the next stage of the ring is *empty*, arms its *full* mbarrier with the
//!   stage's bytes and loads the 128 × 64 A tile and the `bn` × 64 B tile with
//!   `cp.async.bulk.tensor` (128-byte swizzle; loads past M, N or K fill with zeros).
//! - **MMA issuer** (warp 5, one thread): waits until the stage is full, issues four
//!   `tcgen05.mma.cta_group::1.kind::f16` (M = 128, N = `bn`, K = 16 each) whose
//!   shared-memory descriptors step 32 bytes along K inside the swizzled rows, and
//!   `tcgen05.commit`s to the stage's empty barrier, which arrives once those multiplies
//!   have read it. The first multiply of a tile writes the accumulator (enable-input-d
//!   false), the rest add to it. After a tile's last k-tile it commits to the accumulator's
//!   *full* barrier. Warp 5 also allocates the tensor memory (`tcgen05.alloc`, then
//!   `relinquish_alloc_permit`) and frees it at the end.
//! - **Epilogue** (warps 0–3): wait until an accumulator is full, read it with
//!   `tcgen05.ld.32x32b.x32` (warp `w` reads TMEM lanes `32w..32w+31`, which hold rows
//!   `32w..` of the tile: with M = 128 and one CTA, row `i` of D is lane `i` and column `j`
//!   is column `j`), 32 columns at a time, convert, and store to C (16-byte stores inside C,
//!   element by element under predicates at its edges); then release the accumulator.
//!
//! The accumulator is double-buffered (two `bn`-column halves of a `2·bn`-column
//! allocation: 256 or 512 columns), with its own two-stage [`Ring`], so the epilogue of one
//! tile overlaps the multiplies of the next. `tcgen05.fence::before_thread_sync` and
//! `::after_thread_sync` surround every thread synchronisation that orders tensor-memory
//! work: the allocation against its readers, the epilogue's loads against the next
//! multiplies into the same buffer, and everything against the deallocation. Every wait is
//! bounded: a pipeline that stops moving ends the kernel with `trap`.
//!
//! ```
//! use ptxkit::kernels::gemm::blackwell::{gemm_tcgen05, Config};
//! use ptxkit::prelude::*;
//!
//! let cfg = Config::default();
//! let mut m = Module::new(Target::SM_100A);
//! gemm_tcgen05::<Bf16>(&mut m, "gemm", &cfg)?;
//! let ptx = m.to_ptx()?;
//! // The roles follow the allocation in the text (epilogue, producer, issuer), and the
//! // deallocation follows them all.
//! let at = |s: &str| ptx.find(s).unwrap_or_else(|| panic!("no {s}"));
//! let (alloc, dealloc) = (at("tcgen05.alloc.cta_group::1"), at("tcgen05.dealloc.cta_group::1"));
//! for role in ["tcgen05.ld.sync.aligned.32x32b.x32.b32", "cp.async.bulk.tensor.2d", "tcgen05.mma.cta_group::1.kind::f16"] {
//!     assert!(alloc < at(role) && at(role) < dealloc, "{role}");
//! }
//! assert_eq!(ptx.matches("tcgen05.commit.cta_group::1").count(), 2); // a stage's, a tile's
//! assert_eq!(cfg.shared_bytes(), 4 * (128 + 256) * 128);
//! // A 128 × 512 tile does not exist.
//! let wide = Config { bn: 512, ..cfg };
//! assert!(gemm_tcgen05::<F32>(&mut m, "wide", &wide).is_err());
//! # Ok::<(), ptxkit::Error>(())
//! ```

use super::epilogue::store_one;
use super::sched::{for_each_tile, k_major_layout, produce, stage_base, trap_unless, Grid, Tiling};
use super::{invalid, GemmConfig, GemmOut, Layout, StageRing, BK_BYTES, MAX_DYNAMIC_SHARED};
use crate::builder::{Error, Kernel, KernelRef, Module, TensorMap};
use crate::core::target::Suffix;
use crate::descriptors::{F16Type, FloatAccum, MmaIssue, MmaKind, MmaParams, TileLayout, K_SLICE_BYTES};
use crate::intrinsics::mbarrier::{Deadline, Publish, Ring};
use crate::intrinsics::timeline::Timeline;
use crate::intrinsics::tmem::{self, TmemAlloc};
use crate::ops::num::Lanes;
use crate::prelude::*;
use crate::regs::TmemAddr;

/// Rows of C per CTA tile: one `tcgen05.mma` of M = 128 on one CTA.
pub const TCGEN05_BM: u32 = 128;
/// The `bn` values the kernel takes.
pub const TCGEN05_TILE_NS: [u32; 2] = [128, 256];
/// Accumulators in tensor memory: the epilogue drains one while the next tile fills the other.
const ACC_STAGES: u32 = 2;
/// Warps 0–3 are the epilogue, warp 4 the producer, warp 5 the MMA issuer.
const EPILOGUE_WARPS: u32 = 4;
const PRODUCER_WARP: u32 = 4;
const MMA_WARP: u32 = 5;
/// Columns of the accumulator each `tcgen05.ld` reads (one register per column).
const LD_COLUMNS: u32 = 32;

/// The parameters of [`gemm_tcgen05`]: the tensor maps of A (dims `[K, M]`, boxes of
/// 64 × 128) and B (`[K, N]`, boxes of 64 × `bn`), both bf16 with the 128-byte swizzle; C;
/// and M, N, K.
pub type Params<O> = (TensorMap<Bf16, 2>, TensorMap<Bf16, 2>, GlobalPtr<O>, Reg<U32>, Reg<U32>, Reg<U32>);

/// The shape of the tcgen05 kernel: tile width, pipeline depth and tile order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Columns of C per CTA tile (the multiplies' N): one of [`TCGEN05_TILE_NS`].
    pub bn: u32,
    /// Shared-memory stages in the ring, 2 to 8 (and as many as fit in shared memory).
    pub stages: u32,
    /// Tile rows per band of the tile order (1 numbers tiles row by row).
    pub group_m: u32,
    /// Tries of each bounded mbarrier wait before the kernel traps.
    pub wait_tries: u32,
}

impl Default for Config {
    /// 128×256 tiles, four stages, bands of 16 tile rows.
    fn default() -> Self {
        Config { bn: 256, stages: 4, group_m: 16, wait_tries: 1 << 22 }
    }
}

impl Config {
    /// Rows of C per CTA tile.
    pub fn bm(&self) -> u32 {
        TCGEN05_BM
    }
    /// Threads per CTA: four epilogue warps, the producer warp and the MMA warp.
    pub fn threads(&self) -> u32 {
        32 * (MMA_WARP + 1)
    }
    /// Bytes of one stage: the A tile, then the B tile.
    pub fn stage_bytes(&self) -> u32 {
        self.tiling().stage_bytes()
    }
    /// Dynamic shared memory the kernel is launched with.
    pub fn shared_bytes(&self) -> u32 {
        self.stages * self.stage_bytes()
    }
    /// Tensor-memory columns the kernel allocates: two f32 accumulators of `bn` columns
    /// (a power of two from 32 to 512, as `tcgen05.alloc` requires).
    pub fn tmem_columns(&self) -> u32 {
        ACC_STAGES * self.bn
    }
    /// The units of work of an `m × n` product: its tiles.
    pub fn units(&self, m: u32, n: u32) -> u64 {
        m.div_ceil(TCGEN05_BM) as u64 * n.div_ceil(self.bn) as u64
    }

    /// The multiplies' instruction descriptor: bf16 × bf16 into f32, 128 × `bn`, one CTA,
    /// both operands K-major.
    pub fn instr_desc(&self) -> Result<crate::descriptors::InstrDesc, String> {
        let kind = MmaKind::F16 { ab: F16Type::Bf16, d: FloatAccum::F32 };
        MmaParams::new(kind, MmaIssue::Cta1, TCGEN05_BM, self.bn).encode().map_err(|e| format!("instruction descriptor: {e}"))
    }

    fn tiling(&self) -> Tiling {
        Tiling { layout: Layout::TN, bm: TCGEN05_BM, bn: self.bn, bk: <Bf16 as super::GemmIn>::BK, cluster: 1, group_m: self.group_m }
    }
}

impl GemmConfig for Config {
    const MAX_SHARED: u32 = MAX_DYNAMIC_SHARED;
    fn ring(&self) -> StageRing {
        StageRing {
            stages: self.stages,
            stage_bytes: self.stage_bytes(),
            extra_bytes: 0,
            extra: "",
            group_m: self.group_m,
            wait_tries: Some(self.wait_tries),
        }
    }
    fn check_kernel(&self) -> Result<(), String> {
        if !TCGEN05_TILE_NS.contains(&self.bn) {
            return Err(format!("bn = {} is not one of {TCGEN05_TILE_NS:?}", self.bn));
        }
        let cols = self.tmem_columns();
        if !cols.is_power_of_two() || !(32..=512).contains(&cols) {
            return Err(format!("{cols} tensor-memory columns: an allocation is a power of two from 32 to 512"));
        }
        self.instr_desc().map(|_| ())
    }
}

/// Adds the kernel `name` computing `C = A·Bᵀ` (A M×K, B N×K, C M×N, all row-major; A and B
/// bf16, C in `O`) to `m`, whose target must have `tcgen05` (sm_100a, sm_103a, sm_110a or
/// their `f` families). The host launches it with `cfg.threads()` threads,
/// `cfg.shared_bytes()` of dynamic shared memory and at most `units` CTAs (a persistent grid
/// of at most one CTA per SM is best: each allocates `cfg.tmem_columns()` of the SM's 512
/// tensor-memory columns). Shapes as [`check_shape`](super::check_shape) says for TN bf16.
pub fn gemm_tcgen05<O: GemmOut>(m: &mut Module, name: &str, cfg: &Config) -> Result<KernelRef<Params<O>>, Error> {
    cfg.check().map_err(|e| invalid(name, format!("tcgen05 GEMM configuration: {e}")))?;
    let t = m.target();
    if !matches!(t.sm(), 100 | 103 | 110) || t.suffix() == Suffix::None {
        return Err(invalid(name, format!("the tcgen05 GEMM needs an sm_100a, sm_103a or sm_110a (or `f`) target, not {t}")));
    }
    let idesc = cfg.instr_desc().map_err(|e| invalid(name, e))?.bits();
    let cfg = *cfg;
    m.kernel(name, move |k, (a, b, c, mm, nn, kk): Params<O>| body::<O>(k, &cfg, idesc, (a, b), c, (mm, nn, kk)))
}

/// What the MMA issuer reads: the shared-memory tiles' layouts and the instruction descriptor.
struct Operands {
    a: TileLayout,
    b: TileLayout,
    idesc: Reg<B32>,
}

/// The barriers and the deadline every role shares.
struct Sync {
    ring: Ring,
    acc: Ring,
    deadline: Deadline,
}

fn body<O: GemmOut>(
    k: &mut Kernel,
    cfg: &Config,
    idesc: u32,
    (a_map, b_map): (TensorMap<Bf16, 2>, TensorMap<Bf16, 2>),
    c: GlobalPtr<O>,
    (m, n, kk): (Reg<U32>, Reg<U32>, Reg<U32>),
) {
    k.reqntid(cfg.threads(), 1, 1);
    let t = cfg.tiling();
    let ops = Operands { a: k_major_layout::<Bf16>(k, TCGEN05_BM), b: k_major_layout::<Bf16>(k, cfg.bn), idesc: ptx!(k, "mov.b32", idesc) };
    let cols = cfg.tmem_columns();
    let smem = k.dynamic_shared_aligned::<B8>(1024);
    let ring = Ring::new(k, "stage", cfg.stages);
    let acc = Ring::new(k, "acc", ACC_STAGES);
    let columns = TmemAlloc::new(k, "tmem_base", cols);

    let tid = ptx!(k, "mov.u32", sreg::TID_X);
    let warp = ptx!(k, "shr.u32", tid, 5u32);
    let lane = ptx!(k, "and.b32", tid, 31u32).bitcast::<U32>();
    let is_mma = ptx!(k, "setp.eq.u32", warp, MMA_WARP);
    // Warp 5 allocates the accumulators; the address reaches every thread through shared
    // memory across the barrier that publishes the mbarriers.
    k.if_(is_mma, |k| {
        columns.alloc(k);
        tmem::relinquish(k);
        tmem::fence_before(k);
    });
    // Full barriers: the producer's arrival (and the stage's bytes) or the issuer's commit;
    // empty barriers: the issuer's commit, or every epilogue thread. The commits and TMA
    // complete on them from the asynchronous proxy, for which the initialisation is fenced
    // (`fence.mbarrier_init`) before the CTA barrier publishes it.
    k.init_barriers(Publish::CtaAsync, |k| {
        ring.full().init(k, 1);
        ring.empty().init(k, 1);
        acc.full().init(k, 1);
        acc.empty().init(k, 32 * EPILOGUE_WARPS);
    });
    tmem::fence_after(k);
    let tmem = columns.base(k);

    let rank = ptx!(k, "mov.u32", 0u32);
    let grid = Grid::new(k, &t, m, n, kk, rank);
    let sync = Sync { ring, acc, deadline: Deadline::new(k, cfg.wait_tries) };
    let is_epilogue = ptx!(k, "setp.lt.u32", warp, EPILOGUE_WARPS);
    let first = ptx!(k, "setp.eq.u32", lane, 0u32);
    k.if_else(
        is_epilogue,
        |k| epilogue(k, &t, &grid, &sync, tmem, (warp, lane), c),
        |k| {
            let is_producer = ptx!(k, "setp.eq.u32", warp, PRODUCER_WARP);
            k.if_else(
                is_producer,
                |k| {
                    k.if_(first, |k| {
                        let it = produce(k, &t, &grid, None, &sync.ring, &sync.deadline, smem, a_map, b_map, &Timeline::off());
                        drain_ring(k, &sync, it);
                    })
                },
                |k| k.if_(first, |k| issue(k, &t, &grid, &sync, smem, tmem, &ops)),
            );
        },
    );

    // Every load of the accumulators is done before warp 5 frees them.
    tmem::fence_before(k);
    ptx!(k, "bar.sync", 0u32);
    k.if_(is_mma, |k| {
        tmem::fence_after(k);
        columns.free(k, tmem);
    });
}

/// After its last load, the producer waits for the issuer's commits to release the last
/// `stages` stages, so that no asynchronous arrival is still in flight when the CTA exits.
fn drain_ring(k: &mut Kernel, s: &Sync, it: Reg<U32>) {
    for i in 0..s.ring.stages() {
        let at = ptx!(k, "add.u32", it, i);
        let slot = s.ring.slot(k, at);
        let free = slot.acquire(k, &s.deadline);
        trap_unless(k, free);
    }
}

/// The MMA issuer (one thread): for each tile, an empty accumulator, then per k-tile four
/// multiplies on the stage and a commit that releases it; a commit to the accumulator's
/// full barrier ends the tile.
fn issue(k: &mut Kernel, t: &Tiling, g: &Grid, s: &Sync, smem: SharedPtr<B8>, tmem: Reg<U32>, ops: &Operands) {
    let it = ptx!(k, "mov.u32", 0u32);
    let tile = ptx!(k, "mov.u32", 0u32);
    for_each_tile(k, t, g, |k, _, _| {
        let accum = s.acc.slot(k, tile);
        let free = accum.acquire(k, &s.deadline);
        trap_unless(k, free);
        ptx!(k, "tcgen05.fence::after_thread_sync");
        let d = TmemAddr::from_reg(ptx!(k, "mad.lo.u32", accum.stage, t.bn, tmem).bitcast::<B32>());
        k.for_range(0u32, g.k_tiles, 1, |k, kt| {
            let slot = s.ring.slot(k, it);
            let full = slot.wait(k, &s.deadline);
            trap_unless(k, full);
            ptx!(k, "tcgen05.fence::after_thread_sync");
            let a = stage_base(k, t, smem, slot.stage);
            let b = ptx!(k, "add.u32", a, t.a_bytes());
            let da = k.tcgen05_desc(&ops.a, SharedPtr::<B8>::from_reg32(a));
            let db = k.tcgen05_desc(&ops.b, SharedPtr::<B8>::from_reg32(b));
            // The first K-slice of a tile overwrites the accumulator; the rest add to it.
            let accumulate = ptx!(k, "setp.ne.u32", kt, 0u32);
            for step in 0..BK_BYTES / K_SLICE_BYTES {
                let sa = k.tcgen05_desc_k(da, &ops.a, step);
                let sb = k.tcgen05_desc_k(db, &ops.b, step);
                if step == 0 {
                    ptx!(k, "tcgen05.mma.cta_group::1.kind::f16", d, sa, sb, ops.idesc, accumulate);
                } else {
                    ptx!(k, "tcgen05.mma.cta_group::1.kind::f16", d, sa, sb, ops.idesc, true);
                }
            }
            // The stage is free once these multiplies have read it.
            ptx!(k, "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64", slot.empty.ptr());
            ptx!(k, "add.u32" => it, it, 1u32);
        });
        ptx!(k, "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64", accum.full.ptr());
        ptx!(k, "add.u32" => tile, tile, 1u32);
    });
}

/// The epilogue warps: each thread owns one row of the tile (TMEM lane `32·warp + lane`) and
/// reads it 32 columns at a time.
fn epilogue<O: GemmOut>(
    k: &mut Kernel,
    t: &Tiling,
    g: &Grid,
    s: &Sync,
    tmem: Reg<U32>,
    (warp, lane): (Reg<U32>, Reg<U32>),
    c: GlobalPtr<O>,
) {
    let esize = if O::BF16 { 2u32 } else { 4 };
    let tile = ptx!(k, "mov.u32", 0u32);
    // The warp's 32 lanes: bits 16 and up of a tensor-memory address.
    let lanes = ptx!(k, "shl.b32", warp, 21u32).bitcast::<U32>();
    let mine = ptx!(k, "add.u32", tmem, lanes);
    let row_in_tile = ptx!(k, "mad.lo.u32", warp, 32u32, lane);
    // 16-byte stores need rows of C that are 16-byte multiples.
    let pitch_rest = ptx!(k, "and.b32", g.n, 16 / esize - 1);
    let aligned = ptx!(k, "setp.eq.b32", pitch_rest, 0u32);
    let base = c.addr(k);
    for_each_tile(k, t, g, |k, tm, tn| {
        let accum = s.acc.slot(k, tile);
        let full = accum.wait(k, &s.deadline);
        trap_unless(k, full);
        ptx!(k, "tcgen05.fence::after_thread_sync");
        let columns = ptx!(k, "mad.lo.u32", accum.stage, t.bn, mine);
        let row = ptx!(k, "mad.lo.u32", tm, t.bm, row_in_tile);
        let row_in = ptx!(k, "setp.lt.u32", row, g.m);
        let n0 = ptx!(k, "mul.lo.u32", tn, t.bn);
        // &C[row][n0]
        let row_elems = ptx!(k, "mul.wide.u32", row, g.n);
        let n0_wide = ptx!(k, "cvt.u64.u32", n0);
        let elem = ptx!(k, "add.u64", row_elems, n0_wide);
        let at_row = ptx!(k, "mad.lo.u64", elem, esize as u64, base);
        k.for_range(0u32, t.bn / LD_COLUMNS, 1, |k, j| {
            let taddr = ptx!(k, "mad.lo.u32", j, LD_COLUMNS, columns).bitcast::<B32>();
            // The load is warp-wide: the lanes meet after their own barrier waits.
            ptx!(k, "bar.warp.sync", 0xFFFF_FFFFu32);
            let v = tmem::Access::<Lanes<32, 32>, LD_COLUMNS>::load(k, TmemAddr::from_reg(taddr));
            tmem::wait_ld(k);
            let col0 = ptx!(k, "mad.lo.u32", j, LD_COLUMNS, n0);
            let end = ptx!(k, "add.u32", col0, LD_COLUMNS);
            let cols_in = ptx!(k, "setp.le.u32", end, g.n);
            let inside = ptx!(k, "and.pred", cols_in, row_in);
            let whole = ptx!(k, "and.pred", inside, aligned);
            let skip = ptx!(k, "mul.wide.u32", j, LD_COLUMNS * esize);
            let at = GlobalPtr::<O>::from_reg(ptx!(k, "add.u64", at_row, skip));
            let vals: [Reg<F32>; LD_COLUMNS as usize] = std::array::from_fn(|i| v[i].bitcast::<F32>());
            k.if_else(
                whole,
                |k| store_row::<O>(k, at, &vals),
                |k| {
                    // Columns left from col0: col0 + i is inside when i < left.
                    let left = ptx!(k, "sub.s32", g.n.bitcast::<S32>(), col0.bitcast::<S32>());
                    k.if_(row_in, |k| {
                        for (i, &x) in vals.iter().enumerate() {
                            let col_in = ptx!(k, "setp.gt.s32", left, i as i32);
                            k.guarded(col_in, |k| store_one::<O>(k, at.byte_offset((i as u32 * esize) as i64), x));
                        }
                    });
                },
            );
        });
        // The loads are done (`wait::ld`): the buffer may take the next tile's multiplies.
        ptx!(k, "tcgen05.fence::before_thread_sync");
        accum.release(k);
        ptx!(k, "add.u32" => tile, tile, 1u32);
    });
}

/// `vals` to consecutive elements of C from `at` (16-byte aligned) in 16-byte stores.
fn store_row<O: GemmOut>(k: &mut Kernel, at: GlobalPtr<O>, vals: &[Reg<F32>]) {
    if O::BF16 {
        for (q, eight) in vals.chunks(8).enumerate() {
            let w: [Reg<B32>; 4] = std::array::from_fn(|j| ptx!(k, "cvt.rn.bf16x2.f32", eight[2 * j + 1], eight[2 * j]).bitcast::<B32>());
            ptx!(k, "st.global.v4.b32", at.cast::<B32>().byte_offset(16 * q as i64), w);
        }
    } else {
        for (q, four) in vals.chunks(4).enumerate() {
            let w: [Reg<F32>; 4] = std::array::from_fn(|j| four[j]);
            ptx!(k, "st.global.v4.f32", at.cast::<F32>().byte_offset(16 * q as i64), w);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations_fit_or_say_what_is_wrong() {
        let c = Config::default();
        c.check().unwrap();
        assert_eq!((c.bm(), c.threads(), c.stage_bytes(), c.tmem_columns()), (128, 192, 48 * 1024, 512));
        assert_eq!(Config { bn: 128, ..c }.tmem_columns(), 256);
        assert!(Config { bn: 192, ..c }.check().unwrap_err().contains("bn = 192"));
        assert!(Config { stages: 5, ..c }.check().unwrap_err().contains("shared memory"));
        assert!(Config { bn: 128, stages: 7, ..c }.check().is_ok());
        assert!(Config { stages: 1, ..c }.check().unwrap_err().contains("stages = 1"));
        assert!(Config { group_m: 0, ..c }.check().unwrap_err().contains("group_m"));
        assert!(Config { wait_tries: 0, ..c }.check().unwrap_err().contains("wait_tries"));
        assert_eq!(c.units(200, 136), 2);
        assert_eq!(c.units(4000, 4000), 32 * 16);
        // bf16 x bf16 -> f32 (D 1 << 4, A and B 1 << 7, 1 << 10), N >> 3 at 17, M >> 4 at 24.
        assert_eq!(c.instr_desc().unwrap().bits(), 0x10 | 0x80 | 0x400 | 32 << 17 | 8 << 24);
    }

    #[test]
    fn a_target_without_tcgen05_is_an_error() {
        for t in [Target::SM_90A, Target::SM_100, Target::SM_120A] {
            let mut m = Module::new(t);
            let e = gemm_tcgen05::<Bf16>(&mut m, "g", &Config::default()).unwrap_err().to_string();
            assert!(e.contains("sm_100a"), "{t}: {e}");
        }
        for t in [Target::SM_100A, Target::SM_100F, Target::SM_103A, Target::SM_110A] {
            let mut m = Module::new(t);
            gemm_tcgen05::<F32>(&mut m, "g", &Config { bn: 128, ..Config::default() }).unwrap();
            m.to_ptx().unwrap_or_else(|e| panic!("{t}: {e}"));
        }
    }
}
