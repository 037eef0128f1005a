//! Tensor memory (sm_100a and later): an allocation ([`TmemAlloc`]: alloc, relinquish,
//! free, its address through shared memory), the fences around the thread synchronisation
//! that orders tensor-memory work of different threads ([`fence_before`], [`fence_after`],
//! [`thread_sync`]), addresses ([`tmem_at`]), and the loads and stores by shape ([`Access`]:
//! `tcgen05.ld`/`st` chosen by `Lanes<L, B>` and the count `N`, from the
//! `select` rows of the `tcgen05` table, so a shape the table lacks does not compile).
//!
//! ```
//! use ptxkit::intrinsics::tmem::{self, TmemAlloc};
//! use ptxkit::ops::num::Lanes;
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_100A);
//! m.kernel("roundtrip", |k, (out,): (GlobalPtr<B32>,)| {
//!     let tid = ptx!(k, "mov.u32", sreg::TID_X);
//!     let warp = ptx!(k, "shr.u32", tid, 5u32);
//!     let warp0 = ptx!(k, "setp.eq.u32", warp, 0u32);
//!     let cols = TmemAlloc::new(k, "tmem_slot", 64);
//!     k.if_(warp0, |k| {
//!         cols.alloc(k);
//!         tmem::relinquish(k);
//!     });
//!     tmem::thread_sync(k);
//!     let base = cols.base(k);
//!     // Warp w owns lanes 32w..32w+31.
//!     let lane0 = ptx!(k, "shl.b32", warp, 5u32).bitcast::<U32>();
//!     let at = tmem::tmem_at(k, base, lane0, 0);
//!     let v: [Reg<B32>; 16] = std::array::from_fn(|_| tid.bitcast::<B32>());
//!     tmem::Access::<Lanes<32, 32>, 16>::store(k, at, v);
//!     tmem::wait_st(k);
//!     let back = tmem::Access::<Lanes<32, 32>, 16>::load(k, at);
//!     tmem::wait_ld(k);
//!     ptx!(k, "st.global.b32", out.at(tid), back[15]);
//!     tmem::fence_before(k);
//!     ptx!(k, "bar.sync", 0u32);
//!     k.if_(warp0, |k| {
//!         tmem::fence_after(k);
//!         cols.free(k, base);
//!     });
//! })?;
//! let text = m.to_ptx()?;
//! assert!(text.contains("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tmem_slot], 64;"));
//! assert!(text.contains("tcgen05.ld.sync.aligned.32x32b.x16.b32"));
//!
//! // A column count tcgen05.alloc cannot take is an error when the kernel is built.
//! let mut m = Module::new(Target::SM_100A);
//! let e = m.kernel("bad", |k, (): ()| drop(TmemAlloc::new(k, "slot", 96))).unwrap_err();
//! assert!(e.to_string().contains("powers of two from 32 to 512 columns, not 96"), "{e}");
//! # Ok::<(), ptxkit::Error>(())
//! ```
//!
//! A shape and count no form has does not compile (`16x256b` goes up to `.x32`):
//!
//! ```compile_fail
//! use ptxkit::intrinsics::tmem;
//! use ptxkit::ops::num::Lanes;
//! use ptxkit::prelude::*;
//! let mut m = Module::new(Target::SM_100A);
//! m.kernel("k", |k, (): ()| {
//!     let at = ptxkit::regs::TmemAddr::from_reg(ptx!(k, "mov.b32", 0u32));
//!     let _ = tmem::Access::<Lanes<16, 256>, 64>::load(k, at);
//! });
//! ```

use crate::builder::Kernel;
use crate::ops::num::{Spell, X};
use crate::ops::{m, op, Alloc, Call, Instr, Select};
use crate::ptx;
use crate::regs::{Reg, SharedPtr, TmemAddr};
use crate::types::{B32, U32};

/// Columns of tensor memory, allocated by one warp of the CTA (`cta_group::1`): the count,
/// a power of two from 32 to 512, and the shared word `tcgen05.alloc` writes the address to.
#[derive(Clone, Copy, Debug)]
pub struct TmemAlloc {
    slot: SharedPtr<B32>,
    cols: u32,
}

impl TmemAlloc {
    /// Declares the shared word `name` for the address of `cols` columns. A count that is
    /// not a power of two from 32 to 512 is an error of the kernel, returned when it is
    /// built (the allocation then takes 32 columns, and no PTX is printed).
    #[track_caller]
    pub fn new(k: &mut Kernel, name: &str, cols: u32) -> TmemAlloc {
        let cols = if (32..=512).contains(&cols) && cols.is_power_of_two() {
            cols
        } else {
            k.invalid(format!("tensor memory is allocated in powers of two from 32 to 512 columns, not {cols}"));
            32
        };
        TmemAlloc { slot: k.shared_array::<B32>(name, 1, 4), cols }
    }

    /// The number of columns.
    pub fn cols(&self) -> u32 {
        self.cols
    }

    /// The shared word holding the address once allocated.
    pub fn slot(&self) -> SharedPtr<B32> {
        self.slot
    }

    /// `tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], cols`: executed by
    /// every thread of one warp, which waits until the columns are free.
    #[track_caller]
    pub fn alloc(&self, k: &mut Kernel) {
        ptx!(k, "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32", self.slot, self.cols);
    }

