//! A Blackwell GEMM, `C = A·Bᵀ` in bf16 with f32 accumulation in tensor memory, and what it
//! is made of.
//!
//!     cargo run --release --features cublas --example gemm_blackwell   # on a B200/GB200
//!     cargo run --release --example gemm_blackwell                   # anywhere: PTX + ptxas
//!
//! On a GPU with `tcgen05` (sm_100, sm_103, sm_110) it multiplies two random 4096 × 4096
//! matrices, checks the product against cuBLAS's of the same buffers and times both.
//! Elsewhere it writes the kernel's PTX to `target/gemm_blackwell.ptx` and assembles it with
//! ptxas for sm_100a, printing the registers, spills and warnings ptxas reports.
//!
//! The kernel (src/kernels/gemm/blackwell.rs) in five parts:
//!
//! 1. **Roles.** A CTA is six warps. Warp 4 is the *producer*: one of its threads issues
//!    every TMA load (the Hopper kernel's producer, shared through `sched.rs`). Warp 5 is
//!    the *MMA issuer*: one thread issues every `tcgen05.mma`, and the warp allocates the
//!    tensor memory and frees it. Warps 0–3 are the *epilogue*: warp `w` reads tensor-memory
//!    lanes `32w..32w+31`, rows `32w..` of the tile.
//! 2. **Pipeline.** Shared memory holds four stages, each a 128 × 64 tile of A and a 256 × 64
//!    tile of B (48 KB) with the 128-byte swizzle, handed over by the same mbarrier `Ring`
//!    as on Hopper: the producer waits until a stage is *empty* and arms its *full* barrier
//!    with the 48 KB that TMA will complete; the issuer waits until it is full and runs four
//!    `tcgen05.mma.cta_group::1.kind::f16` (128 × 256 × 16 each; shared-memory descriptors
//!    from `k.tcgen05_desc`, 32 bytes further along K each, the instruction descriptor from
//!    `MmaParams`), then `tcgen05.commit`s to the stage's empty barrier: the hardware
//!    arrives once the multiplies have read the stage. No thread waits for the tensor core.
//! 3. **Accumulators.** Tensor memory holds two 128 × 256 f32 accumulators (512 columns,
//!    `tcgen05.alloc` by warp 5 into a shared-memory word, then
//!    `relinquish_alloc_permit`). A second two-stage ring hands them between the issuer
//!    (a commit to *full* after a tile's last k-tile) and the epilogue (128 arrivals on
//!    *empty* once its loads are done), so one tile's epilogue overlaps the next tile's
//!    multiplies. `tcgen05.fence::before_thread_sync`/`after_thread_sync` bracket every
//!    synchronisation that orders tensor-memory work.
//! 4. **Epilogue.** `tcgen05.ld.32x32b.x32` gives each thread 32 consecutive f32 of its row;
//!    after `tcgen05.wait::ld` they are converted and stored, 16 bytes at a time inside C,
//!    element by element under predicates past M or N.
//! 5. **Schedule and edges.** The grid is persistent (one CTA per SM, as tensor memory
//!    allows), tiles in bands of 16 tile rows; loads past M, N or K fill with zeros.

use ptxkit::kernels::gemm::{blackwell, gemm_tcgen05};
use ptxkit::prelude::*;

mod gemm_common;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cfg = blackwell::Config::default();
    #[cfg(feature = "cublas")]
    if let Some(gpu) = ptxkit::runtime::testing::gpu_or_skip("gemm_blackwell") {
        match ptxkit::runtime::tcgen05_target(gpu.compute_capability()) {
            Ok(_) => return run(&gpu, cfg),
            Err(e) => println!("{}: {e}; writing the PTX instead", gpu.name()),
        }
    }
    let mut m = Module::new(Target::SM_100A);
    gemm_tcgen05::<Bf16>(&mut m, "gemm", &cfg)?;
    gemm_common::write_and_assemble(&m, "gemm_blackwell.ptx")
}

#[cfg(feature = "cublas")]
fn run(gpu: &ptxkit::runtime::Gpu, cfg: blackwell::Config) -> Result<(), Box<dyn std::error::Error>> {
    let gemm = ptxkit::runtime::Tcgen05Gemm::<Bf16>::new(gpu, cfg)?;
    gemm_common::check_and_time(gpu, |a, b, c, m, n, k| {
        ptxkit::runtime::GemmRunner::run(&gemm, gpu, a, b, c, &ptxkit::kernels::gemm::GemmShape::new(m, n, k))
    })
}
