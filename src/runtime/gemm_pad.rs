//! Operands TMA cannot address: a tensor map needs a 16-byte aligned start and rows a
//! multiple of 16 bytes apart. A or B whose row stride (or start, inside a batch) is not
//! is copied onto a buffer whose rows are (the copy gathers the strided rows, and zeros
//! fill the rest of each row, outside the map's K or N). A C whose start does not align its
//! pairs of elements is computed into a dense buffer and copied out, row by row, leaving
//! what lies between C's rows untouched. The copies are made on the GPU's stream
//! (`cuMemcpy2DAsync`, which takes a pitch on both sides), and freed behind the launch in
//! stream order.

use super::error::drv;
use super::{CudaSlice, Gpu, RuntimeError};
use cudarc::driver::{sys, DevicePtr, DevicePtrMut};

/// Whether TMA can read a matrix at `addr` whose rows are `ld` elements of `bytes` apart:
/// both the start and the row pitch 16-byte multiples.
pub(super) fn tma_addressable(addr: u64, ld: u32, bytes: u32) -> bool {
    addr.is_multiple_of(16) && (ld as u64 * bytes as u64).is_multiple_of(16)
}

/// The row pitch of a copy of rows `width` elements of `bytes` long: the next multiple of
/// 16 bytes.
pub(super) fn aligned_pitch(width: u32, bytes: u32) -> u32 {
    width.div_ceil(16 / bytes) * (16 / bytes)
}

/// Copies `rows` rows of `width` elements from `src` (rows `src_pitch` elements apart) to
/// `dst` (rows `dst_pitch` apart), on `gpu`'s stream.
pub(super) fn copy_rows<T>(
    gpu: &Gpu,
    (src, src_pitch): (&impl DevicePtr<T>, usize),
    (dst, dst_pitch): (&mut impl DevicePtrMut<T>, usize),
    (rows, width): (usize, usize),
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

/// A copy of the `rows × width` matrix at `src` (rows `ld` elements apart) whose rows are
/// [`aligned_pitch`] apart, zero past `width`: the copy and its pitch.
pub(super) fn aligned_copy<T: super::Elem>(
    gpu: &Gpu,
    src: &impl DevicePtr<T>,
    (rows, width, ld): (u32, u32, u32),
    bytes: u32,
) -> Result<(CudaSlice<T>, u32), RuntimeError> {
    let pitch = aligned_pitch(width, bytes);
    let mut dst = gpu.zeros::<T>(rows as usize * pitch as usize)?;
    copy_rows(gpu, (src, ld as usize), (&mut dst, pitch as usize), (rows as usize, width as usize))?;
    Ok((dst, pitch))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_tma_cannot_address_are_copied_to_16_byte_pitches() {
        // bf16: 8 elements per 16 bytes; e4m3: 16.
        assert!(tma_addressable(0x1000, 64, 2) && tma_addressable(0x1010, 8, 2) && tma_addressable(0, 16, 1));
        assert!(!tma_addressable(0x1000, 100, 2) && !tma_addressable(0x1008, 64, 2) && !tma_addressable(0, 40, 1));
        assert_eq!((aligned_pitch(100, 2), aligned_pitch(8, 2), aligned_pitch(1, 2)), (104, 8, 8));
        assert_eq!((aligned_pitch(40, 1), aligned_pitch(48, 1)), (48, 48));
    }
}
