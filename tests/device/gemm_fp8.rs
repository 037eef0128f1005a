//! The FP8 (e4m3) Hopper GEMM against cuBLASLt's FP8 GEMM on the same buffers (random normal
//! e4m3 codes, per-tensor scales, outputs poisoned first) at odd shapes and edges, in bf16
//! and f32, and against cuBLAS's bf16 product of the same values (e4m3 values are exact in
//! bf16) where cuBLASLt has no FP8 kernel (N not a multiple of 16); and both GEMMs against a
//! CPU product of the decoded inputs, which also pins how cuBLASLt is called.
//!
//! The tensor cores add FP8 products into an accumulator that keeps 13 to 14 bits of the
//! partial sum at each wgmma (K = 32), where cuBLAS's bf16 path keeps f32's 24. Every
//! element is judged by `gemm_model`'s error model: against cuBLAS's precise product, our
//! fast accumulation's share plus cuBLAS's f32 one; against cuBLASLt's, both sides' fast
//! accumulation; each with both sides' rounding of C, against the element's `α·Σ|a·b|`.

use crate::{rng, sized, skip, Test};
use half::bf16;
use ptxkit::kernels::gemm::{hopper, E4m3, GemmShape};
use ptxkit::runtime::testing::{normal_e4m3, poisoned};
use ptxkit::runtime::{AutoGemm, Cublas, CudaSlice, Gemm, GemmRunner, Gpu, LtFp8};
use ptxkit::types::minifloat::e4m3_to_f32;
use ptxkit::types::{Bf16, F32};
use rand::rngs::StdRng;
use rand::Rng;

fn skip_unless_sm90(gpu: &Gpu) {
    if gpu.compute_capability() != (9, 0) {
        skip(format!("the wgmma GEMM needs sm_90, the GPU is {:?}", gpu.compute_capability()));
    }
}

/// Normal inputs of a few standard deviations (so that the e4m3 codes spread over many
/// exponents), and the per-tensor scales that map them back.
fn inputs(gpu: &Gpu, g: &mut StdRng, (m, n, k): (u32, u32, u32)) -> (CudaSlice<u8>, CudaSlice<u8>, Vec<u8>, Vec<u8>, f32) {
    let (sa, sb) = (g.gen_range(1.0f32..8.0), g.gen_range(1.0f32..8.0));
    let ha = normal_e4m3(g.gen(), m as usize * k as usize, sa);
    let hb = normal_e4m3(g.gen(), n as usize * k as usize, sb);
    let alpha = 1.0 / (sa * sb);
    (gpu.upload(&ha).unwrap(), gpu.upload(&hb).unwrap(), ha, hb, alpha)
}

use crate::gemm_model::{acc_fast_fp8, judge_model, magnitudes, Shares, BF16_C, F32_C};

fn bf16s(v: Vec<bf16>) -> Vec<f32> {
    v.iter().map(|x| x.to_f32()).collect()
}

/// The product of the decoded e4m3 inputs (A `m × k`, B `n × k`) in f64 on the CPU, times
/// α, and, for each element, the sum of its terms' magnitudes
/// `α · Σ|a·b|`, which bounds every partial sum of the element.
fn cpu_product_and_magnitudes(ha: &[u8], hb: &[u8], alpha: f32, (m, n, k): (u32, u32, u32)) -> (Vec<f32>, Vec<f64>) {
    let decode = |v: &[u8]| v.iter().map(|&c| e4m3_to_f32(c) as f64).collect::<Vec<f64>>();
    crate::gemm_model::cpu_with_magnitudes(&decode(ha), &decode(hb), &GemmShape::new(m, n, k), alpha as f64)
}

