//! cuBLAS as the baseline and the reference of the GEMM: the same product on the same
//! buffers, in the same stream, and a comparison of two products.

use super::gemm_check::check_lengths;
use super::{CudaSlice, Gpu, RuntimeError};
use cudarc::cublas::{result, sys, CudaBlas};
use cudarc::driver::{DevicePtr, DevicePtrMut};
use half::bf16;

/// A cuBLAS handle on the GPU's stream.
pub struct Cublas {
    blas: CudaBlas,
    stream: std::sync::Arc<super::CudaStream>,
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
        Ok(Cublas { blas, stream: gpu.stream().clone() })
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
        let (transa, lda) = if b_nk { (sys::cublasOperation_t::CUBLAS_OP_T, k) } else { (sys::cublasOperation_t::CUBLAS_OP_N, n) };
        let (alpha, beta) = (1.0f32, 0.0f32);
        let stream = &self.stream;
        let (pb, _rb) = b.device_ptr(stream);
        let (pa, _ra) = a.device_ptr(stream);
        let (pc, _rc) = c.device_ptr_mut(stream);
        // SAFETY: the lengths were checked against the shape; the leading dimensions are the
        // packed row lengths (B's is k when it is n × k, n when it is k × n); bf16 operands
        // and C, f32 accumulation and scalars (cuBLAS's CUBLAS_COMPUTE_32F contract).
        unsafe {
            result::gemm_ex(
                *self.blas.handle(),
                transa,
                sys::cublasOperation_t::CUBLAS_OP_N,
                int(n)?,
                int(m)?,
                int(k)?,
                &alpha as *const f32 as *const _,
                pb as *const _,
                sys::cudaDataType_t::CUDA_R_16BF,
                int(lda)?,
                pa as *const _,
                sys::cudaDataType_t::CUDA_R_16BF,
                int(k)?,
                &beta as *const f32 as *const _,
                pc as *mut _,
                sys::cudaDataType_t::CUDA_R_16BF,
                int(n)?,
                sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        }
        .map_err(|e| RuntimeError::Invalid(format!("cublasGemmEx: {e:?}")))
    }
}
