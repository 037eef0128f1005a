//! The GEMM runners on strided and batched problems ([`GemmShape`]'s `lda`, `ldb`, `ldc` and
//! batch strides) against an f64 CPU product of the same inputs, element by element under
//! an error model, with C's buffer poisoned first and every element that no product writes
//! (between C's rows, between the batch's matrices, past the last one) checked to still
//! hold the poison bytes. The shapes cover TMA's direct path (strides and starts 16-byte
//! multiples), the aligned copies (strides or batch offsets that are not), K and N that
//! are not 16-byte multiples inside wider rows, the staged and the direct C stores, C
//! matrices stacked and side by side, B shared by a batch (stride 0), and random shapes.
//!
//! Error model (bf16 or e4m3 inputs, f32 accumulation): a product of two inputs is exact
//! in f32, each addition of an f32 sum loses at most 2⁻²⁴ of the partial sum, and every
//! partial sum of an element is at most its `Σ|a·b|`; so the accumulator is within
//! `K · 2⁻²⁴ · Σ|a·b|` of the exact dot product (allowed twice over, for the order of the
//! tensor cores' additions). C rounds once more: by at most 2⁻⁸ of the element for bf16
//! (its unit roundoff: 8 significant bits; 2⁻⁷ allowed), 2⁻²⁴ for f32 (2⁻²³ allowed). α,
//! a power of two here, scales exactly. An element is wrong past
//! `acc · Σ|α·a·b| + round · |α·Σ a·b|`; an index, stride or transposition error moves an
//! element by about its own size, far past that.

use crate::{rng, skip, Test};
use half::bf16;
use ptxkit::kernels::gemm::{ampere, hopper, Layout};
use ptxkit::runtime::testing::{normal_bf16, poisoned, POISON};
use ptxkit::runtime::{AutoGemm, Cublas, CudaSlice, Elem, Gemm, GemmRunner, GemmShape, Gpu, LtFp8, MmaGemm};
use ptxkit::types::{Bf16, F32};
use rand::rngs::StdRng;
use rand::Rng;

/// Elements of C's buffer past the batch's last one, checked to stay poisoned.
const TAIL: usize = 64;

/// C's elements: their value, whether they still hold the poison bytes, and the relative
/// rounding of one output (see the module docs).
pub trait OutElem: Elem {
    const ROUND: f64;
    fn value(self) -> f64;
    fn is_poison(self) -> bool;
}
impl OutElem for bf16 {
    const ROUND: f64 = 1.0 / 128.0;
    fn value(self) -> f64 {
        self.to_f64()
    }
    fn is_poison(self) -> bool {
        self.to_bits() == u16::from_ne_bytes([POISON; 2])
    }
}
impl OutElem for f32 {
    const ROUND: f64 = 1.0 / (1u64 << 23) as f64;
    fn value(self) -> f64 {
        self as f64
    }
    fn is_poison(self) -> bool {
        self.to_bits() == u32::from_ne_bytes([POISON; 4])
    }
}

/// The exact products of a problem, laid out as C's buffer (`len` elements): for each
/// element some product writes, its dot product `Σ a·b` and magnitude `Σ|a·b|` in f64;
/// `None` where none writes. A and B are the decoded inputs, laid out as their buffers.
pub fn reference(a: &[f64], b: &[f64], s: &GemmShape, len: usize) -> Vec<Option<(f64, f64)>> {
    let mut out = vec![None; len];
    let (m, n, k) = (s.m as usize, s.n as usize, s.k as usize);
    let (lda, ldb, ldc) = (s.lda as usize, s.ldb as usize, s.ldc as usize);
    for i in 0..s.batch {
        let [oa, ob, oc] = s.offsets(i).map(|o| o as usize);
        for r in 0..m {
            for c in 0..n {
                let (mut dot, mut mag) = (0f64, 0f64);
                for l in 0..k {
                    let y = match s.layout {
                        Layout::TN => b[ob + c * ldb + l],
                        Layout::NN => b[ob + l * ldb + c],
                    };
                    let t = a[oa + r * lda + l] * y;
                    dot += t;
                    mag += t.abs();
                }
                out[oc + r * ldc + c] = Some((dot, mag));
            }
        }
    }
    out
}

