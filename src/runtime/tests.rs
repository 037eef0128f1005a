//! Tests of the runtime's internals that need no GPU: launch validation, medians, argument
//! slots. Loading and launching are tested on the GPU in tests/device/runtime.rs.

use super::*;
use crate::prelude::*;
use cudarc::driver::sys;

#[test]
fn launch_validation() {
    assert!(Launch::new(4, 256).validate().is_ok());
    assert!(Launch::new((4, 0), 256).validate().is_err());
    assert!(Launch::cover(0, 256).validate().is_err());
    assert!(Launch::new(4, (32, 33)).validate().is_err());
    assert!(Launch::new(4, 256).cluster(2).validate().is_ok());
    assert!(Launch::new(4, 256).cluster(3).validate().is_err());
    assert!(Launch::new(4, 256).cluster((1, 0, 1)).validate().is_err());
    assert_eq!(Launch::cover(1000, 256).grid, Dim3 { x: 4, y: 1, z: 1 });
}

#[test]
fn medians() {
    assert_eq!(median(&[]), None);
    assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
}

/// Host values that fit the parameter tuple `P` (a compile-time check).
fn fits<P, A: LaunchArgs<P>>() {}

#[test]
fn argument_slots() {
    use super::args::{ArgSlots, MAX_PARAMS};
    use crate::builder::ParamBytes;
    fits::<(ParamBytes<128>, GlobalPtr<U32>, Reg<U32>), (&HostBytes<128>, &mut CudaSlice<u32>, u32)>();
    fits::<(ParamBytes<128>,), (&sys::CUtensorMap,)>();
    fits::<(ParamBytes<4>, Reg<F64>), (&HostBytes<4>, f64)>();
    // The parameters of imported kernels: `.ptr` pointers and scalars loaded by the kernel.
    use crate::builder::PointerParam;
    use crate::ops::m;
    use crate::regs::ParamPtr;
    fits::<(PointerParam<m::Global, 16>, PointerParam<crate::ops::Generic, 1>, ParamPtr<U32>), (&CudaSlice<f32>, &mut CudaSlice<u8>, u32)>(
    );

    let bytes = HostBytes(std::array::from_fn::<u8, 128, _>(|i| i as u8));
    let mut slots = ArgSlots::new();
    assert_eq!(slots.borrow(&bytes).unwrap(), 0);
    assert_eq!(slots.copy(0xdead_beef_u32).unwrap(), 1);
    assert_eq!(slots.copy(-2.5f64).unwrap(), 2);
    assert_eq!(slots.copy(7u8).unwrap(), 3);
    let params = slots.kernel_params();
    assert_eq!(params[0].cast_const(), (&bytes as *const HostBytes<128>).cast());
    // SAFETY: each pointer addresses the value pushed at its index, of its type.
    unsafe {
        assert_eq!(*params[1].cast::<u32>(), 0xdead_beef);
        assert_eq!(*params[2].cast::<f64>(), -2.5);
        assert_eq!(*params[3].cast::<u8>(), 7);
    }
    assert!(params[4..].iter().all(|p| p.is_null()));

    // Tuples stop at MAX_PARAMS arguments; past that, a push is an error, not a panic.
    let mut full = ArgSlots::new();
    for i in 0..MAX_PARAMS as u32 {
        full.copy(i).unwrap();
    }
    assert!(matches!(full.copy(0u64), Err(RuntimeError::Invalid(_))));
    assert!(matches!(full.borrow(&bytes), Err(RuntimeError::Invalid(_))));
    assert!(full.kernel_params().iter().all(|p| !p.is_null()));
}
