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
use ptxkit::kernels::gemm::{hopper, skinny, E4m3, GemmIn, Layout};
use ptxkit::runtime::testing::{gpu_or_skip, normal_bf16, normal_e4m3, poisoned};
use ptxkit::runtime::{AutoGemm, Cublas, CudaSlice, Gemm, GemmRunner, GemmShape, Gpu, LtFp8, Pick, RuntimeError, SkinnyGemm, SKINNY_UP_TO};
use ptxkit::types::Bf16;
use std::fmt::Write;
use std::sync::Arc;

type Host<I> = <<I as GemmIn>::Elem as ptxkit::types::DataType>::Host;

const SQUARES: [u32; 6] = [512, 1024, 2048, 4096, 8192, 16384];
const ODD: [(u32, u32, u32); 3] = [(4000, 4000, 4000), (1, 4096, 4096), (4096, 7168, 16384)];

fn shapes() -> Vec<(u32, u32, u32)> {
    env::shapes(SQUARES.iter().map(|&s| (s, s, s)).chain(ODD).collect())
}

/// `PTXKIT_GEMM_CONFIGS=cluster=2,overlap=0;stages=3`: configurations to time, each the
/// default with the fields named changed; the default alone when unset. Each runs with its
/// kernel chosen per shape ([`AutoGemm`], which runs TN products of at most `skinny` rows,
/// 16 by default, on the skinny kernel) unless `auto=0` fixes it; `tuned=1` measures the
/// choice on each shape's first run (`AutoGemm::tuned`).
fn configs() -> Vec<Setup> {
    env::configs("PTXKIT_GEMM_CONFIGS", (hopper::Config::default(), true, SKINNY_UP_TO, false), |(cfg, auto, skinny, tuned), key, v| {
        match key {
            "auto" => *auto = v != 0,
            "tuned" => *tuned = v != 0,
            "skinny" => *skinny = v,
            "bn" => cfg.bn = v,
            "consumers" => cfg.consumers = v,
            "stages" => cfg.stages = v,
            "group_m" => cfg.group_m = v,
            "cluster" => cfg.cluster = v,
            "overlap" => cfg.overlap = v != 0,
            "defer_store" => cfg.defer_store = v != 0,
            "stream_k" => cfg.stream_k = v != 0,
            "split" => cfg.split = v,
            "nn" => cfg.layout = if v != 0 { Layout::NN } else { Layout::TN },
            other => panic!("PTXKIT_GEMM_CONFIGS: no field `{other}`"),
        }
    })
}

/// `PTXKIT_SKINNY_CONFIGS=m_blocks=1,unroll=8;n_blocks=4`: skinny kernels to time beside
/// the configurations (each `skinny::Config::for_rows(16)` with the fields named changed),
/// on the shapes of at most their rows; none when unset.
fn skinny_configs() -> Vec<skinny::Config> {
    if std::env::var("PTXKIT_SKINNY_CONFIGS").is_err() {
        return vec![];
    }
    env::configs("PTXKIT_SKINNY_CONFIGS", skinny::Config::for_rows(16), |c, key, v| match key {
        "m_blocks" => c.m_blocks = v,
        "n_blocks" => c.n_blocks = v,
        "unroll" => c.unroll = v,
        "warps" => c.warps = v,
        "ahead" => c.ahead = v != 0,
        other => panic!("PTXKIT_SKINNY_CONFIGS: no field `{other}`"),
    })
}

/// Every GEMM a table times: the configurations, then the skinny kernels.
fn all_ours<I: GemmIn>(gpu: &Gpu, configs: &[Setup]) -> Result<Vec<Ours<I>>, RuntimeError>
where
    Gemm<Bf16, I>: GemmRunner<In = Host<I>, Out = bf16>,
    AutoGemm<Bf16, I>: GemmRunner<In = Host<I>, Out = bf16>,
    SkinnyGemm<Bf16, I>: GemmRunner<In = Host<I>, Out = bf16>,
{
    let mut ours = configs.iter().map(|&c| Ours::<I>::new(gpu, c)).collect::<Result<Vec<_>, _>>()?;
    for c in skinny_configs() {
        ours.push(Ours::Skinny(SkinnyGemm::with_configs(gpu, &[c])?));
    }
    Ok(ours)
}

