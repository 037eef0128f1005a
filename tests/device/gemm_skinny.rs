//! The skinny GEMM (`SkinnyGemm`: M ≤ 64, B streamed through `mma.sync`, K split over CTAs)
//! and `AutoGemm`'s use of it, against an f64 CPU product of the same inputs under the
//! error model of `gemm_strided` (bf16) and `gemm_model::acc_fast_fp8` (e4m3: the tensor
//! cores keep 13 to 14 bits of the partial sum per 32 products), C poisoned first and every element outside
//! C checked to keep the poison. Shapes cover each kernel (16, 32, 48, 64 rows) at M below
//! and at its rows, N not a multiple of the 16 columns a warp takes, K not a multiple of
//! the 64-byte step (the tail), K split from one way to hundreds, strides wider than the
//! rows, α ≠ 1, batches, and random shapes.

use crate::gemm_strided::{acc_bf16, judge_buffer, reference, OutElem};
use crate::{rng, skip, Test};
use half::bf16;
use ptxkit::kernels::gemm::{hopper, E4m3};
use ptxkit::runtime::testing::{normal_bf16, normal_e4m3, poisoned};
use ptxkit::runtime::{AutoGemm, GemmRunner, GemmShape, Gpu, Pick, SkinnyGemm, SKINNY_UP_TO};
use ptxkit::types::minifloat::e4m3_to_f32;
use ptxkit::types::{Bf16, F32};
use rand::rngs::StdRng;
use rand::Rng;

fn skip_unless_sm90(gpu: &Gpu) {
    if gpu.compute_capability() != (9, 0) {
        skip(format!("the skinny GEMM is built for sm_90a, the GPU is {:?}", gpu.compute_capability()));
    }
}

/// Runs `gemm` into a poisoned C and judges the whole buffer against `want`.
#[allow(clippy::too_many_arguments)]
fn check<G: GemmRunner>(
    gpu: &Gpu,
    what: &str,
    gemm: &G,
    (a, b): (&ptxkit::runtime::CudaSlice<G::In>, &ptxkit::runtime::CudaSlice<G::In>),
    want: &[Option<(f64, f64)>],
    s: &GemmShape,
    (alpha, acc): (f32, f64),
    failures: &mut Vec<String>,
) where
    G::Out: OutElem,
{
    let what = format!("{what}, {s}, α = {alpha}");
    let mut c = poisoned::<G::Out>(gpu, want.len()).unwrap();
    match gemm.run_scaled(gpu, a, b, &mut c, alpha, s).and_then(|_| gpu.download(&c)) {
        Ok(got) => judge_buffer(&what, &got, want, alpha as f64, acc, failures),
        Err(e) => failures.push(format!("{what}: {e}")),
    }
}

/// A random skinny shape: M 1 to 64, N 1 to 3000, K a multiple of `unit` up to 4000, strides
/// up to 3 units past the rows, one in three batched.
fn random_shape(g: &mut StdRng, unit: u32) -> GemmShape {
    let k = unit * g.gen_range(1..=4000 / unit);
    let s = GemmShape::new(g.gen_range(1..=64), g.gen_range(1..=3000), k);
    let s = s.lda(k + unit * g.gen_range(0..=3)).ldb(k + unit * g.gen_range(0..=3)).ldc(s.n + g.gen_range(0..=5));
    if g.gen_range(0..3) == 0 {
        let [sa, sb, sc] = s.spans();
        s.batch(g.gen_range(2..=3), sa + unit as u64, sb, sc + 3)
    } else {
        s
    }
}

fn shapes(g: &mut StdRng, unit: u32) -> Vec<GemmShape> {
    let mut v = vec![
        // Each kernel at its rows and one below; N past a warp's 16 columns; K with a tail.
        GemmShape::new(16, 1000, 4096),
        GemmShape::new(15, 37, 8 * unit),
        GemmShape::new(32, 130, 200 * unit),
        GemmShape::new(33, 4096 + 8, 1000 * unit),
        GemmShape::new(48, 17, 96 * unit),
        GemmShape::new(64, 300, 2 * unit),
        GemmShape::new(1, 1, unit),
        // Few columns and long K: K split hundreds of ways.
        GemmShape::new(3, 24, 65536),
        // Strides and a batch.
        GemmShape::new(7, 500, 40 * unit).lda(48 * unit).ldb(41 * unit).ldc(509),
        GemmShape::new(20, 64, 64 * unit).batch(3, 20 * 64 * unit as u64 + unit as u64, 0, 20 * 64 + 5),
    ];
    v.extend((0..4).map(|_| random_shape(g, unit)));
    v
}

