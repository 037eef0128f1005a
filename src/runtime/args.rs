//! Typed launch arguments: [`HostArg`] says which host value fits a kernel parameter,
//! [`LaunchArgs`] matches a tuple of them to a kernel's parameter tuple, and [`ArgList`]
//! collects the values for the driver.

use super::{CudaContext, CudaSlice, CudaStream, CudaView, CudaViewMut, RuntimeError};
use crate::builder::{ParamBytes, PointerParam};
use crate::ops::{m, Generic};
use crate::regs::{Ptr, Reg};
use crate::types::{self, DataType};
use cudarc::driver::{sys, DevicePtr, DevicePtrMut, DeviceSlice, SyncOnDrop};
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::Arc;

/// Kernels take at most this many parameters (the tuple impls' limit).
pub(super) const MAX_PARAMS: usize = 24;

/// Where each argument of one launch lies, for `cuLaunchKernelEx`'s `kernelParams`: values
/// of up to 8 bytes (scalars, device addresses) are copied into slots held here, larger ones
/// (a [`HostBytes`] block, a tensor map) are borrowed for the launch. Nothing is allocated.
pub(super) struct ArgSlots<'a> {
    /// The copied values, one 8-byte slot per argument.
    copies: [u64; MAX_PARAMS],
    /// Each argument's borrowed bytes, or null where its value is in `copies`.
    borrowed: [*const c_void; MAX_PARAMS],
    len: usize,
    _borrows: PhantomData<&'a [u8]>,
}

impl<'a> ArgSlots<'a> {
    pub(super) fn new() -> ArgSlots<'a> {
        ArgSlots { copies: [0; MAX_PARAMS], borrowed: [std::ptr::null(); MAX_PARAMS], len: 0, _borrows: PhantomData }
    }

    /// The index of the next argument, or an error when the list is full.
    fn next(&mut self) -> Result<usize, RuntimeError> {
        if self.len == MAX_PARAMS {
            return Err(RuntimeError::Invalid(format!("more than {MAX_PARAMS} kernel arguments")));
        }
        self.len += 1;
        Ok(self.len - 1)
    }

    /// Copies `v` into the next slot and returns its index.
    pub(super) fn copy<H: Copy>(&mut self, v: H) -> Result<usize, RuntimeError> {
        const {
            assert!(std::mem::size_of::<H>() <= 8 && std::mem::align_of::<H>() <= 8, "copied kernel arguments are at most 8 bytes");
        }
        let i = self.next()?;
        self.copies[i] = 0;
        // SAFETY: `H` is plain data of at most 8 bytes and alignment at most 8, written to
        // the start of an 8-byte slot.
        unsafe { (&mut self.copies[i] as *mut u64).cast::<H>().write(v) };
        Ok(i)
    }

    /// Takes `v` as the next argument, read in place by the launch, and returns its index.
    pub(super) fn borrow<H>(&mut self, v: &'a H) -> Result<usize, RuntimeError> {
        let i = self.next()?;
        self.borrowed[i] = (v as *const H).cast();
        Ok(i)
    }

    /// The `kernelParams` array: a pointer to each argument, valid while `self` stays where
    /// it is and the borrows last.
    pub(super) fn kernel_params(&mut self) -> [*mut c_void; MAX_PARAMS] {
        let mut params = [std::ptr::null_mut::<c_void>(); MAX_PARAMS];
        for (i, p) in params.iter_mut().enumerate().take(self.len) {
            *p = match self.borrowed[i] {
                b if b.is_null() => (&mut self.copies[i] as *mut u64).cast(),
                b => b.cast_mut(),
            };
        }
        params
    }
}

/// The arguments of one launch, and the buffers' event records that must follow it.
#[doc(hidden)]
pub struct ArgList<'a> {
    stream: &'a CudaStream,
    slots: ArgSlots<'a>,
    /// The event record of each buffer argument, by argument index.
    guards: [Option<SyncOnDrop<'a>>; MAX_PARAMS],
}

