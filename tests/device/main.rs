//! Device semantics: kernels built with the builder, run on the GPU on fresh random inputs
//! (the seed is printed), compared with a CPU reference, bit-exact where PTX defines the
//! result. Outputs are poisoned before every launch.
//!
//! The runner is `tests/common/harness.rs` (`harness = false`): each file lists its tests
//! in `pub const TESTS` (`gpu!(f)` for `fn f(gpu: Gpu)`, `host!(f)` for `fn f()`), and
//! `main` below lists the files. Without a GPU the GPU tests are reported as ignored, with
//! the reason; with `PTXKIT_REQUIRE_GPU=1` they fail. Under `PTXKIT_SANITIZE=1` (the
//! compute-sanitizer run) the slowest tests take smaller sizes; see [`sanitizing`].

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod arith;
mod async_copy;
mod atomics;
mod attention;
mod barrier_red;
mod bits;
mod cluster;
mod cmp_cvt;
mod forensics;
mod gemm;
mod gemm_fp8;
mod gemm_mma;
mod gemm_model;
mod gemm_skinny;
mod gemm_strided;
mod gemm_tcgen05;
mod gemm_tune;
mod guards;
mod integer;
mod intrinsics;
mod isa_newer;
mod launch_control;
mod ldst;
mod malformed;
mod matrix;
mod memory;
mod minifloat;
mod mma;
mod mma_kinds;
mod params;
mod pipeline;
mod reference;
mod runtime;
mod setmaxnreg;
mod shipped;
mod stack;
mod tcgen05_alloc;
mod tcgen05_copy;
mod tcgen05_kinds;
mod tcgen05_red;
mod tcgen05_tmem;
mod texture;
mod timeline;
mod tma;
mod video;
mod video_ref;
mod warp;
mod wgmma;
mod wmma;

pub use common::harness::{skip, Test};
pub use common::ptxas;
use ptxkit::ops::access::{Load, Store};
use ptxkit::ops::m;
use ptxkit::prelude::*;
use ptxkit::runtime::testing::poisoned;
use ptxkit::runtime::{CudaSlice, Elem, Gpu, Launch, LaunchArgs};
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::fmt::Debug;

/// Elements per elementwise test.
pub const N: usize = 1 << 16;

/// A seeded generator; the seed is fresh each run unless `PTXKIT_SEED` fixes it.
pub fn rng(test: &str) -> StdRng {
    let seed: u64 = std::env::var("PTXKIT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random);
    println!("{test}: seed {seed} (PTXKIT_SEED={seed} replays it)");
    StdRng::seed_from_u64(seed)
}

/// The module target for the GPU at hand.
pub fn target(gpu: &Gpu) -> Target {
    gpu.target().unwrap_or(Target::SM_80)
}

/// Builds, loads and returns a module's text-checked kernel; panics with the JIT log.
pub fn load(gpu: &Gpu, m: &Module) -> ptxkit::runtime::LoadedModule {
    let text = m.to_ptx().unwrap_or_else(|e| panic!("{e}"));
    gpu.load(&text).unwrap_or_else(|e| panic!("JIT rejected the module: {e}\n{text}"))
}

/// Values compared bit for bit.
pub trait Exact: Copy + Debug {
    fn same(&self, o: &Self) -> bool;
}
macro_rules! exact_eq { ($($t:ty)*) => {$(impl Exact for $t { fn same(&self, o: &Self) -> bool { self == o } })*}; }
exact_eq!(u8 u16 u32 u64 i8 i16 i32 i64);
impl Exact for f32 {
    fn same(&self, o: &Self) -> bool {
        self.to_bits() == o.to_bits()
    }
}
impl Exact for f64 {
    fn same(&self, o: &Self) -> bool {
        self.to_bits() == o.to_bits()
    }
}
impl Exact for half::f16 {
    fn same(&self, o: &Self) -> bool {
        self.to_bits() == o.to_bits()
    }
}
impl Exact for half::bf16 {
    fn same(&self, o: &Self) -> bool {
        self.to_bits() == o.to_bits()
    }
}

/// Panics naming the first mismatching element, its inputs, and how many differ.
pub fn check<T: Exact, I: Debug>(what: &str, inputs: impl Fn(usize) -> I, got: &[T], want: &[T]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let bad: Vec<usize> = (0..got.len()).filter(|&i| !got[i].same(&want[i])).collect();
    if let Some(&i) = bad.first() {
        panic!(
            "{what}: {} of {} elements differ; first at {i}: inputs {:?}, GPU {:?}, CPU {:?}",
            bad.len(),
            got.len(),
            inputs(i),
            got[i],
            want[i]
        );
    }
}

type P3<A, B, R> = (GlobalPtr<A>, GlobalPtr<B>, GlobalPtr<R>, Reg<U32>);

/// `out[i] = f(a[i], b[i])` on the GPU.
pub fn map2<A, B, R>(gpu: &Gpu, a: &[A::Host], b: &[B::Host], f: impl FnOnce(&mut Kernel, Reg<A>, Reg<B>) -> Reg<R>) -> Vec<R::Host>
where
    A: Load<(), m::Global>,
    B: Load<(), m::Global>,
    R: Store<(), m::Global>,
    A::Host: Elem,
    B::Host: Elem,
    R::Host: Elem,
    for<'x> (&'x CudaSlice<A::Host>, &'x CudaSlice<B::Host>, &'x mut CudaSlice<R::Host>, u32): LaunchArgs<P3<A, B, R>>,
{
    map2_on(gpu, target(gpu), a, b, f)
}

