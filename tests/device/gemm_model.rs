//! The error model the GEMM device tests judge by when the reference is another GEMM
//! (cuBLAS, cuBLASLt) rather than an f64 CPU product, or when either side accumulates FP8 on
//! the tensor cores. It extends `gemm_strided`'s model (f32 sums of exact products: each
//! addition loses at most 2⁻²⁴ of a partial sum, every partial sum is at most the element's
//! `Σ|α·a·b|`, allowed twice for the order of the additions; C rounds once):
//!
//! - **Shares.** A GEMM's error in an element is at most `acc · Σ|α·a·b| + round · |x|`, `x`
//!   the exact `α·Σ a·b`: `acc` is `2·K·2⁻²⁴` for f32 sums and [`acc_fast_fp8`]'s
//!   `2·⌈K/32⌉·2⁻¹³` for FP8 with the tensor cores' fast accumulation, `round` C's rounding (its unit roundoff allowed twice: 2⁻⁷ for bf16
//!   C, whose 8 significant bits round by up to 2⁻⁸; 2⁻²³ for f32). An f64 CPU product has neither.
//! - **Two GEMMs.** `|got − want| ≤ |got − x| + |want − x|`: the shares add, and
//!   `|x| ≤ (|want| + acc_want · Σ|α·a·b|) · (1 + 2⁻⁷)`.
//! - **Magnitudes** `Σ|α·a·b|` come from the CPU where it computes the product, and
//!   otherwise from cuBLAS's product of `|A|` and `|B|` (positive terms: its own sum and bf16
//!   rounding are within 1 % of the exact magnitude, which is allowed).
//!
//! The bound holds for any inputs, so no seed can fail a right kernel; a wrong index,
//! transposition or scale moves an element by about its own size, far past it.

use half::bf16;
use ptxkit::runtime::testing::poisoned;
use ptxkit::runtime::{Cublas, GemmRunner, GemmShape, Gpu};

/// An error budget relative to `Σ|α·a·b|` (`acc`) and to `|α·Σ a·b|` (`round`).
#[derive(Clone, Copy, Debug)]
pub struct Shares {
    pub acc: f64,
    pub round: f64,
}

/// C's rounding: bf16 (unit roundoff 2⁻⁸, allowed twice) and f32 (2⁻²⁴, allowed twice).
pub const BF16_C: f64 = 1.0 / 128.0;
pub const F32_C: f64 = 1.0 / (1u64 << 23) as f64;

impl Shares {
    /// An f64 CPU product.
    pub const EXACT: Shares = Shares { acc: 0.0, round: 0.0 };

    /// A GEMM adding `k` exact products in f32, its C rounded by `round`.
    pub fn f32_sums(k: u32, round: f64) -> Shares {
        Shares { acc: crate::gemm_strided::acc_bf16(k), round }
    }

    /// An FP8 GEMM with the tensor cores' fast accumulation over `k`, C rounded by `round`.
    pub fn fast_fp8(k: u32, round: f64) -> Shares {
        Shares { acc: acc_fast_fp8(k), round }
    }

    /// The budget of a comparison of two products with these shares.
    pub fn and(self, o: Shares) -> Shares {
        Shares { acc: self.acc + o.acc, round: self.round + o.round }
    }
}

/// The accumulation's share for FP8 products on the tensor cores with fast accumulation
/// over `k` (`wgmma` and `mma.sync` e4m3): at each of the `⌈K/32⌉` steps the accumulator
/// keeps 13 to 14 significant bits of the partial sum, losing up to 2⁻¹³ of it (measured on
/// an H200: an element's error reached 0.93 of `⌈K/32⌉ · 2⁻¹³ · Σ|α·a·b|`), allowed twice.
pub fn acc_fast_fp8(k: u32) -> f64 {
    k.div_ceil(32) as f64 * 2f64.powi(-12)
}

/// Judges `got` against `want` (row-major, `n` columns) element by element: wrong past
/// `s.acc · mag + s.round · (|want| + s.acc · mag) · (1 + 2⁻⁷)`, where `s` is the sum of both
/// sides' shares and `want_acc` the reference's own (for the bound on `|x|`). Prints the
/// largest error as a share of its bound and adds a line to `failures` naming the first
/// element past it.
pub fn judge_model(what: &str, got: &[f32], want: &[f32], mag: &[f64], (n, want_acc): (u32, f64), s: Shares, failures: &mut Vec<String>) {
    assert_eq!((got.len(), want.len()), (mag.len(), mag.len()), "{what}: products of different sizes");
    let (mut wrong, mut first, mut worst) = (0usize, None, 0f64);
    for (i, ((&g, &w), &m)) in got.iter().zip(want).zip(mag).enumerate() {
        let x = ((w as f64).abs() + want_acc * m) * (1.0 + 2f64.powi(-7));
        let bound = s.acc * m + s.round * x + f64::MIN_POSITIVE;
        let e = (g as f64 - w as f64).abs();
        worst = worst.max(e / bound);
        if e.is_nan() || e > bound {
            wrong += 1;
            first.get_or_insert((i, g, w, bound));
        }
    }
    println!("{what}: largest error {worst:.3} of the bound, {wrong} past it");
    if let Some((i, g, w, bound)) = first {
        let (r, c) = (i / n as usize, i % n as usize);
        failures.push(format!(
            "{what}: {wrong} elements past the error bound; first at row {r}, column {c}: {g} against {w} (bound {bound:.3e})"
        ));
    }
}

/// `Σ|a·b|` of each element of the product of the bf16 `a` and `b` (laid out for `shape`),
/// times `scale`: cuBLAS's product of their absolute values, raised by 1 % for its own
/// rounding.
pub fn magnitudes(gpu: &Gpu, blas: &Cublas, (a, b): (&[bf16], &[bf16]), shape: &GemmShape, scale: f64) -> Vec<f64> {
    let abs = |v: &[bf16]| v.iter().map(|x| bf16::from_bits(x.to_bits() & 0x7fff)).collect::<Vec<bf16>>();
    let (a, b) = (gpu.upload(&abs(a)).unwrap(), gpu.upload(&abs(b)).unwrap());
    let mut r = poisoned::<bf16>(gpu, shape.m as usize * shape.n as usize).unwrap();
    blas.run(gpu, &a, &b, &mut r, shape).unwrap();
    gpu.download(&r).unwrap().iter().map(|v| v.to_f64() * scale * 1.01).collect()
}

/// The f64 CPU product of `a` and `b` (decoded, laid out for the dense `shape`), times
/// `scale` and rounded to f32, with each element's `Σ|a·b|` times `|scale|`: the products
/// of `gemm_strided::reference`.
pub fn cpu_with_magnitudes(a: &[f64], b: &[f64], shape: &GemmShape, scale: f64) -> (Vec<f32>, Vec<f64>) {
    let len = shape.m as usize * shape.n as usize;
    crate::gemm_strided::reference(a, b, shape, len)
        .into_iter()
        .map(|e| {
            let (dot, mag) = e.expect("a dense product writes every element");
            ((dot * scale) as f32, mag * scale.abs())
        })
        .unzip()
}