/// Judges an f32 C against the f64 product `want`: FP8 fast accumulation on the tensor
/// cores ([`acc_fast_fp8`]) plus f32's rounding of C, against the element's `mag`
/// (`α · Σ|a·b|`) — `gemm_model`'s bound, which holds for any inputs and is far below what
/// a wrong index, transposition or scale gives at the shapes judged this way.
fn judge_accumulation(what: &str, got: &[f32], want: &[f32], mag: &[f64], (n, k): (u32, u32), failures: &mut Vec<String>) {
    judge_model(what, got, want, mag, (n, 0.0), Shares::fast_fp8(k, F32_C), failures);
}

/// The stream-K shape of the odd-shape tests (FP8): 3 tiles of 27 k-tiles over 5 CTAs, the
/// middle tile shared by three. Its reference is the CPU's alone: cuBLAS's kernels for it
/// are flagged by racecheck when the suite runs under compute-sanitizer.
const SPLIT_SHAPE: (u32, u32, u32) = (300, 256, 3456);

/// The references of one shape: cuBLAS's bf16 product of the decoded values (times α) with
/// its error shares, each element's `α·Σ|a·b|`, and cuBLASLt's FP8 product with fast
/// accumulation where it has a kernel for the shape; for [`SPLIT_SHAPE`], the CPU's product
/// alone.
struct References {
    precise: Vec<f32>,
    precise_shares: Shares,
    mag: Vec<f64>,
    lt: Option<Vec<f32>>,
}

fn references(
    gpu: &Gpu,
    blas: &Cublas,
    x: &(CudaSlice<u8>, CudaSlice<u8>, Vec<u8>, Vec<u8>, f32),
    (m, n, k): (u32, u32, u32),
) -> References {
    let (a, b, ha, hb, alpha) = x;
    if (m, n, k) == SPLIT_SHAPE {
        let (precise, mag) = cpu_product_and_magnitudes(ha, hb, *alpha, (m, n, k));
        return References { precise, precise_shares: Shares::EXACT, mag, lt: None };
    }
    let widen = |v: &[u8]| v.iter().map(|&c| bf16::from_f32(e4m3_to_f32(c))).collect::<Vec<bf16>>();
    let (wa_host, wb_host) = (widen(ha), widen(hb));
    let (wa, wb) = (gpu.upload(&wa_host).unwrap(), gpu.upload(&wb_host).unwrap());
    let len = m as usize * n as usize;
    let mut r = poisoned::<bf16>(gpu, len).unwrap();
    let shape = GemmShape::new(m, n, k);
    blas.run(gpu, &wa, &wb, &mut r, &shape).unwrap();
    let precise = gpu.download(&r).unwrap().iter().map(|v| v.to_f32() * alpha).collect();
    let mag = magnitudes(gpu, blas, (&wa_host, &wb_host), &shape, *alpha as f64);
    let lt = (n % 16 == 0).then(|| {
        let mut r = poisoned::<bf16>(gpu, len).unwrap();
        let shape = GemmShape::new(m, n, k);
        LtFp8::<Bf16>::new(gpu, &shape, true).unwrap().run_scaled(gpu, a, b, &mut r, *alpha, &shape).unwrap();
        bf16s(gpu.download(&r).unwrap())
    });
    References { precise, precise_shares: Shares::f32_sums(k, BF16_C), mag, lt }
}