/// Judges C's whole buffer against [`reference`]'s products times `alpha`: each written
/// element within `acc · |α|·Σ|a·b| + T::ROUND · |α·Σ a·b|` (the module's error model; `acc`
/// is the accumulation's share relative to `Σ|a·b|`), every other element still poisoned.
/// Adds a line to `failures` naming the first wrong element of each kind.
pub fn judge_buffer<T: OutElem>(what: &str, got: &[T], want: &[Option<(f64, f64)>], alpha: f64, acc: f64, failures: &mut Vec<String>) {
    let (mut wrong, mut touched, mut worst) = (0usize, 0usize, 0f64);
    let (mut first_wrong, mut first_touched) = (None, None);
    for (i, (&g, w)) in got.iter().zip(want.iter().chain(std::iter::repeat(&None))).enumerate() {
        match w {
            Some((dot, mag)) => {
                let (exact, g) = (alpha * dot, g.value());
                let bound = acc * alpha.abs() * mag + T::ROUND * exact.abs() + f64::MIN_POSITIVE;
                let e = (g - exact).abs();
                worst = worst.max(e / bound);
                if e.is_nan() || e > bound {
                    wrong += 1;
                    first_wrong.get_or_insert((i, g, exact, bound));
                }
            }
            None if !g.is_poison() => {
                touched += 1;
                first_touched.get_or_insert((i, g.value()));
            }
            None => {}
        }
    }
    println!("{what}: largest error {worst:.3} of the bound, {wrong} wrong, {touched} elements outside C written");
    if let Some((i, g, w, bound)) = first_wrong {
        failures.push(format!("{what}: {wrong} elements past the error bound; first at element {i}: {g} against {w} (bound {bound:.3e})"));
    }
    if let Some((i, g)) = first_touched {
        failures.push(format!("{what}: {touched} elements outside every C matrix written; first at element {i}: {g}"));
    }
}

/// The accumulation's share of the bound for bf16 inputs over `k` terms (module docs).
pub fn acc_bf16(k: u32) -> f64 {
    2.0 * k as f64 * 2f64.powi(-24)
}

/// A problem's bf16 inputs, random normal over the whole of each buffer (so that a read of
/// the gaps between rows shows), on the host (decoded) and on the GPU.
struct Inputs {
    a: CudaSlice<bf16>,
    b: CudaSlice<bf16>,
    want: Vec<Option<(f64, f64)>>,
    c_len: usize,
}

fn inputs(gpu: &Gpu, g: &mut StdRng, s: &GemmShape) -> Inputs {
    let [la, lb, lc] = s.lens().map(|l| l as usize);
    let (ha, hb) = (normal_bf16(g.gen(), la), normal_bf16(g.gen(), lb));
    let f = |v: &[bf16]| v.iter().map(|x| x.to_f64()).collect::<Vec<f64>>();
    let c_len = lc + TAIL;
    let want = reference(&f(&ha), &f(&hb), s, c_len);
    Inputs { a: gpu.upload(&ha).unwrap(), b: gpu.upload(&hb).unwrap(), want, c_len }
}

/// Runs `gemm` on `x` into a poisoned C and judges the whole buffer.
fn check<G: GemmRunner<In = bf16>>(gpu: &Gpu, what: &str, gemm: &G, x: &Inputs, s: &GemmShape, alpha: f32, failures: &mut Vec<String>)
where
    G::Out: OutElem,
{
    let what = format!("{what}, {s}, α = {alpha}");
    let mut c = poisoned::<G::Out>(gpu, x.c_len).unwrap();
    match gemm.run_scaled(gpu, &x.a, &x.b, &mut c, alpha, s).and_then(|_| gpu.download(&c)) {
        Ok(got) => judge_buffer(&what, &got, &x.want, alpha as f64, acc_bf16(s.k), failures),
        Err(e) => failures.push(format!("{what}: {e}")),
    }
}

/// A random problem of B stored as `layout`: M, N up to 300, K up to 200, row strides up
/// to 20 past their rows (any alignment), a batch of 1 to 5 whose strides leave up to 10
/// elements between matrices, B shared by the batch one time in four.
fn random_shape(g: &mut StdRng, layout: Layout) -> GemmShape {
    let s = GemmShape::new(g.gen_range(1..=300), g.gen_range(1..=300), g.gen_range(1..=200)).with_layout(layout);
    let (_, b_cols) = s.b_dims();
    let s = s.lda(s.k + g.gen_range(0..=20)).ldb(b_cols + g.gen_range(0..=20)).ldc(s.n + g.gen_range(0..=20));
    let [sa, sb, sc] = s.spans();
    let mut gap = || g.gen_range(0..=10u64);
    let (ga, gb, gc) = (gap(), gap(), gap());
    let stride_b = if g.gen_range(0..4) == 0 { 0 } else { sb + gb };
    s.batch(g.gen_range(1..=5), sa + ga, stride_b, sc + gc)
}

fn skip_unless_sm90(gpu: &Gpu) {
    if gpu.compute_capability() != (9, 0) {
        skip(format!("the wgmma GEMM needs sm_90, the GPU is {:?}", gpu.compute_capability()));
    }
}