/// A configuration, whether its kernel is chosen per shape, the most rows run skinny, and
/// whether the choice is measured (`AutoGemm::tuned`) rather than the heuristic's.
type Setup = (hopper::Config, bool, u32, bool);

/// The GEMM a table times: one configuration, or the kernel chosen per shape from it.
enum Ours<I: GemmIn> {
    Fixed(Arc<Gemm<Bf16, I>>),
    Auto(AutoGemm<Bf16, I>),
    Skinny(SkinnyGemm<Bf16, I>),
}

impl<I: GemmIn> Ours<I>
where
    Gemm<Bf16, I>: GemmRunner<In = Host<I>, Out = bf16>,
    AutoGemm<Bf16, I>: GemmRunner<In = Host<I>, Out = bf16>,
    SkinnyGemm<Bf16, I>: GemmRunner<In = Host<I>, Out = bf16>,
{
    fn new(gpu: &Gpu, (cfg, auto, skinny, tuned): Setup) -> Result<Self, RuntimeError> {
        Ok(match (auto, tuned) {
            (true, false) => Ours::Auto(AutoGemm::new(gpu, cfg)?.skinny_up_to(skinny)),
            (true, true) => Ours::Auto(AutoGemm::new(gpu, cfg)?.skinny_up_to(skinny).tuned(gpu, None)?),
            (false, _) => Ours::Fixed(Arc::new(Gemm::new(gpu, cfg)?)),
        })
    }
    /// What runs a product of `s`: the tile (`+sk` with stream-K), or the skinny kernel.
    fn label(&self, s: &GemmShape) -> String {
        match self {
            Ours::Fixed(g) => Pick::Tiled(*g.config()).to_string(),
            // Tuned: the pick kept by the first (checking) run of the shape.
            Ours::Auto(a) => match a.tuned_pick(s) {
                Some(p) => format!("{p} (tuned)"),
                None => a.pick(s).to_string(),
            },
            Ours::Skinny(g) => {
                let p = g.plan(s.m, s.n, s.k);
                format!(
                    "skinny m{} n{} u{} w{}{} ×{}",
                    p.cfg.max_m(),
                    p.cfg.n_blocks,
                    p.cfg.unroll,
                    p.cfg.warps,
                    if p.cfg.ahead { "a" } else { "" },
                    p.splits
                )
            }
        }
    }
    fn run(
        &self,
        gpu: &Gpu,
        a: &CudaSlice<Host<I>>,
        b: &CudaSlice<Host<I>>,
        c: &mut CudaSlice<bf16>,
        alpha: f32,
        s: &GemmShape,
    ) -> Result<(), RuntimeError> {
        match self {
            Ours::Fixed(g) => g.run_scaled(gpu, a, b, c, alpha, s),
            Ours::Auto(x) => x.run_scaled(gpu, a, b, c, alpha, s),
            Ours::Skinny(x) => x.run_scaled(gpu, a, b, c, alpha, s),
        }
    }
    /// What the table's heading says: the configuration, its resident grid and JIT time.
    fn describe(&self) -> String {
        let one =
            |g: &Gemm<Bf16, I>| format!("{:?}, {} clusters resident, JIT {:?}", g.config(), g.resident_clusters(), g.module().jit_time());
        match self {
            Ours::Fixed(g) => one(g),
            Ours::Auto(a) => format!("kernel by shape from {}", one(&a.base())),
            Ours::Skinny(g) => format!("{g:?}"),
        }
    }
}

