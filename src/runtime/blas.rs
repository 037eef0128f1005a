//! cuBLAS as the baseline and the reference of the GEMM: the same product on the same
//! buffers, in the same stream, and a comparison of two products.

use super::{CudaSlice, Gpu, RuntimeError};
use cudarc::cublas::{sys::cublasOperation_t, CudaBlas, Gemm as _, GemmConfig as BlasConfig};
use half::bf16;

/// A cuBLAS handle on the GPU's stream.
pub struct Cublas {
    blas: CudaBlas,
}

impl std::fmt::Debug for Cublas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Cublas")
    }
}

impl Cublas {
    /// A handle whose calls run on `gpu`'s stream.
    pub fn new(gpu: &Gpu) -> Result<Cublas, RuntimeError> {
        let blas = CudaBlas::new(gpu.stream().clone()).map_err(|e| RuntimeError::Invalid(format!("cublasCreate: {e:?}")))?;
        Ok(Cublas { blas })
    }

    /// `C = A·Bᵀ` in bf16 with f32 accumulation, in the row-major terms of
    /// [`Gemm::run`](super::Gemm::run): A `m × k`, B `n × k`, C `m × n`. To cuBLAS's
    /// column-major view that is `Cᵀ (n × m) = op(B)·op(A)` with B transposed (`T`, `N`).
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_tn_bf16(
        &self,
        a: &CudaSlice<bf16>,
        b: &CudaSlice<bf16>,
        c: &mut CudaSlice<bf16>,
        m: u32,
        n: u32,
        k: u32,
    ) -> Result<(), RuntimeError> {
        self.gemm_bf16(true, a, b, c, (m, n, k))
    }

    /// `C = A·B` in bf16 with f32 accumulation, all row-major: A `m × k`, B `k × n`, C
    /// `m × n`. To cuBLAS's column-major view that is `Cᵀ (n × m) = Bᵀ·Aᵀ` with neither
    /// transposed (`N`, `N`).
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_nn_bf16(
        &self,
        a: &CudaSlice<bf16>,
        b: &CudaSlice<bf16>,
        c: &mut CudaSlice<bf16>,
        m: u32,
        n: u32,
        k: u32,
    ) -> Result<(), RuntimeError> {
        self.gemm_bf16(false, a, b, c, (m, n, k))
    }

    /// Row-major `C = A·Bᵀ` (`b_nk`: B is `n × k`) or `C = A·B` (B `k × n`).
    fn gemm_bf16(
        &self,
        b_nk: bool,
        a: &CudaSlice<bf16>,
        b: &CudaSlice<bf16>,
        c: &mut CudaSlice<bf16>,
        (m, n, k): (u32, u32, u32),
    ) -> Result<(), RuntimeError> {
        check_lengths([a.len(), b.len(), c.len()], (m, n, k))?;
        let int = |v: u32| i32::try_from(v).map_err(|_| RuntimeError::Invalid(format!("{v} exceeds cuBLAS's int")));
        let (transa, lda) = if b_nk { (cublasOperation_t::CUBLAS_OP_T, k) } else { (cublasOperation_t::CUBLAS_OP_N, n) };
        let cfg = BlasConfig {
            transa,
            transb: cublasOperation_t::CUBLAS_OP_N,
            m: int(n)?,
            n: int(m)?,
            k: int(k)?,
            alpha: bf16::ONE,
            lda: int(lda)?,
            ldb: int(k)?,
            beta: bf16::ZERO,
            ldc: int(n)?,
        };
        // SAFETY: the lengths were checked against the shape; the leading dimensions are the
        // packed row lengths (B's is k when it is n × k, n when it is k × n).
        unsafe { self.blas.gemm(cfg, b, a, c) }.map_err(|e| RuntimeError::Invalid(format!("cublasGemmEx: {e:?}")))
    }
}

/// Whether buffers of `lens` elements (A, B, C) hold an `m × n × k` product's operands.
pub(super) fn check_lengths(lens: [usize; 3], (m, n, k): (u32, u32, u32)) -> Result<(), RuntimeError> {
    let want = [m as u64 * k as u64, n as u64 * k as u64, m as u64 * n as u64];
    for ((name, len), want) in ["A", "B", "C"].into_iter().zip(lens).zip(want) {
        if (len as u64) < want {
            return Err(RuntimeError::Invalid(format!("{name} holds {len} elements; a {m}x{n}x{k} product needs {want}")));
        }
    }
    Ok(())
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
