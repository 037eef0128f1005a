//! Memory access: plain loads and stores ([`ld`](MemoryOps::ld), [`st`](MemoryOps::st)),
//! and fences and loads and stores with a scope and an ordering
//! ([`ld_ordered`](MemoryOps::ld_ordered), [`st_ordered`](MemoryOps::st_ordered),
//! [`fence`](MemoryOps::fence)). Each PTX instruction has one spelling: `ld.global.u32` is
//! `k.ld(p)`, `ld.acquire.gpu.global.u32` is `k.ld_ordered(Acquire, Gpu, p)`.
//!
//! The table below is the whole scope × ordering space of the ordered accesses as data: one
//! row per (ordering, scope) that PTX has, and for each the load, store and fence it emits. A
//! combination that is not in the table (an acquire store, a release load, a relaxed fence, a
//! volatile access with a scope, an acquire load without one) has no trait impl, so it does
//! not compile.
//!
//! ```
//! use ptxkit::prelude::*;
//! use ptxkit::intrinsics::order::*;
//!
//! let mut m = Module::new(Target::SM_80);
//! m.kernel("publish", |k, (data, flag): (GlobalPtr<U32>, GlobalPtr<U32>)| {
//!     k.st(data.offset(0), 42u32);
//!     k.st_ordered(Release, Gpu, flag.offset(0), 1u32);
//!     let seen = k.ld_ordered(Acquire, Gpu, flag.offset(0));
//!     k.fence(SeqCst, Sys);
//!     k.st(data.offset(1), seen);
//! }).unwrap();
//! let text = m.to_ptx().unwrap();
//! assert!(text.contains("st.release.gpu.global.u32") && text.contains("ld.acquire.gpu.global.u32"));
//! assert!(text.contains("st.global.u32") && text.contains("fence.sc.sys;"));
//! ```
//!
//! A weak access is `k.ld`/`k.st` only; the table has no row for it:
//!
//! ```compile_fail,E0277
//! use ptxkit::prelude::*;
//! use ptxkit::intrinsics::order::*;
//!
//! let mut m = Module::new(Target::SM_80);
//! m.kernel("weak", |k, (data,): (GlobalPtr<U32>,)| {
//!     let v = k.ld_ordered(Weak, NoScope, data.offset(0)); // error: PTX has no `Weak` load at scope `NoScope`
//!     k.st(data.offset(1), v);
//! }).unwrap();
//! ```

use super::sealed::Sealed;
use crate::builder::Kernel;
use crate::ops::access::{Load, Mem, MemType, Store};
use crate::ops::{m, Generic, Operand, StateSpace};
use crate::regs::{Address, Reg};

macro_rules! zst {
    ($($(#[$d:meta])* $n:ident;)*) => {$($(#[$d])* #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)] pub struct $n;)*};
}
zst! {
    /// No ordering guarantee (`.weak`, the default): the plain access, written
    /// [`k.ld`](MemoryOps::ld) and [`k.st`](MemoryOps::st). It has no row in the table, so
    /// it is not an ordering of [`ld_ordered`](MemoryOps::ld_ordered) or
    /// [`st_ordered`](MemoryOps::st_ordered).
    Weak;
    /// `.volatile`: every access reaches memory; scope-less.
    Volatile;
    /// `.relaxed`: atomic, unordered.
    Relaxed;
    /// `.acquire` (loads; `fence.acq_rel` as a fence).
    Acquire;
    /// `.release` (stores; `fence.acq_rel` as a fence).
    Release;
    /// `fence.acq_rel`.
    AcqRel;
    /// `fence.sc`: sequential consistency.
    SeqCst;
    /// No scope: for [`Volatile`].
    NoScope;
    /// `.cta`: the thread block.
    Cta;
    /// `.cluster`: the thread-block cluster.
    Cluster;
    /// `.gpu`: the device.
    Gpu;
    /// `.sys`: the system, host included.
    Sys;
}

/// A load with ordering `Self` at scope `S`.
#[diagnostic::on_unimplemented(
    message = "PTX has no `{Self}` load at scope `{S}`",
    note = "ordered loads are Volatile with NoScope, or Relaxed or Acquire with Cta, Cluster, Gpu or Sys; a weak load is `k.ld(addr)`"
)]
pub trait LoadOrder<S> {
    /// The modifiers before the state space (`(m::Acquire, m::Gpu)` for `ld.acquire.gpu`).
    type Prefix;
}

/// A store with ordering `Self` at scope `S`.
#[diagnostic::on_unimplemented(
    message = "PTX has no `{Self}` store at scope `{S}`",
    note = "ordered stores are Volatile with NoScope, or Relaxed or Release with Cta, Cluster, Gpu or Sys; a weak store is `k.st(addr, v)`"
)]
pub trait StoreOrder<S> {
    /// The modifiers before the state space.
    type Prefix;
}

