//! A starting point for a Hopper tensor-core kernel: one CTA computes `C = A·Bᵀ` for a
//! 64 × 128 tile (A 64 × K, B 128 × K, bf16, K-major; C f32), K a multiple of 64. A producer
//! warpgroup's first thread loads 64-wide K slices of A and B with TMA into a ring of
//! shared-memory stages; the consumer warpgroup waits for each stage, describes it to wgmma
//! (descriptors of a 128-byte-swizzled tile) and multiplies, then stores its accumulator
//! straight from registers. Every wait is bounded: a broken pipeline traps instead of hanging.
//!
//!     cargo run --release --features cuda --example wgmma_tile
mod common;

use half::bf16;
use ptxkit::descriptors::TiledMap;
use ptxkit::prelude::*;
use ptxkit::runtime::{HostTensorMap, Launch};
use rand::{Rng, SeedableRng};

const N: u32 = 128;
const BK: u32 = 64;
const STAGES: u32 = 3;
const A_BYTES: u32 = 64 * BK * 2;
const STAGE_BYTES: u32 = A_BYTES + N * BK * 2;
type Tile = wgmma::Mma<N, F32, Bf16>;

fn build(m: &mut Module) -> Result<KernelRef<(TensorMap<Bf16, 2>, TensorMap<Bf16, 2>, GlobalPtr<F32>, Reg<U32>)>, Error> {
    let a_layout = TileLayout::new(ElemBytes::B2, 64, BK, Major::K, Swizzle::B128).expect("a 64-row tile");
    let b_layout = TileLayout::new(ElemBytes::B2, N, BK, Major::K, Swizzle::B128).expect("a 128-row tile");
    m.kernel("wgmma_tile", |k, (a, b, c, k_tiles): (TensorMap<Bf16, 2>, TensorMap<Bf16, 2>, GlobalPtr<F32>, Reg<U32>)| {
        let smem = k.dynamic_shared_aligned::<B8>(1024);
        let ring = Ring::new(k, "stage", STAGES);
        ring.init(k, 1, 1, Publish::Cta);
        let deadline = Deadline::new(k, 1 << 22);
        let tid = ptx!(k, "mov.u32", sreg::TID_X);
        let producer = ptx!(k, "setp.lt.u32", tid, 128u32);
        let stage_at = |k: &mut Kernel, stage: Reg<U32>| {
            let base = smem.addr(k);
            ptx!(k, "mad.lo.u32", stage, STAGE_BYTES, base)
        };
        k.if_else(
            producer,
            |k| {
                let first = ptx!(k, "setp.eq.u32", tid, 0u32);
                k.if_(first, |k| {
                    k.for_range(0u32, k_tiles, 1, |k, kt| {
                        let slot = ring.slot(k, kt);
                        let free = slot.acquire(k, &deadline);
                        k.if_(!free, |k| ptx!(k, "trap"));
                        slot.full.arrive_expect_tx(k, STAGE_BYTES);
                        let x = ptx!(k, "mul.lo.u32", kt, BK).bitcast::<S32>();
                        let y = ptx!(k, "mov.s32", 0i32);
                        let at = stage_at(k, slot.stage);
                        a.load(k, SharedPtr::<B8>::from_reg32(at), [x, y], slot.full.ptr());
                        let at_b = ptx!(k, "add.u32", at, A_BYTES);
                        b.load(k, SharedPtr::<B8>::from_reg32(at_b), [x, y], slot.full.ptr());
                    });
                });
            },
            |k| {
                let thread = ptx!(k, "sub.u32", tid, 128u32);
                let acc = Tile::zeroed(k);
                k.for_range(0u32, k_tiles, 1, |k, kt| {
                    let slot = ring.slot(k, kt);
                    let full = slot.wait(k, &deadline);
                    k.if_(!full, |k| ptx!(k, "trap"));
                    let at = stage_at(k, slot.stage);
                    let at_b = ptx!(k, "add.u32", at, A_BYTES);
                    let da = k.gmma_desc(&a_layout, SharedPtr::<B8>::from_reg32(at));
                    let db = k.gmma_desc(&b_layout, SharedPtr::<B8>::from_reg32(at_b));
                    wgmma::fence(k);
                    for s in 0..BK / 16 {
                        let (sa, sb) = (k.gmma_desc_k(da, &a_layout, s), k.gmma_desc_k(db, &b_layout, s));
                        Tile::ss(k, acc, sa, sb, true, (Major::K, Major::K));
                    }
                    wgmma::commit(k, acc).wait(k, 0);
                    let lead = ptx!(k, "setp.eq.u32", thread, 0u32);
                    k.if_(lead, |k| slot.release(k));
                });
                // Register 4j + q holds row `row0 + 8·(q / 2)`, column `col0 + 8j + q % 2`.
                let (row0, col0) = (wgmma::acc_row(k, thread), wgmma::acc_col(k, thread));
                let at = ptx!(k, "mad.lo.u32", row0, N, col0);
                for (i, r) in acc.iter().enumerate() {
                    let (dr, dc) = (8 * ((i as u32 / 2) % 2), 8 * (i as u32 / 4) + i as u32 % 2);
                    ptx!(k, "st.global.f32", c.at(at).offset((dr * N + dc) as i64), *r);
                }
            },
        );
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut m = Module::new(Target::SM_90A);
    let kr = build(&mut m)?;
    let text = m.to_ptx()?;
    let Some(gpu) = common::gpu("wgmma_tile") else { return Ok(()) };
    let kk = 512usize;
    let mut g = rand::rngs::StdRng::from_entropy();
    let a: Vec<bf16> = (0..64 * kk).map(|_| bf16::from_f32(g.gen_range(-1.0..1.0))).collect();
    let b: Vec<bf16> = (0..N as usize * kk).map(|_| bf16::from_f32(g.gen_range(-1.0..1.0))).collect();
    let (da, db) = (gpu.upload(&a)?, gpu.upload(&b)?);
    let mut dc = gpu.upload(&vec![f32::NAN; 64 * N as usize])?;
    let a_map = HostTensorMap::<Bf16, 2>::tiled(&da, &TiledMap::new([kk as u64, 64], [BK, 64]).swizzle(Swizzle::B128))?;
    let b_map = HostTensorMap::<Bf16, 2>::tiled(&db, &TiledMap::new([kk as u64, N as u64], [BK, N]).swizzle(Swizzle::B128))?;
    let module = gpu.load(&text)?;
    let launch = Launch::new(1u32, 256u32).shared(STAGES * STAGE_BYTES);
    module.kernel(&kr)?.launch(&launch, (&a_map, &b_map, &mut dc, (kk as u32 / BK)))?;
    let c = gpu.download(&dc)?;
    let worst = common::largest_error(&a, &b, &c, N as usize, kk);
    println!("wgmma_tile: 64 x {N} x {kk}, largest error against an f64 product {worst:.2e}");
    if !(worst < 1e-3) {
        return Err(format!("the tile is wrong: error {worst}").into());
    }
    Ok(())
}