impl<'a> ArgList<'a> {
    pub(super) fn new(stream: &'a CudaStream) -> ArgList<'a> {
        ArgList { stream, slots: ArgSlots::new(), guards: [const { None }; MAX_PARAMS] }
    }
    /// See [`ArgSlots::kernel_params`].
    pub(super) fn kernel_params(&mut self) -> [*mut c_void; MAX_PARAMS] {
        self.slots.kernel_params()
    }
    fn same_context<H>(&self, buf: &(impl DeviceSlice<H> + ?Sized)) -> Result<(), RuntimeError> {
        if buf.stream().context() == self.stream.context() {
            Ok(())
        } else {
            Err(RuntimeError::Invalid("a buffer of another CUDA context passed to a kernel".into()))
        }
    }
    fn read<H, D: DevicePtr<H>>(&mut self, buf: &'a D) -> Result<(), RuntimeError> {
        self.same_context(buf)?;
        let (ptr, guard) = buf.device_ptr(self.stream);
        let i = self.slots.copy(ptr)?;
        self.guards[i] = Some(guard);
        Ok(())
    }
    fn write<H, D: DevicePtrMut<H>>(&mut self, buf: &'a mut D) -> Result<(), RuntimeError> {
        self.same_context(buf)?;
        let (ptr, guard) = buf.device_ptr_mut(self.stream);
        let i = self.slots.copy(ptr)?;
        self.guards[i] = Some(guard);
        Ok(())
    }
    /// Takes `bytes` as the next argument, read in place (a tensor map), and records the
    /// launch as a read of `buf`, the memory the bytes point into.
    pub(super) fn borrow_reading<B, H, D: DevicePtr<H> + ?Sized>(&mut self, bytes: &'a B, buf: &'a D) -> Result<(), RuntimeError> {
        self.same_context(buf)?;
        let i = self.slots.borrow(bytes)?;
        let (_, guard) = buf.device_ptr(self.stream);
        self.guards[i] = Some(guard);
        Ok(())
    }
    /// The stream of the launch.
    pub(super) fn stream(&self) -> &'a CudaStream {
        self.stream
    }
    /// Copies a texture or surface object handle of context `ctx` as the next argument,
    /// with the event record of the buffer the object reads, if any.
    pub(super) fn copy_handle(&mut self, handle: u64, ctx: &Arc<CudaContext>, record: Option<SyncOnDrop<'a>>) -> Result<(), RuntimeError> {
        if ctx != self.stream.context() {
            return Err(RuntimeError::Invalid("a texture or surface of another CUDA context passed to a kernel".into()));
        }
        let i = self.slots.copy(handle)?;
        self.guards[i] = record;
        Ok(())
    }
    /// As [`borrow_reading`](Self::borrow_reading), recording a write of `buf`.
    pub(super) fn borrow_writing<B, H, D: DevicePtrMut<H> + ?Sized>(&mut self, bytes: &'a B, buf: &'a mut D) -> Result<(), RuntimeError> {
        self.same_context(buf)?;
        let i = self.slots.borrow(bytes)?;
        let (_, guard) = buf.device_ptr_mut(self.stream);
        self.guards[i] = Some(guard);
        Ok(())
    }
}

/// `N` bytes for a [`ParamBytes<N>`] kernel parameter, aligned as the parameter is (64
/// bytes). The launch reads them in place.
///
/// ```
/// use ptxkit::runtime::HostBytes;
/// let mut b = HostBytes([0u8; 128]);
/// b.0[..4].copy_from_slice(&7u32.to_le_bytes());
/// assert_eq!(std::mem::align_of_val(&b), 64);
/// ```
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HostBytes<const N: usize>(pub [u8; N]);

impl<const N: usize> From<[u8; N]> for HostBytes<N> {
    fn from(bytes: [u8; N]) -> Self {
        HostBytes(bytes)
    }
}

// A tensor map is the 128 bytes, at least 64-byte aligned, that `ParamBytes<128>` declares
// (cudarc's CUDA 13 bindings align it to 128).
const _: () = assert!(std::mem::size_of::<sys::CUtensorMap>() == 128 && std::mem::align_of::<sys::CUtensorMap>() >= 64);

