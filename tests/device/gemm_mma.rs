//! The `mma.sync` GEMM against cuBLAS on the same buffers (random normal bf16, outputs
//! poisoned first), at odd shapes and edges, in bf16 and f32, in several configurations
//! (persistent grids and a CTA per tile); and against a CPU product on a small shape. Every
//! element is judged by `gemm_model`'s error model (both sides' f32 accumulation over K and
//! C's rounding, against the element's `Σ|a·b|`).

use crate::{rng, sized, skip, Test};
use half::bf16;
use ptxkit::kernels::gemm::ampere;
use ptxkit::runtime::testing::{normal_bf16, poisoned};
use ptxkit::runtime::{Cublas, CudaSlice, GemmRunner, GemmShape, Gpu, MmaGemm, RuntimeError};
use ptxkit::types::{Bf16, F32};
use rand::rngs::StdRng;
use rand::Rng;

type Shape = (u32, u32, u32);

/// Inputs, cuBLAS's product of them and each element's `Σ|a·b|`.
struct Inputs {
    a: CudaSlice<bf16>,
    b: CudaSlice<bf16>,
    reference: Vec<f32>,
    mag: Vec<f64>,
}

fn inputs(gpu: &Gpu, blas: &Cublas, g: &mut StdRng, (m, n, k): Shape) -> Inputs {
    let (ha, hb) = (normal_bf16(g.gen(), m as usize * k as usize), normal_bf16(g.gen(), n as usize * k as usize));
    let (a, b) = (gpu.upload(&ha).unwrap(), gpu.upload(&hb).unwrap());
    let shape = GemmShape::new(m, n, k);
    let mut r = poisoned::<bf16>(gpu, m as usize * n as usize).unwrap();
    blas.run(gpu, &a, &b, &mut r, &shape).unwrap();
    let reference = gpu.download(&r).unwrap().iter().map(|v| v.to_f32()).collect();
    Inputs { a, b, reference, mag: magnitudes(gpu, blas, (&ha, &hb), &shape, 1.0) }
}

/// Judges a product with C rounded by `round` against cuBLAS's (bf16 C, f32 sums).
fn judge(what: &str, got: &[f32], x: &Inputs, (n, k): (u32, u32), round: f64, failures: &mut Vec<String>) {
    let theirs = Shares::f32_sums(k, BF16_C);
    judge_model(what, got, &x.reference, &x.mag, (n, theirs.acc), Shares::f32_sums(k, round).and(theirs), failures);
}

/// One loaded kernel, bf16 or f32 C: its product of the inputs, into a poisoned C.
enum Kernel {
    Bf16(MmaGemm<Bf16>),
    F32(MmaGemm<F32>),
}

impl Kernel {
    /// C's rounding.
    fn round(&self) -> f64 {
        match self {
            Kernel::Bf16(_) => BF16_C,
            Kernel::F32(_) => F32_C,
        }
    }

    fn product(&self, gpu: &Gpu, x: &Inputs, (m, n, k): Shape) -> Result<Vec<f32>, RuntimeError> {
        let len = m as usize * n as usize;
        match self {
            Kernel::Bf16(g) => {
                let mut c = poisoned::<bf16>(gpu, len)?;
                g.run(gpu, &x.a, &x.b, &mut c, &GemmShape::new(m, n, k))?;
                Ok(gpu.download(&c)?.iter().map(|v| v.to_f32()).collect())
            }
            Kernel::F32(g) => {
                let mut c = poisoned::<f32>(gpu, len)?;
                g.run(gpu, &x.a, &x.b, &mut c, &GemmShape::new(m, n, k))?;
                gpu.download(&c)
            }
        }
    }
}

use crate::gemm_model::{cpu_with_magnitudes, judge_model, magnitudes, Shares, BF16_C, F32_C};

