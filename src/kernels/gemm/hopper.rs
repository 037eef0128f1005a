//! The sm_90a kernel: TMA producer, wgmma consumers, a ring of stages (see the module docs).

use super::{invalid, GemmConfig, GemmOut, BK, ROWS_PER_CONSUMER};
use crate::builder::{Error, Kernel, KernelRef, Module, TensorMap};
use crate::descriptors::{ElemBytes, Major, Swizzle, TileLayout};
use crate::intrinsics::mbarrier::{Deadline, Publish, Ring};
use crate::ops::Acc;
use crate::prelude::*;
use crate::regs::Const;
use crate::types::Gdesc;

/// The kernel's parameters: the tensor maps of A (dims `[K, M]`) and B (`[K, N]`), C, and
/// M, N, K.
pub type GemmParams<O> = (TensorMap<Bf16, 2>, TensorMap<Bf16, 2>, GlobalPtr<O>, Reg<U32>, Reg<U32>, Reg<U32>);

/// One `m64n{bn}k16` wgmma of bf16 into an f32 accumulator of `R = bn/2` registers, both
/// operands from shared memory, K-major: `acc = A·B + (scale_d ? acc : 0)`.
type Mma<const R: usize> = fn(&mut Kernel, Acc<F32, R>, Reg<Gdesc>, Reg<Gdesc>, Reg<Pred>);

/// Adds the kernel `name` computing `C = A·Bᵀ` (A M×K, B N×K, C M×N, all row-major) to
/// `m`, which must target sm_90a. The host launches it with `cfg.threads()` threads,
/// `cfg.shared_bytes()` of dynamic shared memory and at most one CTA per SM.
pub fn gemm_tn<O: GemmOut>(m: &mut Module, name: &str, cfg: &GemmConfig) -> Result<KernelRef<GemmParams<O>>, Error> {
    cfg.check().map_err(|e| invalid(name, format!("GEMM configuration: {e}")))?;
    macro_rules! with_n {
        ($($bn:literal => $r:literal $chain:literal),*) => {
            match cfg.bn {
                $($bn => m.kernel(name, |k, p: GemmParams<O>| {
                    let mma: Mma<$r> = |k, acc, a, b, d| { ptx!(k, $chain => acc, a, b, d, 1, 1, 0, 0); };
                    body::<O, $r>(k, cfg, p, mma)
                }),)*
                other => Err(invalid(name, format!("no wgmma form for bn = {other}"))),
            }
        };
    }
    with_n!(
        64 => 32 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16",
        128 => 64 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16",
        192 => 96 "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16",
        256 => 128 "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"
    )
}

/// Shapes known when the kernel is built.
struct Plan {
    cfg: GemmConfig,
    /// One consumer's 64 rows of the A tile, and the B tile, as wgmma reads them.
    a_layout: TileLayout,
    b_layout: TileLayout,
}

/// Registers every role computes the same way.
#[derive(Clone, Copy)]
struct Grid {
    m: Reg<U32>,
    n: Reg<U32>,
    tiles_m: Reg<U32>,
    tiles_n: Reg<U32>,
    tiles: Reg<U32>,
    k_tiles: Reg<U32>,
}

fn body<O: GemmOut, const R: usize>(k: &mut Kernel, cfg: &GemmConfig, p: GemmParams<O>, mma: Mma<R>) {
    let (a_map, b_map, c, m, n, kk) = p;
    let (at_entry, producer_regs, consumer_regs) = cfg.registers();
    k.maxnreg(at_entry);
    let plan = Plan {
        cfg: *cfg,
        a_layout: layout(k, ROWS_PER_CONSUMER),
        b_layout: layout(k, cfg.bn),
    };
    let smem = k.dynamic_shared_aligned::<B8>(1024);
    let ring = Ring::new(k, "stage", cfg.stages);
    ring.init(k, 1, cfg.consumers, Publish::Cta);

    let tiles_m = ceil_div(k, m, cfg.bm());
    let tiles_n = ceil_div(k, n, cfg.bn);
    let tiles = ptx!(k, "mul.lo.u32", tiles_m, tiles_n);
    let k_tiles = ceil_div(k, kk, BK);
    let grid = Grid { m, n, tiles_m, tiles_n, tiles, k_tiles };

    let tid = ptx!(k, "mov.u32", sreg::TID_X);
    let wg = ptx!(k, "shr.u32", tid, 7u32);
    let is_producer = ptx!(k, "setp.eq.u32", wg, 0u32);
    let deadline = Deadline::new(k, cfg.wait_tries);
    k.if_else(
        is_producer,
        |k| {
            ptx!(k, "setmaxnreg.dec.sync.aligned.u32", Const::<40>);
            debug_assert_eq!(producer_regs, 40);
            let first = ptx!(k, "setp.eq.u32", tid, 0u32);
            k.if_(first, |k| produce(k, &plan, &grid, &ring, &deadline, smem, a_map, b_map));
        },
        |k| {
            match consumer_regs {
                232 => ptx!(k, "setmaxnreg.inc.sync.aligned.u32", Const::<232>),
                _ => ptx!(k, "setmaxnreg.inc.sync.aligned.u32", Const::<240>),
            };
            let consumer = ptx!(k, "sub.u32", wg, 1u32);
            let thread = ptx!(k, "and.b32", tid, 127u32).bitcast::<U32>();
            consume(k, &plan, &grid, &ring, &deadline, smem, consumer, thread, c, mma);
        },
    );
}