/// A host value that can be passed for a kernel parameter of type `P`: `T::Host` for
/// `Reg<T>`; `&CudaSlice<T::Host>`, `&mut CudaSlice<T::Host>`, `&CudaView<T::Host>` or
/// `&mut CudaViewMut<T::Host>` for `GlobalPtr<T>` and `GenericPtr<T>`; `&HostBytes<N>` for
/// [`ParamBytes<N>`], and a `&CUtensorMap` for `ParamBytes<128>`; `&HostTensorMap<T, R>` or
/// `&mut HostTensorMap<T, R>` for [`TensorMap<T, R>`](crate::builder::TensorMap); a
/// `&TexObject` for a [`Texture`](crate::regs::Texture) and a `&SurfObject` for a
/// [`Surface`](crate::regs::Surface); `T::Host` for a `ParamPtr<T>` the kernel loads itself,
/// and a `&CudaSlice` or `&mut CudaSlice` of any element type for a
/// [`PointerParam`](crate::builder::PointerParam).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for kernel parameter `{P}`",
    label = "wrong host value for this kernel parameter",
    note = "a `Reg<T>` parameter takes a `T::Host` value (`f32` for `Reg<F32>`, `u32` for `Reg<U32>`, `half::f16` for `Reg<F16>`)",
    note = "a `GlobalPtr<T>` or `GenericPtr<T>` parameter takes `&CudaSlice<T::Host>` or `&mut CudaSlice<T::Host>` (or a view) of the same element type",
    note = "a `ParamBytes<N>` parameter takes `&HostBytes<N>`; `ParamBytes<128>` also takes a `&CUtensorMap`",
    note = "a `TensorMap<T, R>` parameter takes `&HostTensorMap<T, R>` or `&mut HostTensorMap<T, R>` of the same element type and rank",
    note = "a `Texture` parameter takes `&TexObject`, a `Surface` parameter `&SurfObject`"
)]
pub trait HostArg<P> {
    #[doc(hidden)]
    fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError>
    where
        Self: 'a;
}

// The impls name each type rather than `T::Host` of a generic `T`: a mismatch then fails as
// "`HostArg` not implemented" with the message above, not as a projection mismatch.

macro_rules! scalar_args {
    ($($t:ident)*) => {$(
        #[diagnostic::do_not_recommend]
        impl HostArg<Reg<types::$t>> for <types::$t as DataType>::Host {
            fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a {
                list.slots.copy(self).map(drop)
            }
        }
        // A scalar the kernel loads itself (`ParamPtr<T>`) takes the same value as `Reg<T>`.
        #[diagnostic::do_not_recommend]
        impl HostArg<Ptr<m::Param, types::$t>> for <types::$t as DataType>::Host {
            fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a {
                list.slots.copy(self).map(drop)
            }
        }
    )*};
}
// Every `ScalarParam` type.
scalar_args!(B8 B16 B32 B64 U8 U16 U32 U64 S8 S16 S32 S64 F32 F64 F16 Bf16 F16x2 Bf16x2);

// A `.ptr` pointer parameter takes a device buffer of any element type: the attribute says
// where it points, not at what.
#[diagnostic::do_not_recommend]
impl<'s, T, S, const A: usize> HostArg<PointerParam<S, A>> for &'s CudaSlice<T> {
    fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError>
    where
        Self: 'a,
    {
        list.read(self)
    }
}
#[diagnostic::do_not_recommend]
impl<'s, T, S, const A: usize> HostArg<PointerParam<S, A>> for &'s mut CudaSlice<T> {
    fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError>
    where
        Self: 'a,
    {
        list.write(self)
    }
}

