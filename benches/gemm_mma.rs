//! The `mma.sync` GEMM (the sm_80 way: `ldmatrix`, multi-stage `cp.async`) beside cuBLAS,
//! on the same buffers in the same process:
//!
//!     cargo bench --features cuda --bench gemm_mma
//!
//! For each shape both products of the same random normal bf16 inputs are compared first
//! (relative error under 1e-2, or the shape is reported wrong and not timed); then each is
//! timed with CUDA events in 5 alternating rounds (2 warm-up and 10 timed runs of each), and
//! the medians of the 50 runs are compared. TFLOP/s count 2·M·N·K.
//! `PTXKIT_GEMM_SHAPES=MxNxK,...` picks the shapes, `PTXKIT_MMA_CONFIGS=bk=64,stages=3;...`
//! the configurations (each the default with the fields named changed), and
//! `PTXKIT_RESULTS=path` also writes the table there; `PTXKIT_GEMM_SUSTAIN=n` also runs each
//! product `n` times back to back and prints when (see benches/gemm).

#[path = "gemm/env.rs"]
mod env;

use env::tflops;
use half::bf16;
use ptxkit::kernels::gemm::ampere;
use ptxkit::runtime::testing::{gpu_or_skip, normal_bf16, poisoned};
use ptxkit::runtime::{Cublas, GemmRunner, GemmShape, Gpu, MmaGemm, RuntimeError};
use ptxkit::types::Bf16;
use std::fmt::Write;

const SHAPES: [(u32, u32, u32); 8] = [
    (1024, 1024, 1024),
    (2048, 2048, 2048),
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (4000, 4000, 4000),
    (1, 4096, 4096),
    (4096, 7168, 16384),
    (77, 130, 40),
];

fn shapes() -> Vec<(u32, u32, u32)> {
    env::shapes(SHAPES.to_vec())
}

fn configs() -> Vec<ampere::Config> {
    env::configs("PTXKIT_MMA_CONFIGS", ampere::Config::default(), |cfg, key, v| match key {
        "bm" => cfg.bm = v,
        "bn" => cfg.bn = v,
        "bk" => cfg.bk = v,
        "warps_m" => cfg.warps_m = v,
        "warps_n" => cfg.warps_n = v,
        "stages" => cfg.stages = v,
        "group_m" => cfg.group_m = v,
        "ctas_per_sm" => cfg.ctas_per_sm = v,
        "persistent" => cfg.persistent = v != 0,
        "staged_store" => cfg.staged_store = v != 0,
        other => panic!("PTXKIT_MMA_CONFIGS: no field `{other}`"),
    })
}

fn main() -> Result<(), RuntimeError> {
    let Some(gpu) = gpu_or_skip("gemm_mma bench") else { return Ok(()) };
    if gpu.compute_capability().0 < 8 {
        println!("skipped gemm_mma bench: mma.sync bf16 needs sm_80, the GPU is {:?}", gpu.compute_capability());
        return Ok(());
    }
    let blas = Cublas::new(&gpu)?;
    let (drv_major, drv_minor) = gpu.driver_version();
    let mut table = String::new();
    for cfg in configs() {
        let gemm = MmaGemm::<Bf16>::new(&gpu, cfg)?;
        let head = format!(
            "{} (driver {drv_major}.{drv_minor}), {cfg:?}, {} CTAs resident, JIT {:?}\n| M×N×K | ptxkit TFLOP/s | cuBLAS TFLOP/s | ratio | rel. error |\n|---|---|---|---|---|\n",
            gpu.name(),
            gemm.resident_ctas(),
            gemm.module().jit_time()
        );
        print!("{head}");
        table.push_str(&head);
        for (i, (m, n, k)) in shapes().into_iter().enumerate() {
            let a = gpu.upload(&normal_bf16(2 * i as u64, m as usize * k as usize))?;
            let b = gpu.upload(&normal_bf16(2 * i as u64 + 1, n as usize * k as usize))?;
            let mut c = poisoned::<bf16>(&gpu, m as usize * n as usize)?;
            let mut r = poisoned::<bf16>(&gpu, m as usize * n as usize)?;
            gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(m, n, k))?;
            blas.run(&gpu, &a, &b, &mut r, &GemmShape::new(m, n, k))?;
            let line = match env::agree(&gpu, &c, &r, 1e-2)? {
                Err(wrong) => format!("| {m}×{n}×{k} | {wrong} | | | |"),
                Ok(relative) => {
                    let ms = env::time_rounds(
                        &gpu,
                        &mut [&mut || gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(m, n, k)), &mut || {
                            blas.run(&gpu, &a, &b, &mut r, &GemmShape::new(m, n, k))
                        }],
                    )?;
                    env::sustain(
                        &gpu,
                        (m, n, k),
                        &["ptxkit mma.sync", "cuBLAS bf16"],
                        &mut [&mut || gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(m, n, k)), &mut || {
                            blas.run(&gpu, &a, &b, &mut r, &GemmShape::new(m, n, k))
                        }],
                    )?;
                    let (t0, t1) = (tflops(m, n, k, ms[0]), tflops(m, n, k, ms[1]));
                    format!("| {m}×{n}×{k} | {t0:.1} | {t1:.1} | {:.3} | {relative:.1e} |", t0 / t1)
                }
            };
            println!("{line}");
            writeln!(table, "{line}").unwrap();
        }
    }
    if let Ok(path) = std::env::var("PTXKIT_RESULTS") {
        std::fs::write(&path, &table).map_err(|e| RuntimeError::Invalid(format!("{path}: {e}")))?;
    }
    let _ = Gpu::synchronize(&gpu);
    Ok(())
}