/// `len` inputs from `seed` made on all the host's cores: chunk `j` of 2^22 elements is
/// `gen(seed · 4096 + j, its length)`, so the inputs are the same on any machine.
fn inputs<T: Send>(seed: u64, len: usize, gen: impl Fn(u64, usize) -> Vec<T> + Sync) -> Vec<T> {
    const CHUNK: usize = 1 << 22;
    let chunks: Vec<usize> = (0..len.div_ceil(CHUNK)).collect();
    let mut parts: Vec<Vec<T>> = Vec::new();
    std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .chunks(chunks.len().div_ceil(16).max(1))
            .map(|group| {
                let gen = &gen;
                s.spawn(move || group.iter().map(|&j| gen(seed * 4096 + j as u64, CHUNK.min(len - j * CHUNK))).collect::<Vec<_>>())
            })
            .collect();
        for h in handles {
            parts.extend(h.join().expect("input generation"));
        }
    });
    parts.into_iter().flatten().collect()
}

/// The table's heading: the configurations by number, then the columns.
fn heading(title: &str, baseline: &str, ours: &[(String, usize)], extra: &str) -> String {
    let mut h = format!("\n{title}\n");
    for (i, (d, _)) in ours.iter().enumerate() {
        writeln!(h, "- config {i}: {d}").unwrap();
    }
    write!(h, "\n| M×N×K | {baseline} TFLOP/s |").unwrap();
    for i in 0..ours.len() {
        write!(h, " {i}: tile | {i}: TFLOP/s | {i}: ratio |").unwrap();
    }
    writeln!(h, "{extra} largest rel. error |").unwrap();
    h.push_str(&"|---".repeat(3 + 3 * ours.len() + extra.matches('|').count()));
    h.push_str("|\n");
    h
}

/// Times every product of one shape that agreed with the baseline (`runs`: ours in
/// configuration order, then the baselines), and writes the table line.
#[allow(clippy::type_complexity)]
fn timed_line(
    gpu: &Gpu,
    (m, n, k): (u32, u32, u32),
    tiles: &[String],
    checks: &[Result<f64, String>],
    runs: &mut [&mut dyn FnMut() -> Result<(), RuntimeError>],
    curve: &mut Vec<(u32, f64, f64)>,
) -> Result<String, RuntimeError> {
    let ok: Vec<usize> = (0..checks.len()).filter(|&i| checks[i].is_ok()).collect();
    let baselines = runs.len() - checks.len();
    let mut timed: Vec<&mut dyn FnMut() -> Result<(), RuntimeError>> = vec![];
    for (i, r) in runs.iter_mut().enumerate() {
        if i >= checks.len() || checks[i].is_ok() {
            timed.push(&mut **r);
        }
    }
    let ms = env::time_rounds(gpu, &mut timed)?;
    let base = tflops(m, n, k, ms[ok.len()]);
    let mut line = format!("| {m}×{n}×{k} | {base:.1} |");
    let mut worst = 0f64;
    let mut t = 0;
    for (i, check) in checks.iter().enumerate() {
        match check {
            Ok(rel) => {
                let ours = tflops(m, n, k, ms[t]);
                t += 1;
                worst = worst.max(*rel);
                write!(line, " {} | {ours:.1} | {:.3} |", tiles[i], ours / base).unwrap();
                if i == 0 && m == n && n == k && SQUARES.contains(&m) {
                    curve.push((m, ours, base));
                }
            }
            Err(wrong) => write!(line, " {} | {wrong} | |", tiles[i]).unwrap(),
        }
    }
    for extra in &ms[ok.len() + 1..ok.len() + baselines] {
        write!(line, " {:.1} |", tflops(m, n, k, *extra)).unwrap();
    }
    write!(line, " {worst:.1e} |").unwrap();
    Ok(line)
}

