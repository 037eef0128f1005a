//! Helpers for tests that run kernels: skip cleanly where there is no GPU, and poison
//! output buffers so that elements a kernel never wrote stand out.

use super::{CudaSlice, Elem, Gpu, RuntimeError};
use cudarc::driver::DevicePtrMut;

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
