//! One interface for every GEMM ([`GemmRunner`]): the Hopper kernels ([`Gemm`](super::Gemm),
//! [`AutoGemm`](super::AutoGemm)), the sm_80 one ([`MmaGemm`](super::MmaGemm)), the
//! Blackwell one ([`Tcgen05Gemm`](super::Tcgen05Gemm)) and the cuBLAS baselines
//! ([`Cublas`](super::Cublas), [`LtFp8`](super::LtFp8)) all run a [`GemmShape`] on device
//! buffers, enqueued on the GPU's stream.
//!
//! | runner | B | lda, ldb | ldc | batch | α |
//! |---|---|---|---|---|---|
//! | `Gemm`, `AutoGemm` | TN, NN (bf16) | any (TMA, or an aligned copy) | any | a launch per product | any |
//! | `MmaGemm` | TN | dense | dense | a launch per product | 1 |
//! | `Tcgen05Gemm` | TN | dense | dense | a launch per product | 1 |
//! | `Cublas` (bf16) | TN, NN | any | any | one strided-batched call | any |
//! | `LtFp8` (e4m3) | TN | as cuBLASLt allows, fixed by the plan | as cuBLASLt allows | a call per product | any |
//!
//! ```no_run
//! use ptxkit::kernels::gemm::{hopper, GemmShape};
//! use ptxkit::runtime::{Gemm, GemmRunner, Gpu};
//! use half::bf16;
//!
//! let gpu = Gpu::new()?;
//! let gemm = Gemm::<ptxkit::types::Bf16>::new(&gpu, hopper::Config::default())?;
//! // Three 100 × 60 × 40 products; rows of A 48 elements apart, C matrices stacked.
//! let shape = GemmShape::new(100, 60, 40).lda(48).batch(3, 100 * 48, 60 * 40, 100 * 60);
//! let [a_len, b_len, c_len] = shape.lens();
//! let a = gpu.upload(&vec![bf16::ONE; a_len as usize])?;
//! let b = gpu.upload(&vec![bf16::ONE; b_len as usize])?;
//! let mut c = gpu.zeros::<bf16>(c_len as usize)?;
//! gemm.run(&gpu, &a, &b, &mut c, &shape)?;
//! assert!(gpu.download(&c)?.iter().all(|x| *x == bf16::from_f32(40.0)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{CudaSlice, CudaView, CudaViewMut, Elem, Gpu, RuntimeError};
use crate::kernels::gemm::{GemmShape, Layout};
use cudarc::driver::DevicePtr;

/// A GEMM on device buffers: `C = α·A·Bᵀ` (TN) or `C = α·A·B` (NN) for every product of a
/// [`GemmShape`], C overwritten (elements between C's rows, and outside its matrices, are
/// left as they were).
pub trait GemmRunner {
    /// Host elements of A and B: `bf16`, or `u8` codes of e4m3.
    type In: Elem;
    /// Host elements of C: `bf16` or `f32`.
    type Out: Elem;

    /// One product (`shape.batch` is 1) on views that start at its matrices and hold at
    /// least their [`spans`](GemmShape::spans); [`run_scaled`](Self::run_scaled) checks
    /// both before it calls this for each product of a batch.
    fn run_one(
        &self,
        gpu: &Gpu,
        a: &CudaView<'_, Self::In>,
        b: &CudaView<'_, Self::In>,
        c: &mut CudaViewMut<'_, Self::Out>,
        alpha: f32,
        shape: &GemmShape,
    ) -> Result<(), RuntimeError>;

    /// `C = α·A·op(B)` for every product of `shape`. `Err` for a shape no GEMM can compute
    /// ([`GemmShape::check`]), buffers too short for it ([`GemmShape::check_lengths`]), or
    /// what this runner cannot do (its docs say what); each error says what to change.
    /// The default runs the products one after another in stream order.
    fn run_scaled(
        &self,
        gpu: &Gpu,
        a: &CudaSlice<Self::In>,
        b: &CudaSlice<Self::In>,
        c: &mut CudaSlice<Self::Out>,
        alpha: f32,
        shape: &GemmShape,
    ) -> Result<(), RuntimeError> {
        check_buffers(shape, [a.len(), b.len(), c.len()])?;
        let one = shape.one();
        let [sa, sb, sc] = one.spans().map(|s| s as usize);
        for i in 0..shape.batch {
            let [oa, ob, oc] = shape.offsets(i).map(|o| o as usize);
            let (av, bv) = (a.slice(oa..oa + sa), b.slice(ob..ob + sb));
            self.run_one(gpu, &av, &bv, &mut c.slice_mut(oc..oc + sc), alpha, &one)?;
        }
        Ok(())
    }

    /// `C = A·op(B)`: [`run_scaled`](Self::run_scaled) with α = 1.
    fn run(
        &self,
        gpu: &Gpu,
        a: &CudaSlice<Self::In>,
        b: &CudaSlice<Self::In>,
        c: &mut CudaSlice<Self::Out>,
        shape: &GemmShape,
    ) -> Result<(), RuntimeError> {
        self.run_scaled(gpu, a, b, c, 1.0, shape)
    }
}

/// [`GemmShape::check`] and [`GemmShape::check_lengths`] as runtime errors.
pub(super) fn check_buffers(shape: &GemmShape, lens: [usize; 3]) -> Result<(), RuntimeError> {
    shape.check().map_err(RuntimeError::Invalid)?;
    shape.check_lengths(lens).map_err(RuntimeError::Invalid)
}

/// The device address of `buf`.
pub(super) fn address<T>(gpu: &Gpu, buf: &impl DevicePtr<T>) -> u64 {
    buf.device_ptr(gpu.stream()).0
}

/// What a kernel that reads dense TN operands with 16-byte copies, and applies no scale,
/// takes: `Err` naming `kernel` and what to change for anything else.
pub(super) fn dense_tn_only<T, C>(
    kernel: &str,
    gpu: &Gpu,
    (a, b, c): (&impl DevicePtr<T>, &impl DevicePtr<T>, &impl DevicePtr<C>),
    alpha: f32,
    s: &GemmShape,
) -> Result<(), RuntimeError> {
    let refuse = |what: String| Err(RuntimeError::Invalid(format!("the {kernel} {what}")));
    if s.layout != Layout::TN {
        return refuse(format!("computes TN products only (B stored N×K); {s} is not: use the Hopper Gemm or cuBLAS"));
    }
    if !s.is_dense() {
        return refuse(format!("reads dense operands only (lda = K, ldb = K, ldc = N); {s} is not: use the Hopper Gemm or cuBLAS"));
    }
    if alpha != 1.0 {
        return refuse(format!("applies no scale: α = {alpha} must be 1 (scale C afterwards, or use the Hopper Gemm)"));
    }
    for (name, addr) in [("A", address(gpu, a)), ("B", address(gpu, b)), ("C", address(gpu, c))] {
        if !addr.is_multiple_of(16) {
            return refuse(format!(
                "needs matrices that start on 16 bytes; this product's {name} starts at address {addr:#x}: \
                 make the batch stride of {name} a multiple of 16 bytes"
            ));
        }
    }
    Ok(())
}