/// The bf16 GEMM of every configuration beside cuBLAS on every shape; returns the square
/// sizes' (size, first configuration, cuBLAS) TFLOP/s.
fn bf16_table(gpu: &Gpu, configs: &[Setup], table: &mut String) -> Result<Vec<(u32, f64, f64)>, RuntimeError> {
    let blas = Cublas::new(gpu)?;
    let ours = all_ours::<Bf16>(gpu, configs)?;
    let layouts: Vec<Layout> = configs.iter().map(|c| c.0.layout).chain(skinny_configs().iter().map(|_| Layout::TN)).collect();
    let (drv_major, drv_minor) = gpu.driver_version();
    let described: Vec<(String, usize)> = ours.iter().map(|o| (o.describe(), 0)).collect();
    let head = heading(&format!("bf16 inputs and C, {} (driver {drv_major}.{drv_minor})", gpu.name()), "cuBLAS", &described, "");
    print!("{head}");
    table.push_str(&head);
    let mut curve = vec![];
    for (i, (m, n, k)) in shapes().into_iter().enumerate() {
        let a = gpu.upload(&inputs(2 * i as u64, m as usize * k as usize, normal_bf16))?;
        let b = gpu.upload(&inputs(2 * i as u64 + 1, n as usize * k as usize, normal_bf16))?;
        let shape = |layout| match layout {
            Layout::TN => GemmShape::new(m, n, k),
            Layout::NN => GemmShape::nn(m, n, k),
        };
        // The baseline in the first configuration's layout (B is N×K for TN, K×N for NN).
        let mut r = poisoned::<bf16>(gpu, m as usize * n as usize)?;
        blas.run(gpu, &a, &b, &mut r, &shape(layouts[0]))?;
        let mut cs = vec![];
        let mut checks = vec![];
        for (g, &layout) in ours.iter().zip(&layouts) {
            let mut c = poisoned::<bf16>(gpu, m as usize * n as usize)?;
            checks.push(match g.run(gpu, &a, &b, &mut c, 1.0, &shape(layout)) {
                Err(e) => Err(format!("refused: {e}")),
                Ok(()) if layout == layouts[0] => env::agree(gpu, &c, &r, 1e-2)?,
                Ok(()) => Err("other layout".into()),
            });
            cs.push(c);
        }
        let tiles: Vec<String> = ours.iter().zip(&layouts).map(|(g, &l)| g.label(&shape(l))).collect();
        let mut runs: Vec<Box<dyn FnMut() -> Result<(), RuntimeError> + '_>> = vec![];
        for ((g, c), &layout) in ours.iter().zip(cs.iter_mut()).zip(&layouts) {
            let (a, b) = (&a, &b);
            runs.push(Box::new(move || g.run(gpu, a, b, c, 1.0, &shape(layout))));
        }
        let (blas, a, b, r, first) = (&blas, &a, &b, &mut r, layouts[0]);
        runs.push(Box::new(move || blas.run(gpu, a, b, r, &shape(first))));
        let mut refs: Vec<&mut dyn FnMut() -> Result<(), RuntimeError>> = runs.iter_mut().map(|r| &mut **r as _).collect();
        let line = timed_line(gpu, (m, n, k), &tiles, &checks, &mut refs, &mut curve)?;
        if let Some(last) = refs.len().checked_sub(1) {
            let (first, rest) = refs.split_at_mut(last);
            env::sustain(gpu, (m, n, k), &["ptxkit bf16", "cuBLAS bf16"], &mut [&mut *first[0], &mut *rest[0]])?;
        }
        println!("{line}");
        writeln!(table, "{line}").unwrap();
    }
    Ok(curve)
}