/// A fence with ordering `Self` at scope `S`.
#[diagnostic::on_unimplemented(
    message = "PTX has no `{Self}` fence at scope `{S}`",
    note = "fences are Acquire, Release, AcqRel (fence.acq_rel) or SeqCst (fence.sc) with Cta, Cluster, Gpu or Sys"
)]
pub trait FenceOrder<S> {
    #[doc(hidden)]
    fn emit(k: &mut Kernel);
}

/// State spaces ordered accesses apply to: global, shared, and generic addresses.
#[diagnostic::on_unimplemented(message = "ordered accesses take global, shared or generic addresses, not `{Self}`")]
pub trait OrderedSpace: StateSpace {}
#[diagnostic::do_not_recommend]
impl OrderedSpace for Generic {}
#[diagnostic::do_not_recommend]
impl OrderedSpace for m::Global {}
#[diagnostic::do_not_recommend]
impl OrderedSpace for m::Shared {}
#[diagnostic::do_not_recommend]
impl OrderedSpace for m::SharedCta {}
#[diagnostic::do_not_recommend]
impl OrderedSpace for m::SharedCluster {}

macro_rules! col {
    ($tr:ident $o:ident $s:ident -) => {};
    (FenceOrder $o:ident $s:ident $v:literal) => {
        #[diagnostic::do_not_recommend]
        impl FenceOrder<$s> for $o {
            #[track_caller]
            fn emit(k: &mut Kernel) {
                crate::ptx!(k, $v);
            }
        }
    };
    ($tr:ident $o:ident $s:ident $v:literal) => {
        #[diagnostic::do_not_recommend]
        impl $tr<$s> for $o {
            type Prefix = ptxkit_macros::mods!($v);
        }
    };
}

macro_rules! table {
    ($($o:ident $s:ident $ld:tt $st:tt $fe:tt;)*) => {
        $( col!(LoadOrder $o $s $ld); col!(StoreOrder $o $s $st); col!(FenceOrder $o $s $fe); )*
        /// Every (ordering, scope) row: its load, store and fence, where PTX has them.
        pub const TABLE: &[(&str, &str, Option<&str>, Option<&str>, Option<&str>)] =
            &[$((stringify!($o), stringify!($s), table!(@opt $ld), table!(@opt $st), table!(@opt $fe))),*];
    };
    (@opt -) => { None };
    (@opt $v:literal) => { Some($v) };
}

table! {
//  ordering  scope     load                 store                fence
    Volatile  NoScope   "ld.volatile"        "st.volatile"        -;
    Relaxed   Cta       "ld.relaxed.cta"     "st.relaxed.cta"     -;
    Relaxed   Cluster   "ld.relaxed.cluster" "st.relaxed.cluster" -;
    Relaxed   Gpu       "ld.relaxed.gpu"     "st.relaxed.gpu"     -;
    Relaxed   Sys       "ld.relaxed.sys"     "st.relaxed.sys"     -;
    Acquire   Cta       "ld.acquire.cta"     -                    "fence.acq_rel.cta";
    Acquire   Cluster   "ld.acquire.cluster" -                    "fence.acq_rel.cluster";
    Acquire   Gpu       "ld.acquire.gpu"     -                    "fence.acq_rel.gpu";
    Acquire   Sys       "ld.acquire.sys"     -                    "fence.acq_rel.sys";
    Release   Cta       -                    "st.release.cta"     "fence.acq_rel.cta";
    Release   Cluster   -                    "st.release.cluster" "fence.acq_rel.cluster";
    Release   Gpu       -                    "st.release.gpu"     "fence.acq_rel.gpu";
    Release   Sys       -                    "st.release.sys"     "fence.acq_rel.sys";
    AcqRel    Cta       -                    -                    "fence.acq_rel.cta";
    AcqRel    Cluster   -                    -                    "fence.acq_rel.cluster";
    AcqRel    Gpu       -                    -                    "fence.acq_rel.gpu";
    AcqRel    Sys       -                    -                    "fence.acq_rel.sys";
    SeqCst    Cta       -                    -                    "fence.sc.cta";
    SeqCst    Cluster   -                    -                    "fence.sc.cluster";
    SeqCst    Gpu       -                    -                    "fence.sc.gpu";
    SeqCst    Sys       -                    -                    "fence.sc.sys";
}

