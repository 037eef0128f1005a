//! The pieces every tcgen05 device test builds its kernels from (the allocation and its
//! address through shared memory, the fenced thread synchronisation, the background fill and
//! read-back through `32x32b`, a commit waited on with a bound, the deallocation), and the
//! test of `tcgen05.alloc` itself: two allocations of 256 columns side by side, written and
//! read back separately, `tcgen05.dealloc` of both and `tcgen05.relinquish_alloc_permit`, in
//! two launches (the second allocates what the first freed).

use super::*;
use ptxkit::intrinsics::mbarrier::{Deadline, Mbarrier};
use ptxkit::intrinsics::tmem::{self, TmemAlloc};
pub(super) use ptxkit::intrinsics::tmem::{thread_sync, tmem_at};
use rand::Rng;

/// Tensor-memory columns the kernels allocate: all of them.
pub(super) const COLS: u32 = 512;
/// Threads per CTA: one warp per lane quarter.
pub(super) const THREADS: u32 = 128;

/// The architecture-specific target of a GPU with tensor memory (compute capability 10.x),
/// or the test ends as ignored with the reason.
pub(super) fn tcgen05_target(gpu: &Gpu) -> Target {
    let cc = gpu.compute_capability();
    match (cc.0 == 10).then(|| Target::parse(&format!("sm_{}{}a", cc.0, cc.1))).flatten() {
        Some(t) => t,
        None => skip(format!("needs sm_100a or sm_103a (tensor memory, compute capability 10.x): the GPU is {cc:?}")),
    }
}

/// Warp 0 allocates `cols` columns (the address written to shared memory) and gives up the
/// permit; after the fenced barrier every thread reads the address. Returns (the allocation,
/// its address, warp, whether this is warp 0).
pub(super) fn allocate(k: &mut Kernel, cols: u32) -> (TmemAlloc, Reg<U32>, Reg<U32>, Reg<Pred>) {
    let tid = ptx!(k, "mov.u32", sreg::TID_X);
    let warp = ptx!(k, "shr.u32", tid, 5u32);
    let held = TmemAlloc::new(k, "tmem_slot", cols);
    let warp0 = ptx!(k, "setp.eq.u32", warp, 0u32);
    k.if_(warp0, |k| {
        held.alloc(k);
        tmem::relinquish(k);
    });
    thread_sync(k);
    let base = held.base(k);
    (held, base, warp, warp0)
}

/// Every thread's tensor-memory work done, warp 0 frees the allocation at `base`.
pub(super) fn free(k: &mut Kernel, held: &TmemAlloc, base: Reg<U32>, warp0: Reg<Pred>) {
    tmem::fence_before(k);
    ptx!(k, "bar.sync", 0u32);
    k.if_(warp0, |k| {
        tmem::fence_after(k);
        held.free(k, base);
    });
}

/// The warp's first lane: `32 * warp`.
pub(super) fn warp_lane(k: &mut Kernel, warp: Reg<U32>) -> Reg<U32> {
    ptx!(k, "shl.b32", warp, 5u32).bitcast::<U32>()
}

/// Thread `tid` writes `src[tid * cols + c]` to column `c` of its lane, for `c < cols` (a
/// multiple of 32), through `32x32b.x32`, and waits for the stores.
pub(super) fn fill_rows(k: &mut Kernel, base: Reg<U32>, warp: Reg<U32>, src: GlobalPtr<U32>, cols: u32) {
    let tid = ptx!(k, "mov.u32", sreg::TID_X);
    let row = ptx!(k, "mul.lo.u32", tid, cols);
    let lane0 = warp_lane(k, warp);
    for c in (0..cols).step_by(32) {
        let v: [Reg<B32>; 32] = std::array::from_fn(|j| ptx!(k, "ld.global.b32", src.cast::<B32>().at(row).offset((c + j as u32) as i64)));
        let at = tmem_at(k, base, lane0, c);
        ptx!(k, "tcgen05.st.sync.aligned.32x32b.x32.b32", at, v);
    }
    ptx!(k, "tcgen05.wait::st.sync.aligned");
}

/// Thread `tid` reads columns `0..cols` of its lane through `32x32b.x32` into
/// `dst[tid * cols ..]`.
pub(super) fn read_rows(k: &mut Kernel, base: Reg<U32>, warp: Reg<U32>, dst: GlobalPtr<U32>, cols: u32) {
    let tid = ptx!(k, "mov.u32", sreg::TID_X);
    let row = ptx!(k, "mul.lo.u32", tid, cols);
    let lane0 = warp_lane(k, warp);
    for c in (0..cols).step_by(32) {
        let at = tmem_at(k, base, lane0, c);
        let v = ptx!(k, "tcgen05.ld.sync.aligned.32x32b.x32.b32", at);
        ptx!(k, "tcgen05.wait::ld.sync.aligned");
        for (j, r) in v.into_iter().enumerate() {
            ptx!(k, "st.global.b32", dst.cast::<B32>().at(row).offset((c + j as u32) as i64), r);
        }
    }
}

/// Thread 0 runs `issue` (asynchronous tcgen05 work) and commits it to an mbarrier; every
/// thread waits for the commit, a bounded wait that traps when it gives up, then fences.
pub(super) fn issue_and_wait(k: &mut Kernel, bar: SharedPtr<B64>, issue: impl FnOnce(&mut Kernel)) {
    let tid = ptx!(k, "mov.u32", sreg::TID_X);
    let first = ptx!(k, "setp.eq.u32", tid, 0u32);
    k.if_(first, |k| {
        issue(k);
        ptx!(k, "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64", bar);
    });
    let deadline = Deadline::new(k, 1 << 22);
    let done = Mbarrier::at(bar).wait(k, 0u32, &deadline);
    k.if_(!done, |k| ptx!(k, "trap"));
    tmem::fence_after(k);
}

