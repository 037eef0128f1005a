//! A starting point for a Blackwell tensor-core kernel: one CTA computes `C = A·Bᵀ` for a
//! 128 × 128 tile (A 128 × K, B 128 × K, bf16, K-major; C f32), K a multiple of 64. Thread 0
//! loads 64-wide K slices with TMA into a ring of stages; thread 32 issues `tcgen05.mma`
//! (M = 128, N = 128, K = 16 each) into tensor memory, each stage's multiplies committed to
//! its empty barrier and the last ones to a *done* barrier; then every warp reads its 32
//! rows of the accumulator (`tcgen05.ld.32x32b`) and stores them. Every wait is bounded.
//!
//!     cargo run --release --features cuda --example tcgen05_tile
//!
//! It builds for sm_100a and assembles with ptxas where there is one; it runs only on a GPU
//! of compute capability 10.x (and says so elsewhere).
mod common;

use half::bf16;
use ptxkit::descriptors::{F16Type, FloatAccum, MmaIssue, MmaKind, MmaParams, TiledMap};
use ptxkit::prelude::*;
use ptxkit::runtime::{HostTensorMap, Launch};
use rand::{Rng, SeedableRng};

const N: u32 = 128;
const BK: u32 = 64;
const STAGES: u32 = 3;
const TILE_BYTES: u32 = 128 * BK * 2;
type Params = (TensorMap<Bf16, 2>, TensorMap<Bf16, 2>, GlobalPtr<F32>, Reg<U32>);

