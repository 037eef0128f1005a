//! Typed launch arguments: [`HostArg`] says which host value fits a kernel parameter,
//! [`LaunchArgs`] matches a tuple of them to a kernel's parameter tuple, and [`ArgList`]
//! collects the values for the driver.

use super::{CudaSlice, CudaStream, CudaView, CudaViewMut, RuntimeError};
use crate::ops::{m, Generic};
use crate::regs::{Ptr, Reg};
use crate::types::{self, DataType};
use cudarc::driver::{DevicePtr, DevicePtrMut, DeviceSlice, SyncOnDrop};
use std::ffi::c_void;

/// Kernels take at most this many parameters (the tuple impls' limit).
const MAX_PARAMS: usize = 12;

/// The argument values of one launch, and the buffers' event records that must follow it.
#[doc(hidden)]
pub struct ArgList<'a> {
    stream: &'a CudaStream,
    values: [u64; MAX_PARAMS],
    len: usize,
    guards: Vec<SyncOnDrop<'a>>,
}

impl<'a> ArgList<'a> {
    pub(super) fn new(stream: &'a CudaStream) -> ArgList<'a> {
        ArgList { stream, values: [0; MAX_PARAMS], len: 0, guards: Vec::new() }
    }
    /// The `kernelParams` array: a pointer to each value pushed, valid while `self` stays
    /// where it is.
    pub(super) fn kernel_params(&mut self) -> [*mut c_void; MAX_PARAMS] {
        let mut params = [std::ptr::null_mut::<c_void>(); MAX_PARAMS];
        for (p, v) in params.iter_mut().zip(self.values.iter_mut()).take(self.len) {
            *p = (v as *mut u64).cast();
        }
        params
    }
    fn value<H: Copy>(&mut self, v: H) {
        const { assert!(std::mem::size_of::<H>() <= 8, "kernel parameter values are at most 8 bytes") };
        let slot = &mut self.values[self.len];
        // SAFETY: `H` is plain data of at most 8 bytes, copied into an 8-byte slot.
        unsafe { std::ptr::copy_nonoverlapping((&v as *const H).cast::<u8>(), (slot as *mut u64).cast::<u8>(), std::mem::size_of::<H>()) };
        self.len += 1;
    }
    fn same_context<H>(&self, buf: &impl DeviceSlice<H>) -> Result<(), RuntimeError> {
        if buf.stream().context() == self.stream.context() {
            Ok(())
        } else {
            Err(RuntimeError::Invalid("a buffer of another CUDA context passed to a kernel".into()))
        }
    }
    fn read<H, D: DevicePtr<H>>(&mut self, buf: &'a D) -> Result<(), RuntimeError> {
        self.same_context(buf)?;
        let (ptr, guard) = buf.device_ptr(self.stream);
        self.guards.push(guard);
        self.value(ptr);
        Ok(())
    }
    fn write<H, D: DevicePtrMut<H>>(&mut self, buf: &'a mut D) -> Result<(), RuntimeError> {
        self.same_context(buf)?;
        let (ptr, guard) = buf.device_ptr_mut(self.stream);
        self.guards.push(guard);
        self.value(ptr);
        Ok(())
    }
}

/// A host value that can be passed for a kernel parameter of type `P`: `T::Host` for
/// `Reg<T>`; `&CudaSlice<T::Host>`, `&mut CudaSlice<T::Host>`, `&CudaView<T::Host>` or
/// `&mut CudaViewMut<T::Host>` for `GlobalPtr<T>` and `GenericPtr<T>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for kernel parameter `{P}`",
    label = "wrong host value for this kernel parameter",
    note = "a `Reg<T>` parameter takes a `T::Host` value (`f32` for `Reg<F32>`, `u32` for `Reg<U32>`, `half::f16` for `Reg<F16>`)",
    note = "a `GlobalPtr<T>` or `GenericPtr<T>` parameter takes `&CudaSlice<T::Host>` or `&mut CudaSlice<T::Host>` (or a view) of the same element type"
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
        impl HostArg<Reg<types::$t>> for <types::$t as DataType>::Host {
            fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a {
                list.value(self);
                Ok(())
            }
        }
    )*};
}
// Every `ScalarParam` type.
scalar_args!(B8 B16 B32 B64 U8 U16 U32 U64 S8 S16 S32 S64 F32 F64 F16 Bf16 F16x2 Bf16x2);

macro_rules! pointer_args {
    ($($t:ident)*) => {$( pointer_args!(@ m::Global, $t); pointer_args!(@ Generic, $t); )*};
    (@ $space:ty, $t:ident) => {
        impl<'s> HostArg<Ptr<$space, types::$t>> for &'s CudaSlice<<types::$t as DataType>::Host> {
            fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a { list.read(self) }
        }
        impl<'s> HostArg<Ptr<$space, types::$t>> for &'s mut CudaSlice<<types::$t as DataType>::Host> {
            fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a { list.write(self) }
        }
        impl<'s, 'v> HostArg<Ptr<$space, types::$t>> for &'s CudaView<'v, <types::$t as DataType>::Host> {
            fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a { list.read(self) }
        }
        impl<'s, 'v> HostArg<Ptr<$space, types::$t>> for &'s mut CudaViewMut<'v, <types::$t as DataType>::Host> {
            fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a { list.write(self) }
        }
    };
}
// Every data type but `.pred`.
pointer_args!(B8 B16 B32 B64 B128 U8 U16 U32 U64 S8 S16 S32 S64 F16 F16x2 Bf16 Bf16x2 Tf32 F32 F64 F32x2
    E4m3x2 E5m2x2 E2m1x2 E3m2x2 E2m3x2 Ue8m0x2 E4m3x4 E5m2x4 E2m1x4 E3m2x4 E2m3x4);

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
}
