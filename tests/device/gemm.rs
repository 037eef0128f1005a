//! The Hopper GEMM against cuBLAS on the same buffers (random normal bf16, outputs poisoned
//! first), at odd shapes and edges, in bf16 and f32; and against a CPU product on a small
//! shape, which also pins how cuBLAS is called. Every element is judged by the error model
//! of `gemm_model` (both sides' f32 accumulation over K and C's rounding, against the
//! element's `Σ|a·b|`).

use crate::gemm_model::{cpu_with_magnitudes, judge_model, magnitudes, Shares, BF16_C, F32_C};
use crate::{rng, sized, skip, Test};
use half::bf16;
use ptxkit::kernels::gemm::{hopper, GemmShape, Layout};
use ptxkit::runtime::testing::{normal_bf16, poisoned};
use ptxkit::runtime::{AutoGemm, Cublas, CudaSlice, Gemm, GemmRunner, Gpu};
use ptxkit::types::{Bf16, F32};
use rand::rngs::StdRng;
use rand::Rng;

/// Standard normal bf16 samples from the test's generator.
fn normal(g: &mut StdRng, len: usize) -> Vec<bf16> {
    normal_bf16(g.gen(), len)
}

trait AsF32: Copy {
    fn f32(self) -> f32;
}
impl AsF32 for bf16 {
    fn f32(self) -> f32 {
        self.to_f32()
    }
}
impl AsF32 for f32 {
    fn f32(self) -> f32 {
        self
    }
}

/// Inputs, the reference product, each element's `Σ|a·b|`, and the reference's error shares.
struct Inputs {
    a: CudaSlice<bf16>,
    b: CudaSlice<bf16>,
    reference: Vec<f32>,
    mag: Vec<f64>,
    shares: Shares,
    n: u32,
    k: u32,
}

impl Inputs {
    /// Judges a product with C rounded by `round` against the reference.
    fn judge(&self, what: &str, got: &[f32], round: f64, failures: &mut Vec<String>) {
        let s = Shares::f32_sums(self.k, round).and(self.shares);
        judge_model(what, got, &self.reference, &self.mag, (self.n, self.shares.acc), s, failures);
    }
}

/// Random A and B (B `n × k` for TN, `k × n` for NN) and cuBLAS's product of them.
fn inputs(gpu: &Gpu, blas: &Cublas, g: &mut StdRng, layout: Layout, (m, n, k): (u32, u32, u32)) -> Inputs {
    let (ha, hb) = (normal(g, m as usize * k as usize), normal(g, n as usize * k as usize));
    let (a, b) = (gpu.upload(&ha).unwrap(), gpu.upload(&hb).unwrap());
    let shape = GemmShape::new(m, n, k).with_layout(layout);
    let mut r = poisoned::<bf16>(gpu, m as usize * n as usize).unwrap();
    blas.run(gpu, &a, &b, &mut r, &shape).unwrap();
    let reference = gpu.download(&r).unwrap().iter().map(|v| v.to_f32()).collect();
    let mag = magnitudes(gpu, blas, (&ha, &hb), &shape, 1.0);
    Inputs { a, b, reference, mag, shares: Shares::f32_sums(k, BF16_C), n, k }
}

/// Random TN inputs and their product in f64 on the CPU.
fn inputs_cpu(gpu: &Gpu, g: &mut StdRng, (m, n, k): (u32, u32, u32)) -> Inputs {
    let (ha, hb) = (normal(g, m as usize * k as usize), normal(g, n as usize * k as usize));
    let (reference, mag) = cpu_with_magnitudes(&f64s(&ha), &f64s(&hb), &GemmShape::new(m, n, k), 1.0);
    Inputs { a: gpu.upload(&ha).unwrap(), b: gpu.upload(&hb).unwrap(), reference, mag, shares: Shares::EXACT, n, k }
}

fn f64s(v: &[bf16]) -> Vec<f64> {
    v.iter().map(|x| x.to_f64()).collect()
}

/// The stream-K shape of the odd-shape tests (bf16): 3 tiles of 27 k-tiles over 5 CTAs, the
/// middle tile shared by three. Its reference is the CPU's: cuBLAS runs a split-K kernel
/// there that racecheck and initcheck flag when the suite runs under compute-sanitizer.
const SPLIT_SHAPE: (u32, u32, u32) = (300, 256, 1728);