    /// The allocation's address, read from the shared word: after the allocating warp's
    /// [`fence_before`], a thread synchronisation and [`fence_after`] ([`thread_sync`]).
    #[track_caller]
    pub fn base(&self, k: &mut Kernel) -> Reg<U32> {
        ptx!(k, "ld.shared.b32", self.slot).bitcast::<U32>()
    }

    /// `tcgen05.dealloc.cta_group::1.sync.aligned.b32 base, cols`, by the allocating warp once
    /// every thread's tensor-memory work is done (after `fence_before`, a synchronisation and
    /// `fence_after`).
    #[track_caller]
    pub fn free(&self, k: &mut Kernel, base: Reg<U32>) {
        ptx!(k, "tcgen05.dealloc.cta_group::1.sync.aligned.b32", base.bitcast::<B32>(), self.cols);
    }
}

/// `tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned`: the CTA allocates no more
/// (another CTA on the SM waiting in `tcgen05.alloc` may then proceed once columns free up).
#[track_caller]
pub fn relinquish(k: &mut Kernel) {
    ptx!(k, "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned");
}

/// `tcgen05.fence::before_thread_sync`: this thread's tcgen05 work is ordered before a
/// following thread synchronisation (a barrier, an mbarrier arrive).
#[track_caller]
pub fn fence_before(k: &mut Kernel) {
    ptx!(k, "tcgen05.fence::before_thread_sync");
}

/// `tcgen05.fence::after_thread_sync`: tcgen05 work after a thread synchronisation (a
/// barrier, an mbarrier wait) is ordered after it.
#[track_caller]
pub fn fence_after(k: &mut Kernel) {
    ptx!(k, "tcgen05.fence::after_thread_sync");
}

/// [`fence_before`], `bar.sync 0`, [`fence_after`]: every thread's tensor-memory work so far
/// ordered before every thread's next.
#[track_caller]
pub fn thread_sync(k: &mut Kernel) {
    fence_before(k);
    ptx!(k, "bar.sync", 0u32);
    fence_after(k);
}

/// `base + (lane << 16) + col`: the address of column `col` of lane `lane` (a warp accesses
/// lanes `32·(warp % 4)` to `+31`).
#[track_caller]
pub fn tmem_at(k: &mut Kernel, base: Reg<U32>, lane: Reg<U32>, col: u32) -> TmemAddr {
    let l = ptx!(k, "shl.b32", lane, 16u32).bitcast::<U32>();
    let a = ptx!(k, "add.u32", base, l);
    TmemAddr::from_reg(ptx!(k, "add.u32", a, col).bitcast::<B32>())
}

/// `tcgen05.wait::ld.sync.aligned`: this thread's loads are complete.
#[track_caller]
pub fn wait_ld(k: &mut Kernel) {
    ptx!(k, "tcgen05.wait::ld.sync.aligned");
}

/// `tcgen05.wait::st.sync.aligned`: this thread's stores are complete.
#[track_caller]
pub fn wait_st(k: &mut Kernel) {
    ptx!(k, "tcgen05.wait::st.sync.aligned");
}

/// The chain of `tcgen05.ld` (or `st`, `D = m::St`) of shape `S` and count `N`.
type Chain<D, S, const N: u32> = (D, m::Sync, m::Aligned, <S as Spell>::Part, <X<N> as Spell>::Part, crate::types::B32);
/// The load form of shape `S` and count `N`.
pub type LoadForm<S, const N: u32> = <op::Tcgen05 as Select<Chain<m::Ld, S, N>>>::Form;
/// The store form of shape `S` and count `N`.
pub type StoreForm<S, const N: u32> = <op::Tcgen05 as Select<Chain<m::St, S, N>>>::Form;

/// The `tcgen05.ld`/`st` of shape `S` (a [`Lanes`](crate::ops::num::Lanes): `Lanes<32, 32>` is `.32x32b`) and
/// count `N` (`.x{N}`), the forms chosen from the table's `select` rows.
pub struct Access<S, const N: u32>(core::marker::PhantomData<S>);

impl<S: Spell, const N: u32> Access<S, N>
where
    X<N>: Spell,
{
    /// `tcgen05.ld.sync.aligned.{S}.x{N}.b32 regs, [at]`: the registers the warp's lanes
    /// read (for `32x32b`, one per column per repetition; the PTX ISA's "Matrix fragments
    /// for tcgen05.ld" gives the others). Wait for them with [`wait_ld`] before use.
    #[track_caller]
    pub fn load(k: &mut Kernel, at: TmemAddr) -> <LoadForm<S, N> as Instr>::Out
    where
        op::Tcgen05: Select<Chain<m::Ld, S, N>>,
        LoadForm<S, N>: Call<(TmemAddr,), Out = <LoadForm<S, N> as Instr>::Out>,
        <LoadForm<S, N> as Instr>::Out: Alloc,
    {
        <LoadForm<S, N> as Call<(TmemAddr,)>>::call_if(k, None, (at,))
    }

    /// `tcgen05.st.sync.aligned.{S}.x{N}.b32 [at], regs`: the registers into tensor memory.
    /// Wait with [`wait_st`] before tensor-memory work of another thread reads the columns.
    #[track_caller]
    pub fn store<V>(k: &mut Kernel, at: TmemAddr, values: V)
    where
        op::Tcgen05: Select<Chain<m::St, S, N>>,
        StoreForm<S, N>: Call<(TmemAddr, V), Out = ()>,
    {
        <StoreForm<S, N> as Call<(TmemAddr, V)>>::call_into_if(k, None, (), (at, values));
    }
}
