//! The tcgen05 GEMM (sm_100a and its kin) against cuBLAS on the same buffers and against an
//! f64 CPU product of the same bf16 inputs (random normal, outputs poisoned first), at odd
//! shapes and edges, in bf16 and f32 C and two configurations. On a GPU without tensor
//! memory (an H100, say) the runner must refuse before building or loading anything, and
//! the product test ends as ignored with the reason. Every element of every product is
//! judged against cuBLAS's by `gemm_model`'s error model; the f32 products are judged
//! against the f64 CPU product too, at every element of the smaller shapes and at 4096
//! random elements and the corners of the largest.

use crate::gemm_model::{judge_model, magnitudes, Shares, BF16_C, F32_C};
use crate::{rng, sized, skip, Test};
use half::bf16;
use ptxkit::kernels::gemm::blackwell;
use ptxkit::runtime::testing::{normal_bf16, poisoned};
use ptxkit::runtime::{tcgen05_target, Cublas, GemmRunner, GemmShape, Gpu, Tcgen05Gemm};
use ptxkit::types::{Bf16, F32};
use rand::rngs::StdRng;
use rand::Rng;

/// The refusal on a GPU without tcgen05, checked; then the test ends as ignored.
fn skip_without_tcgen05(gpu: &Gpu) {
    let (major, minor) = gpu.compute_capability();
    if tcgen05_target((major, minor)).is_err() {
        let e = Tcgen05Gemm::<Bf16>::new(gpu, blackwell::Config::default()).unwrap_err().to_string();
        assert!(e.contains("needs sm_100") && e.contains(&format!("sm_{major}{minor}")), "{e}");
        skip(format!("needs sm_100 or newer: {} is sm_{major}{minor}, and Tcgen05Gemm::new refused it ({e})", gpu.name()));
    }
}

/// `C[i][j] = Σ A[i][l]·B[j][l]` in f64 and its `Σ|a·b|`, for the (row, column) pairs given.
fn cpu_at(a: &[bf16], b: &[bf16], k: usize, at: &[(usize, usize)]) -> (Vec<f32>, Vec<f64>) {
    at.iter()
        .map(|&(i, j)| {
            let terms = (0..k).map(|l| a[i * k + l].to_f64() * b[j * k + l].to_f64());
            let (dot, mag) = terms.fold((0f64, 0f64), |(d, m), t| (d + t, m + t.abs()));
            (dot as f32, mag)
        })
        .unzip()
}

/// Every element, or (for a large product) 4096 random ones and the four corners.
fn positions(g: &mut StdRng, m: usize, n: usize, k: usize) -> Vec<(usize, usize)> {
    if m * n * k <= 1 << 26 {
        return (0..m * n).map(|i| (i / n, i % n)).collect();
    }
    let mut at: Vec<(usize, usize)> = (0..4096).map(|_| (g.gen_range(0..m), g.gen_range(0..n))).collect();
    at.extend([(0, 0), (0, n - 1), (m - 1, 0), (m - 1, n - 1)]);
    at
}

