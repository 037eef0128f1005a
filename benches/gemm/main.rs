//! The Hopper GEMM beside cuBLAS (bf16) and cuBLASLt (FP8 e4m3), on the same buffers in the
//! same process:
//!
//!     cargo bench --features cuda --bench gemm
//!
//! For each shape (square 512 to 16384, then the non-square ones) both products of the
//! same random normal bf16 inputs are compared first (relative error under 1e-2, or the
//! shape is reported wrong and not timed); then each is timed with CUDA events in 5
//! alternating rounds (2 warm-up and 10 timed runs of each), and the medians of the 50
//! runs are compared. TFLOP/s count 2·M·N·K. The FP8 table then does the same for e4m3
//! inputs (normal, σ = 2, per-tensor scales ½ each, bf16 C) against cuBLASLt with fast
//! accumulation (the whole sum in the tensor cores' accumulator, as ours) and, for
//! reference, without. `PTXKIT_GEMM_SHAPES=MxNxK,...` picks the shapes;
//! `PTXKIT_RESULTS=path` also writes the tables there; `PTXKIT_GEMM_SUSTAIN=n` also runs
//! each product `n` times back to back and prints when, for clock and power logs. The
//! square sizes of the first configuration are plotted (TFLOP/s against size: ptxkit and
//! cuBLAS in bf16 and FP8) into `bench/results/gemm.png`, or `PTXKIT_PLOT=path`.

#[path = "../../examples/common/canvas.rs"]
mod canvas;
mod env;
mod plot;

use env::tflops;

use half::bf16;
use ptxkit::kernels::gemm::{hopper, E4m3, GemmIn, Layout};
use ptxkit::runtime::testing::{gpu_or_skip, normal_bf16, normal_e4m3, poisoned};
use ptxkit::runtime::{AutoGemm, Cublas, Gemm, GemmRunner, GemmShape, Gpu, LtFp8, RuntimeError};
use ptxkit::types::Bf16;
use std::fmt::Write;
use std::sync::Arc;

const SQUARES: [u32; 6] = [512, 1024, 2048, 4096, 8192, 16384];
const ODD: [(u32, u32, u32); 3] = [(4000, 4000, 4000), (1, 4096, 4096), (4096, 7168, 16384)];

fn shapes() -> Vec<(u32, u32, u32)> {
    env::shapes(SQUARES.iter().map(|&s| (s, s, s)).chain(ODD).collect())
}

/// `PTXKIT_GEMM_CONFIGS=cluster=2,overlap=0;stages=3`: configurations to time, each the
/// default with the fields named changed; the default alone when unset. Each runs with its
/// tile chosen per shape ([`AutoGemm`]) unless `auto=0` fixes it.
fn configs() -> Vec<(hopper::Config, bool)> {
    env::configs("PTXKIT_GEMM_CONFIGS", (hopper::Config::default(), true), |(cfg, auto), key, v| match key {
        "auto" => *auto = v != 0,
        "bn" => cfg.bn = v,
        "consumers" => cfg.consumers = v,
        "stages" => cfg.stages = v,
        "group_m" => cfg.group_m = v,
        "cluster" => cfg.cluster = v,
        "overlap" => cfg.overlap = v != 0,
        "defer_store" => cfg.defer_store = v != 0,
        "stream_k" => cfg.stream_k = v != 0,
        "nn" => cfg.layout = if v != 0 { Layout::NN } else { Layout::TN },
        other => panic!("PTXKIT_GEMM_CONFIGS: no field `{other}`"),
    })
}

/// The GEMM a table times: one configuration, or the tile chosen per shape from it.
enum Ours<I: GemmIn> {
    Fixed(Arc<Gemm<Bf16, I>>),
    Auto(AutoGemm<Bf16, I>),
}

impl<I: GemmIn> Ours<I> {
    fn new(gpu: &Gpu, (cfg, auto): (hopper::Config, bool)) -> Result<Self, RuntimeError> {
        Ok(if auto { Ours::Auto(AutoGemm::new(gpu, cfg)?) } else { Ours::Fixed(Arc::new(Gemm::new(gpu, cfg)?)) })
    }
    /// The kernels an `m × n` product runs on.
    fn gemm_for(&self, gpu: &Gpu, m: u32, n: u32) -> Result<Arc<Gemm<Bf16, I>>, RuntimeError> {
        match self {
            Ours::Fixed(g) => Ok(g.clone()),
            Ours::Auto(a) => a.gemm_for(gpu, m, n),
        }
    }
    /// What the table's heading says: the configuration, its resident grid and JIT time.
    fn describe(&self) -> String {
        let one =
            |g: &Gemm<Bf16, I>| format!("{:?}, {} clusters resident, JIT {:?}", g.config(), g.resident_clusters(), g.module().jit_time());
        match self {
            Ours::Fixed(g) => one(g),
            Ours::Auto(a) => format!("tile by shape from {}", one(&a.base())),
        }
    }
}