/// TN: the Hopper GEMM (bf16 and f32 C, stream-K, the tile chosen per shape) and cuBLAS
/// (strided-batched) against the f64 product, at fixed and random strided, batched shapes.
fn gemm_tn_strided_and_batched_match_an_f64_product(gpu: Gpu) {
    skip_unless_sm90(&gpu);
    let mut g = rng("gemm_tn_strided_and_batched_match_an_f64_product");
    let cfg = hopper::Config::default();
    let gemm_bf16 = Gemm::<Bf16>::new(&gpu, cfg).unwrap();
    let gemm_f32 = Gemm::<F32>::new(&gpu, cfg).unwrap();
    let split = Gemm::<Bf16>::new(&gpu, hopper::Config { stream_k: true, ..cfg }).unwrap();
    let auto = AutoGemm::<Bf16>::new(&gpu, cfg).unwrap();
    let blas = Cublas::new(&gpu).unwrap();
    let mut shapes = vec![
        // Strides 16-byte multiples (TMA reads the rows in place); ldc a multiple of 8 (the
        // staged store for bf16 C).
        GemmShape::new(67, 130, 72).lda(80).ldb(80).ldc(136),
        // lda and ldb not 16-byte multiples (aligned copies); ldc odd (the direct store,
        // element by element).
        GemmShape::new(130, 260, 40).lda(43).ldb(41).ldc(263),
        // K not a multiple of 8 inside 16-byte rows of B (TMA fills past K with zeros); A
        // copied; C staged.
        GemmShape::new(33, 17, 100).lda(100).ldb(104).ldc(24),
        GemmShape::new(1, 1, 1).lda(3).ldb(5).ldc(7),
        // Several tiles each way, every stride wider.
        GemmShape::new(300, 520, 136).lda(144).ldb(139).ldc(530),
        // Batches: B shared (stride 0), starts on 16 bytes.
        GemmShape::new(70, 90, 56).lda(64).ldc(96).batch(3, 70 * 64 + 16, 0, 70 * 96 + 8),
        // Odd batch strides: A and B start off 16 bytes (copies), C between two pairs
        // (computed densely and copied out).
        GemmShape::new(45, 33, 24).batch(4, 45 * 24 + 3, 33 * 24 + 1, 45 * 33 + 1),
        // C matrices side by side in rows of 5 · 24.
        GemmShape::new(40, 24, 32).ldc(5 * 24).batch(5, 40 * 32, 24 * 32, 24),
    ];
    shapes.extend((0..3).map(|_| random_shape(&mut g, Layout::TN)));
    let mut failures = vec![];
    for (i, s) in shapes.iter().enumerate() {
        let x = inputs(&gpu, &mut g, s);
        let alpha = if i % 2 == 0 { 1.0 } else { 0.5 };
        let how = if gemm_bf16.stages_c(s) { "staged" } else { "direct" };
        check(&gpu, &format!("bf16 C ({how})"), &gemm_bf16, &x, s, alpha, &mut failures);
        check(&gpu, "f32 C", &gemm_f32, &x, s, alpha, &mut failures);
        check(&gpu, "bf16 C, stream-K", &split, &x, s, alpha, &mut failures);
        check(&gpu, "bf16 C, auto", &auto, &x, s, alpha, &mut failures);
        check(&gpu, "cuBLAS", &blas, &x, s, alpha, &mut failures);
    }
    assert!(failures.is_empty(), "strided TN GEMM wrong:\n{}", failures.join("\n"));
}

/// NN (B stored K×N): the Hopper GEMM and cuBLAS with `ldb > N` (16-byte multiples, and
/// not), `lda > K`, `ldc > N` and batches, against the f64 product.
fn gemm_nn_strided_and_batched_match_an_f64_product(gpu: Gpu) {
    skip_unless_sm90(&gpu);
    let mut g = rng("gemm_nn_strided_and_batched_match_an_f64_product");
    let cfg = hopper::Config { layout: Layout::NN, ..hopper::Config::default() };
    let gemm_bf16 = Gemm::<Bf16>::new(&gpu, cfg).unwrap();
    let gemm_f32 = Gemm::<F32>::new(&gpu, cfg).unwrap();
    let blas = Cublas::new(&gpu).unwrap();
    let mut shapes = vec![
        GemmShape::nn(67, 130, 72).ldb(136),
        GemmShape::nn(67, 130, 72).lda(75).ldb(136).ldc(140),
        // N not a multiple of 8 inside 16-byte rows of B; odd ldb (a copy of B).
        GemmShape::nn(50, 61, 40).ldb(64).ldc(61),
        GemmShape::nn(50, 61, 40).ldb(67).ldc(70),
        GemmShape::nn(30, 64, 24).ldb(72).ldc(72).batch(3, 30 * 24, 24 * 72, 30 * 72),
        GemmShape::nn(33, 40, 17).batch(4, 33 * 17 + 5, 0, 33 * 40 + 3),
    ];
    shapes.extend((0..3).map(|_| random_shape(&mut g, Layout::NN)));
    let mut failures = vec![];
    for (i, s) in shapes.iter().enumerate() {
        let x = inputs(&gpu, &mut g, s);
        let alpha = if i % 2 == 0 { 1.0 } else { 0.5 };
        check(&gpu, "NN bf16 C", &gemm_bf16, &x, s, alpha, &mut failures);
        check(&gpu, "NN f32 C", &gemm_f32, &x, s, alpha, &mut failures);
        check(&gpu, "NN cuBLAS", &blas, &x, s, alpha, &mut failures);
    }
    assert!(failures.is_empty(), "strided NN GEMM wrong:\n{}", failures.join("\n"));
}

