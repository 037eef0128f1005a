//! cuBLASLt's FP8 GEMM, the baseline of the e4m3 GEMM: the same product on the same
//! buffers, in the same stream.

use super::gemm_runner::check_buffers;
use super::{CudaView, CudaViewMut, Elem, GemmRunner, Gpu, RuntimeError};
use crate::kernels::gemm::{GemmOut, GemmShape, Layout};
use cudarc::cublaslt::{result as lt, sys};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::Arc;

/// Bytes of workspace cuBLASLt may use (what it asks for on sm_90).
const WORKSPACE: usize = 32 << 20;

fn lt_err(call: &'static str) -> impl Fn(lt::CublasError) -> RuntimeError {
    move |e| RuntimeError::Invalid(format!("{call}: {e:?}"))
}

/// One planned cuBLASLt e4m3 × e4m3 → `O` product of a fixed TN [`GemmShape`] (its row
/// strides included): A `m × k`, B `n × k`, C `m × n`, `C = α·A·Bᵀ` with f32 accumulation.
/// The algorithm is chosen once, when the plan is made, so that timing its runs times the
/// GEMM alone. As a [`GemmRunner`] it runs its own shape only (a batch of them, a call per
/// product), and says so for any other.
pub struct LtFp8<O: GemmOut> {
    handle: sys::cublasLtHandle_t,
    desc: sys::cublasLtMatmulDesc_t,
    layouts: [sys::cublasLtMatrixLayout_t; 3],
    algo: sys::cublasLtMatmulAlgo_t,
    workspace: CudaSlice<u8>,
    stream: Arc<CudaStream>,
    shape: GemmShape,
    _o: PhantomData<O>,
}

impl<O: GemmOut> std::fmt::Debug for LtFp8<O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LtFp8").field("shape", &self.shape).field("out", &O::NAME).finish_non_exhaustive()
    }
}

impl<O: GemmOut> LtFp8<O> {
    /// Plans the product on `gpu`'s stream. `fast_accum` lets cuBLASLt keep the whole sum
    /// in the tensor cores' accumulator (as the wgmma GEMM does) instead of promoting
    /// partial sums to f32 registers at intervals. `Err` where cuBLASLt has no algorithm
    /// (it needs an sm_89 or newer GPU, and K a multiple of 16), and for a shape that is
    /// not TN (e4m3 reads K-contiguous B only) or not valid ([`GemmShape::check`]).
    pub fn new(gpu: &Gpu, shape: &GemmShape, fast_accum: bool) -> Result<Self, RuntimeError> {
        shape.check().map_err(RuntimeError::Invalid)?;
        if shape.layout != Layout::TN {
            return Err(RuntimeError::Invalid(format!("cuBLASLt's e4m3 GEMM takes B stored N×K (TN); {shape} is not")));
        }
        let shape = shape.one();
        let handle = lt::create_handle().map_err(lt_err("cublasLtCreate"))?;
        let mut plan = LtFp8 {
            handle,
            desc: std::ptr::null_mut(),
            layouts: [std::ptr::null_mut(); 3],
            // SAFETY: the algorithm is plain data, filled in by the heuristic below before use.
            algo: unsafe { std::mem::zeroed() },
            workspace: gpu.zeros::<u8>(WORKSPACE)?,
            stream: gpu.stream().clone(),
            shape,
            _o: PhantomData,
        };
        plan.desc = lt::create_matmul_desc(sys::cublasComputeType_t::CUBLAS_COMPUTE_32F, sys::cudaDataType_t::CUDA_R_32F)
            .map_err(lt_err("cublasLtMatmulDescCreate"))?;
        let set = |attr, value: i32| {
            // SAFETY: the descriptor is live; TRANSA/TRANSB are 32-bit, FAST_ACCUM is 8-bit.
            unsafe {
                let size = if attr == sys::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_FAST_ACCUM { 1 } else { 4 };
                lt::set_matmul_desc_attribute(plan.desc, attr, &value as *const i32 as *const c_void, size)
            }
            .map_err(lt_err("cublasLtMatmulDescSetAttribute"))
        };
        // Column-major, cuBLAS computes Cᵀ (n × m) = Bᵀ-as-stored (k × n, transposed) · A (k × m).
        set(sys::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSA, 1)?;
        set(sys::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSB, 0)?;
        set(sys::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_FAST_ACCUM, fast_accum as i32)?;
        let out = if O::BF16 { sys::cudaDataType_t::CUDA_R_16BF } else { sys::cudaDataType_t::CUDA_R_32F };
        let e4m3 = sys::cudaDataType_t::CUDA_R_8F_E4M3;
        let (m, n, k) = (shape.m as u64, shape.n as u64, shape.k as u64);
        let (lda, ldb, ldc) = (shape.lda as i64, shape.ldb as i64, shape.ldc as i64);
        for (i, (ty, rows, cols, ld)) in [(e4m3, k, n, ldb), (e4m3, k, m, lda), (out, n, m, ldc)].into_iter().enumerate() {
            plan.layouts[i] = lt::create_matrix_layout(ty, rows, cols, ld).map_err(lt_err("cublasLtMatrixLayoutCreate"))?;
        }
        let pref = lt::create_matmul_pref().map_err(lt_err("cublasLtMatmulPreferenceCreate"))?;
        // SAFETY: every handle is live; the preference is destroyed once the heuristic answered.
        let heuristic = unsafe {
            let r = lt::set_matmul_pref_attribute(
                pref,
                sys::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                &WORKSPACE as *const usize as *const c_void,
                std::mem::size_of::<usize>(),
            )
            .and_then(|_| {
                let [a, b, c] = plan.layouts;
                lt::get_matmul_algo_heuristic(plan.handle, plan.desc, a, b, c, c, pref)
            });
            let _ = lt::destroy_matmul_pref(pref);
            r
        }
        .map_err(lt_err("cublasLtMatmulAlgoGetHeuristic"))?;
        plan.algo = heuristic.algo;
        Ok(plan)
    }
}

