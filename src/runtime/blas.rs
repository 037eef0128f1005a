//! cuBLAS as the baseline and the reference of the GEMM: the same product on the same
//! buffers, in the same stream, through the same [`GemmRunner`] interface.

use super::gemm_runner::check_buffers;
use super::{CudaSlice, CudaView, CudaViewMut, GemmRunner, Gpu, RuntimeError};
use crate::kernels::gemm::{GemmShape, Layout};
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

    /// `C = α·A·op(B)` for `count` products of `s` whose matrices start `strides` apart,
    /// from the device addresses `a`, `b`, `c`, in one `cublasGemmStridedBatchedEx`.
    fn gemm(&self, (a, b, c): (u64, u64, u64), alpha: f32, s: &GemmShape, count: u32, strides: [u64; 3]) -> Result<(), RuntimeError> {
        let int = |v: u32| i32::try_from(v).map_err(|_| RuntimeError::Invalid(format!("{v} exceeds cuBLAS's int")));
        let long = |v: u64| i64::try_from(v).map_err(|_| RuntimeError::Invalid(format!("{v} exceeds cuBLAS's long long")));
        // Row-major C (m × n) is column-major Cᵀ (n × m) = op(B)ᵀ-as-stored · Aᵀ-as-stored:
        // TN's B (n × k row-major) is read transposed, NN's (k × n) as it is.
        let transb = match s.layout {
            Layout::TN => sys::cublasOperation_t::CUBLAS_OP_T,
            Layout::NN => sys::cublasOperation_t::CUBLAS_OP_N,
        };
        let beta = 0.0f32;
        let bf16 = sys::cudaDataType_t::CUDA_R_16BF;
        // SAFETY: the caller checked the buffers against the shape and the batch, and holds
        // them borrowed (their events recorded) for the call; the leading dimensions are
        // the rows' strides; bf16 operands and C, f32 accumulation and scalars (cuBLAS's
        // CUBLAS_COMPUTE_32F contract).
        unsafe {
            result::gemm_strided_batched_ex(
                *self.blas.handle(),
                transb,
                sys::cublasOperation_t::CUBLAS_OP_N,
                int(s.n)?,
                int(s.m)?,
                int(s.k)?,
                &alpha as *const f32 as *const _,
                b as *const _,
                bf16,
                int(s.ldb)?,
                long(strides[1])?,
                a as *const _,
                bf16,
                int(s.lda)?,
                long(strides[0])?,
                &beta as *const f32 as *const _,
                c as *mut _,
                bf16,
                int(s.ldc)?,
                long(strides[2])?,
                int(count)?,
                sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        }
        .map_err(|e| RuntimeError::Invalid(format!("cublasGemmStridedBatchedEx: {e:?}")))
    }
}

/// bf16 products in f32 accumulation, TN and NN, any row strides, any α; a whole batch in
/// one strided-batched call.
impl GemmRunner for Cublas {
    type In = bf16;
    type Out = bf16;

    fn run_one(
        &self,
        _gpu: &Gpu,
        a: &CudaView<'_, bf16>,
        b: &CudaView<'_, bf16>,
        c: &mut CudaViewMut<'_, bf16>,
        alpha: f32,
        s: &GemmShape,
    ) -> Result<(), RuntimeError> {
        check_buffers(s, [a.len(), b.len(), c.len()])?;
        let stream = &self.stream;
        let ((pa, _ra), (pb, _rb), (pc, _rc)) = (a.device_ptr(stream), b.device_ptr(stream), c.device_ptr_mut(stream));
        self.gemm((pa, pb, pc), alpha, s, 1, [0; 3])
    }

    fn run_scaled(
        &self,
        _gpu: &Gpu,
        a: &CudaSlice<bf16>,
        b: &CudaSlice<bf16>,
        c: &mut CudaSlice<bf16>,
        alpha: f32,
        s: &GemmShape,
    ) -> Result<(), RuntimeError> {
        check_buffers(s, [a.len(), b.len(), c.len()])?;
        let stream = &self.stream;
        let ((pa, _ra), (pb, _rb), (pc, _rc)) = (a.device_ptr(stream), b.device_ptr(stream), c.device_ptr_mut(stream));
        self.gemm((pa, pb, pc), alpha, s, s.batch, [s.stride_a, s.stride_b, s.stride_c])
    }
}
