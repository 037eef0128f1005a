//! What a device buffer holds: plain data, any bit pattern of which is a value.

/// An element type of a device buffer ([`Gpu::upload`](super::Gpu::upload),
/// [`zeros`](super::Gpu::zeros), [`download`](super::Gpu::download)): plain data with no
/// padding, every bit pattern of whose size is a valid value, so bytes copied from the
/// device (or zeroed, or poisoned) can be read as it. Implemented for the integers, `f32`,
/// `f64`, `half::f16`, `half::bf16` and arrays of them: the host types of the PTX data
/// types (`<F32 as DataType>::Host`, ...).
///
/// # Safety
///
/// An implementing type has no padding, no invalid bit patterns and no pointers.
pub unsafe trait Elem: Copy + Send + Sync + 'static {}

macro_rules! elems {
    ($($t:ty)*) => {$( unsafe impl Elem for $t {} )*};
}
elems!(u8 u16 u32 u64 u128 i8 i16 i32 i64 i128 f32 f64 half::f16 half::bf16);
// SAFETY: an array of plain data is plain data.
unsafe impl<T: Elem, const N: usize> Elem for [T; N] {}

/// The bytes of a slice of elements.
pub(crate) fn bytes_of<T: Elem>(v: &[T]) -> &[u8] {
    // SAFETY: `T` has no padding, so every byte of the slice is initialised.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}