fn fp8_gemm_matches_cublaslt_at_odd_shapes(gpu: Gpu) {
    skip_unless_sm90(&gpu);
    let mut g = rng("fp8_gemm_matches_cublaslt_at_odd_shapes");
    let blas = Cublas::new(&gpu).unwrap();
    let cfg = hopper::Config::default();
    let ours_bf16 = Gemm::<Bf16, E4m3>::new(&gpu, cfg).unwrap();
    let ours_f32 = Gemm::<F32, E4m3>::new(&gpu, cfg).unwrap();
    let other = hopper::Config { bn: 128, consumers: 1, stages: 6, cluster: 2, overlap: false, group_m: 1, defer_store: false, ..cfg };
    let narrow = Gemm::<Bf16, E4m3>::new(&gpu, other).unwrap();
    let split_cfg = hopper::Config { stream_k: !cfg.stream_k, ..cfg };
    let split = Gemm::<Bf16, E4m3>::new(&gpu, split_cfg).unwrap();
    // The tile chosen per shape: 64 × 64 at the small shapes, the default's at 4000³.
    let auto = AutoGemm::<Bf16, E4m3>::new(&gpu, cfg).unwrap();
    let mut failures = vec![];
    let shapes = [
        (1, 1, 16),
        (130, 260, 80),
        (67, 517, 144),
        (128, 256, 128),
        (257, 129, 16),
        SPLIT_SHAPE,
        (1, 4096, 4096),
        (4000, 4000, 4000),
        (4096, 7168, 16384),
    ];
    // Under the sanitizer: the odd shapes and edges, without the three large ones.
    for &(m, n, k) in &shapes[..sized(shapes.len(), 6)] {
        let x = inputs(&gpu, &mut g, (m, n, k));
        let r = references(&gpu, &blas, &x, (m, n, k));
        let precise_name = if (m, n, k) == SPLIT_SHAPE { "the CPU (f64)" } else { "cuBLAS (bf16 of the same values)" };
        let (a, b, _, _, alpha) = &x;
        let len = m as usize * n as usize;
        // Every product is judged against the precise reference, and against cuBLASLt's
        // where there is one; `round` is C's rounding.
        let mut check = |what: String, round: f64, got: Result<Vec<f32>, String>| match got {
            Ok(c) => {
                let ours = Shares::fast_fp8(k, round);
                let s = ours.and(r.precise_shares);
                judge_model(&format!("{what} against {precise_name}"), &c, &r.precise, &r.mag, (n, r.precise_shares.acc), s, &mut failures);
                if let Some(lt) = &r.lt {
                    let theirs = Shares::fast_fp8(k, BF16_C);
                    judge_model(&format!("{what} against cuBLASLt FP8"), &c, lt, &r.mag, (n, theirs.acc), ours.and(theirs), &mut failures);
                }
            }
            Err(e) => failures.push(format!("{what}: {e}")),
        };
        let shape = GemmShape::new(m, n, k);
        let how = if ours_bf16.stages_c(&shape) { "staged" } else { "direct" };
        let mut c = poisoned::<bf16>(&gpu, len).unwrap();
        let got = ours_bf16.run_scaled(&gpu, a, b, &mut c, *alpha, &shape).map(|_| bf16s(gpu.download(&c).unwrap()));
        check(format!("{m}x{n}x{k} e4m3 -> bf16 ({how})"), BF16_C, got.map_err(|e| e.to_string()));
        if (m as u64) * (n as u64) * (k as u64) <= 1 << 36 {
            let mut c = poisoned::<f32>(&gpu, len).unwrap();
            let got = ours_f32.run_scaled(&gpu, a, b, &mut c, *alpha, &shape).map(|_| gpu.download(&c).unwrap());
            check(format!("{m}x{n}x{k} e4m3 -> f32"), F32_C, got.map_err(|e| e.to_string()));
            let mut c = poisoned::<bf16>(&gpu, len).unwrap();
            let got = narrow.run_scaled(&gpu, a, b, &mut c, *alpha, &shape).map(|_| bf16s(gpu.download(&c).unwrap()));
            check(format!("{m}x{n}x{k} e4m3 -> bf16, 64x128 tiles, cluster 2"), BF16_C, got.map_err(|e| e.to_string()));
            let mut c = poisoned::<bf16>(&gpu, len).unwrap();
            let got = split.run_scaled(&gpu, a, b, &mut c, *alpha, &shape).map(|_| bf16s(gpu.download(&c).unwrap()));
            check(format!("{m}x{n}x{k} e4m3 -> bf16, stream_k {}", split_cfg.stream_k), BF16_C, got.map_err(|e| e.to_string()));
            let mut c = poisoned::<bf16>(&gpu, len).unwrap();
            let got = auto.run_scaled(&gpu, a, b, &mut c, *alpha, &shape).map(|_| bf16s(gpu.download(&c).unwrap()));
            let pick = auto.pick(&shape);
            check(format!("{m}x{n}x{k} e4m3 -> bf16, auto ({pick})"), BF16_C, got.map_err(|e| e.to_string()));
        }
    }
    assert!(failures.is_empty(), "FP8 GEMM wrong:\n{}", failures.join("\n"));
}