/// An `m × n` product's tile, as `bm×bn`.
fn tile(g: &Gemm<Bf16, impl GemmIn>) -> String {
    format!("{}×{}", g.config().bm(), g.config().bn)
}

/// The e4m3 GEMM (bf16 C) beside cuBLASLt on every shape; returns the square sizes' (size,
/// ptxkit, cuBLASLt with fast accumulation) TFLOP/s.
fn fp8_table(gpu: &Gpu, cfg: (hopper::Config, bool), table: &mut String) -> Result<Vec<(u32, f64, f64)>, RuntimeError> {
    let ours = Ours::<E4m3>::new(gpu, cfg)?;
    let head = format!(
        "\nFP8 e4m3 inputs, bf16 C, {}\n| M×N×K | tile | ptxkit TFLOP/s | cuBLASLt TFLOP/s (fast accum) | ratio | cuBLASLt TFLOP/s (default) | rel. error |\n|---|---|---|---|---|---|---|\n",
        ours.describe()
    );
    print!("{head}");
    table.push_str(&head);
    let mut curve = vec![];
    // Inputs of σ = 2 stored unscaled, read back with scales ½ · ½.
    let alpha = 0.25f32;
    for (i, (m, n, k)) in shapes().into_iter().enumerate() {
        let a = gpu.upload(&normal_e4m3(2 * i as u64, m as usize * k as usize, 2.0))?;
        let b = gpu.upload(&normal_e4m3(2 * i as u64 + 1, n as usize * k as usize, 2.0))?;
        let mut c = poisoned::<bf16>(gpu, m as usize * n as usize)?;
        let mut r = poisoned::<bf16>(gpu, m as usize * n as usize)?;
        let shape = GemmShape::new(m, n, k);
        let (fast, exact) = (LtFp8::<Bf16>::new(gpu, &shape, true)?, LtFp8::<Bf16>::new(gpu, &shape, false)?);
        let gemm = ours.gemm_for(gpu, m, n)?;
        gemm.run_scaled(gpu, &a, &b, &mut c, alpha, &GemmShape::new(m, n, k))?;
        // Against cuBLASLt with the same (fast) accumulation; the precise one differs from
        // both by up to K/32 · 2⁻¹⁴ of an element (tests/device/gemm_fp8.rs).
        fast.run_scaled(gpu, &a, &b, &mut r, alpha, &shape)?;
        // Fast accumulation keeps partial sums in the tensor cores' narrower accumulator, so
        // two summation orders (stream-K adds pieces of K in f32) differ by up to
        // K/32 · 2⁻¹⁴ of an element, as tests/device/gemm_fp8.rs models.
        let tol = 1e-2 + k.div_ceil(32) as f64 * 2f64.powi(-14);
        let line = match env::agree(gpu, &c, &r, tol)? {
            Err(wrong) => format!("| {m}×{n}×{k} | {} | {wrong} | | | | |", tile(&gemm)),
            Ok(relative) => {
                let mut r2 = poisoned::<bf16>(gpu, m as usize * n as usize)?;
                let ms = env::time_rounds(
                    gpu,
                    &mut [
                        &mut || gemm.run_scaled(gpu, &a, &b, &mut c, alpha, &GemmShape::new(m, n, k)),
                        &mut || fast.run_scaled(gpu, &a, &b, &mut r, alpha, &shape),
                        &mut || exact.run_scaled(gpu, &a, &b, &mut r2, alpha, &shape),
                    ],
                )?;
                env::sustain(
                    gpu,
                    (m, n, k),
                    &["ptxkit fp8", "cuBLASLt fp8"],
                    &mut [&mut || gemm.run_scaled(gpu, &a, &b, &mut c, alpha, &GemmShape::new(m, n, k)), &mut || {
                        fast.run_scaled(gpu, &a, &b, &mut r, alpha, &shape)
                    }],
                )?;
                let (t0, t1, t2) = (tflops(m, n, k, ms[0]), tflops(m, n, k, ms[1]), tflops(m, n, k, ms[2]));
                if m == n && n == k && SQUARES.contains(&m) {
                    curve.push((m, t0, t1));
                }
                format!("| {m}×{n}×{k} | {} | {t0:.1} | {t1:.1} | {:.3} | {t2:.1} | {relative:.1e} |", tile(&gemm), t0 / t1)
            }
        };
        println!("{line}");
        writeln!(table, "{line}").unwrap();
    }
    Ok(curve)
}