/// [`map2`] with the module built for `target` (an architecture-specific one, say).
pub fn map2_on<A, B, R>(
    gpu: &Gpu,
    target: Target,
    a: &[A::Host],
    b: &[B::Host],
    f: impl FnOnce(&mut Kernel, Reg<A>, Reg<B>) -> Reg<R>,
) -> Vec<R::Host>
where
    A: Load<(), m::Global>,
    B: Load<(), m::Global>,
    R: Store<(), m::Global>,
    A::Host: Elem,
    B::Host: Elem,
    R::Host: Elem,
    for<'x> (&'x CudaSlice<A::Host>, &'x CudaSlice<B::Host>, &'x mut CudaSlice<R::Host>, u32): LaunchArgs<P3<A, B, R>>,
{
    let mut m = Module::new(target);
    let kr = m
        .kernel("map2", |k, (x, y, out, n): P3<A, B, R>| {
            let i = k.global_thread_index_x();
            let inb = ptx!(k, "setp.lt.u32", i, n);
            k.if_(inb, |k| {
                let (u, v) = (k.ld(x.at(i)), k.ld(y.at(i)));
                let r = f(k, u, v);
                k.st(out.at(i), r);
            });
        })
        .unwrap();
    let module = load(gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let (da, db) = (gpu.upload(a).unwrap(), gpu.upload(b).unwrap());
    let mut out = poisoned::<R::Host>(gpu, a.len()).unwrap();
    kern.launch(&Launch::cover(a.len() as u32, 256), (&da, &db, &mut out, a.len() as u32)).unwrap();
    gpu.download(&out).unwrap()
}

/// `out[i] = f(a[i])` on the GPU.
pub fn map1<A, R>(gpu: &Gpu, a: &[A::Host], f: impl FnOnce(&mut Kernel, Reg<A>) -> Reg<R>) -> Vec<R::Host>
where
    A: Load<(), m::Global>,
    R: Store<(), m::Global>,
    A::Host: Elem,
    R::Host: Elem,
    for<'x> (&'x CudaSlice<A::Host>, &'x CudaSlice<A::Host>, &'x mut CudaSlice<R::Host>, u32): LaunchArgs<P3<A, A, R>>,
{
    map2::<A, A, R>(gpu, a, a, |k, x, _| f(k, x))
}

