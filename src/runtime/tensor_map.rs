//! Host-side tensor maps: [`HostTensorMap<T, R>`] encodes a TMA tensor map over a device
//! buffer once (`cuTensorMapEncodeTiled` or `cuTensorMapEncodeIm2col`), after checking
//! every parameter, and is passed by reference for a
//! [`TensorMap<T, R>`](crate::builder::TensorMap) kernel parameter.
//!
//! The element type is the Rust type `T` of the kernel's map, the address the buffer's. The
//! map keeps the buffer borrowed for as long as it lives, so it cannot outlive the memory it
//! points into, and the buffer cannot be freed or handed out mutably meanwhile; a map made
//! with [`tiled_mut`](HostTensorMap::tiled_mut) holds the buffer exclusively and, passed as
//! `&mut map`, makes the launch a write of it (as a `&mut CudaSlice` argument does), so
//! that work on other streams orders after it. The check that the tensor lies within the
//! buffer keeps every copy through the map inside it.
//!
//! ```no_run
//! use ptxkit::builder::TensorMap;
//! use ptxkit::descriptors::{Swizzle, TiledMap};
//! use ptxkit::prelude::*;
//! use ptxkit::runtime::{Gpu, HostTensorMap, Launch};
//!
//! let gpu = Gpu::new()?;
//! let mut m = Module::new(Target::SM_90);
//! let kr = m.kernel("k", |k, (src, dst): (TensorMap<F32, 2>, TensorMap<F32, 2>)| {
//!     // ... src.load(..), dst.store(..)
//! #   let _ = (k, src, dst);
//! })?;
//! let module = gpu.load(&m.to_ptx()?)?;
//! let kern = module.kernel(&kr)?;
//!
//! let (rows, cols) = (1000u64, 300u64);
//! let a = gpu.upload(&vec![1.0f32; (rows * cols) as usize])?;
//! let mut b = gpu.zeros::<f32>((rows * cols) as usize)?;
//! // dims innermost first; 32 x 32 boxes with the 128-byte swizzle (32 f32 = 128 bytes).
//! let shape = TiledMap::new([cols, rows], [32, 32]).swizzle(Swizzle::B128);
//! let src = HostTensorMap::<F32, 2>::tiled(&a, &shape)?;
//! let mut dst = HostTensorMap::<F32, 2>::tiled_mut(&mut b, &shape)?;
//! for _ in 0..10 {
//!     // Encoded once; each launch passes the same 128 bytes.
//!     kern.launch(&Launch::new(1, 128).shared(4096), (&src, &mut dst))?;
//! }
//! drop(dst); // (or let it go out of use) before reading `b`
//! let _ = gpu.download(&b)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::args::ArgList;
use super::error::drv;
use super::{HostArg, RuntimeError};
use crate::builder::{TensorElem, TensorMap};
use crate::descriptors::{Im2colMap, Interleave, L2Promotion, OobFill, Swizzle, TensorDataType, TiledMap};
use cudarc::driver::{sys, DevicePtr, DevicePtrMut};
use std::fmt;
use std::marker::PhantomData;

/// A device buffer a map may write through: readable and writable.
pub trait MapBuffer<H>: DevicePtr<H> + DevicePtrMut<H> {}
impl<H, B: DevicePtr<H> + DevicePtrMut<H> + ?Sized> MapBuffer<H> for B {}

enum Held<'b, H> {
    Shared(&'b dyn DevicePtr<H>),
    Exclusive(&'b mut dyn MapBuffer<H>),
}

/// A TMA tensor map of `T` elements and rank `R` over a device buffer, encoded by the
/// driver, to pass (as `&map` or `&mut map`) for a [`TensorMap<T, R>`] kernel parameter.
/// It borrows the buffer for its lifetime `'b`.
pub struct HostTensorMap<'b, T: TensorElem, const R: usize> {
    raw: sys::CUtensorMap,
    buf: Held<'b, T::Host>,
    box_bytes: u64,
    _t: PhantomData<T>,
}

impl<T: TensorElem, const R: usize> fmt::Debug for HostTensorMap<'_, T, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostTensorMap")
            .field("elem", &T::TMA)
            .field("rank", &R)
            .field("box_bytes", &self.box_bytes)
            .field("exclusive", &matches!(self.buf, Held::Exclusive(_)))
            .finish()
    }
}