fn tcgen05_gemm_matches_cublas_and_a_cpu_product(gpu: Gpu) {
    skip_without_tcgen05(&gpu);
    let mut g = rng("tcgen05_gemm_matches_cublas_and_a_cpu_product");
    let blas = Cublas::new(&gpu).unwrap();
    let cfg = blackwell::Config::default();
    let wide_bf16 = Tcgen05Gemm::<Bf16>::new(&gpu, cfg).unwrap();
    let wide_f32 = Tcgen05Gemm::<F32>::new(&gpu, cfg).unwrap();
    // 128-column tiles through a two-stage ring: every stage and accumulator reused often.
    let narrow_cfg = blackwell::Config { bn: 128, stages: 2, group_m: 1, ..cfg };
    let narrow_bf16 = Tcgen05Gemm::<Bf16>::new(&gpu, narrow_cfg).unwrap();
    let narrow_f32 = Tcgen05Gemm::<F32>::new(&gpu, narrow_cfg).unwrap();
    println!("resident CTAs: {} (bn 256), {} (bn 128)", wide_bf16.resident_ctas(), narrow_bf16.resident_ctas());
    let shapes =
        [(200, 136, 96), (1, 256, 512), (1, 1, 8), (257, 129, 8), (130, 260, 72), (128, 256, 64), (384, 520, 1000), (4000, 4000, 4000)];
    // Under the sanitizer: without the two largest.
    let shapes = &shapes[..sized(shapes.len(), shapes.len() - 2)];
    let mut failures = vec![];
    for &(m, n, k) in shapes {
        let (mu, nu, ku) = (m as usize, n as usize, k as usize);
        let (ha, hb) = (normal_bf16(g.gen(), mu * ku), normal_bf16(g.gen(), nu * ku));
        let (a, b) = (gpu.upload(&ha).unwrap(), gpu.upload(&hb).unwrap());
        let mut r = poisoned::<bf16>(&gpu, mu * nu).unwrap();
        blas.run(&gpu, &a, &b, &mut r, &GemmShape::new(m, n, k)).unwrap();
        let theirs: Vec<f32> = gpu.download(&r).unwrap().iter().map(|v| v.to_f32()).collect();
        let mag = magnitudes(&gpu, &blas, (&ha, &hb), &GemmShape::new(m, n, k), 1.0);
        let blas_shares = Shares::f32_sums(k, BF16_C);
        let at = positions(&mut g, mu, nu, ku);
        let (cpu, cpu_mag) = cpu_at(&ha, &hb, ku, &at);
        let pick = |c: &[f32]| at.iter().map(|&(i, j)| c[i * nu + j]).collect::<Vec<f32>>();
        // The positions as a row of `at.len()` columns, for the messages.
        let cols = at.len() as u32;
        judge_model(
            &format!("{m}x{n}x{k} cuBLAS against the CPU"),
            &pick(&theirs),
            &cpu,
            &cpu_mag,
            (cols, 0.0),
            blas_shares,
            &mut failures,
        );
        for (what, gemm) in [("bn 256", &wide_bf16), ("bn 128, 2 stages", &narrow_bf16)] {
            let mut c = poisoned::<bf16>(&gpu, mu * nu).unwrap();
            let what = format!("{m}x{n}x{k} bf16 C, {what}, against cuBLAS");
            match gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(m, n, k)).and_then(|_| gpu.download(&c)) {
                Ok(c) => {
                    let c: Vec<f32> = c.iter().map(|v| v.to_f32()).collect();
                    judge_model(&what, &c, &theirs, &mag, (n, blas_shares.acc), Shares::f32_sums(k, BF16_C).and(blas_shares), &mut failures)
                }
                Err(e) => failures.push(format!("{what}: {e}")),
            }
        }
        for (what, gemm) in [("bn 256", &wide_f32), ("bn 128, 2 stages", &narrow_f32)] {
            let mut c = poisoned::<f32>(&gpu, mu * nu).unwrap();
            let what = format!("{m}x{n}x{k} f32 C, {what}");
            match gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(m, n, k)).and_then(|_| gpu.download(&c)) {
                Ok(c) => {
                    let ours = Shares::f32_sums(k, F32_C);
                    let against = format!("{what}, against cuBLAS");
                    judge_model(&against, &c, &theirs, &mag, (n, blas_shares.acc), ours.and(blas_shares), &mut failures);
                    let against = format!("{what}, against the CPU at {} elements", at.len());
                    judge_model(&against, &pick(&c), &cpu, &cpu_mag, (cols, 0.0), ours, &mut failures);
                }
                Err(e) => failures.push(format!("{what}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "tcgen05 GEMM wrong:\n{}", failures.join("\n"));
}

/// What the runner cannot take is an `Err` before anything runs: a GPU without tensor memory
/// (checked on any GPU), and on one with it a K whose rows are not 16-byte multiples, a
/// buffer too short for the shape, and a configuration that does not fit.
fn tcgen05_gemm_refuses_what_it_cannot_compute(gpu: Gpu) {
    let (major, minor) = gpu.compute_capability();
    if tcgen05_target((major, minor)).is_err() {
        let e = Tcgen05Gemm::<F32>::new(&gpu, blackwell::Config::default()).unwrap_err().to_string();
        assert!(e.contains("needs sm_100") && e.contains(&format!("sm_{major}{minor}")), "{e}");
        skip("the refusal of this GPU checked; the run-time refusals need sm_100");
    }
    let gemm = Tcgen05Gemm::<Bf16>::new(&gpu, blackwell::Config::default()).unwrap();
    let a = gpu.zeros::<bf16>(64 * 100).unwrap();
    let b = gpu.zeros::<bf16>(64 * 100).unwrap();
    let mut c = gpu.zeros::<bf16>(64 * 64).unwrap();
    let e = gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(64, 64, 100)).unwrap_err().to_string();
    assert!(e.contains("multiple of 8"), "{e}");
    let e = gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(64, 65, 96)).unwrap_err().to_string();
    assert!(e.contains("C holds 4096 elements"), "{e}");
    let e = Tcgen05Gemm::<Bf16>::new(&gpu, blackwell::Config { stages: 5, ..blackwell::Config::default() }).unwrap_err().to_string();
    assert!(e.contains("shared memory"), "{e}");
}

pub const TESTS: &[Test] = &[gpu!(tcgen05_gemm_matches_cublas_and_a_cpu_product), gpu!(tcgen05_gemm_refuses_what_it_cannot_compute)];