/// An mbarrier for one commit, initialised by thread 0 (and fenced for the asynchronous
/// proxy's arrival); the caller's next barrier publishes it.
pub(super) fn commit_barrier(k: &mut Kernel) -> SharedPtr<B64> {
    let bar = k.shared_array::<B64>("commit_bar", 1, 8);
    let tid = ptx!(k, "mov.u32", sreg::TID_X);
    let first = ptx!(k, "setp.eq.u32", tid, 0u32);
    k.if_(first, |k| {
        Mbarrier::at(bar).init(k, 1u32);
        ptx!(k, "fence.mbarrier_init.release.cluster");
    });
    bar
}

// ---- two allocations ------------------------------------------------------------------------

/// (words to store, the two addresses and what each allocation gave back).
type AllocParams = (GlobalPtr<U32>, GlobalPtr<U32>);

/// Warp 0 allocates 256 columns twice; every warp stores 8 words of its lanes into each and
/// reads both back; both are freed, the permit given up.
fn build_alloc(m: &mut Module) -> KernelRef<AllocParams> {
    m.kernel("two_allocations", |k, (src, out): AllocParams| {
        k.reqntid(THREADS, 1, 1);
        let tid = ptx!(k, "mov.u32", sreg::TID_X);
        let warp = ptx!(k, "shr.u32", tid, 5u32);
        let halves = [TmemAlloc::new(k, "tmem_slot0", 256), TmemAlloc::new(k, "tmem_slot1", 256)];
        let warp0 = ptx!(k, "setp.eq.u32", warp, 0u32);
        k.if_(warp0, |k| {
            halves.iter().for_each(|h| h.alloc(k));
            tmem::relinquish(k);
        });
        thread_sync(k);
        let lane0 = warp_lane(k, warp);
        let row = ptx!(k, "mul.lo.u32", tid, 18u32);
        let bases: [Reg<U32>; 2] = std::array::from_fn(|i| halves[i].base(k));
        for (i, &b) in bases.iter().enumerate() {
            let v: [Reg<B32>; 8] = std::array::from_fn(|j| ptx!(k, "ld.global.b32", src.cast::<B32>().at(row).offset((8 * i + j) as i64)));
            let at = tmem_at(k, b, lane0, 0);
            ptx!(k, "tcgen05.st.sync.aligned.32x32b.x8.b32", at, v);
        }
        ptx!(k, "tcgen05.wait::st.sync.aligned");
        for (i, &b) in bases.iter().enumerate() {
            let at = tmem_at(k, b, lane0, 0);
            let v = ptx!(k, "tcgen05.ld.sync.aligned.32x32b.x8.b32", at);
            ptx!(k, "tcgen05.wait::ld.sync.aligned");
            for (j, r) in v.into_iter().enumerate() {
                ptx!(k, "st.global.b32", out.cast::<B32>().at(row).offset((8 * i + j) as i64), r);
            }
            ptx!(k, "st.global.b32", out.cast::<B32>().at(row).offset(16 + i as i64), b.bitcast::<B32>());
        }
        tmem::fence_before(k);
        ptx!(k, "bar.sync", 0u32);
        k.if_(warp0, |k| {
            tmem::fence_after(k);
            for (h, b) in halves.iter().zip(bases) {
                h.free(k, b);
            }
        });
    })
    .unwrap()
}

fn tcgen05_two_allocations_and_dealloc(gpu: Gpu) {
    let t = tcgen05_target(&gpu);
    let mut g = rng("tcgen05_two_allocations_and_dealloc");
    let mut m = Module::new(t);
    let kr = build_alloc(&mut m);
    let module = load(&gpu, &m);
    // Twice: the second launch allocates again what the first one freed.
    for round in 0..2 {
        let src: Vec<u32> = (0..THREADS * 18).map(|_| g.gen()).collect();
        let dsrc = gpu.upload(&src).unwrap();
        let mut out = poisoned::<u32>(&gpu, src.len()).unwrap();
        module.kernel(&kr).unwrap().launch(&Launch::new(1u32, THREADS), (&dsrc, &mut out)).unwrap();
        let out = gpu.download(&out).unwrap();
        let (a0, a1) = (out[16], out[17]);
        // Lane 0 (bits 16-31), a column of the 512 (bits 0-15), two different halves.
        let cols = [a0 & 0xFFFF, a1 & 0xFFFF];
        assert!(a0 >> 16 == 0 && a1 >> 16 == 0, "round {round}: allocations at lanes other than 0: {a0:#x}, {a1:#x}");
        assert!(
            cols[0] != cols[1] && cols.iter().all(|c| [0, 256].contains(c)),
            "round {round}: two allocations of 256 columns at {cols:?}"
        );
        for tid in 0..THREADS as usize {
            let row = &out[tid * 18..tid * 18 + 18];
            assert_eq!(&row[..16], &src[tid * 18..tid * 18 + 16], "round {round}: thread {tid}: what the two allocations gave back");
            assert_eq!((row[16], row[17]), (a0, a1), "round {round}: thread {tid} read other addresses");
        }
    }
}

/// The allocation kernel, assembled by ptxas for sm_100a.
fn tcgen05_alloc_kernel_assembles() {
    let mut m = Module::new(Target::SM_100A);
    build_alloc(&mut m);
    let text = common::assemble("tcgen05 alloc", &m);
    assert_eq!(text.matches("tcgen05.alloc.").count(), 2);
    assert_eq!(text.matches("tcgen05.dealloc.").count(), 2);
}

pub const TESTS: &[Test] = &[gpu!(tcgen05_two_allocations_and_dealloc), host!(tcgen05_alloc_kernel_assembles)];
