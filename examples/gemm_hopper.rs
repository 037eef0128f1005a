//! A Hopper GEMM, `C = A·Bᵀ` in bf16 with f32 accumulation, and what it is made of.
//!
//!     cargo run --release --features cublas --example gemm_hopper   # on an H100/H200
//!     cargo run --release --example gemm_hopper                   # anywhere: PTX + ptxas
//!
//! With a Hopper GPU it multiplies two random 4096 × 4096 matrices, checks the product
//! against cuBLAS's of the same buffers and times both. Without one (or without the `cublas`
//! feature) it writes the kernel's PTX to `target/gemm_hopper.ptx` and assembles it with
//! ptxas, printing the registers, spills and warnings ptxas reports.
//!
//! The kernel (src/kernels/gemm/) in five parts:
//!
//! 1. **Roles.** A CTA is three warpgroups of 128 threads. Warpgroup 0, the *producer*,
//!    lowers its register budget with `setmaxnreg.dec` to 24 and one of its threads issues
//!    all TMA loads. Warpgroups 1 and 2, the *consumers*, raise theirs to 240 with
//!    `setmaxnreg.inc`: each keeps a 64 × 256 f32 accumulator, 128 registers per thread.
//! 2. **Pipeline.** Shared memory holds four stages, each a 128 × 64 tile of A and a
//!    256 × 64 tile of B (48 KB), written by TMA with the 128-byte swizzle. A `Ring` of
//!    mbarriers hands them over: the producer waits until a stage is *empty*, arms its
//!    *full* barrier with the 48 KB it expects (`mbarrier.arrive.expect_tx`) and issues two
//!    `cp.async.bulk.tensor` loads that complete on it; a consumer waits until it is full,
//!    runs four `wgmma.mma_async m64n256k16` on it (shared-memory descriptors from
//!    `k.gmma_desc`), and releases the stage of the k-tile before once those wgmmas are
//!    done (`wgmma.wait_group 1`), keeping one group in flight. Every wait is bounded; a
//!    pipeline that stops moving ends the kernel with `trap` rather than hanging the GPU.
//! 3. **Schedule.** The grid is persistent, one CTA per SM (or as many 2-CTA clusters as
//!    fit): CTA `b` computes tiles `b`, `b + grid`, ..., numbered in bands of 16 tile rows
//!    so that the tiles in flight share their A and B tiles in L2.
//! 4. **Epilogue.** Each consumer converts its accumulator to bf16 registers when a tile's
//!    last k-tile is done, starts the next tile's first wgmmas, and while they run writes
//!    the registers with `stmatrix` into 64 × 64 staging buffers (two per consumer, swizzled
//!    as TMA expects); one thread stores each chunk with a TMA tensor store while the next
//!    is written (`hopper::Config::defer_store`; the last tile's are stored after the loop).
//! 5. **Edges.** Loads past M, N or K fill with zeros, stores past M and N are dropped by
//!    TMA (or predicated, in the direct epilogue used when N is not a multiple of 8).

use ptxkit::kernels::gemm::{gemm_staged, hopper};
use ptxkit::prelude::*;

mod gemm_common;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cfg = hopper::Config::default();
    #[cfg(feature = "cublas")]
    if let Some(gpu) = ptxkit::runtime::testing::gpu_or_skip("gemm_hopper") {
        if gpu.compute_capability() == (9, 0) {
            return run(&gpu, cfg);
        }
        println!("{} is not sm_90: writing the PTX instead", gpu.name());
    }
    let mut m = Module::new(Target::SM_90A);
    gemm_staged::<Bf16>(&mut m, "gemm", &cfg)?;
    gemm_common::write_and_assemble(&m, "gemm_hopper.ptx")
}

#[cfg(feature = "cublas")]
fn run(gpu: &ptxkit::runtime::Gpu, cfg: hopper::Config) -> Result<(), Box<dyn std::error::Error>> {
    let gemm = ptxkit::runtime::Gemm::<Bf16>::new(gpu, cfg)?;
    gemm_common::check_and_time(gpu, |a, b, c, m, n, k| {
        ptxkit::runtime::GemmRunner::run(&gemm, gpu, a, b, c, &ptxkit::kernels::gemm::GemmShape::new(m, n, k))
    })
}
