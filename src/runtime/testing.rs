//! Helpers for tests that run kernels: skip cleanly where there is no GPU, poison output
//! buffers so that elements a kernel never wrote stand out, draw reproducible normal inputs,
//! measure how far a result is from its reference ([`discrepancy`]), and summarise timings
//! ([`median`], also [`runtime::median`](super::median), since it goes with
//! [`Gpu::bench`] outside tests too).

use super::{CudaSlice, Elem, Gpu, RuntimeError};
use cudarc::driver::DevicePtrMut;

pub use super::median;

/// The byte [`poison`] writes: `0xFFFF_FFFF` as a `u32`, `-1` as an `i32`, NaN as a float.
pub const POISON: u8 = 0xFF;

/// The GPU for test `test`, or `None` after printing `skipped <test>: no CUDA GPU
/// (<reason>)` where there is none. With `PTXKIT_REQUIRE_GPU=1` in the environment a
/// missing GPU panics instead, so that a run meant for a GPU machine cannot pass by
/// skipping.
///
/// ```no_run
/// use ptxkit::runtime::testing::gpu_or_skip;
/// let Some(gpu) = gpu_or_skip("my_kernel_test") else { return };
/// assert!(gpu.compute_capability().0 >= 7);
/// ```
pub fn gpu_or_skip(test: &str) -> Option<Gpu> {
    match Gpu::new() {
        Ok(gpu) => Some(gpu),
        Err(e) if std::env::var("PTXKIT_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("{test}: PTXKIT_REQUIRE_GPU=1 but no CUDA GPU ({e})")
        }
        Err(e) => {
            eprintln!("skipped {test}: no CUDA GPU ({e})");
            None
        }
    }
}

/// Fills `buf` with [`POISON`] bytes.
pub fn poison<T>(gpu: &Gpu, buf: &mut impl DevicePtrMut<T>) -> Result<(), RuntimeError> {
    gpu.fill_bytes(buf, POISON)
}

/// A new device buffer of `len` elements, every byte [`POISON`].
///
/// ```no_run
/// # let gpu = ptxkit::runtime::Gpu::new()?;
/// let out = ptxkit::runtime::testing::poisoned::<u32>(&gpu, 4)?;
/// assert_eq!(gpu.download(&out)?, [u32::MAX; 4]);
/// # Ok::<(), ptxkit::runtime::RuntimeError>(())
/// ```
pub fn poisoned<T: Elem>(gpu: &Gpu, len: usize) -> Result<CudaSlice<T>, RuntimeError> {
    // SAFETY: the memory is filled, in stream order, before anything can read it.
    let mut buf = unsafe { gpu.alloc::<T>(len) }?;
    poison(gpu, &mut buf)?;
    Ok(buf)
}

/// `len` standard normal samples rounded to bf16, from `seed` (SplitMix64 and Box–Muller):
/// the GEMM tests' and benches' inputs, the same for the same seed.
///
/// ```
/// let x = ptxkit::runtime::testing::normal_bf16(7, 10_000);
/// let mean = x.iter().map(|v| v.to_f64()).sum::<f64>() / 1e4;
/// let var = x.iter().map(|v| v.to_f64().powi(2)).sum::<f64>() / 1e4;
/// assert!(mean.abs() < 0.05 && (var - 1.0).abs() < 0.05);
/// assert_eq!(x, ptxkit::runtime::testing::normal_bf16(7, 10_000));
/// ```
pub fn normal_bf16(seed: u64, len: usize) -> Vec<half::bf16> {
    normals(seed).take(len).map(half::bf16::from_f64).collect()
}

/// `len` normal samples of standard deviation `sigma`, as e4m3 codes
/// ([`e4m3_from_f32`](crate::types::minifloat::e4m3_from_f32)), from `seed` as in [`normal_bf16`].
///
/// ```
/// use ptxkit::types::minifloat::e4m3_to_f32;
/// let x = ptxkit::runtime::testing::normal_e4m3(7, 10_000, 4.0);
/// let var = x.iter().map(|&b| (e4m3_to_f32(b) as f64).powi(2)).sum::<f64>() / 1e4;
/// assert!((var.sqrt() - 4.0).abs() < 0.2);
/// ```
pub fn normal_e4m3(seed: u64, len: usize, sigma: f32) -> Vec<u8> {
    normals(seed).take(len).map(|x| crate::types::minifloat::e4m3_from_f32(sigma * x as f32)).collect()
}

/// Standard normal samples from `seed` (SplitMix64 and Box–Muller).
fn normals(seed: u64) -> impl Iterator<Item = f64> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        // 53 random bits in (0, 1].
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64 + f64::EPSILON / 2.0
    };
    std::iter::from_fn(move || {
        let (u, v) = (next(), next());
        Some((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos())
    })
}

/// How far one product is from another (the reference).
#[derive(Clone, Debug, PartialEq)]
pub struct Discrepancy {
    /// ‖got − want‖ / ‖want‖ (Frobenius norms).
    pub relative: f64,
    /// Elements outside `tol·(|want| + rms(want))`, NaNs included.
    pub wrong: usize,
    /// The first such element: (index, got, want).
    pub first: Option<(usize, f32, f32)>,
}

/// Compares `got` with `want` element by element, with the tolerance `tol` relative to each
/// element's magnitude plus the reference's root mean square (so that elements near zero,
/// where summation order moves the last bits, are judged on the matrix's scale).
pub fn discrepancy(got: &[f32], want: &[f32], tol: f64) -> Discrepancy {
    assert_eq!(got.len(), want.len(), "products of different sizes");
    let norm: f64 = want.iter().map(|w| (*w as f64).powi(2)).sum::<f64>();
    let rms = (norm / want.len().max(1) as f64).sqrt();
    let mut diff = 0.0f64;
    let mut wrong = 0;
    let mut first = None;
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let d = (g as f64 - w as f64).abs();
        diff += if d.is_finite() { d * d } else { f64::INFINITY };
        if d.is_nan() || d > tol * ((w as f64).abs() + rms) {
            wrong += 1;
            if first.is_none() {
                first = Some((i, g, w));
            }
        }
    }
    let relative = if norm > 0.0 { (diff / norm).sqrt() } else { diff.sqrt() };
    Discrepancy { relative, wrong, first }
}

#[cfg(test)]
mod tests {
    use super::discrepancy;

    #[test]
    fn discrepancy_finds_wrong_and_nan_elements() {
        let want = [1.0f32, -2.0, 3.0, 0.0];
        assert_eq!(discrepancy(&want, &want, 1e-2).wrong, 0);
        let got = [1.0f32, -2.0, 3.5, f32::NAN];
        let d = discrepancy(&got, &want, 1e-2);
        assert_eq!((d.wrong, d.first.map(|f| f.0)), (2, Some(2)));
        assert!(d.relative.is_nan() || d.relative.is_infinite() || d.relative > 0.1);
        let close = [1.001f32, -2.001, 3.001, 0.001];
        assert_eq!(discrepancy(&close, &want, 1e-2).wrong, 0);
    }
}