/// `gemm`'s dense product of `x` (B stored as `layout`) into a poisoned C, as f32.
fn ours<G: GemmRunner<In = bf16>>(gpu: &Gpu, gemm: &G, x: &Inputs, layout: Layout, (m, n, k): (u32, u32, u32)) -> Result<Vec<f32>, String>
where
    G::Out: AsF32,
{
    let mut c = poisoned::<G::Out>(gpu, m as usize * n as usize).map_err(|e| e.to_string())?;
    gemm.run(gpu, &x.a, &x.b, &mut c, &GemmShape::new(m, n, k).with_layout(layout)).map_err(|e| e.to_string())?;
    Ok(gpu.download(&c).map_err(|e| e.to_string())?.iter().map(|v| v.f32()).collect())
}

fn gemm_matches_cublas_at_odd_shapes(gpu: Gpu) {
    if gpu.compute_capability() != (9, 0) {
        skip(format!("the wgmma GEMM needs sm_90, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("gemm_matches_cublas_at_odd_shapes");
    let blas = Cublas::new(&gpu).unwrap();
    let cfg = hopper::Config::default();
    let gemm_bf16 = Gemm::<Bf16>::new(&gpu, cfg).unwrap();
    let gemm_f32 = Gemm::<F32>::new(&gpu, cfg).unwrap();
    let narrow = Gemm::<Bf16>::new(&gpu, hopper::Config { bn: 128, consumers: 1, stages: 6, group_m: 1, overlap: false, ..cfg }).unwrap();
    // A cluster of two has no stream-K.
    let other = hopper::Config { cluster: 3 - cfg.cluster, overlap: !cfg.overlap, defer_store: !cfg.defer_store, stream_k: false, ..cfg };
    let paired = Gemm::<Bf16>::new(&gpu, other).unwrap();
    // Stream-K flipped: with it, tiles of the last wave are shared by two or three CTAs.
    let split_cfg = hopper::Config { cluster: 1, stream_k: !cfg.stream_k, defer_store: !cfg.defer_store, ..cfg };
    let split = Gemm::<Bf16>::new(&gpu, split_cfg).unwrap();
    let split_f32 = Gemm::<F32>::new(&gpu, hopper::Config { cluster: 1, stream_k: !cfg.stream_k, ..cfg }).unwrap();
    let mut failures = vec![];
    let shapes = [
        (1, 1, 8),
        (130, 260, 72),
        (67, 517, 136),
        (128, 256, 64),
        (257, 129, 8),
        SPLIT_SHAPE,
        (1, 4096, 4096),
        (4000, 4000, 4000),
        (4096, 7168, 16384),
    ];
    // Under the sanitizer: the odd shapes and edges, without the three large ones.
    let shapes = &shapes[..sized(shapes.len(), 6)];
    // K that TMA cannot address (rows not 16-byte multiples): copies padded with zeros.
    let padded = [(1000, 1500, 700), (67, 517, 13), (1, 1, 1), (130, 260, 71)];
    let shapes: Vec<(u32, u32, u32)> = shapes.iter().copied().chain(padded).collect();
    let shapes = &shapes[..];
    for &s in shapes {
        let x = if s == SPLIT_SHAPE { inputs_cpu(&gpu, &mut g, s) } else { inputs(&gpu, &blas, &mut g, Layout::TN, s) };
        let (m, n, k) = s;
        let how = if gemm_bf16.stages_c(&GemmShape::new(m, n, k)) { "staged" } else { "direct" };
        match ours(&gpu, &gemm_bf16, &x, Layout::TN, s) {
            Ok(c) => x.judge(&format!("{m}x{n}x{k} bf16 ({how})"), &c, BF16_C, &mut failures),
            Err(e) => failures.push(format!("{m}x{n}x{k} bf16: {e}")),
        }
        if (m as u64) * (n as u64) * (k as u64) <= 1 << 36 {
            match ours(&gpu, &gemm_f32, &x, Layout::TN, s) {
                Ok(c) => x.judge(&format!("{m}x{n}x{k} f32"), &c, F32_C, &mut failures),
                Err(e) => failures.push(format!("{m}x{n}x{k} f32: {e}")),
            }
            match ours(&gpu, &narrow, &x, Layout::TN, s) {
                Ok(c) => x.judge(&format!("{m}x{n}x{k} bf16, 64x128 tiles, 6 stages"), &c, BF16_C, &mut failures),
                Err(e) => failures.push(format!("{m}x{n}x{k} 64x128: {e}")),
            }
            let what = format!("{m}x{n}x{k} bf16, cluster {}, overlap {}, defer_store {}", other.cluster, other.overlap, other.defer_store);
            match ours(&gpu, &paired, &x, Layout::TN, s) {
                Ok(c) => x.judge(&what, &c, BF16_C, &mut failures),
                Err(e) => failures.push(format!("{what}: {e}")),
            }
            let what = format!("{m}x{n}x{k} bf16, stream_k {}, defer_store {}", split_cfg.stream_k, split_cfg.defer_store);
            match ours(&gpu, &split, &x, Layout::TN, s) {
                Ok(c) => x.judge(&what, &c, BF16_C, &mut failures),
                Err(e) => failures.push(format!("{what}: {e}")),
            }
            let what = format!("{m}x{n}x{k} f32, stream_k {}", split_cfg.stream_k);
            match ours(&gpu, &split_f32, &x, Layout::TN, s) {
                Ok(c) => x.judge(&what, &c, F32_C, &mut failures),
                Err(e) => failures.push(format!("{what}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "GEMM wrong:\n{}", failures.join("\n"));
}

/// `AutoGemm` (the tile chosen per shape) against an f64 CPU product, bf16 and f32 C, at
/// shapes that take each of its tiles on a 132-SM GPU: 64 × 64, 64 × 128, 64 × 256 and the
/// base 128 × 256. (cuBLAS picks split-K kernels at some of these shapes, which
/// compute-sanitizer flags; the CPU product needs no exception.)
fn auto_gemm_matches_a_cpu_product_with_the_tile_of_each_shape(gpu: Gpu) {
    if gpu.compute_capability() != (9, 0) {
        skip(format!("the wgmma GEMM needs sm_90, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("auto_gemm_matches_a_cpu_product_with_the_tile_of_each_shape");
    let auto_bf16 = AutoGemm::<Bf16>::new(&gpu, hopper::Config::default()).unwrap();
    let auto_f32 = AutoGemm::<F32>::new(&gpu, hopper::Config::default()).unwrap();
    let mut failures = vec![];
    // (shape, what runs it with 132 SMs)
    let cases = [
        ((130, 260, 72), "64×64"),
        ((1, 4096, 4096), "skinny m16"),
        ((512, 512, 512), "64×64"),
        ((1024, 1024, 1024), "64×128"),
        ((1536, 1536, 512), "64×256"),
        ((2048, 2048, 256), "128×256"),
        ((256, 256, 16384), "128×128+sk8"),
    ];
    // Under the sanitizer: the three smaller shapes.
    for &(s, tile) in &cases[..sized(cases.len(), 3)] {
        let (m, n, k) = s;
        let pick = auto_bf16.pick(&GemmShape::new(m, n, k));
        println!("{m}x{n}x{k}: {pick}");
        if gpu.multiprocessors() == 132 && !pick.to_string().starts_with(tile) {
            failures.push(format!("{m}x{n}x{k}: {pick}, expected {tile}"));
        }
        let x = inputs_cpu(&gpu, &mut g, s);
        match ours(&gpu, &auto_bf16, &x, Layout::TN, s) {
            Ok(c) => x.judge(&format!("{m}x{n}x{k} bf16, auto"), &c, BF16_C, &mut failures),
            Err(e) => failures.push(format!("{m}x{n}x{k} bf16, auto: {e}")),
        }
        match ours(&gpu, &auto_f32, &x, Layout::TN, s) {
            Ok(c) => x.judge(&format!("{m}x{n}x{k} f32, auto"), &c, F32_C, &mut failures),
            Err(e) => failures.push(format!("{m}x{n}x{k} f32, auto: {e}")),
        }
    }
    assert!(failures.is_empty(), "AutoGemm wrong:\n{}", failures.join("\n"));
}

/// NN (B stored K×N): against cuBLAS's NN product at odd shapes (N a multiple of 8, and
/// N and K that are not, which run on padded copies), in bf16 and f32 and in other
/// configurations; and both against a CPU product, which pins the cuBLAS call.
fn gemm_nn_matches_cublas_and_a_cpu_product(gpu: Gpu) {
    if gpu.compute_capability() != (9, 0) {
        skip(format!("the wgmma GEMM needs sm_90, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("gemm_nn_matches_cublas_and_a_cpu_product");
    let blas = Cublas::new(&gpu).unwrap();
    let cfg = hopper::Config { layout: Layout::NN, ..hopper::Config::default() };
    let gemm_bf16 = Gemm::<Bf16>::new(&gpu, cfg).unwrap();
    let gemm_f32 = Gemm::<F32>::new(&gpu, cfg).unwrap();
    let narrow = Gemm::<Bf16>::new(&gpu, hopper::Config { bn: 128, consumers: 1, stages: 6, group_m: 1, overlap: false, ..cfg }).unwrap();
    let other = hopper::Config { cluster: 3 - cfg.cluster, overlap: !cfg.overlap, defer_store: !cfg.defer_store, ..cfg };
    let paired = Gemm::<Bf16>::new(&gpu, other).unwrap();
    let mut failures = vec![];
    let shapes = [(1, 8, 8), (130, 264, 72), (67, 520, 136), (257, 136, 8), (1, 4096, 4096), (4000, 4000, 4000), (4096, 7168, 16384)];
    // Under the sanitizer: the odd shapes and edges, without the three large ones. Then N
    // and K whose rows TMA cannot address (copies padded with zeros).
    let padded = [(130, 261, 72), (67, 13, 13), (1, 1, 1), (300, 1001, 700)];
    for &s in shapes[..sized(shapes.len(), 4)].iter().chain(&padded) {
        let x = inputs(&gpu, &blas, &mut g, Layout::NN, s);
        let (m, n, k) = s;
        let mut go = |what: String, round: f64, got: Result<Vec<f32>, String>| match got {
            Ok(c) => x.judge(&what, &c, round, &mut failures),
            Err(e) => failures.push(format!("{what}: {e}")),
        };
        go(format!("NN {m}x{n}x{k} bf16"), BF16_C, ours(&gpu, &gemm_bf16, &x, Layout::NN, s));
        if (m as u64) * (n as u64) * (k as u64) <= 1 << 36 {
            go(format!("NN {m}x{n}x{k} f32"), F32_C, ours(&gpu, &gemm_f32, &x, Layout::NN, s));
            go(format!("NN {m}x{n}x{k} bf16, 64x128 tiles, 6 stages"), BF16_C, ours(&gpu, &narrow, &x, Layout::NN, s));
            let what =
                format!("NN {m}x{n}x{k} bf16, cluster {}, overlap {}, defer_store {}", other.cluster, other.overlap, other.defer_store);
            go(what, BF16_C, ours(&gpu, &paired, &x, Layout::NN, s));
        }
    }
    let (m, n, k) = (190u32, 336u32, 264u32);
    let (ha, hb) = (normal(&mut g, (m * k) as usize), normal(&mut g, (k * n) as usize));
    let (cpu, mag) = cpu_with_magnitudes(&f64s(&ha), &f64s(&hb), &GemmShape::nn(m, n, k), 1.0);
    let (a, b) = (gpu.upload(&ha).unwrap(), gpu.upload(&hb).unwrap());
    let mut r = poisoned::<bf16>(&gpu, (m * n) as usize).unwrap();
    blas.run(&gpu, &a, &b, &mut r, &GemmShape::nn(m, n, k)).unwrap();
    let theirs: Vec<f32> = gpu.download(&r).unwrap().iter().map(|v| v.to_f32()).collect();
    judge_model("cuBLAS NN against the CPU", &theirs, &cpu, &mag, (n, 0.0), Shares::f32_sums(k, BF16_C), &mut failures);
    let mut c = poisoned::<f32>(&gpu, (m * n) as usize).unwrap();
    gemm_f32.run(&gpu, &a, &b, &mut c, &GemmShape::nn(m, n, k)).unwrap();
    judge_model(
        "GEMM NN (f32 C) against the CPU",
        &gpu.download(&c).unwrap(),
        &cpu,
        &mag,
        (n, 0.0),
        Shares::f32_sums(k, F32_C),
        &mut failures,
    );
    assert!(failures.is_empty(), "GEMM NN wrong:\n{}", failures.join("\n"));
}

/// cuBLAS and the GEMM against a CPU product in f64 of the same bf16 inputs: this pins the
/// cuBLAS call the other test trusts (its operand order and transposes).
fn gemm_and_cublas_match_a_cpu_product(gpu: Gpu) {
    if gpu.compute_capability() != (9, 0) {
        skip(format!("the wgmma GEMM needs sm_90, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("gemm_and_cublas_match_a_cpu_product");
    let (m, n, k) = (190u32, 330u32, 264u32);
    let (ha, hb) = (normal(&mut g, (m * k) as usize), normal(&mut g, (n * k) as usize));
    let (cpu, mag) = cpu_with_magnitudes(&f64s(&ha), &f64s(&hb), &GemmShape::new(m, n, k), 1.0);
    let (a, b) = (gpu.upload(&ha).unwrap(), gpu.upload(&hb).unwrap());
    let blas = Cublas::new(&gpu).unwrap();
    let mut r = poisoned::<bf16>(&gpu, (m * n) as usize).unwrap();
    blas.run(&gpu, &a, &b, &mut r, &GemmShape::new(m, n, k)).unwrap();
    let theirs: Vec<f32> = gpu.download(&r).unwrap().iter().map(|v| v.to_f32()).collect();
    let gemm = Gemm::<F32>::new(&gpu, hopper::Config::default()).unwrap();
    let mut c = poisoned::<f32>(&gpu, (m * n) as usize).unwrap();
    gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(m, n, k)).unwrap();
    let mine = gpu.download(&c).unwrap();
    let mut failures = vec![];
    judge_model("cuBLAS against the CPU", &theirs, &cpu, &mag, (n, 0.0), Shares::f32_sums(k, BF16_C), &mut failures);
    judge_model("GEMM (f32 C) against the CPU", &mine, &cpu, &mag, (n, 0.0), Shares::f32_sums(k, F32_C), &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Shapes and buffers the kernel cannot take are errors, before anything runs.
fn gemm_refuses_what_it_cannot_compute(gpu: Gpu) {
    if gpu.compute_capability() != (9, 0) {
        let e = Gemm::<Bf16>::new(&gpu, hopper::Config::default()).unwrap_err();
        assert!(e.to_string().contains("sm_90"), "{e}");
        skip("the refusal of this GPU checked; the run-time refusals need sm_90");
    }
    let gemm = Gemm::<Bf16>::new(&gpu, hopper::Config::default()).unwrap();
    let a = gpu.zeros::<bf16>(64 * 100).unwrap();
    let b = gpu.zeros::<bf16>(64 * 100).unwrap();
    let mut c = gpu.zeros::<bf16>(64 * 64).unwrap();
    // Any K and any NN N are taken (on copies padded to 16-byte rows): the buffers must
    // hold the shape, and dimensions stay below 2^31.
    gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(64, 64, 100)).unwrap();
    let e = gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(64, 64, 1 << 31)).unwrap_err().to_string();
    assert!(e.contains("outside 1..=2^31-1"), "{e}");
    let e = gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(64, 65, 96)).unwrap_err().to_string();
    assert!(e.contains("C holds 4096 elements"), "{e}");
    let e = Gemm::<Bf16>::new(&gpu, hopper::Config { stages: 7, ..hopper::Config::default() }).unwrap_err().to_string();
    assert!(e.contains("shared memory"), "{e}");
}

pub const TESTS: &[Test] = &[
    gpu!(gemm_matches_cublas_at_odd_shapes),
    gpu!(auto_gemm_matches_a_cpu_product_with_the_tile_of_each_shape),
    gpu!(gemm_nn_matches_cublas_and_a_cpu_product),
    gpu!(gemm_and_cublas_match_a_cpu_product),
    gpu!(gemm_refuses_what_it_cannot_compute),
];
