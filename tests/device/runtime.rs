//! The runtime on the GPU: load and launch with the JIT time, the JIT log of a refused
//! module, dynamic shared memory past the 48 KiB opt-in, cluster launches, event timing and
//! device copies.

use super::*;
use ptxkit::runtime::cudarc::driver::sys;
use ptxkit::runtime::RuntimeError;
use std::time::Duration;

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

fn add1_roundtrip(gpu: Gpu) {
    let (m, k) = add1(Target::SM_80);
    let ptx = m.to_ptx().unwrap();
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

/// A module assembled ahead of time (`ptxas::compile`) loads as a cubin and runs like the
/// JIT's; bytes that are not a cubin, and a PTX ISA newer than the driver's JIT knows, are
/// refused with errors that say so.
fn cubins_load_like_ptx(gpu: Gpu) {
    let target = target(&gpu);
    let (m, k) = add1(target);
    let px = ptxas("cubins_load_like_ptx");
    let c = ptxkit::ptxas::compile(&px, &m.to_ptx().unwrap(), target, &Default::default()).unwrap();
    c.report.check_clean(None).unwrap();
    let add1 = gpu.load_cubin(&c.cubin).unwrap().kernel(&k).unwrap();
    let mut g = rng("cubins_load_like_ptx");
    let xs: Vec<u32> = (0..1000).map(|_| rand::Rng::gen::<u32>(&mut g) >> 1).collect();
    let x = gpu.upload(&xs).unwrap();
    let mut y = poisoned::<u32>(&gpu, 1024).unwrap();
    add1.launch(&Launch::cover(1000, 256), (&x, &mut y, 1000u32)).unwrap();
    let y = gpu.download(&y).unwrap();
    check("add1 from a cubin", |i| xs[i], &y[..1000], &xs.iter().map(|v| v + 1).collect::<Vec<_>>());
    assert!(y[1000..].iter().all(|&v| v == u32::MAX), "threads past n wrote");
    let e = gpu.load_cubin(b"not an ELF image").unwrap_err();
    assert!(e.to_string().contains("not a cubin"), "{e}");
    // A `.version` no released driver of this test's era knows.
    let newer =
        m.to_ptx().unwrap().lines().map(|l| if l.starts_with(".version ") { ".version 99.0" } else { l }).collect::<Vec<_>>().join("\n");
    let e = gpu.load(&newer).unwrap_err();
    assert_eq!(e.code, sys::CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "{e}");
    assert!(e.to_string().contains("does not know this PTX ISA version"), "{e}");
    println!(
        "cubins_load_like_ptx: {} bytes of cubin from ptxas {}; a newer ISA: {}",
        c.cubin.len(),
        ptxkit::ptxas::version(&px).unwrap(),
        e.to_string().lines().next().unwrap()
    );
}

fn jit_errors_carry_the_log(gpu: Gpu) {
    let e = gpu.load(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { bogus.u32 %r1; }").unwrap_err();
    assert_eq!(e.code, sys::CUresult::CUDA_ERROR_INVALID_PTX);
    assert!(e.error_log.contains("bogus"), "error log: {}", e.error_log);
    assert!(e.to_string().contains("CUDA_ERROR_INVALID_PTX"));
}

fn large_dynamic_shared_memory(gpu: Gpu) {
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
    let mirror = gpu.load(&ptx).unwrap().kernel(&k).unwrap();
    let mut out = poisoned::<u32>(&gpu, 256).unwrap();
    mirror.launch(&Launch::new(1, 256).shared(WORDS * 4), (&mut out,)).unwrap();
    assert_eq!(gpu.download(&out).unwrap(), (0..256u32).rev().collect::<Vec<_>>());
    let too_much = Launch::new(1, 256).shared(gpu.max_shared_bytes() + 1);
    assert!(matches!(mirror.launch(&too_much, (&mut out,)), Err(RuntimeError::Invalid(_))));
}

fn cluster_launch(gpu: Gpu) {
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
    if gpu.compute_capability().0 < 9 {
        skip(format!("compute capability {:?} has no clusters", gpu.compute_capability()));
    }
    let ranks = gpu.load(&ptx).unwrap().kernel(&k).unwrap();
    let mut out = poisoned::<u32>(&gpu, 8 * 32).unwrap();
    ranks.launch(&Launch::new(8, 32).cluster(2), (&mut out,)).unwrap();
    let out = gpu.download(&out).unwrap();
    assert!(out.iter().enumerate().all(|(i, &v)| v == 2 * 16 + (i as u32 / 32) % 2), "{out:?}");
}

fn timing_and_copies(gpu: Gpu) {
    let (m, k) = add1(Target::SM_80);
    let ptx = m.to_ptx().unwrap();
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

/// A kernel as nvcc writes it: `y[i] = x[i] * 3 + 7` for `i < n`.
const NVCC_KERNEL: &str = ".version 8.0
.target sm_80
.address_size 64

.visible .entry axpb(
	.param .u64 axpb_param_0,
	.param .u64 axpb_param_1,
	.param .u32 axpb_param_2
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<9>;
	.reg .b64 	%rd<8>;

	ld.param.u64 	%rd1, [axpb_param_0];
	ld.param.u64 	%rd2, [axpb_param_1];
	ld.param.u32 	%r2, [axpb_param_2];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.u32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd3, %rd1;
	mul.wide.u32 	%rd4, %r1, 4;
	add.s64 	%rd5, %rd3, %rd4;
	ld.global.u32 	%r6, [%rd5];
	mad.lo.s32 	%r7, %r6, 3, 7;
	cvta.to.global.u64 	%rd6, %rd2;
	add.s64 	%rd7, %rd6, %rd4;
	st.global.u32 	[%rd7], %r7;
$L__BB0_2:
	ret;
}
";

/// PTX text made elsewhere, imported (`Module::from_ptx`) beside a kernel of the builder,
/// loads as one module; both kernels run and compute what they should.
fn imported_ptx_runs_beside_builder_kernels(gpu: Gpu) {
    let mut m = Module::from_ptx(NVCC_KERNEL).unwrap();
    let forms = m.body("axpb").unwrap().instruction_forms().count();
    assert_eq!(forms, 18, "every instruction of the text is a typed statement");
    let twice = m
        .kernel("twice", |k, (x, y, n): (GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>)| {
            let i = k.global_thread_index_x();
            let inb = ptx!(k, "setp.lt.u32", i, n);
            k.if_(inb, |k| {
                let v = ptx!(k, "ld.global.u32", x.at(i));
                let r = ptx!(k, "shl.b32", v, 1u32);
                ptx!(k, "st.global.u32", y.at(i), r);
            });
        })
        .unwrap();
    let text = m.to_ptx().unwrap();
    let module = gpu.load(&text).unwrap();
    let axpb = KernelRef::<(GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>)>::from_ptx(&text, "axpb").unwrap();
    let (axpb, twice) = (module.kernel(&axpb).unwrap(), module.kernel(&twice).unwrap());
    let mut g = rng("imported_ptx_runs_beside_builder_kernels");
    let n = 100_003usize;
    let xs: Vec<u32> = (0..n).map(|_| rand::Rng::gen::<u32>(&mut g)).collect();
    let x = gpu.upload(&xs).unwrap();
    let (mut y1, mut y2) = (poisoned::<u32>(&gpu, n + 64).unwrap(), poisoned::<u32>(&gpu, n + 64).unwrap());
    axpb.launch(&Launch::cover(n as u32, 256), (&x, &mut y1, n as u32)).unwrap();
    twice.launch(&Launch::cover(n as u32, 256), (&x, &mut y2, n as u32)).unwrap();
    let (y1, y2) = (gpu.download(&y1).unwrap(), gpu.download(&y2).unwrap());
    let want1: Vec<u32> = xs.iter().map(|v| v.wrapping_mul(3).wrapping_add(7)).collect();
    let want2: Vec<u32> = xs.iter().map(|v| v.wrapping_shl(1)).collect();
    check("the imported kernel", |i| xs[i], &y1[..n], &want1);
    check("the builder's kernel", |i| xs[i], &y2[..n], &want2);
    assert!(y1[n..].iter().chain(&y2[n..]).all(|&v| v == u32::MAX), "threads past n wrote");
}

/// A kernel that loads its own parameters, as imported and generated code does: `.ptr`
/// pointers (`PointerParam`) and a scalar (`ParamPtr`), launched with typed host values.
fn kernels_loading_their_own_parameters_launch(gpu: Gpu) {
    use ptxkit::builder::PointerParam;
    let mut m = Module::new(target(&gpu));
    type P = (PointerParam<m::Global, 4>, PointerParam<m::Global, 4>, ParamPtr<U32>);
    let k = m
        .kernel("flip", |k, (x, y, n): P| {
            let (xa, ya) = (ptx!(k, "ld.param.u64", x.ptr()), ptx!(k, "ld.param.u64", y.ptr()));
            let n = ptx!(k, "ld.param.u32", n);
            let (xg, yg) = (ptx!(k, "cvta.to.global.u64", xa), ptx!(k, "cvta.to.global.u64", ya));
            let (x, y) = (GlobalPtr::<U32>::from_reg(xg), GlobalPtr::<U32>::from_reg(yg));
            let i = k.global_thread_index_x();
            let inb = ptx!(k, "setp.lt.u32", i, n);
            k.if_(inb, |k| {
                let v = ptx!(k, "ld.global.u32", x.at(i));
                let r = ptx!(k, "xor.b32", v, 0x5555_5555u32);
                ptx!(k, "st.global.u32", y.at(i), r);
            });
        })
        .unwrap();
    assert!(m.to_ptx().unwrap().contains(".param .u64 .ptr .global .align 4 flip_param_0"));
    let module = load(&gpu, &m);
    let flip = module.kernel(&k).unwrap();
    let mut g = rng("kernels_loading_their_own_parameters_launch");
    let n = 70_001usize;
    let xs: Vec<u32> = (0..n).map(|_| rand::Rng::gen::<u32>(&mut g)).collect();
    let x = gpu.upload(&xs).unwrap();
    let mut y = poisoned::<u32>(&gpu, n + 64).unwrap();
    flip.launch(&Launch::cover(n as u32, 256), (&x, &mut y, n as u32)).unwrap();
    let y = gpu.download(&y).unwrap();
    check("flip", |i| xs[i], &y[..n], &xs.iter().map(|v| v ^ 0x5555_5555).collect::<Vec<_>>());
    assert!(y[n..].iter().all(|&v| v == u32::MAX), "threads past n wrote");
}

pub const TESTS: &[Test] = &[
    gpu!(imported_ptx_runs_beside_builder_kernels),
    gpu!(kernels_loading_their_own_parameters_launch),
    gpu!(add1_roundtrip),
    gpu!(jit_errors_carry_the_log),
    gpu!(cubins_load_like_ptx),
    gpu!(large_dynamic_shared_memory),
    gpu!(cluster_launch),
    gpu!(timing_and_copies),
];
