//! Shapes TMA cannot address directly: rows of A and B must be 16-byte multiples, so a K
//! that is not a multiple of 16 bytes' worth of elements (8 bf16, 16 FP8) is run on copies
//! of A and B padded with zeros to the next multiple, which add nothing to the product.
//! An NN product whose N is not such a multiple (the rows of its `k × n` B) runs the same
//! way on a copy of B padded to the next multiple, into a padded C whose first N columns
//! are copied out. The copies are made on the GPU's stream (`cuMemcpy2DAsync`), and freed
//! behind the launch in stream order.

use super::error::drv;
use super::{CudaSlice, Gpu, RuntimeError};
use crate::kernels::gemm::Layout;
use cudarc::driver::{sys, DevicePtr, DevicePtrMut};

/// The padded length of a row of `len` elements of `bytes` each, where it is not a whole
/// number of 16-byte units; `None` where it is.
pub(super) fn padded(len: u32, bytes: u32) -> Option<u32> {
    let align = 16 / bytes;
    (len % align != 0).then(|| len.div_ceil(align) * align)
}

/// Copies `rows` rows of `width` elements from `src` (rows `src_pitch` elements apart) to
/// `dst` (rows `dst_pitch` apart), on `gpu`'s stream.
fn copy_rows<T>(
    gpu: &Gpu,
    src: &CudaSlice<T>,
    src_pitch: usize,
    dst: &mut CudaSlice<T>,
    dst_pitch: usize,
    width: usize,
    rows: usize,
) -> Result<(), RuntimeError> {
    let size = std::mem::size_of::<T>();
    if rows == 0 || width == 0 {
        return Ok(());
    }
    if (rows - 1) * src_pitch + width > src.len() || (rows - 1) * dst_pitch + width > dst.len() {
        return Err(RuntimeError::Invalid(format!(
            "a copy of {rows} rows of {width} elements does not fit buffers of {} and {} elements",
            src.len(),
            dst.len()
        )));
    }
    let stream = gpu.stream();
    let (s, _rs) = src.device_ptr(stream);
    let (d, _rd) = dst.device_ptr_mut(stream);
    let copy = sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        srcHost: std::ptr::null(),
        srcDevice: s,
        srcArray: std::ptr::null_mut(),
        srcPitch: src_pitch * size,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        dstHost: std::ptr::null_mut(),
        dstDevice: d,
        dstArray: std::ptr::null_mut(),
        dstPitch: dst_pitch * size,
        WidthInBytes: width * size,
        Height: rows,
    };
    // SAFETY: both pointers are live device buffers of this context, the rows checked above
    // lie inside them, and they stay borrowed (their events recorded) for the call.
    unsafe { sys::cuMemcpy2DAsync_v2(&copy, stream.cu_stream()) }.result().map_err(drv("cuMemcpy2DAsync"))
}

/// A and B with K padded from `k` to `kp` with zeros: A `m × kp`; B `n × kp` (TN) or
/// `kp × n` (NN), the rows past K zero.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn pad_k<T: super::Elem>(
    gpu: &Gpu,
    layout: Layout,
    a: &CudaSlice<T>,
    b: &CudaSlice<T>,
    (m, n, k): (u32, u32, u32),
    kp: u32,
) -> Result<(CudaSlice<T>, CudaSlice<T>), RuntimeError> {
    let (m, n, k, kp) = (m as usize, n as usize, k as usize, kp as usize);
    let mut ap = gpu.zeros::<T>(m * kp)?;
    copy_rows(gpu, a, k, &mut ap, kp, k, m)?;
    let mut bp = gpu.zeros::<T>(n * kp)?;
    match layout {
        Layout::TN => copy_rows(gpu, b, k, &mut bp, kp, k, n)?,
        Layout::NN => copy_rows(gpu, b, n, &mut bp, n, n, k)?,
    }
    Ok((ap, bp))
}

/// B of an NN product (`k × n`) with its rows padded from `n` to `np` elements with zeros.
fn pad_n<T: super::Elem>(gpu: &Gpu, b: &CudaSlice<T>, (n, k): (u32, u32), np: u32) -> Result<CudaSlice<T>, RuntimeError> {
    let (n, k, np) = (n as usize, k as usize, np as usize);
    let mut bp = gpu.zeros::<T>(k * np)?;
    copy_rows(gpu, b, n, &mut bp, np, n, k)?;
    Ok(bp)
}

/// `run` on copies padded where the shape needs them, or `None` where it needs none: an NN
/// product whose N is not a whole number of 16-byte units on a padded B, into a padded C
/// whose first N columns are copied out to `c`; a K that is not, on A and B padded along K.
/// `run` takes A, B, C and the padded shape; the NN case leaves K as it is, for `run` (the
/// GEMM itself) to pad in turn.
#[allow(clippy::type_complexity)]
pub(super) fn run_padded<T: super::Elem, C: super::Elem>(
    gpu: &Gpu,
    layout: Layout,
    bytes: u32,
    (a, b, c): (&CudaSlice<T>, &CudaSlice<T>, &mut CudaSlice<C>),
    (m, n, k): (u32, u32, u32),
    run: impl FnOnce(&CudaSlice<T>, &CudaSlice<T>, &mut CudaSlice<C>, (u32, u32, u32)) -> Result<(), RuntimeError>,
) -> Option<Result<(), RuntimeError>> {
    let np = padded(n, bytes).filter(|_| layout == Layout::NN);
    let kp = padded(k, bytes);
    let lengths = [a.len(), b.len(), c.len()];
    match (np, kp) {
        (None, None) => None,
        (Some(np), _) => Some((|| {
            super::gemm_check::check_lengths(lengths, (m, n, k))?;
            let bp = pad_n(gpu, b, (n, k), np)?;
            let mut cp = gpu.zeros::<C>(m as usize * np as usize)?;
            run(a, &bp, &mut cp, (m, np, k))?;
            copy_rows(gpu, &cp, np as usize, c, n as usize, n as usize, m as usize)
        })()),
        (None, Some(kp)) => Some((|| {
            super::gemm_check::check_lengths(lengths, (m, n, k))?;
            let (ap, bp) = pad_k(gpu, layout, a, b, (m, n, k), kp)?;
            run(&ap, &bp, c, (m, n, kp))
        })()),
    }
}