/// The plan's shape only: `Err` for another one, saying which it was planned for.
impl<O: GemmOut> GemmRunner for LtFp8<O>
where
    O::Host: Elem,
{
    type In = u8;
    type Out = O::Host;

    fn run_one(
        &self,
        _gpu: &Gpu,
        a: &CudaView<'_, u8>,
        b: &CudaView<'_, u8>,
        c: &mut CudaViewMut<'_, O::Host>,
        alpha: f32,
        shape: &GemmShape,
    ) -> Result<(), RuntimeError> {
        if *shape != self.shape {
            return Err(RuntimeError::Invalid(format!("this cuBLASLt plan is for {}; make one for {shape}", self.shape)));
        }
        check_buffers(shape, [a.len(), b.len(), c.len()])?;
        let beta = 0f32;
        let (pa, _ra) = a.device_ptr(&self.stream);
        let (pb, _rb) = b.device_ptr(&self.stream);
        let (pc, _rc) = c.device_ptr_mut(&self.stream);
        let (pw, _rw) = self.workspace.device_ptr(&self.stream);
        let [la, lb, lc] = self.layouts;
        // SAFETY: the buffers hold the shape's elements (checked above) and stay borrowed
        // until the call is enqueued on the plan's stream; the handles are live.
        unsafe {
            lt::matmul(
                self.handle,
                self.desc,
                &alpha as *const f32 as *const c_void,
                &beta as *const f32 as *const c_void,
                pb as *const c_void,
                la,
                pa as *const c_void,
                lb,
                pc as *const c_void,
                lc,
                pc as *mut c_void,
                lc,
                &self.algo,
                pw as *mut c_void,
                WORKSPACE,
                self.stream.cu_stream() as *mut _,
            )
        }
        .map_err(lt_err("cublasLtMatmul"))
    }
}

impl<O: GemmOut> Drop for LtFp8<O> {
    fn drop(&mut self) {
        // SAFETY: each handle was created by this plan and is destroyed once.
        unsafe {
            for l in self.layouts {
                if !l.is_null() {
                    let _ = lt::destroy_matrix_layout(l);
                }
            }
            if !self.desc.is_null() {
                let _ = lt::destroy_matmul_desc(self.desc);
            }
            let _ = lt::destroy_handle(self.handle);
        }
    }
}