/// The FP8 GEMM (f32 C) and cuBLASLt (f32 C) against a CPU product in f64 of the decoded
/// e4m3 inputs, scaled: this pins the cuBLASLt call the other test trusts.
fn fp8_gemm_and_cublaslt_match_a_cpu_product(gpu: Gpu) {
    skip_unless_sm90(&gpu);
    let mut g = rng("fp8_gemm_and_cublaslt_match_a_cpu_product");
    // N a multiple of 16, which cuBLASLt's FP8 kernels need.
    let (m, n, k) = (190u32, 336u32, 272u32);
    let (a, b, ha, hb, alpha) = inputs(&gpu, &mut g, (m, n, k));
    let (cpu, mag) = cpu_product_and_magnitudes(&ha, &hb, alpha, (m, n, k));
    let mut failures = vec![];
    // cuBLASLt without fast accumulation promotes its partial sums to f32 every few wgmmas,
    // so it stays within the bound of the GEMM, which promotes them only at the end.
    let mut theirs = poisoned::<f32>(&gpu, (m * n) as usize).unwrap();
    let shape = GemmShape::new(m, n, k);
    LtFp8::<F32>::new(&gpu, &shape, false).unwrap().run_scaled(&gpu, &a, &b, &mut theirs, alpha, &shape).unwrap();
    judge_accumulation("cuBLASLt (f32 C) against the CPU", &gpu.download(&theirs).unwrap(), &cpu, &mag, (n, k), &mut failures);
    let gemm = Gemm::<F32, E4m3>::new(&gpu, hopper::Config::default()).unwrap();
    let mut c = poisoned::<f32>(&gpu, (m * n) as usize).unwrap();
    gemm.run_scaled(&gpu, &a, &b, &mut c, alpha, &shape).unwrap();
    judge_accumulation("GEMM (e4m3, f32 C) against the CPU", &gpu.download(&c).unwrap(), &cpu, &mag, (n, k), &mut failures);
    // K whose rows are not 16 bytes of e4m3: the GEMM pads copies of A and B with zeros.
    for (m, n, k) in [(77u32, 336u32, 200u32), (1, 17, 1), (130, 40, 88)] {
        let (a, b, ha, hb, alpha) = inputs(&gpu, &mut g, (m, n, k));
        let (cpu, mag) = cpu_product_and_magnitudes(&ha, &hb, alpha, (m, n, k));
        let mut c = poisoned::<f32>(&gpu, (m * n) as usize).unwrap();
        gemm.run_scaled(&gpu, &a, &b, &mut c, alpha, &GemmShape::new(m, n, k)).unwrap();
        let what = format!("GEMM (e4m3, f32 C) at {m}x{n}x{k} (K padded) against the CPU");
        judge_accumulation(&what, &gpu.download(&c).unwrap(), &cpu, &mag, (n, k), &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// FP8 shapes and scales the kernel cannot take are errors, before anything runs (K of any
/// length is taken: see the CPU test).
fn fp8_gemm_refuses_what_it_cannot_compute(gpu: Gpu) {
    skip_unless_sm90(&gpu);
    let gemm = Gemm::<Bf16, E4m3>::new(&gpu, hopper::Config::default()).unwrap();
    let a = gpu.zeros::<u8>(64 * 100).unwrap();
    let b = gpu.zeros::<u8>(64 * 100).unwrap();
    let mut c = gpu.zeros::<bf16>(64 * 64).unwrap();
    let e = gemm.run_scaled(&gpu, &a, &b, &mut c, f32::NAN, &GemmShape::new(64, 64, 96)).unwrap_err().to_string();
    assert!(e.contains("not finite"), "{e}");
    let e = gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(64, 64, 112)).unwrap_err().to_string();
    assert!(e.contains("A holds 6400 elements"), "{e}");
}

/// FP8 with row strides and batches (`lda > K`, `ldc > N`, strides that are not 16-byte
/// multiples, B shared by a batch) against the f64 product of the decoded inputs, C's
/// buffer poisoned first and checked untouched outside the products
/// ([`judge_buffer`](crate::gemm_strided::judge_buffer)); the accumulation's share of the
/// bound is the FP8 model's ([`acc_fast_fp8`]).
fn fp8_gemm_strided_and_batched_match_an_f64_product(gpu: Gpu) {
    use crate::gemm_strided::{judge_buffer, reference};
    skip_unless_sm90(&gpu);
    let mut g = rng("fp8_gemm_strided_and_batched_match_an_f64_product");
    let cfg = hopper::Config::default();
    let (ours_bf16, ours_f32) = (Gemm::<Bf16, E4m3>::new(&gpu, cfg).unwrap(), Gemm::<F32, E4m3>::new(&gpu, cfg).unwrap());
    let shapes = [
        // Rows 16-byte multiples: TMA in place; C staged.
        GemmShape::new(67, 130, 80).lda(96).ldb(112).ldc(136),
        // lda, ldb not 16-byte multiples (copies), K not a multiple of 16, odd ldc.
        GemmShape::new(130, 70, 40).lda(41).ldb(47).ldc(71),
        // Batches: B shared; then odd strides everywhere.
        GemmShape::new(70, 90, 64).lda(80).ldc(96).batch(3, 70 * 80 + 16, 0, 70 * 96 + 8),
        GemmShape::new(45, 33, 48).batch(4, 45 * 48 + 3, 33 * 48 + 1, 45 * 33 + 1),
    ];
    let mut failures = vec![];
    for s in &shapes {
        let [la, lb, lc] = s.lens().map(|l| l as usize);
        let sigma = g.gen_range(1.0f32..8.0);
        let (ha, hb) = (normal_e4m3(g.gen(), la, sigma), normal_e4m3(g.gen(), lb, sigma));
        let alpha = 1.0 / (sigma * sigma);
        let decode = |v: &[u8]| v.iter().map(|&c| e4m3_to_f32(c) as f64).collect::<Vec<f64>>();
        let c_len = lc + 64;
        let want = reference(&decode(&ha), &decode(&hb), s, c_len);
        let (a, b) = (gpu.upload(&ha).unwrap(), gpu.upload(&hb).unwrap());
        let acc = acc_fast_fp8(s.k);
        let mut c = poisoned::<bf16>(&gpu, c_len).unwrap();
        match ours_bf16.run_scaled(&gpu, &a, &b, &mut c, alpha, s).and_then(|_| gpu.download(&c)) {
            Ok(got) => judge_buffer(&format!("e4m3 -> bf16, {s}"), &got, &want, alpha as f64, acc, &mut failures),
            Err(e) => failures.push(format!("e4m3 -> bf16, {s}: {e}")),
        }
        let mut c = poisoned::<f32>(&gpu, c_len).unwrap();
        match ours_f32.run_scaled(&gpu, &a, &b, &mut c, alpha, s).and_then(|_| gpu.download(&c)) {
            Ok(got) => judge_buffer(&format!("e4m3 -> f32, {s}"), &got, &want, alpha as f64, acc, &mut failures),
            Err(e) => failures.push(format!("e4m3 -> f32, {s}: {e}")),
        }
    }
    assert!(failures.is_empty(), "strided FP8 GEMM wrong:\n{}", failures.join("\n"));
}

pub const TESTS: &[Test] = &[
    gpu!(fp8_gemm_matches_cublaslt_at_odd_shapes),
    gpu!(fp8_gemm_and_cublaslt_match_a_cpu_product),
    gpu!(fp8_gemm_refuses_what_it_cannot_compute),
    gpu!(fp8_gemm_strided_and_batched_match_an_f64_product),
];