/// The e4m3 GEMM (bf16 C) of every TN configuration beside cuBLASLt on every shape;
/// returns the square sizes' (size, first configuration, cuBLASLt with fast accumulation)
/// TFLOP/s.
fn fp8_table(gpu: &Gpu, configs: &[Setup], table: &mut String) -> Result<Vec<(u32, f64, f64)>, RuntimeError> {
    let ours = all_ours::<E4m3>(gpu, configs)?;
    let described: Vec<(String, usize)> = ours.iter().map(|o| (o.describe(), 0)).collect();
    let head = heading(
        "FP8 e4m3 inputs, bf16 C, against cuBLASLt with fast accumulation",
        "cuBLASLt",
        &described,
        " cuBLASLt (default accumulation) TFLOP/s |",
    );
    print!("{head}");
    table.push_str(&head);
    let mut curve = vec![];
    // Inputs of σ = 2 stored unscaled, read back with scales ½ · ½.
    let alpha = 0.25f32;
    for (i, (m, n, k)) in shapes().into_iter().enumerate() {
        let a = gpu.upload(&inputs(2 * i as u64, m as usize * k as usize, |s, l| normal_e4m3(s, l, 2.0)))?;
        let b = gpu.upload(&inputs(2 * i as u64 + 1, n as usize * k as usize, |s, l| normal_e4m3(s, l, 2.0)))?;
        let shape = GemmShape::new(m, n, k);
        let (fast, exact) = (LtFp8::<Bf16>::new(gpu, &shape, true)?, LtFp8::<Bf16>::new(gpu, &shape, false)?);
        let mut r = poisoned::<bf16>(gpu, m as usize * n as usize)?;
        let mut r2 = poisoned::<bf16>(gpu, m as usize * n as usize)?;
        // Against cuBLASLt with the same (fast) accumulation. Fast accumulation keeps partial
        // sums in the tensor cores' narrower accumulator, so two summation orders (stream-K
        // adds pieces of K in f32) differ by up to K/32 · 2⁻¹⁴ of an element, as
        // tests/device/gemm_fp8.rs models.
        fast.run_scaled(gpu, &a, &b, &mut r, alpha, &shape)?;
        let tol = 1e-2 + k.div_ceil(32) as f64 * 2f64.powi(-14);
        let mut cs = vec![];
        let mut checks = vec![];
        for g in &ours {
            let mut c = poisoned::<bf16>(gpu, m as usize * n as usize)?;
            checks.push(match g.run(gpu, &a, &b, &mut c, alpha, &shape) {
                Err(e) => Err(format!("refused: {e}")),
                Ok(()) => env::agree(gpu, &c, &r, tol)?,
            });
            cs.push(c);
        }
        let tiles: Vec<String> = ours.iter().map(|g| g.label(&shape)).collect();
        let mut runs: Vec<Box<dyn FnMut() -> Result<(), RuntimeError> + '_>> = vec![];
        for (g, c) in ours.iter().zip(cs.iter_mut()) {
            let (a, b, shape) = (&a, &b, &shape);
            runs.push(Box::new(move || g.run(gpu, a, b, c, alpha, shape)));
        }
        {
            let (a, b, shape, r) = (&a, &b, &shape, &mut r);
            let fast = &fast;
            runs.push(Box::new(move || fast.run_scaled(gpu, a, b, r, alpha, shape)));
        }
        {
            let (a, b, shape, r2) = (&a, &b, &shape, &mut r2);
            let exact = &exact;
            runs.push(Box::new(move || exact.run_scaled(gpu, a, b, r2, alpha, shape)));
        }
        let mut refs: Vec<&mut dyn FnMut() -> Result<(), RuntimeError>> = runs.iter_mut().map(|r| &mut **r as _).collect();
        let line = timed_line(gpu, (m, n, k), &tiles, &checks, &mut refs, &mut curve)?;
        let nr = refs.len();
        let (first, rest) = refs.split_at_mut(nr - 2);
        env::sustain(gpu, (m, n, k), &["ptxkit fp8", "cuBLASLt fp8"], &mut [&mut *first[0], &mut *rest[0]])?;
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
    let mut table = String::new();
    let configs = configs();
    let which = std::env::var("PTXKIT_GEMM_TABLES").unwrap_or_else(|_| "bf16,fp8".into());
    // Square sizes of the first configuration: (size, ptxkit, cuBLAS) TFLOP/s.
    let curve = if which.split(',').any(|t| t == "bf16") { bf16_table(&gpu, &configs, &mut table)? } else { vec![] };
    let tn: Vec<Setup> = configs.iter().copied().filter(|c| c.0.layout == Layout::TN).collect();
    let fp8 = if which.split(',').any(|t| t == "fp8") && !tn.is_empty() { fp8_table(&gpu, &tn, &mut table)? } else { vec![] };
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