/// bf16 inputs: the skinny kernels (bf16 and f32 C) and AutoGemm, against the f64 product.
fn skinny_gemm_matches_an_f64_product(gpu: Gpu) {
    skip_unless_sm90(&gpu);
    let mut g = rng("skinny_gemm_matches_an_f64_product");
    let (ours_bf16, ours_f32) = (SkinnyGemm::<Bf16>::new(&gpu).unwrap(), SkinnyGemm::<F32>::new(&gpu).unwrap());
    let auto = AutoGemm::<Bf16>::new(&gpu, hopper::Config::default()).unwrap();
    let mut failures = vec![];
    let mut splits = vec![];
    for (i, s) in shapes(&mut g, 8).iter().enumerate() {
        let [la, lb, lc] = s.lens().map(|l| l as usize);
        let (ha, hb) = (normal_bf16(g.gen(), la), normal_bf16(g.gen(), lb));
        let f = |v: &[bf16]| v.iter().map(|x| x.to_f64()).collect::<Vec<f64>>();
        let want = reference(&f(&ha), &f(&hb), s, lc + 64);
        let (a, b) = (gpu.upload(&ha).unwrap(), gpu.upload(&hb).unwrap());
        let alpha = if i % 2 == 0 { 1.0 } else { 0.5 };
        let plan = ours_bf16.plan(s.m, s.n, s.k);
        splits.push(plan.splits);
        let pick = auto.pick(s);
        if matches!(pick, Pick::Skinny(_)) != (s.m <= SKINNY_UP_TO) {
            failures.push(format!("{s}: AutoGemm picks {pick}, with the skinny kernel for at most {SKINNY_UP_TO} rows"));
        }
        let what = format!("{} rows, {} splits", plan.cfg.max_m(), plan.splits);
        check(&gpu, &format!("bf16 C, {what}"), &ours_bf16, (&a, &b), &want, s, (alpha, acc_bf16(s.k)), &mut failures);
        check(&gpu, &format!("f32 C, {what}"), &ours_f32, (&a, &b), &want, s, (alpha, acc_bf16(s.k)), &mut failures);
        check(&gpu, &format!("AutoGemm ({pick})"), &auto, (&a, &b), &want, s, (alpha, acc_bf16(s.k)), &mut failures);
    }
    println!("splits of K: {splits:?}");
    assert!(splits.contains(&1) && splits.iter().any(|&s| s > 100), "the shapes should cover one split and hundreds: {splits:?}");
    assert!(failures.is_empty(), "skinny GEMM wrong:\n{}", failures.join("\n"));
}

/// e4m3 inputs (bf16 C) against the f64 product of the decoded codes.
fn skinny_fp8_gemm_matches_an_f64_product(gpu: Gpu) {
    skip_unless_sm90(&gpu);
    let mut g = rng("skinny_fp8_gemm_matches_an_f64_product");
    let ours = SkinnyGemm::<Bf16, E4m3>::new(&gpu).unwrap();
    let ours_f32 = SkinnyGemm::<F32, E4m3>::new(&gpu).unwrap();
    let mut failures = vec![];
    for s in shapes(&mut g, 16) {
        let [la, lb, lc] = s.lens().map(|l| l as usize);
        let sigma = g.gen_range(1.0f32..8.0);
        let (ha, hb) = (normal_e4m3(g.gen(), la, sigma), normal_e4m3(g.gen(), lb, sigma));
        let decode = |v: &[u8]| v.iter().map(|&c| e4m3_to_f32(c) as f64).collect::<Vec<f64>>();
        let want = reference(&decode(&ha), &decode(&hb), &s, lc + 64);
        let (a, b) = (gpu.upload(&ha).unwrap(), gpu.upload(&hb).unwrap());
        let acc = crate::gemm_model::acc_fast_fp8(s.k);
        let alpha = 1.0 / (sigma * sigma);
        check(&gpu, "e4m3 -> bf16", &ours, (&a, &b), &want, &s, (alpha, acc), &mut failures);
        check(&gpu, "e4m3 -> f32", &ours_f32, (&a, &b), &want, &s, (alpha, acc), &mut failures);
    }
    assert!(failures.is_empty(), "skinny FP8 GEMM wrong:\n{}", failures.join("\n"));
}

/// What the skinny kernel cannot compute is an error that says what to change; AutoGemm
/// runs those shapes on the Hopper GEMM instead.
fn skinny_gemm_refuses_what_it_cannot_do(gpu: Gpu) {
    skip_unless_sm90(&gpu);
    let ours = SkinnyGemm::<Bf16>::new(&gpu).unwrap();
    let (a, b) = (gpu.zeros::<bf16>(65 * 4096).unwrap(), gpu.zeros::<bf16>(4096 * 64).unwrap());
    let mut c = gpu.zeros::<bf16>(65 * 4096).unwrap();
    let mut refused = |s: GemmShape, want: &str| {
        let e = ours.run(&gpu, &a, &b, &mut c, &s).unwrap_err().to_string();
        assert!(e.contains(want), "{s}: {e:?} does not say {want:?}");
    };
    refused(GemmShape::new(65, 64, 64), "at most 64 rows");
    refused(GemmShape::new(8, 64, 60), "K = 60");
    refused(GemmShape::new(8, 64, 64).lda(68), "lda = 68");
    refused(GemmShape::nn(8, 64, 64), "TN products only");
    refused(GemmShape::new(8, 64, 64).batch(2, 8 * 64 + 4, 0, 8 * 64), "start on 16 bytes");
    let auto = AutoGemm::<Bf16>::new(&gpu, hopper::Config::default()).unwrap();
    assert!(matches!(auto.pick(&GemmShape::new(8, 64, 60)), Pick::Tiled(_)));
    assert!(matches!(auto.pick(&GemmShape::new(17, 64, 64)), Pick::Tiled(_)));
    assert!(matches!(auto.pick(&GemmShape::new(16, 64, 64)), Pick::Skinny(_)));
    auto.run(&gpu, &a, &b, &mut c, &GemmShape::new(8, 64, 64).batch(2, 8 * 64 + 4, 0, 8 * 64)).unwrap();
}

pub const TESTS: &[Test] =
    &[gpu!(skinny_gemm_matches_an_f64_product), gpu!(skinny_fp8_gemm_matches_an_f64_product), gpu!(skinny_gemm_refuses_what_it_cannot_do)];