macro_rules! pointer_args {
    ($($t:ident)*) => {$( pointer_args!(@ m::Global, $t); pointer_args!(@ Generic, $t); )*};
    (@ $space:ty, $t:ident) => {
        #[diagnostic::do_not_recommend]
        impl<'s> HostArg<Ptr<$space, types::$t>> for &'s CudaSlice<<types::$t as DataType>::Host> {
            fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a { list.read(self) }
        }
        #[diagnostic::do_not_recommend]
        impl<'s> HostArg<Ptr<$space, types::$t>> for &'s mut CudaSlice<<types::$t as DataType>::Host> {
            fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a { list.write(self) }
        }
        #[diagnostic::do_not_recommend]
        impl<'s, 'v> HostArg<Ptr<$space, types::$t>> for &'s CudaView<'v, <types::$t as DataType>::Host> {
            fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a { list.read(self) }
        }
        #[diagnostic::do_not_recommend]
        impl<'s, 'v> HostArg<Ptr<$space, types::$t>> for &'s mut CudaViewMut<'v, <types::$t as DataType>::Host> {
            fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a { list.write(self) }
        }
    };
}
// Every data type but `.pred`.
pointer_args!(B8 B16 B32 B64 B128 U8 U16 U32 U64 S8 S16 S32 S64 F16 F16x2 Bf16 Bf16x2 Tf32 F32 F64 F32x2
    E4m3x2 E5m2x2 E2m1x2 E3m2x2 E2m3x2 Ue8m0x2 S2f6x2 Ue5m3x2 E4m3x4 E5m2x4 E2m1x4 E3m2x4 E2m3x4 E4m3 E5m2);

#[diagnostic::do_not_recommend]

impl<'s, const N: usize> HostArg<ParamBytes<N>> for &'s HostBytes<N> {
    fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError>
    where
        Self: 'a,
    {
        list.slots.borrow(self).map(drop)
    }
}

/// A TMA tensor map, as `cuTensorMapEncodeTiled` wrote it, for a 128-byte parameter.
impl<'s> HostArg<ParamBytes<128>> for &'s sys::CUtensorMap {
    fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError>
    where
        Self: 'a,
    {
        list.slots.borrow(self).map(drop)
    }
}

/// A tuple of host values matching a kernel's parameter tuple `P` element by element
/// (see [`HostArg`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not match the kernel's parameters `{P}`",
    label = "these launch arguments do not fit the kernel",
    note = "pass a tuple with one host value per kernel parameter, in order; one parameter takes `(x,)`"
)]
pub trait LaunchArgs<P> {
    #[doc(hidden)]
    fn push_all<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError>
    where
        Self: 'a;
}

macro_rules! launch_args {
    ($(($($a:ident $p:ident),*);)*) => {$(
        impl<$($a: HostArg<$p>, $p),*> LaunchArgs<($($p,)*)> for ($($a,)*) {
            #[allow(non_snake_case, unused_variables)]
            fn push_all<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a {
                let ($($a,)*) = self;
                $($a.push_arg(list)?;)*
                Ok(())
            }
        }
    )*};
}
launch_args! {
    ();
    (A0 P0);
    (A0 P0, A1 P1);
    (A0 P0, A1 P1, A2 P2);
    (A0 P0, A1 P1, A2 P2, A3 P3);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9, A10 P10);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9, A10 P10, A11 P11);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9, A10 P10, A11 P11, A12 P12);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9, A10 P10, A11 P11, A12 P12, A13 P13);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9, A10 P10, A11 P11, A12 P12, A13 P13, A14 P14);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9, A10 P10, A11 P11, A12 P12, A13 P13, A14 P14, A15 P15);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9, A10 P10, A11 P11, A12 P12, A13 P13, A14 P14, A15 P15, A16 P16);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9, A10 P10, A11 P11, A12 P12, A13 P13, A14 P14, A15 P15, A16 P16, A17 P17);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9, A10 P10, A11 P11, A12 P12, A13 P13, A14 P14, A15 P15, A16 P16, A17 P17, A18 P18);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9, A10 P10, A11 P11, A12 P12, A13 P13, A14 P14, A15 P15, A16 P16, A17 P17, A18 P18, A19 P19);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9, A10 P10, A11 P11, A12 P12, A13 P13, A14 P14, A15 P15, A16 P16, A17 P17, A18 P18, A19 P19, A20 P20);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9, A10 P10, A11 P11, A12 P12, A13 P13, A14 P14, A15 P15, A16 P16, A17 P17, A18 P18, A19 P19, A20 P20, A21 P21);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9, A10 P10, A11 P11, A12 P12, A13 P13, A14 P14, A15 P15, A16 P16, A17 P17, A18 P18, A19 P19, A20 P20, A21 P21, A22 P22);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9, A10 P10, A11 P11, A12 P12, A13 P13, A14 P14, A15 P15, A16 P16, A17 P17, A18 P18, A19 P19, A20 P20, A21 P21, A22 P22, A23 P23);
}