/// The K-major, 128-byte-swizzled layout of `rows` × 64 bf16 that TMA writes for a
/// `[64, rows]` box.
fn layout(k: &mut Kernel, rows: u32) -> TileLayout {
    TileLayout::new(ElemBytes::B2, rows, BK, Major::K, Swizzle::B128).unwrap_or_else(|e| {
        k.invalid(format!("GEMM tile layout: {e}"));
        TileLayout::new(ElemBytes::B2, 64, BK, Major::K, Swizzle::B128).expect("the 64-row layout exists")
    })
}

fn ceil_div(k: &mut Kernel, x: Reg<U32>, d: u32) -> Reg<U32> {
    let up = ptx!(k, "add.u32", x, d - 1);
    ptx!(k, "div.u32", up, d)
}

/// Runs `body(tile_m, tile_n)` for this CTA's tiles: `ctaid.x`, then every `nctaid.x`-th.
/// Tiles are numbered in bands of `group_m` tile rows, column by column inside a band.
fn for_each_tile(k: &mut Kernel, plan: &Plan, g: &Grid, mut body: impl FnMut(&mut Kernel, Reg<U32>, Reg<U32>)) {
    let tile = ptx!(k, "mov.u32", sreg::CTAID_X);
    let step = ptx!(k, "mov.u32", sreg::NCTAID_X);
    let group = plan.cfg.group_m;
    let (tiles, tiles_m, tiles_n) = (g.tiles, g.tiles_m, g.tiles_n);
    k.while_(
        |k| ptx!(k, "setp.lt.u32", tile, tiles),
        |k| {
            let per_band = ptx!(k, "mul.lo.u32", tiles_n, group);
            let band = ptx!(k, "div.u32", tile, per_band);
            let first_m = ptx!(k, "mul.lo.u32", band, group);
            let left = ptx!(k, "sub.u32", tiles_m, first_m);
            let rows = ptx!(k, "min.u32", left, group);
            let in_band = ptx!(k, "rem.u32", tile, per_band);
            let row = ptx!(k, "rem.u32", in_band, rows);
            let tm = ptx!(k, "add.u32", first_m, row);
            let tn = ptx!(k, "div.u32", in_band, rows);
            body(k, tm, tn);
            ptx!(k, "add.u32" => tile, tile, step);
        },
    );
}

/// A bounded wait that came back false ends the kernel: the launch fails instead of hanging.
fn trap_unless(k: &mut Kernel, ok: Reg<Pred>) {
    k.if_(!ok, |k| ptx!(k, "trap"));
}

/// The stage's A tile (`a`) and B tile (`a + bm·128`) in shared memory.
fn stage_base(k: &mut Kernel, plan: &Plan, smem: SharedPtr<B8>, stage: Reg<U32>) -> Reg<U32> {
    let base = smem.addr(k);
    ptx!(k, "mad.lo.u32", stage, plan.cfg.stage_bytes(), base)
}

