//! A Hopper GEMM, `C = A·Bᵀ` in bf16 with f32 accumulation, and what it is made of.
//!
//!     cargo run --release --features cuda --example gemm_hopper   # on an H100/H200
//!     cargo run --release --example gemm_hopper                   # anywhere: PTX + ptxas
//!
//! With a Hopper GPU it multiplies two random 4096 × 4096 matrices, checks the product
//! against cuBLAS's of the same buffers and times both. Without one (or without the `cuda`
//! feature) it writes the kernel's PTX to `target/gemm_hopper.ptx` and assembles it with
//! ptxas, printing the registers, spills and warnings ptxas reports.
//!
//! The kernel (src/kernels/gemm/) in five parts:
//!
//! 1. **Roles.** A CTA is three warpgroups of 128 threads. Warpgroup 0, the *producer*,
//!    lowers its register budget with `setmaxnreg.dec` to 40 and one of its threads issues
//!    all TMA loads. Warpgroups 1 and 2, the *consumers*, raise theirs to 232 with
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
//! 4. **Epilogue.** Each consumer converts its accumulator to bf16 and writes it with
//!    `stmatrix` into a 64 × 64 staging buffer (two per consumer, swizzled as TMA expects);
//!    one thread stores each chunk with a TMA tensor store while the next is written, and
//!    the consumer goes on to its next tile as soon as the last chunk is handed over.
//! 5. **Edges.** Loads past M, N or K fill with zeros, stores past M and N are dropped by
//!    TMA (or predicated, in the direct epilogue used when N is not a multiple of 8).

use ptxkit::kernels::gemm::{gemm_staged, GemmConfig};
use ptxkit::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cfg = GemmConfig::default();
    #[cfg(feature = "cuda")]
    if let Some(gpu) = ptxkit::runtime::testing::gpu_or_skip("gemm_hopper") {
        if gpu.compute_capability() == (9, 0) {
            return run(&gpu, cfg);
        }
        println!("{} is not sm_90: writing the PTX instead", gpu.name());
    }
    let mut m = Module::new(Target::SM_90A);
    gemm_staged::<Bf16>(&mut m, "gemm", &cfg)?;
    let ptx = m.to_ptx()?;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("gemm_hopper.ptx");
    std::fs::create_dir_all(path.parent().expect("target/"))?;
    std::fs::write(&path, &ptx)?;
    println!("{} lines of PTX in {}", ptx.lines().count(), path.display());
    match ptxkit::ptxas::find() {
        Some(px) => {
            let report = ptxkit::ptxas::resources(&px, &ptx, Target::SM_90A)?;
            report
                .iter()
                .filter(|l| l.contains("Used") || l.contains("spill") || l.contains("warning"))
                .for_each(|l| println!("ptxas: {}", l.trim()));
        }
        None => println!("ptxas not found (python3 -m pip install nvidia-cuda-nvcc==13.0.88, or set PTXAS): not assembled"),
    }
    Ok(())
}

#[cfg(feature = "cuda")]
fn run(gpu: &ptxkit::runtime::Gpu, cfg: GemmConfig) -> Result<(), Box<dyn std::error::Error>> {
    use half::bf16;
    use ptxkit::runtime::testing::{normal_bf16, poisoned};
    use ptxkit::runtime::{discrepancy, median, Cublas, Gemm};

    let (m, n, k) = (4096u32, 4096u32, 4096u32);
    let gemm = Gemm::<Bf16>::new(gpu, cfg)?;
    let blas = Cublas::new(gpu)?;
    let a = gpu.upload(&normal_bf16(1, (m * k) as usize))?;
    let b = gpu.upload(&normal_bf16(2, (n * k) as usize))?;
    let (mut c, mut r) = (poisoned::<bf16>(gpu, (m * n) as usize)?, poisoned::<bf16>(gpu, (m * n) as usize)?);
    gemm.run(gpu, &a, &b, &mut c, m, n, k)?;
    blas.gemm_tn_bf16(&a, &b, &mut r, m, n, k)?;
    let f = |v: Vec<bf16>| v.iter().map(|x| x.to_f32()).collect::<Vec<f32>>();
    let d = discrepancy(&f(gpu.download(&c)?), &f(gpu.download(&r)?), 1e-2);
    println!("{m}x{n}x{k}: relative error against cuBLAS {:.1e}, {} elements outside tolerance", d.relative, d.wrong);
    if d.wrong > 0 {
        return Err(format!("the product is wrong: {d:?}").into());
    }
    let flop = 2.0 * m as f64 * n as f64 * k as f64;
    let ours = median(&gpu.bench(5, 20, || gemm.run(gpu, &a, &b, &mut c, m, n, k))?).unwrap_or(f32::NAN);
    let theirs = median(&gpu.bench(5, 20, || blas.gemm_tn_bf16(&a, &b, &mut r, m, n, k))?).unwrap_or(f32::NAN);
    let tf = |ms: f32| flop / (ms as f64 * 1e-3) / 1e12;
    println!("ptxkit {:.0} TFLOP/s, cuBLAS {:.0} TFLOP/s on {}", tf(ours), tf(theirs), gpu.name());
    Ok(())
}