fn main() -> Result<(), RuntimeError> {
    let Some(gpu) = gpu_or_skip("gemm bench") else { return Ok(()) };
    if gpu.compute_capability() != (9, 0) {
        println!("skipped gemm bench: the wgmma GEMM needs sm_90, the GPU is {:?}", gpu.compute_capability());
        return Ok(());
    }
    let blas = Cublas::new(&gpu)?;
    let (drv_major, drv_minor) = gpu.driver_version();
    let mut table = String::new();
    // Square sizes of the first configuration: (size, ptxkit, cuBLAS) TFLOP/s.
    let mut curve: Vec<(u32, f64, f64)> = vec![];
    let configs = configs();
    for (ci, &(cfg, auto)) in configs.iter().enumerate() {
        let ours = Ours::<Bf16>::new(&gpu, (cfg, auto))?;
        let head = format!(
            "{} (driver {drv_major}.{drv_minor}), {}\n| M×N×K | tile | ptxkit TFLOP/s | cuBLAS TFLOP/s | ratio | rel. error |\n|---|---|---|---|---|---|\n",
            gpu.name(),
            ours.describe()
        );
        print!("{head}");
        table.push_str(&head);
        for (i, (m, n, k)) in shapes().into_iter().enumerate() {
            let a = gpu.upload(&normal_bf16(2 * i as u64, m as usize * k as usize))?;
            let b = gpu.upload(&normal_bf16(2 * i as u64 + 1, n as usize * k as usize))?;
            let mut c = poisoned::<bf16>(&gpu, m as usize * n as usize)?;
            let mut r = poisoned::<bf16>(&gpu, m as usize * n as usize)?;
            let gemm = ours.gemm_for(&gpu, m, n)?;
            gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(m, n, k))?;
            // cuBLAS in the configuration's layout (B is N×K for TN, K×N for NN).
            let theirs = |r: &mut ptxkit::runtime::CudaSlice<bf16>| match cfg.layout {
                Layout::TN => blas.run(&gpu, &a, &b, r, &GemmShape::new(m, n, k)),
                Layout::NN => blas.run(&gpu, &a, &b, r, &GemmShape::nn(m, n, k)),
            };
            theirs(&mut r)?;
            let line = match env::agree(&gpu, &c, &r, 1e-2)? {
                Err(wrong) => format!("| {m}×{n}×{k} | {} | {wrong} | | | |", tile(&gemm)),
                Ok(relative) => {
                    let ms = env::time_rounds(
                        &gpu,
                        &mut [&mut || gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(m, n, k)), &mut || theirs(&mut r)],
                    )?;
                    env::sustain(
                        &gpu,
                        (m, n, k),
                        &["ptxkit bf16", "cuBLAS bf16"],
                        &mut [&mut || gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(m, n, k)), &mut || theirs(&mut r)],
                    )?;
                    let (t0, t1) = (tflops(m, n, k, ms[0]), tflops(m, n, k, ms[1]));
                    if ci == 0 && m == n && n == k && SQUARES.contains(&m) {
                        curve.push((m, t0, t1));
                    }
                    format!("| {m}×{n}×{k} | {} | {t0:.1} | {t1:.1} | {:.3} | {relative:.1e} |", tile(&gemm), t0 / t1)
                }
            };
            println!("{line}");
            writeln!(table, "{line}").unwrap();
        }
    }
    let mut fp8 = vec![];
    for (ci, &(cfg, auto)) in configs.iter().enumerate() {
        if cfg.layout == Layout::NN {
            continue; // FP8 reads B K-contiguous only
        }
        let curve = fp8_table(&gpu, (cfg, auto), &mut table)?;
        if ci == 0 {
            fp8 = curve;
        }
    }
    if !curve.is_empty() {
        let sizes: Vec<u32> = curve.iter().map(|c| c.0).collect();
        let series = [
            plot::Series { label: "ptxkit bf16".into(), rgb: [31, 100, 200], points: curve.iter().map(|c| (c.0, c.1)).collect() },
            plot::Series { label: "cuBLAS bf16".into(), rgb: [230, 120, 20], points: curve.iter().map(|c| (c.0, c.2)).collect() },
            plot::Series { label: "ptxkit fp8".into(), rgb: [20, 150, 60], points: fp8.iter().map(|c| (c.0, c.1)).collect() },
            plot::Series { label: "cuBLASLt fp8".into(), rgb: [200, 40, 40], points: fp8.iter().map(|c| (c.0, c.2)).collect() },
        ];
        let title = format!("TFLOP/s, {}", gpu.name());
        let path = std::env::var("PTXKIT_PLOT").unwrap_or_else(|_| "bench/results/gemm.png".into());
        std::fs::write(&path, plot::chart(&title, "M = N = K", &sizes, &series))
            .map_err(|e| RuntimeError::Invalid(format!("{path}: {e}")))?;
        println!("plot: {path}");
    }
    if let Ok(path) = std::env::var("PTXKIT_RESULTS") {
        std::fs::write(&path, &table).map_err(|e| RuntimeError::Invalid(format!("{path}: {e}")))?;
    }
    let _ = Gpu::synchronize(&gpu);
    Ok(())
}