fn mma_gemm_matches_cublas_at_odd_shapes(gpu: Gpu) {
    if gpu.compute_capability().0 < 8 {
        skip(format!("mma.sync bf16 needs sm_80, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("mma_gemm_matches_cublas_at_odd_shapes");
    let blas = Cublas::new(&gpu).unwrap();
    let d = ampere::Config::default();
    let main = Kernel::Bf16(MmaGemm::new(&gpu, d).unwrap());
    // Other configurations, on the shapes of at most 2^36 multiply-adds.
    let others: Vec<(String, Kernel)> = vec![
        ("f32 C".into(), Kernel::F32(MmaGemm::new(&gpu, d).unwrap())),
        ("a CTA per tile".into(), Kernel::Bf16(MmaGemm::new(&gpu, ampere::Config { persistent: false, ..d }).unwrap())),
        ("C from registers".into(), Kernel::Bf16(MmaGemm::new(&gpu, ampere::Config { staged_store: false, ..d }).unwrap())),
        ("C from registers, f32".into(), Kernel::F32(MmaGemm::new(&gpu, ampere::Config { staged_store: false, ..d }).unwrap())),
        ("bk 64, 3 stages".into(), Kernel::Bf16(MmaGemm::new(&gpu, ampere::Config { bk: 64, stages: 3, ..d }).unwrap())),
        (
            "128x128, 2 CTAs per SM".into(),
            Kernel::Bf16(MmaGemm::new(&gpu, ampere::Config { bn: 128, warps_n: 2, ctas_per_sm: 2, ..d }).unwrap()),
        ),
        ("256x128".into(), Kernel::Bf16(MmaGemm::new(&gpu, ampere::Config { bm: 256, bn: 128, warps_m: 4, warps_n: 2, ..d }).unwrap())),
        (
            "64x64, 2 stages, f32 C".into(),
            Kernel::F32(MmaGemm::new(&gpu, ampere::Config { bm: 64, bn: 64, warps_m: 2, warps_n: 2, stages: 2, group_m: 1, ..d }).unwrap()),
        ),
    ];
    // Shapes with fewer k-tiles than stages and more tiles than resident CTAs: the copies
    // run into the next tile's k-tiles already in the prologue.
    let shapes: [Shape; 14] = [
        (1, 1, 8),
        (77, 130, 40),
        (130, 260, 72),
        (67, 517, 136),
        (128, 256, 64),
        (257, 129, 8),
        (300, 555, 1000),
        (2000, 3000, 8),
        (4000, 4000, 40),
        (1, 4096, 4096),
        (4096, 1, 4096),
        (4000, 4000, 4000),
        (2048, 2048, 2048),
        (4096, 7168, 16384),
    ];
    let mut failures = vec![];
    // Under the sanitizer: the small and edge shapes only.
    for &s in &shapes[..sized(shapes.len(), 8)] {
        let x = inputs(&gpu, &blas, &mut g, s);
        let (m, n, k) = s;
        match main.product(&gpu, &x, s) {
            Ok(c) => judge(&format!("{m}x{n}x{k} bf16"), &c, &x, (n, k), BF16_C, &mut failures),
            Err(e) => failures.push(format!("{m}x{n}x{k} bf16: {e}")),
        }
        if (m as u64) * (n as u64) * (k as u64) <= 1 << 36 {
            for (what, kern) in &others {
                match kern.product(&gpu, &x, s) {
                    Ok(c) => judge(&format!("{m}x{n}x{k} {what}"), &c, &x, (n, k), kern.round(), &mut failures),
                    Err(e) => failures.push(format!("{m}x{n}x{k} {what}: {e}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "mma GEMM wrong:\n{}", failures.join("\n"));
}

/// The GEMM with f32 and bf16 C against a CPU product in f64 of the same bf16 inputs.
fn mma_gemm_matches_a_cpu_product(gpu: Gpu) {
    if gpu.compute_capability().0 < 8 {
        skip(format!("mma.sync bf16 needs sm_80, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("mma_gemm_matches_a_cpu_product");
    let (m, n, k) = (190u32, 330u32, 264u32);
    let ha = normal_bf16(g.gen(), (m * k) as usize);
    let hb = normal_bf16(g.gen(), (n * k) as usize);
    let f64s = |v: &[bf16]| v.iter().map(|x| x.to_f64()).collect::<Vec<f64>>();
    let (cpu, mag) = cpu_with_magnitudes(&f64s(&ha), &f64s(&hb), &GemmShape::new(m, n, k), 1.0);
    let (a, b) = (gpu.upload(&ha).unwrap(), gpu.upload(&hb).unwrap());
    let mut failures = vec![];
    let f32_c = MmaGemm::<F32>::new(&gpu, ampere::Config::default()).unwrap();
    let mut c = poisoned::<f32>(&gpu, (m * n) as usize).unwrap();
    f32_c.run(&gpu, &a, &b, &mut c, &GemmShape::new(m, n, k)).unwrap();
    judge_model("f32 C against the CPU", &gpu.download(&c).unwrap(), &cpu, &mag, (n, 0.0), Shares::f32_sums(k, F32_C), &mut failures);
    let bf16_c = MmaGemm::<Bf16>::new(&gpu, ampere::Config::default()).unwrap();
    let mut c = poisoned::<bf16>(&gpu, (m * n) as usize).unwrap();
    bf16_c.run(&gpu, &a, &b, &mut c, &GemmShape::new(m, n, k)).unwrap();
    let got: Vec<f32> = gpu.download(&c).unwrap().iter().map(|v| v.to_f32()).collect();
    judge_model("bf16 C against the CPU", &got, &cpu, &mag, (n, 0.0), Shares::f32_sums(k, BF16_C), &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Shapes and buffers the kernel cannot take are errors, before anything runs.
fn mma_gemm_refuses_what_it_cannot_compute(gpu: Gpu) {
    if gpu.compute_capability().0 < 8 {
        let e = MmaGemm::<Bf16>::new(&gpu, ampere::Config::default()).unwrap_err();
        assert!(e.to_string().contains("sm_80"), "{e}");
        skip("the refusal of this GPU checked; the run-time refusals need sm_80 or newer");
    }
    let gemm = MmaGemm::<Bf16>::new(&gpu, ampere::Config::default()).unwrap();
    let a = gpu.zeros::<bf16>(64 * 100).unwrap();
    let b = gpu.zeros::<bf16>(64 * 100).unwrap();
    let mut c = gpu.zeros::<bf16>(64 * 64).unwrap();
    let e = gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(64, 64, 100)).unwrap_err().to_string();
    assert!(e.contains("multiple of 8"), "{e}");
    let e = gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(64, 65, 96)).unwrap_err().to_string();
    assert!(e.contains("C holds 4096 elements"), "{e}");
    let e = gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(0, 64, 96)).unwrap_err().to_string();
    assert!(e.contains("M = 0"), "{e}");
    let e = MmaGemm::<Bf16>::new(&gpu, ampere::Config { stages: 9, ..ampere::Config::default() }).unwrap_err().to_string();
    assert!(e.contains("stages = 9"), "{e}");
}

pub const TESTS: &[Test] =
    &[gpu!(mma_gemm_matches_cublas_at_odd_shapes), gpu!(mma_gemm_matches_a_cpu_product), gpu!(mma_gemm_refuses_what_it_cannot_compute)];
