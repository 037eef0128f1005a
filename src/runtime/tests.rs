//! Tests of the runtime: launch validation and medians run anywhere; the rest load and
//! launch kernels, and print a skip where there is no GPU.

use super::testing::{gpu_or_skip, poisoned};
use super::*;
use crate::prelude::*;
use cudarc::driver::sys;
use std::time::Duration;

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

type Add1 = KernelRef<(GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>)>;

/// `y[i] = x[i] + 1` for `i < n`.
fn add1(target: Target) -> (Module, Add1) {
    let mut m = Module::new(target);
    let k = m
        .kernel("add1", |k, (x, y, n): (GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>)| {
            let i = k.global_thread_index_x();
            let inb = ptx!(k, "setp.lt.u32", i, n);
            k.if_(inb, |k| {
                let v = ptx!(k, "ld.global.u32", x.at(i));
                let r = ptx!(k, "add.u32", v, 1u32);
                ptx!(k, "st.global.u32", y.at(i), r);
            });
        })
        .unwrap();
    (m, k)
}

#[test]
fn add1_roundtrip() {
    let (m, k) = add1(Target::SM_80);
    let ptx = m.to_ptx().unwrap();
    let Some(gpu) = gpu_or_skip("add1_roundtrip") else { return };
    let module = gpu.load(&ptx).unwrap();
    assert!(module.jit_time() > Duration::ZERO);
    let add1 = module.kernel(&k).unwrap();
    let x = gpu.upload(&(0..1000u32).collect::<Vec<_>>()).unwrap();
    let mut y = poisoned::<u32>(&gpu, 1024).unwrap();
    add1.launch(&Launch::cover(1000, 256), (&x, &mut y, 1000u32)).unwrap();
    let y = gpu.download(&y).unwrap();
    assert!((0..1000).all(|i| y[i] == i as u32 + 1));
    assert!(y[1000..].iter().all(|&v| v == u32::MAX), "threads past n wrote");
}

#[test]
fn jit_errors_carry_the_log() {
    let Some(gpu) = gpu_or_skip("jit_errors_carry_the_log") else { return };
    let e = gpu.load(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { bogus.u32 %r1; }").unwrap_err();
    assert_eq!(e.code, sys::CUresult::CUDA_ERROR_INVALID_PTX);
    assert!(e.error_log.contains("bogus"), "error log: {}", e.error_log);
    assert!(e.to_string().contains("CUDA_ERROR_INVALID_PTX"));
}

#[test]
fn large_dynamic_shared_memory() {
    const WORDS: u32 = 24 * 1024; // 96 KiB: past the 48 KiB that needs no opt-in
    const BASE: u32 = WORDS - 256;
    let mut m = Module::new(Target::SM_80);
    let k = m
        .kernel("mirror", |k, (out,): (GlobalPtr<U32>,)| {
            let smem = k.dynamic_shared::<U32>();
            let t = ptx!(k, "mov.u32", sreg::TID_X);
            let at = ptx!(k, "add.u32", t, BASE);
            ptx!(k, "st.shared.u32", smem.at(at), t);
            ptx!(k, "bar.sync", 0u32);
            let back = ptx!(k, "sub.u32", WORDS - 1, t);
            let v = ptx!(k, "ld.shared.u32", smem.at(back));
            ptx!(k, "st.global.u32", out.at(t), v);
        })
        .unwrap();
    let ptx = m.to_ptx().unwrap();
    let Some(gpu) = gpu_or_skip("large_dynamic_shared_memory") else { return };
    let mirror = gpu.load(&ptx).unwrap().kernel(&k).unwrap();
    let mut out = poisoned::<u32>(&gpu, 256).unwrap();
    mirror.launch(&Launch::new(1, 256).shared(WORDS * 4), (&mut out,)).unwrap();
    assert_eq!(gpu.download(&out).unwrap(), (0..256u32).rev().collect::<Vec<_>>());
    let too_much = Launch::new(1, 256).shared(gpu.max_shared_bytes() + 1);
    assert!(matches!(mirror.launch(&too_much, (&mut out,)), Err(RuntimeError::Invalid(_))));
}

#[test]
fn cluster_launch() {
    let mut m = Module::new(Target::SM_90);
    let k = m
        .kernel("ranks", |k, (out,): (GlobalPtr<U32>,)| {
            let i = k.global_thread_index_x();
            let n = ptx!(k, "mov.u32", sreg::CLUSTER_NCTARANK);
            let r = ptx!(k, "mov.u32", sreg::CLUSTER_CTARANK);
            let v = ptx!(k, "mad.lo.u32", n, 16u32, r);
            ptx!(k, "st.global.u32", out.at(i), v);
        })
        .unwrap();
    let ptx = m.to_ptx().unwrap();
    let Some(gpu) = gpu_or_skip("cluster_launch") else { return };
    if gpu.compute_capability().0 < 9 {
        eprintln!("skipped cluster_launch: compute capability {:?} has no clusters", gpu.compute_capability());
        return;
    }
    let ranks = gpu.load(&ptx).unwrap().kernel(&k).unwrap();
    let mut out = poisoned::<u32>(&gpu, 8 * 32).unwrap();
    ranks.launch(&Launch::new(8, 32).cluster(2), (&mut out,)).unwrap();
    let out = gpu.download(&out).unwrap();
    assert!(out.iter().enumerate().all(|(i, &v)| v == 2 * 16 + (i as u32 / 32) % 2), "{out:?}");
}

#[test]
fn timing_and_copies() {
    let (m, k) = add1(Target::SM_80);
    let ptx = m.to_ptx().unwrap();
    let Some(gpu) = gpu_or_skip("timing_and_copies") else { return };
    let add1 = gpu.load(&ptx).unwrap().kernel(&k).unwrap();
    let n = 1u32 << 20;
    let x = gpu.zeros::<u32>(n as usize).unwrap();
    let mut y = gpu.zeros::<u32>(n as usize).unwrap();
    let ms = gpu.time(|| add1.launch(&Launch::cover(n, 256), (&x, &mut y, n))).unwrap();
    assert!(ms > 0.0);
    let times = gpu.bench(2, 5, || add1.launch(&Launch::cover(n, 256), (&x, &mut y, n))).unwrap();
    assert_eq!(times.len(), 5);
    assert!(times.iter().all(|&t| t > 0.0));
    let mut z = poisoned::<u32>(&gpu, n as usize).unwrap();
    gpu.memcpy_dtod(&y, &mut z).unwrap();
    assert!(gpu.download(&z).unwrap().iter().all(|&v| v == 1));
    let mut short = gpu.zeros::<u32>(4).unwrap();
    assert!(matches!(gpu.memcpy_dtod(&y, &mut short), Err(RuntimeError::Invalid(_))));
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