fn data_type(t: TensorDataType) -> sys::CUtensorMapDataType {
    use sys::CUtensorMapDataType::*;
    match t {
        TensorDataType::U8 => CU_TENSOR_MAP_DATA_TYPE_UINT8,
        TensorDataType::U16 => CU_TENSOR_MAP_DATA_TYPE_UINT16,
        TensorDataType::U32 => CU_TENSOR_MAP_DATA_TYPE_UINT32,
        TensorDataType::S32 => CU_TENSOR_MAP_DATA_TYPE_INT32,
        TensorDataType::U64 => CU_TENSOR_MAP_DATA_TYPE_UINT64,
        TensorDataType::S64 => CU_TENSOR_MAP_DATA_TYPE_INT64,
        TensorDataType::F16 => CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        TensorDataType::F32 => CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        TensorDataType::F64 => CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
        TensorDataType::Bf16 => CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        TensorDataType::F32Ftz => CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ,
        TensorDataType::Tf32 => CU_TENSOR_MAP_DATA_TYPE_TFLOAT32,
        TensorDataType::Tf32Ftz => CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ,
    }
}

fn interleave(i: Interleave) -> sys::CUtensorMapInterleave {
    use sys::CUtensorMapInterleave::*;
    match i {
        Interleave::None => CU_TENSOR_MAP_INTERLEAVE_NONE,
        Interleave::B16 => CU_TENSOR_MAP_INTERLEAVE_16B,
        Interleave::B32 => CU_TENSOR_MAP_INTERLEAVE_32B,
    }
}

fn swizzle(s: Swizzle) -> sys::CUtensorMapSwizzle {
    use sys::CUtensorMapSwizzle::*;
    match s {
        Swizzle::None => CU_TENSOR_MAP_SWIZZLE_NONE,
        Swizzle::B32 => CU_TENSOR_MAP_SWIZZLE_32B,
        Swizzle::B64 => CU_TENSOR_MAP_SWIZZLE_64B,
        Swizzle::B128 => CU_TENSOR_MAP_SWIZZLE_128B,
    }
}

fn l2_promotion(p: L2Promotion) -> sys::CUtensorMapL2promotion {
    use sys::CUtensorMapL2promotion::*;
    match p {
        L2Promotion::None => CU_TENSOR_MAP_L2_PROMOTION_NONE,
        L2Promotion::B64 => CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
        L2Promotion::B128 => CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        L2Promotion::B256 => CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
    }
}

fn oob_fill(f: OobFill) -> sys::CUtensorMapFloatOOBfill {
    use sys::CUtensorMapFloatOOBfill::*;
    match f {
        OobFill::Zero => CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        OobFill::NanRequestZeroFma => CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA,
    }
}

/// The buffer's device address and size in bytes, with its context bound to this thread
/// (the encode calls need one).
fn locate<H>(buf: &dyn DevicePtr<H>) -> Result<(u64, u64), RuntimeError> {
    let stream = buf.stream().clone();
    stream.context().bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
    let (ptr, _record) = buf.device_ptr(&stream);
    Ok((ptr, buf.num_bytes() as u64))
}

/// The byte strides of dimensions 1.. that the driver takes (at most four).
fn byte_strides<const R: usize>(strides: &[u64; R], elem: u64) -> [u64; 4] {
    let mut out = [0u64; 4];
    for i in 1..R.min(5) {
        out[i - 1] = strides[i] * elem;
    }
    out
}

impl<'b, T: TensorElem, const R: usize> HostTensorMap<'b, T, R> {
    fn encode_tiled(held: Held<'b, T::Host>, shape: &TiledMap<R>) -> Result<Self, RuntimeError> {
        debug_assert_eq!(T::TMA.bytes(), (T::BITS / 8).max(1));
        let (address, bytes) = locate(match &held {
            Held::Shared(b) => *b,
            Held::Exclusive(b) => as_shared(&**b),
        })?;
        shape.check(T::TMA, address, bytes)?;
        let elem = T::TMA.bytes() as u64;
        let strides = byte_strides(&shape.strides, elem);
        let mut raw = sys::CUtensorMap { opaque: [0; 16] };
        // SAFETY: every array holds at least `R` entries (the strides R-1), `R` is 1..=5 and
        // each value was checked against the driver's documented requirements; `raw` is
        // 64-byte aligned (`CUtensorMap` is aligned to 64 or more).
        unsafe {
            sys::cuTensorMapEncodeTiled(
                &mut raw,
                data_type(T::TMA),
                R as u32,
                address as *mut std::ffi::c_void,
                shape.dims.as_ptr(),
                strides.as_ptr(),
                shape.box_dims.as_ptr(),
                shape.element_strides.as_ptr(),
                interleave(shape.interleave),
                swizzle(shape.swizzle),
                l2_promotion(shape.l2_promotion),
                oob_fill(shape.oob_fill),
            )
        }
        .result()
        .map_err(drv("cuTensorMapEncodeTiled"))?;
        Ok(HostTensorMap { raw, buf: held, box_bytes: shape.box_bytes(T::TMA), _t: PhantomData })
    }