/// Loads, stores and fences, as [`Kernel`] methods (in scope with `use ptxkit::prelude::*`).
pub trait MemoryOps: Sealed {
    /// `ld{.space}.type d, [addr]`, with the space and type taken from the address
    /// (8-bit types load into their 16-bit register; f16/bf16 and packed types as `.bN`).
    /// Generic code bounds the element type by [`Load`]: `T: Load<(), m::Global>`.
    ///
    /// [`m::Global`]: crate::ops::m::Global
    fn ld<A: Address>(&mut self, addr: A) -> Reg<A::Elem>
    where
        A::Elem: Load<(), A::Space>;

    /// `st{.space}.type [addr], v`, with the space and type taken from the address.
    /// Generic code bounds the element type by [`Store`]: `T: Store<(), m::Global>`.
    ///
    /// [`m::Global`]: crate::ops::m::Global
    fn st<A: Address>(&mut self, addr: A, v: impl Operand<<A::Elem as MemType>::Mem>)
    where
        A::Elem: Store<(), A::Space>;

    /// A load with an ordering and scope from the table (`ld.acquire.gpu.global.u32`).
    fn ld_ordered<O: LoadOrder<S>, S, A: Address>(&mut self, order: O, scope: S, addr: A) -> Reg<A::Elem>
    where
        A::Elem: Load<O::Prefix, A::Space>,
        A::Space: OrderedSpace;

    /// A store with an ordering and scope from the table (`st.release.gpu.global.u32`).
    fn st_ordered<O: StoreOrder<S>, S, A: Address>(&mut self, order: O, scope: S, addr: A, v: impl Operand<Mem<A::Elem>>)
    where
        A::Elem: Store<O::Prefix, A::Space>,
        A::Space: OrderedSpace;

    /// A fence with an ordering and scope from the table (`fence.acq_rel.gpu`).
    fn fence<O: FenceOrder<S>, S>(&mut self, order: O, scope: S);
}

impl MemoryOps for Kernel {
    #[track_caller]
    fn ld<A: Address>(&mut self, addr: A) -> Reg<A::Elem>
    where
        A::Elem: Load<(), A::Space>,
    {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        let d: Reg<A::Elem> = self.reg();
        <A::Elem as Load<(), A::Space>>::emit_ld(self, None, d.retype(), addr);
        d
    }

    #[track_caller]
    fn st<A: Address>(&mut self, addr: A, v: impl Operand<<A::Elem as MemType>::Mem>)
    where
        A::Elem: Store<(), A::Space>,
    {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        <A::Elem as Store<(), A::Space>>::emit_st(self, None, addr, v);
    }

    #[track_caller]
    fn ld_ordered<O: LoadOrder<S>, S, A: Address>(&mut self, _: O, _: S, addr: A) -> Reg<A::Elem>
    where
        A::Elem: Load<O::Prefix, A::Space>,
        A::Space: OrderedSpace,
    {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        let d: Reg<A::Elem> = self.reg();
        <A::Elem as Load<O::Prefix, A::Space>>::emit_ld(self, None, d.retype(), addr);
        d
    }

    #[track_caller]
    fn st_ordered<O: StoreOrder<S>, S, A: Address>(&mut self, _: O, _: S, addr: A, v: impl Operand<Mem<A::Elem>>)
    where
        A::Elem: Store<O::Prefix, A::Space>,
        A::Space: OrderedSpace,
    {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        <A::Elem as Store<O::Prefix, A::Space>>::emit_st(self, None, addr, v);
    }

    #[track_caller]
    fn fence<O: FenceOrder<S>, S>(&mut self, _: O, _: S) {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        O::emit(self);
    }
}