#[allow(clippy::too_many_arguments)]
fn produce(
    k: &mut Kernel,
    plan: &Plan,
    g: &Grid,
    ring: &Ring,
    deadline: &Deadline,
    smem: SharedPtr<B8>,
    a_map: TensorMap<Bf16, 2>,
    b_map: TensorMap<Bf16, 2>,
) {
    a_map.prefetch(k);
    b_map.prefetch(k);
    let it = ptx!(k, "mov.u32", 0u32);
    let (bm, bn, a_bytes) = (plan.cfg.bm(), plan.cfg.bn, plan.cfg.bm() * BK * 2);
    for_each_tile(k, plan, g, |k, tm, tn| {
        let ya = ptx!(k, "mul.lo.u32", tm, bm).bitcast::<S32>();
        let yb = ptx!(k, "mul.lo.u32", tn, bn).bitcast::<S32>();
        k.for_range(0u32, g.k_tiles, 1, |k, kt| {
            let slot = ring.slot(k, it);
            let free = slot.acquire(k, deadline);
            trap_unless(k, free);
            slot.full.arrive_expect_tx(k, plan.cfg.stage_bytes());
            let x = ptx!(k, "mul.lo.u32", kt, BK).bitcast::<S32>();
            let a = stage_base(k, plan, smem, slot.stage);
            let b = ptx!(k, "add.u32", a, a_bytes);
            a_map.load(k, SharedPtr::<B8>::from_reg32(a), [x, ya], slot.full.ptr());
            b_map.load(k, SharedPtr::<B8>::from_reg32(b), [x, yb], slot.full.ptr());
            ptx!(k, "add.u32" => it, it, 1u32);
        });
    });
}

#[allow(clippy::too_many_arguments)]
fn consume<O: GemmOut, const R: usize>(
    k: &mut Kernel,
    plan: &Plan,
    g: &Grid,
    ring: &Ring,
    deadline: &Deadline,
    smem: SharedPtr<B8>,
    consumer: Reg<U32>,
    thread: Reg<U32>,
    c: GlobalPtr<O>,
    mma: Mma<R>,
) {
    let acc: Acc<F32, R> = k.zeroed_acc();
    let it = ptx!(k, "mov.u32", 0u32);
    let always = ptx!(k, "setp.eq.u32", thread, thread);
    let lead = ptx!(k, "setp.eq.u32", thread, 0u32);
    // This consumer's 64 rows of each A tile start 64 rows (8 KB) further per consumer.
    let a_rows = ptx!(k, "mul.lo.u32", consumer, ROWS_PER_CONSUMER * BK * 2);
    let a_bytes = plan.cfg.bm() * BK * 2;
    for_each_tile(k, plan, g, |k, tm, tn| {
        k.for_range(0u32, g.k_tiles, 1, |k, kt| {
            let slot = ring.slot(k, it);
            let full = slot.wait(k, deadline);
            trap_unless(k, full);
            let base = stage_base(k, plan, smem, slot.stage);
            let a = ptx!(k, "add.u32", base, a_rows);
            let b = ptx!(k, "add.u32", base, a_bytes);
            let da = k.gmma_desc(&plan.a_layout, SharedPtr::<B8>::from_reg32(a));
            let db = k.gmma_desc(&plan.b_layout, SharedPtr::<B8>::from_reg32(b));
            // The first K-slice of a tile overwrites the accumulator; the rest add to it.
            let accumulate = ptx!(k, "setp.ne.u32", kt, 0u32);
            ptx!(k, "wgmma.fence.sync.aligned");
            for s in 0..BK / 16 {
                let sa = k.gmma_desc_k(da, &plan.a_layout, s);
                let sb = k.gmma_desc_k(db, &plan.b_layout, s);
                mma(k, acc, sa, sb, if s == 0 { accumulate } else { always });
            }
            ptx!(k, "wgmma.commit_group.sync.aligned");
            ptx!(k, "wgmma.wait_group.sync.aligned", 0);
            k.if_(lead, |k| slot.release(k));
            ptx!(k, "add.u32" => it, it, 1u32);
        });
        epilogue::<O, R>(k, plan, g, tm, tn, consumer, thread, c, acc);
    });
}