    fn encode_im2col(held: Held<'b, T::Host>, shape: &Im2colMap<R>) -> Result<Self, RuntimeError> {
        let (address, bytes) = locate(match &held {
            Held::Shared(b) => *b,
            Held::Exclusive(b) => as_shared(&**b),
        })?;
        shape.check(T::TMA, address, bytes)?;
        let elem = T::TMA.bytes() as u64;
        let strides = byte_strides(&shape.strides, elem);
        let mut raw = sys::CUtensorMap { opaque: [0; 16] };
        // SAFETY: as for the tiled map; the corners hold R-2 offsets each (checked).
        unsafe {
            sys::cuTensorMapEncodeIm2col(
                &mut raw,
                data_type(T::TMA),
                R as u32,
                address as *mut std::ffi::c_void,
                shape.dims.as_ptr(),
                strides.as_ptr(),
                shape.lower_corner.as_ptr(),
                shape.upper_corner.as_ptr(),
                shape.channels_per_pixel,
                shape.pixels_per_column,
                shape.element_strides.as_ptr(),
                interleave(shape.interleave),
                swizzle(shape.swizzle),
                l2_promotion(shape.l2_promotion),
                oob_fill(shape.oob_fill),
            )
        }
        .result()
        .map_err(drv("cuTensorMapEncodeIm2col"))?;
        Ok(HostTensorMap { raw, buf: held, box_bytes: shape.box_bytes(T::TMA), _t: PhantomData })
    }

    /// A tiled map of `shape` over `buf` (a `&CudaSlice<T::Host>` or `&CudaView`), for
    /// copies that read it. Every parameter is checked first ([`TiledMap::check`]): an
    /// `Err` names the field at fault, and the driver's own refusal comes back as
    /// [`RuntimeError::Driver`].
    pub fn tiled(buf: &'b impl DevicePtr<T::Host>, shape: &TiledMap<R>) -> Result<Self, RuntimeError> {
        Self::encode_tiled(Held::Shared(buf), shape)
    }

    /// A tiled map over `buf` held exclusively, for copies that write it (TMA stores and
    /// reductions); pass it as `&mut map` to make the launch a write of the buffer.
    pub fn tiled_mut(buf: &'b mut impl MapBuffer<T::Host>, shape: &TiledMap<R>) -> Result<Self, RuntimeError> {
        Self::encode_tiled(Held::Exclusive(buf), shape)
    }

    /// An im2col map of `shape` over `buf` (rank 3 to 5), checked as
    /// [`Im2colMap::check`] says.
    pub fn im2col(buf: &'b impl DevicePtr<T::Host>, shape: &Im2colMap<R>) -> Result<Self, RuntimeError> {
        Self::encode_im2col(Held::Shared(buf), shape)
    }

    /// An im2col map over `buf` held exclusively.
    pub fn im2col_mut(buf: &'b mut impl MapBuffer<T::Host>, shape: &Im2colMap<R>) -> Result<Self, RuntimeError> {
        Self::encode_im2col(Held::Exclusive(buf), shape)
    }

    /// The encoded 128 bytes (for a [`ParamBytes<128>`](crate::builder::ParamBytes) kernel
    /// parameter, or to inspect).
    pub fn raw(&self) -> &sys::CUtensorMap {
        &self.raw
    }

    /// Bytes one copy of the map's box fills in shared memory: the transaction count to arm
    /// a load's mbarrier with.
    pub fn box_bytes(&self) -> u64 {
        self.box_bytes
    }
}

fn as_shared<H>(b: &dyn MapBuffer<H>) -> &dyn DevicePtr<H> {
    b
}

/// A tensor map for a [`TensorMap<T, R>`] parameter: the launch reads its 128 bytes in place
/// and records a read of its buffer.
#[diagnostic::do_not_recommend]
impl<'m, 'b, T: TensorElem, const R: usize> HostArg<TensorMap<T, R>> for &'m HostTensorMap<'b, T, R> {
    fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError>
    where
        Self: 'a,
    {
        let buf: &'a dyn DevicePtr<T::Host> = match &self.buf {
            Held::Shared(b) => *b,
            Held::Exclusive(b) => as_shared(&**b),
        };
        list.borrow_reading(&self.raw, buf)
    }
}

/// A tensor map for a [`TensorMap<T, R>`] parameter, passed mutably: the launch records a
/// write of the buffer when the map holds it exclusively ([`HostTensorMap::tiled_mut`]),
/// a read otherwise.
#[diagnostic::do_not_recommend]
impl<'m, 'b, T: TensorElem, const R: usize> HostArg<TensorMap<T, R>> for &'m mut HostTensorMap<'b, T, R> {
    fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError>
    where
        Self: 'a,
    {
        let HostTensorMap { raw, buf, .. } = self;
        match buf {
            Held::Shared(b) => list.borrow_reading(&*raw, *b),
            Held::Exclusive(b) => list.borrow_writing(&*raw, &mut **b),
        }
    }
}