fn build(m: &mut Module) -> Result<KernelRef<Params>, Box<dyn std::error::Error>> {
    let layout = TileLayout::new_tcgen05(ElemBytes::B2, 128, BK, Major::K, Swizzle::B128)?;
    let kind = MmaKind::F16 { ab: F16Type::Bf16, d: FloatAccum::F32 };
    let idesc = MmaParams::new(kind, MmaIssue::Cta1, 128, N).encode()?.bits();
    Ok(m.kernel("tcgen05_tile", |k, (a, b, c, k_tiles): Params| {
        k.reqntid(128, 1, 1);
        let smem = k.dynamic_shared_aligned::<B8>(1024);
        let ring = Ring::new(k, "stage", STAGES);
        let done = k.mbarriers("done", 1);
        let columns = tmem::TmemAlloc::new(k, "tmem_slot", N);
        let tid = ptx!(k, "mov.u32", sreg::TID_X);
        let warp = ptx!(k, "shr.u32", tid, 5u32);
        let warp1 = ptx!(k, "setp.eq.u32", warp, 1u32);
        k.if_(warp1, |k| {
            columns.alloc(k);
            tmem::relinquish(k);
            tmem::fence_before(k);
        });
        // The commits arrive from the asynchronous proxy: fence the initialisation for it.
        k.init_barriers(Publish::CtaAsync, |k| {
            ring.full().init(k, 1);
            ring.empty().init(k, 1);
            done.init(k, 1);
        });
        tmem::fence_after(k);
        let base = columns.base(k);
        let deadline = Deadline::new(k, 1 << 22);
        let stage_at = |k: &mut Kernel, stage: Reg<U32>| {
            let s = smem.addr(k);
            ptx!(k, "mad.lo.u32", stage, 2 * TILE_BYTES, s)
        };
        let (producer, issuer) = (ptx!(k, "setp.eq.u32", tid, 0u32), ptx!(k, "setp.eq.u32", tid, 32u32));
        k.if_(producer, |k| {
            k.for_range(0u32, k_tiles, 1, |k, kt| {
                let slot = ring.slot(k, kt);
                let free = slot.acquire(k, &deadline);
                k.if_(!free, |k| ptx!(k, "trap"));
                slot.full.arrive_expect_tx(k, 2 * TILE_BYTES);
                let (x, y) = (ptx!(k, "mul.lo.u32", kt, BK).bitcast::<S32>(), ptx!(k, "mov.s32", 0i32));
                let at = stage_at(k, slot.stage);
                a.load(k, SharedPtr::<B8>::from_reg32(at), [x, y], slot.full.ptr());
                let at_b = ptx!(k, "add.u32", at, TILE_BYTES);
                b.load(k, SharedPtr::<B8>::from_reg32(at_b), [x, y], slot.full.ptr());
            });
        });
        k.if_(issuer, |k| {
            let d = TmemAddr::from_reg(base.bitcast::<B32>());
            let id = ptx!(k, "mov.b32", idesc);
            k.for_range(0u32, k_tiles, 1, |k, kt| {
                let slot = ring.slot(k, kt);
                let full = slot.wait(k, &deadline);
                k.if_(!full, |k| ptx!(k, "trap"));
                tmem::fence_after(k);
                let at = stage_at(k, slot.stage);
                let at_b = ptx!(k, "add.u32", at, TILE_BYTES);
                let (da, db) =
                    (k.tcgen05_desc(&layout, SharedPtr::<B8>::from_reg32(at)), k.tcgen05_desc(&layout, SharedPtr::<B8>::from_reg32(at_b)));
                // The first K-slice overwrites the accumulator; the rest add to it.
                let accumulate = ptx!(k, "setp.ne.u32", kt, 0u32);
                for s in 0..BK / 16 {
                    let (sa, sb) = (k.tcgen05_desc_k(da, &layout, s), k.tcgen05_desc_k(db, &layout, s));
                    if s == 0 {
                        ptx!(k, "tcgen05.mma.cta_group::1.kind::f16", d, sa, sb, id, accumulate);
                    } else {
                        ptx!(k, "tcgen05.mma.cta_group::1.kind::f16", d, sa, sb, id, true);
                    }
                }
                ptx!(k, "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64", slot.empty.ptr());
            });
            let zero = ptx!(k, "mov.u32", 0u32);
            ptx!(k, "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64", done.at(k, zero).ptr());
        });
        // Warp w reads tensor-memory lanes 32w..32w+31: rows of C, one column per register.
        let zero = ptx!(k, "mov.u32", 0u32);
        let finished = done.at(k, zero).wait(k, 0u32, &deadline);
        k.if_(!finished, |k| ptx!(k, "trap"));
        tmem::fence_after(k);
        let lane0 = ptx!(k, "shl.b32", warp, 5u32).bitcast::<U32>();
        for j in 0..N / 32 {
            let at = tmem::tmem_at(k, base, lane0, 32 * j);
            let v = tmem::Access::<Lanes<32, 32>, 32>::load(k, at);
            tmem::wait_ld(k);
            let row = ptx!(k, "mul.lo.u32", tid, N);
            for (i, r) in v.iter().enumerate() {
                ptx!(k, "st.global.b32", c.cast::<B32>().at(row).offset((32 * j) as i64 + i as i64), *r);
            }
        }
        tmem::fence_before(k);
        ptx!(k, "bar.sync", 0u32);
        k.if_(warp1, |k| {
            tmem::fence_after(k);
            columns.free(k, base);
        });
    })?)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut m = Module::new(Target::SM_100A);
    let kr = build(&mut m)?;
    let text = m.to_ptx()?;
    match ptxkit::ptxas::find() {
        Some(px) => {
            ptxkit::ptxas::check_clean(&px, &text, Target::SM_100A, ptxkit::ptxas::Mode::Assemble)?;
            println!("tcgen05_tile: assembled for sm_100a by {}", px.display());
        }
        None => println!("tcgen05_tile: no ptxas found (PTXAS or the nvidia-cuda-nvcc package): not assembled"),
    }
    let Some(gpu) = common::gpu("tcgen05_tile") else { return Ok(()) };
    if gpu.compute_capability().0 != 10 {
        println!("tcgen05_tile: not run: tcgen05 needs compute capability 10.x, this GPU is {:?}", gpu.compute_capability());
        return Ok(());
    }
    let kk = 512usize;
    let mut g = rand::rngs::StdRng::from_entropy();
    let a: Vec<bf16> = (0..128 * kk).map(|_| bf16::from_f32(g.gen_range(-1.0..1.0))).collect();
    let b: Vec<bf16> = (0..N as usize * kk).map(|_| bf16::from_f32(g.gen_range(-1.0..1.0))).collect();
    let (da, db) = (gpu.upload(&a)?, gpu.upload(&b)?);
    let mut dc = gpu.upload(&vec![f32::NAN; 128 * N as usize])?;
    let box_map = TiledMap::new([kk as u64, 128], [BK, 128]).swizzle(Swizzle::B128);
    let (a_map, b_map) = (HostTensorMap::<Bf16, 2>::tiled(&da, &box_map)?, HostTensorMap::<Bf16, 2>::tiled(&db, &box_map)?);
    let module = gpu.load(&text)?;
    module.kernel(&kr)?.launch(&Launch::new(1u32, 128u32).shared(STAGES * 2 * TILE_BYTES), (&a_map, &b_map, &mut dc, kk as u32 / BK))?;
    let c = gpu.download(&dc)?;
    let worst = common::largest_error(&a, &b, &c, N as usize, kk);
    println!("tcgen05_tile: 128 x {N} x {kk}, largest error against an f64 product {worst:.2e}");
    if !(worst < 1e-3) {
        return Err(format!("the tile is wrong: error {worst}").into());
    }
    Ok(())
}