/// Writes the accumulator: thread `t` of warp `w` holds, for `i` in `0..bn/8`, rows
/// `16w + t/4` and `+8`, columns `8i + 2(t%4)` and `+1` (registers `4i..4i+4`, row-major
/// pairs). Interior tiles store pairs unpredicated; edge tiles check every element.
#[allow(clippy::too_many_arguments)]
fn epilogue<O: GemmOut, const R: usize>(
    k: &mut Kernel,
    plan: &Plan,
    g: &Grid,
    tm: Reg<U32>,
    tn: Reg<U32>,
    consumer: Reg<U32>,
    thread: Reg<U32>,
    c: GlobalPtr<O>,
    acc: Acc<F32, R>,
) {
    let esize = if O::BF16 { 2u32 } else { 4 };
    let warp = ptx!(k, "shr.u32", thread, 5u32);
    let lane = ptx!(k, "and.b32", thread, 31u32).bitcast::<U32>();
    let group = ptx!(k, "shr.u32", lane, 2u32);
    let quad = ptx!(k, "and.b32", lane, 3u32).bitcast::<U32>();
    let tile_row = ptx!(k, "mad.lo.u32", tm, plan.cfg.bm(), 0u32);
    let m0 = ptx!(k, "mad.lo.u32", consumer, ROWS_PER_CONSUMER, tile_row);
    let n0 = ptx!(k, "mul.lo.u32", tn, plan.cfg.bn);
    let r = ptx!(k, "mad.lo.u32", warp, 16u32, m0);
    let r0 = ptx!(k, "add.u32", r, group);
    let r1 = ptx!(k, "add.u32", r0, 8u32);
    let col0 = ptx!(k, "mad.lo.u32", quad, 2u32, n0);
    // &C[r0][col0] and &C[r1][col0].
    let row_elems = ptx!(k, "mul.wide.u32", r0, g.n);
    let col_wide = ptx!(k, "cvt.u64.u32", col0);
    let elem = ptx!(k, "add.u64", row_elems, col_wide);
    let base = c.addr(k);
    let p0 = ptx!(k, "mad.lo.u64", elem, esize as u64, base);
    let pitch8 = ptx!(k, "mul.wide.u32", g.n, 8 * esize);
    let p1 = ptx!(k, "add.u64", p0, pitch8);
    let (c0, c1) = (GlobalPtr::<O>::from_reg(p0), GlobalPtr::<O>::from_reg(p1));

    // Interior: all 64 rows and bn columns inside, and N even (pairs are aligned).
    let m_end = ptx!(k, "add.u32", m0, ROWS_PER_CONSUMER);
    let n_end = ptx!(k, "add.u32", n0, plan.cfg.bn);
    let rows_in = ptx!(k, "setp.le.u32", m_end, g.m);
    let cols_in = ptx!(k, "setp.le.u32", n_end, g.n);
    let odd = ptx!(k, "and.b32", g.n, 1u32);
    let even = ptx!(k, "setp.eq.b32", odd, 0u32);
    let inside = ptx!(k, "and.pred", rows_in, cols_in);
    let interior = ptx!(k, "and.pred", inside, even);
    let pairs = R / 4;
    k.if_else(
        interior,
        |k| {
            for i in 0..pairs {
                let off = (16 * esize * i as u32 / 2) as i64;
                for (half, ptr) in [(0, &c0), (1, &c1)] {
                    let (lo, hi) = (acc[4 * i + 2 * half], acc[4 * i + 2 * half + 1]);
                    store_pair::<O>(k, ptr.byte_offset(off), lo, hi);
                }
            }
        },
        |k| {
            let r0_in = ptx!(k, "setp.lt.u32", r0, g.m);
            let r1_in = ptx!(k, "setp.lt.u32", r1, g.m);
            // Columns left from col0: col0 + j is inside when j < left.
            let left = ptx!(k, "sub.s32", g.n.bitcast::<S32>(), col0.bitcast::<S32>());
            for i in 0..pairs {
                for j in 0..2u32 {
                    let col = 8 * i as i32 + j as i32;
                    let col_in = ptx!(k, "setp.gt.s32", left, col);
                    let off = (col as u32 * esize) as i64;
                    for (half, ptr, row_in) in [(0usize, &c0, r0_in), (1, &c1, r1_in)] {
                        let ok = ptx!(k, "and.pred", col_in, row_in);
                        let v = acc[4 * i + 2 * half + j as usize];
                        k.if_(ok, |k| store_one::<O>(k, ptr.byte_offset(off), v));
                    }
                }
            }
        },
    );
}

/// Two adjacent elements of C, as one 4-byte (bf16) or 8-byte (f32) store.
fn store_pair<O: GemmOut>(k: &mut Kernel, at: GlobalPtr<O>, lo: Reg<F32>, hi: Reg<F32>) {
    if O::BF16 {
        let v = ptx!(k, "cvt.rn.bf16x2.f32", hi, lo);
        ptx!(k, "st.global.b32", at.cast::<B32>().offset(0), v.bitcast::<B32>());
    } else {
        ptx!(k, "st.global.v2.f32", at.cast::<F32>().offset(0), [lo, hi]);
    }
}

/// One element of C.
fn store_one<O: GemmOut>(k: &mut Kernel, at: GlobalPtr<O>, v: Reg<F32>) {
    if O::BF16 {
        let b = ptx!(k, "cvt.rn.bf16.f32", v);
        ptx!(k, "st.global.b16", at.cast::<B16>().offset(0), b.bitcast::<B16>());
    } else {
        ptx!(k, "st.global.f32", at.cast::<F32>().offset(0), v);
    }
}