/// `out[i] = f(a[i], b[i], c[i])` on the GPU (all inputs of one type).
pub fn map3<A, R>(
    gpu: &Gpu,
    a: &[A::Host],
    b: &[A::Host],
    c: &[A::Host],
    f: impl FnOnce(&mut Kernel, Reg<A>, Reg<A>, Reg<A>) -> Reg<R>,
) -> Vec<R::Host>
where
    A: Load<(), m::Global>,
    R: Store<(), m::Global>,
    A::Host: Elem,
    R::Host: Elem,
    for<'x> (&'x CudaSlice<A::Host>, &'x CudaSlice<A::Host>, &'x CudaSlice<A::Host>, &'x mut CudaSlice<R::Host>, u32):
        LaunchArgs<(GlobalPtr<A>, GlobalPtr<A>, GlobalPtr<A>, GlobalPtr<R>, Reg<U32>)>,
{
    let mut m = Module::new(target(gpu));
    let kr = m
        .kernel("map3", |k, (x, y, z, out, n): (GlobalPtr<A>, GlobalPtr<A>, GlobalPtr<A>, GlobalPtr<R>, Reg<U32>)| {
            let i = k.global_thread_index_x();
            let inb = ptx!(k, "setp.lt.u32", i, n);
            k.if_(inb, |k| {
                let (u, v, w) = (k.ld(x.at(i)), k.ld(y.at(i)), k.ld(z.at(i)));
                let r = f(k, u, v, w);
                k.st(out.at(i), r);
            });
        })
        .unwrap();
    let module = load(gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let (da, db, dc) = (gpu.upload(a).unwrap(), gpu.upload(b).unwrap(), gpu.upload(c).unwrap());
    let mut out = poisoned::<R::Host>(gpu, a.len()).unwrap();
    kern.launch(&Launch::cover(a.len() as u32, 256), (&da, &db, &dc, &mut out, a.len() as u32)).unwrap();
    gpu.download(&out).unwrap()
}

/// Whether the suite runs under compute-sanitizer (`PTXKIT_SANITIZE=1`): the tests whose
/// sizes make the sanitizer's instrumented run too slow take [`sized`]'s smaller size. Every
/// test still runs, and checks what it runs.
pub fn sanitizing() -> bool {
    std::env::var("PTXKIT_SANITIZE").as_deref() == Ok("1")
}

/// `normal`, or `small` under [`sanitizing`].
pub fn sized<T>(normal: T, small: T) -> T {
    if sanitizing() {
        small
    } else {
        normal
    }
}

fn main() {
    common::harness::main(&[
        arith::TESTS,
        isa_newer::TESTS,
        attention::TESTS,
        async_copy::TESTS,
        atomics::TESTS,
        barrier_red::TESTS,
        bits::TESTS,
        cluster::TESTS,
        cmp_cvt::TESTS,
        forensics::TESTS,
        gemm::TESTS,
        gemm_fp8::TESTS,
        gemm_mma::TESTS,
        gemm_strided::TESTS,
        gemm_skinny::TESTS,
        gemm_tune::TESTS,
        gemm_tcgen05::TESTS,
        guards::TESTS,
        integer::TESTS,
        intrinsics::TESTS,
        launch_control::TESTS,
        ldst::TESTS,
        malformed::TESTS,
        matrix::TESTS,
        memory::TESTS,
        minifloat::TESTS,
        mma::TESTS,
        mma_kinds::TESTS,
        params::TESTS,
        pipeline::TESTS,
        reference::TESTS,
        runtime::TESTS,
        setmaxnreg::TESTS,
        shipped::TESTS,
        stack::TESTS,
        tcgen05_alloc::TESTS,
        tcgen05_copy::TESTS,
        tcgen05_kinds::TESTS,
        tcgen05_red::TESTS,
        tcgen05_tmem::TESTS,
        texture::TESTS,
        timeline::TESTS,
        tma::TESTS,
        video::TESTS,
        warp::TESTS,
        wgmma::TESTS,
        wmma::TESTS,
    ]);
}