/// The sm_80 GEMM on a batch of dense products whose matrices start on 16 bytes, against
/// the f64 product.
fn mma_gemm_batch_matches_an_f64_product(gpu: Gpu) {
    if gpu.compute_capability().0 < 8 {
        skip(format!("mma.sync bf16 needs sm_80, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("mma_gemm_batch_matches_an_f64_product");
    let gemm = MmaGemm::<F32>::new(&gpu, ampere::Config::default()).unwrap();
    let gemm_bf16 = MmaGemm::<Bf16>::new(&gpu, ampere::Config::default()).unwrap();
    let mut failures = vec![];
    for s in [GemmShape::new(70, 90, 64).batch(3, 70 * 64, 90 * 64, 70 * 96), GemmShape::new(130, 260, 40).batch(2, 130 * 40, 0, 130 * 264)]
    {
        let x = inputs(&gpu, &mut g, &s);
        check(&gpu, "mma.sync f32 C", &gemm, &x, &s, 1.0, &mut failures);
        check(&gpu, "mma.sync bf16 C", &gemm_bf16, &x, &s, 1.0, &mut failures);
    }
    assert!(failures.is_empty(), "batched mma.sync GEMM wrong:\n{}", failures.join("\n"));
}

/// What a runner cannot do is an error that says what to change, before anything runs.
fn gemm_runners_refuse_what_they_cannot_do(gpu: Gpu) {
    skip_unless_sm90(&gpu);
    let gemm = Gemm::<Bf16>::new(&gpu, hopper::Config::default()).unwrap();
    let (a, b) = (gpu.zeros::<bf16>(3 * 4096).unwrap(), gpu.zeros::<bf16>(4096).unwrap());
    let mut c = gpu.zeros::<bf16>(3 * 4096).unwrap();
    let refused = |got: Result<(), ptxkit::runtime::RuntimeError>, want: &str| {
        let e = got.unwrap_err().to_string();
        assert!(e.contains(want), "{e:?} does not say {want:?}");
    };
    let s = GemmShape::new(64, 64, 64);
    refused(gemm.run(&gpu, &a, &b, &mut c, &GemmShape::nn(64, 64, 64)), "built with layout: Layout::NN");
    refused(gemm.run(&gpu, &a, &b, &mut c, &s.ldc(32)), "make ldc at least 64");
    refused(gemm.run(&gpu, &a, &b, &mut c, &s.batch(2, 4096, 0, 100)), "make it at least one C's span, 4096 elements");
    refused(gemm.run(&gpu, &a, &b, &mut c, &s.batch(4, 4096, 0, 4096)), "A holds 12288 elements");
    let mma = MmaGemm::<Bf16>::new(&gpu, ampere::Config::default()).unwrap();
    refused(mma.run(&gpu, &a, &b, &mut c, &s.lda(72)), "dense operands only");
    refused(mma.run_scaled(&gpu, &a, &b, &mut c, 2.0, &s), "α = 2 must be 1");
    refused(mma.run(&gpu, &a, &b, &mut c, &s.batch(2, 4100, 0, 4096)), "start on 16 bytes");
    let plan = LtFp8::<Bf16>::new(&gpu, &s, true).unwrap();
    let (a8, b8) = (gpu.zeros::<u8>(4096).unwrap(), gpu.zeros::<u8>(4096).unwrap());
    refused(plan.run(&gpu, &a8, &b8, &mut c, &GemmShape::new(64, 64, 32)), "this cuBLASLt plan is for a 64×64×64 TN product");
}

pub const TESTS: &[Test] = &[
    gpu!(gemm_tn_strided_and_batched_match_an_f64_product),
    gpu!(gemm_nn_strided_and_batched_match_an_f64_product),
    gpu!(mma_gemm_batch_matches_an_f64_product),
    gpu!(gemm_runners_refuse_what_they_cannot_do),
];
