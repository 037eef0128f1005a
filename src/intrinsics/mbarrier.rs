//! Barrier objects in shared memory as typed handles: [`Mbarrier`] (one 64-bit barrier in
//! the executing CTA), [`Mbarriers`] (an array of them), waits bounded by a [`Deadline`], and
//! a [`Ring`] of full/empty stage barriers for producer–consumer pipelines.
//!
//! A barrier counts arrivals (and, with `expect_tx`, the bytes of asynchronous copies) and
//! completes a phase when the count of its current phase is reached; the phase's parity then
//! flips. A waiter names the parity of the phase it waits for. Every wait here is bounded: it
//! tries `try_wait` a fixed number of times, and a wait that runs out counts a timeout in its
//! [`Deadline`] and returns `false`, so a test can report a barrier that never completed
//! instead of hanging. Once a thread's deadline has a timeout, its later waits give up at
//! once, so a kernel whose pipeline broke still finishes promptly. Act on the result: a
//! consumer whose wait gave up should not release the stage, nor a producer fill it, or
//! it arrives on a barrier whose phase already has every arrival, which faults the kernel
//! (`CUDA_ERROR_LAUNCH_FAILED`) instead of letting it end.
//!
//! A ring with one producer warp and three consumer warps, each iteration a few lines:
//!
//! ```
//! use ptxkit::prelude::*;
//! use ptxkit::intrinsics::mbarrier::{Deadline, Publish, Ring};
//!
//! let mut m = Module::new(Target::SM_90);
//! m.kernel("ring", |k, (input, out, tiles): (GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>)| {
//!     let ring = Ring::new(k, "ring", 4);
//!     let data = k.shared_array::<U32>("stage_data", 4 * 32, 16);
//!     // full: 32 producer arrivals per phase; empty: 96 consumer arrivals.
//!     ring.init(k, 32, 96, Publish::Cta);
//!     let d = Deadline::new(k, 1 << 20);
//!     let lane = k.lane_id();
//!     let tid = ptx!(k, "mov.u32", sreg::TID_X);
//!     let producer = ptx!(k, "setp.lt.u32", tid, 32u32);
//!     let sum = ptx!(k, "mov.u32", 0u32);
//!     k.if_else(producer, |k| {
//!         k.for_range(0u32, tiles, 1, |k, i| {
//!             let s = ring.slot(k, i);
//!             s.acquire(k, &d);                      // wait until the stage is empty
//!             let at = ptx!(k, "mad.lo.u32", s.stage, 32u32, lane);
//!             let g = ptx!(k, "mad.lo.u32", i, 32u32, lane);
//!             let v = k.ld(input.at(g));
//!             k.st(data.at(at), v);
//!             s.commit(k);                           // arrive on full
//!         });
//!     }, |k| {
//!         k.for_range(0u32, tiles, 1, |k, i| {
//!             let s = ring.slot(k, i);
//!             s.wait(k, &d);                         // wait until the stage is full
//!             let at = ptx!(k, "mad.lo.u32", s.stage, 32u32, lane);
//!             let v = k.ld(data.at(at));
//!             ptx!(k, "add.u32" => sum, sum, v);
//!             s.release(k);                          // arrive on empty
//!         });
//!     });
//!     k.st(out.at(tid), sum);
//!     let timeouts = d.timeouts();
//!     k.st(out.offset(128).at(tid), timeouts);
//! })?;
//! let text = m.to_ptx()?;
//! assert!(text.contains("mbarrier.try_wait.parity.shared.b64"));
//! assert!(text.contains("mbarrier.init.shared.b64 [ring_full], 32;"));
//! # Ok::<(), ptxkit::Error>(())
//! ```

use super::sealed::Sealed;
use super::thread::ThreadIndex;
use crate::builder::Kernel;
use crate::core::wait_report::{WAIT_LOG_HEADER_WORDS, WAIT_RECORD_WORDS};
use crate::ops::{m, Operand, StateSpace};
use crate::ptx;
use crate::regs::{GlobalPtr, Ptr};
use crate::types::{Pred, Reg, B64, U32};

/// State spaces an [`Mbarrier`] may live in: the executing CTA's shared window.
#[diagnostic::on_unimplemented(
    message = "an mbarrier must be in the executing CTA's shared memory, not in `{Self}`",
    label = "not a `.shared` pointer",
    note = "allocate barriers with `k.mbarriers(..)` or `k.shared_array::<B64>(..)`, or carve them from `k.dynamic_shared()`; another CTA's barrier is `Mbarrier::in_cta`"
)]
pub trait CtaShared: StateSpace<AddrT = U32> {}
#[diagnostic::do_not_recommend]
impl CtaShared for m::Shared {}
#[diagnostic::do_not_recommend]
impl CtaShared for m::SharedCta {}

/// A 64-bit mbarrier object in the executing CTA's shared memory (8-byte aligned).
#[derive(Clone, Copy, Debug)]
pub struct Mbarrier {
    ptr: Ptr<m::Shared, B64>,
    which: Which,
}

/// Which barrier of a named array an [`Mbarrier`] is, for the record of a timed-out wait.
#[derive(Clone, Copy, Debug)]
enum Which {
    Unnamed,
    /// Array number (in the kernel's probes) and a constant index.
    Const(u32, u32),
    /// Array number and an index in a register.
    Reg(u32, Reg<U32>),
}

impl Mbarrier {
    /// The barrier at `ptr`: an element of a `.shared` array of `B64` (8-byte aligned), or
    /// a place in dynamic shared memory. A generic, global or `.shared::cluster` pointer
    /// does not compile.
    pub fn at<S: CtaShared>(ptr: Ptr<S, B64>) -> Mbarrier {
        Mbarrier { ptr: Ptr::from_base(ptr.base).byte_offset(ptr.off), which: Which::Unnamed }
    }

    /// The barrier's address.
    pub fn ptr(self) -> Ptr<m::Shared, B64> {
        self.ptr
    }

    /// `mbarrier.init.shared.b64 [bar], count`: a fresh barrier whose phases complete after
    /// `count` arrivals (1 to 2^20 - 1). One thread initialises, before any other use; the
    /// others may use the barrier once the initialisation is published, which
    /// [`BarrierOps::init_barriers`] does.
    #[track_caller]
    pub fn init(self, k: &mut Kernel, count: impl Operand<U32>) {
        ptx!(k, "mbarrier.init.shared.b64", self.ptr, count);
    }

    /// `mbarrier.inval.shared.b64 [bar]`: ends the barrier's life, so that its memory can be
    /// reused (or the barrier initialised again).
    #[track_caller]
    pub fn inval(self, k: &mut Kernel) {
        ptx!(k, "mbarrier.inval.shared.b64", self.ptr);
    }

    /// `mbarrier.arrive.shared.b64`: one arrival, with release semantics at CTA scope (the
    /// thread's earlier writes are visible to whoever waits on the phase). Returns the
    /// barrier's state before the arrival, for [`Mbarrier::test_wait_state`].
    #[track_caller]
    pub fn arrive(self, k: &mut Kernel) -> Reg<B64> {
        ptx!(k, "mbarrier.arrive.shared.b64", self.ptr)
    }

    /// `mbarrier.arrive.shared::cta.b64 state, [bar], count`: `count` arrivals at once
    /// (sm_90).
    #[track_caller]
    pub fn arrive_n(self, k: &mut Kernel, count: impl Operand<U32>) -> Reg<B64> {
        ptx!(k, "mbarrier.arrive.shared::cta.b64" as counted, self.ptr, count)
    }

    /// `mbarrier.arrive.expect_tx.shared::cta.b64`: adds `bytes` to the transaction count the
    /// phase waits for (what asynchronous copies complete with `complete_tx`), and arrives
    /// (sm_90).
    #[track_caller]
    pub fn arrive_expect_tx(self, k: &mut Kernel, bytes: impl Operand<U32>) -> Reg<B64> {
        ptx!(k, "mbarrier.arrive.expect_tx.shared::cta.b64", self.ptr, bytes)
    }

    /// `mbarrier.expect_tx.relaxed.cta.shared::cta.b64`: adds `bytes` to the transaction count
    /// without arriving (sm_90).
    #[track_caller]
    pub fn expect_tx(self, k: &mut Kernel, bytes: impl Operand<U32>) {
        ptx!(k, "mbarrier.expect_tx.relaxed.cta.shared::cta.b64", self.ptr, bytes);
    }

    /// `mbarrier.try_wait.parity.shared.b64`: one try (suspending up to a system-dependent
    /// time) for the completion of the phase of parity `parity`; acquire semantics at CTA
    /// scope. `true` when the phase has completed (sm_90).
    #[track_caller]
    pub fn try_wait(self, k: &mut Kernel, parity: impl Operand<U32>) -> Reg<Pred> {
        ptx!(k, "mbarrier.try_wait.parity.shared.b64", self.ptr, parity)
    }

    /// `mbarrier.test_wait.shared.b64`: whether the phase of `state` (returned by an arrive
    /// on this barrier) has completed, without waiting (sm_80).
    #[track_caller]
    pub fn test_wait_state(self, k: &mut Kernel, state: Reg<B64>) -> Reg<Pred> {
        ptx!(k, "mbarrier.test_wait.shared.b64", self.ptr, state)
    }

    /// Waits for the completion of the phase of parity `parity`, trying at most as often as
    /// `deadline` allows: `try_wait.parity` in a loop with a try counter. Returns `true` when
    /// the phase completed, `false` when the wait gave up (the deadline then counts a
    /// timeout; a thread whose deadline has one gives up at once). Acquire semantics at CTA
    /// scope (sm_90).
    ///
    /// With a [`Deadline::recording`], the first wait of a warp's threads that gives up
    /// writes a record naming this call's Rust location, the barrier (its array and index,
    /// when it came from [`BarrierOps::mbarriers`] or a [`Ring`]), the parity, the CTA, the
    /// thread and the lanes that gave up with it.
    #[track_caller]
    pub fn wait<P: Operand<U32> + Copy>(self, k: &mut Kernel, parity: P, deadline: &Deadline) -> Reg<Pred> {
        let _at = crate::core::kernel::HelperScope::enter(k.line_info);
        let at = k.source_location();
        let site = deadline.log.map(|_| {
            let array = match self.which {
                Which::Unnamed => None,
                Which::Const(a, _) | Which::Reg(a, _) => Some(a),
            };
            k.probes.wait(array, at)
        });
        let done: Reg<Pred> = k.reg();
        ptx!(k, "mov.pred" => done, false);
        let tries = ptx!(k, "mov.u32", 0u32);
        let (head, end) = (k.label(), k.label());
        let failed_before = ptx!(k, "setp.ne.u32", deadline.timeouts, 0u32);
        k.bra_if(failed_before, end);
        // head: try; leave when done; count the try; again while tries remain; else a timeout.
        k.place(head);
        match deadline.hint_ns {
            None => ptx!(k, "mbarrier.try_wait.parity.shared.b64" => done, self.ptr, parity),
            Some(ns) => ptx!(k, "mbarrier.try_wait.parity.shared.b64" as hinted => done, self.ptr, parity, ns),
        };
        k.bra_if(done, end);
        ptx!(k, "add.u32" => tries, tries, 1u32);
        let more = ptx!(k, "setp.lt.u32", tries, deadline.tries);
        k.bra_if(more, head);
        ptx!(k, "add.u32" => deadline.timeouts, deadline.timeouts, 1u32);
        if let (Some(log), Some(site)) = (deadline.log, site) {
            self.record_timeout(k, log, site, parity);
        }
        k.place(end);
        done
    }

    /// Writes the record of a wait that gave up (laid out as [`Deadline::recording`] says):
    /// one per group of lanes giving up together, by the lowest of them.
    #[track_caller]
    fn record_timeout<P: Operand<U32> + Copy>(self, k: &mut Kernel, log: GlobalPtr<U32>, site: u32, parity: P) {
        let lanes = ptx!(k, "activemask.b32");
        let below = ptx!(k, "and.b32", lanes, crate::regs::sreg::LANEMASK_LT);
        let leader = ptx!(k, "setp.eq.b32", below, 0u32);
        k.if_(leader, |k| {
            let slot = ptx!(k, "atom.global.add.u32", log.offset(0), 1u32);
            let capacity = ptx!(k, "ld.global.u32", log.offset(1));
            let fits = ptx!(k, "setp.lt.u32", slot, capacity);
            k.if_(fits, |k| {
                let word = ptx!(k, "mad.lo.u32", slot, WAIT_RECORD_WORDS, WAIT_LOG_HEADER_WORDS);
                let rec = log.at(word);
                let index = match self.which {
                    Which::Unnamed => ptx!(k, "mov.u32", u32::MAX),
                    Which::Const(_, i) => ptx!(k, "mov.u32", i),
                    Which::Reg(_, r) => r,
                };
                let parity = ptx!(k, "mov.u32", parity);
                let thread = k.thread_rank();
                let words = [
                    ptx!(k, "mov.u32", site + 1),
                    index,
                    parity,
                    thread,
                    ptx!(k, "mov.u32", crate::regs::sreg::CTAID_X),
                    ptx!(k, "mov.u32", crate::regs::sreg::CTAID_Y),
                    ptx!(k, "mov.u32", crate::regs::sreg::CTAID_Z),
                    lanes.bitcast(),
                ];
                for (i, w) in words.into_iter().enumerate() {
                    ptx!(k, "st.global.u32", rec.offset(i as i64), w);
                }
            });
        });
    }

    /// The barrier at the same offset in the shared memory of CTA `rank` of the cluster
    /// (`mapa.shared::cluster.u32`; sm_90). The CTA must be running: synchronise the cluster
    /// first.
    #[track_caller]
    pub fn in_cta(self, k: &mut Kernel, rank: impl Operand<U32>) -> RemoteMbarrier {
        RemoteMbarrier { ptr: k.map_shared(self.ptr, rank) }
    }
}

/// An mbarrier in the shared memory of some CTA of the cluster (perhaps another one): what
/// `st.async` and `red.async` complete on, and what a thread of another CTA may arrive on.
#[derive(Clone, Copy, Debug)]
pub struct RemoteMbarrier {
    ptr: Ptr<m::SharedCluster, B64>,
}

impl RemoteMbarrier {
    /// The barrier at a `.shared::cluster` address.
    pub fn at(ptr: Ptr<m::SharedCluster, B64>) -> RemoteMbarrier {
        RemoteMbarrier { ptr }
    }
    /// The barrier's `.shared::cluster` address.
    pub fn ptr(self) -> Ptr<m::SharedCluster, B64> {
        self.ptr
    }
    /// `mbarrier.arrive.release.cluster.shared::cluster.b64 _, [bar]`: one arrival, releasing
    /// the thread's earlier writes at cluster scope.
    #[track_caller]
    pub fn arrive(self, k: &mut Kernel) {
        ptx!(k, "mbarrier.arrive.release.cluster.shared::cluster.b64", self.ptr);
    }
    /// `mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [bar], bytes`.
    #[track_caller]
    pub fn arrive_expect_tx(self, k: &mut Kernel, bytes: impl Operand<U32>) {
        ptx!(k, "mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64", self.ptr, bytes);
    }
}

/// The bound on one thread's waits: each wait tries `try_wait` at most `tries` times (each
/// try suspends for up to a system-dependent time, or about `hint_ns` nanoseconds with
/// [`Deadline::with_hint_ns`]). The number of waits that gave up is kept in a register,
/// [`Deadline::timeouts`], for the kernel to store where the host can check it.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    tries: u32,
    hint_ns: Option<u32>,
    timeouts: Reg<U32>,
    log: Option<GlobalPtr<U32>>,
}

impl Deadline {
    /// A deadline of `tries` tries per wait, with no timeout yet (`mov.u32 t, 0`).
    #[track_caller]
    pub fn new(k: &mut Kernel, tries: u32) -> Deadline {
        let timeouts = ptx!(k, "mov.u32", 0u32);
        Deadline { tries: tries.max(1), hint_ns: None, timeouts, log: None }
    }
    /// Waits that give up write what they waited for into the wait log at `log` (a kernel
    /// parameter, or a module variable), for the host to read after the kernel ends:
    /// `runtime::WaitLog` allocates one, passes as the parameter, and turns its records into
    /// an error naming each barrier, index, parity, CTA, warp and Rust line.
    ///
    /// The log is `u32` words: a header of [`WAIT_LOG_HEADER_WORDS`](crate::core::wait_report::WAIT_LOG_HEADER_WORDS) (the number of records
    /// written, counting those that did not fit; the capacity in records, set by the host),
    /// then records of [`WAIT_RECORD_WORDS`](crate::core::wait_report::WAIT_RECORD_WORDS): wait site + 1 (its number in the kernel's
    /// [`Probes`](crate::core::Probes)), barrier index (`u32::MAX` when unknown), parity,
    /// thread rank in the CTA, `%ctaid.x/y/z`, and the mask of the lanes that gave up
    /// together. Only a thread's first timeout is recorded (its later waits give up at once),
    /// once per group of lanes.
    ///
    /// ```
    /// use ptxkit::prelude::*;
    /// use ptxkit::intrinsics::mbarrier::{Deadline, Publish};
    ///
    /// let mut m = Module::new(Target::SM_90);
    /// let kr = m.kernel("k", |k, (log,): (GlobalPtr<U32>,)| {
    ///     let bars = k.mbarriers("ready", 2);
    ///     k.init_barriers(Publish::Cta, |k| bars.init(k, 1));
    ///     let d = Deadline::new(k, 1000).recording(log);
    ///     bars.get(1).wait(k, 0u32, &d); // nobody arrives: this wait gives up
    /// })?;
    /// let site = &kr.probes().wait_sites()[0];
    /// assert_eq!(site.barrier.as_deref(), Some("ready"));
    /// assert_eq!(site.line, line!() - 4);
    /// assert!(m.to_ptx()?.contains("atom.global.add.u32"));
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    pub fn recording(self, log: GlobalPtr<U32>) -> Deadline {
        Deadline { log: Some(log), ..self }
    }
    /// Each try suspends for about `ns` nanoseconds at most (the suspend-time hint of
    /// `try_wait`), so a wait that gives up does so after about `tries * ns` nanoseconds.
    pub fn with_hint_ns(self, ns: u32) -> Deadline {
        Deadline { hint_ns: Some(ns), ..self }
    }
    /// How many waits gave up so far (0 when every wait completed).
    pub fn timeouts(&self) -> Reg<U32> {
        self.timeouts
    }
    /// Whether some wait gave up.
    #[track_caller]
    pub fn timed_out(&self, k: &mut Kernel) -> Reg<Pred> {
        ptx!(k, "setp.ne.u32", self.timeouts, 0u32)
    }
}

/// An array of barriers in the executing CTA's shared memory.
#[derive(Clone, Copy, Debug)]
pub struct Mbarriers {
    base: Ptr<m::Shared, B64>,
    len: u32,
    /// The array's number in the kernel's probes, when it has a name.
    name: Option<u32>,
}

impl Mbarriers {
    /// `len` barriers from `ptr` on (8 bytes each).
    pub fn from_ptr<S: CtaShared>(ptr: Ptr<S, B64>, len: u32) -> Mbarriers {
        Mbarriers { base: Mbarrier::at(ptr).ptr, len, name: None }
    }
    /// How many barriers there are.
    pub fn len(&self) -> u32 {
        self.len
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Barrier `i` (a constant index, folded into the address). Panics if `i >= len`.
    pub fn get(&self, i: u32) -> Mbarrier {
        assert!(i < self.len, "barrier {i} of an array of {}", self.len);
        let which = self.name.map_or(Which::Unnamed, |a| Which::Const(a, i));
        Mbarrier { ptr: self.base.offset(i as i64), which }
    }
    /// Barrier `i` for an index in a register (`base + 8 * i`, not checked).
    #[track_caller]
    pub fn at(&self, k: &mut Kernel, i: Reg<U32>) -> Mbarrier {
        let base = self.base.addr(k);
        let a = ptx!(k, "mad.lo.u32", i, 8u32, base);
        let which = self.name.map_or(Which::Unnamed, |n| Which::Reg(n, i));
        Mbarrier { ptr: Ptr::from_reg32(a), which }
    }
    /// Initialises every barrier to complete after `count` arrivals (one `mbarrier.init`
    /// each); the same rules as [`Mbarrier::init`].
    #[track_caller]
    pub fn init(&self, k: &mut Kernel, count: u32) {
        for i in 0..self.len {
            self.get(i).init(k, count);
        }
    }
}

/// Whom a barrier initialisation must reach before the barriers are used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Publish {
    /// The threads of the CTA: `bar.sync 0` after the initialisation (every thread of the
    /// CTA must reach it).
    Cta,
    /// The threads of the CTA and its asynchronous units (TMA completing bytes, `tcgen05`
    /// commits): `fence.mbarrier_init.release.cluster` by the initialising thread, then
    /// `bar.sync 0`.
    CtaAsync,
    /// The cluster and the asynchronous units (other CTAs arriving remotely, `st.async`,
    /// bulk copies): `fence.mbarrier_init.release.cluster` by the initialising thread, then
    /// `barrier.cluster.arrive.release` and `barrier.cluster.wait.acquire` in every thread of
    /// every CTA of the cluster (sm_90).
    Cluster,
}

/// Barrier objects and cluster-wide synchronisation, as [`Kernel`] methods (in scope with
/// `use ptxkit::prelude::*`).
pub trait BarrierOps: Sealed {
    /// `len` barriers in a new `.shared` array `name`, 8-byte aligned.
    fn mbarriers(&mut self, name: &str, len: u32) -> Mbarriers;

    /// Runs `init` in thread 0 of the CTA only (the flattened thread index), then publishes
    /// the initialisation as `publish` says. Every thread of the CTA (of the cluster, for
    /// [`Publish::Cluster`]) must call it.
    ///
    /// ```
    /// use ptxkit::prelude::*;
    /// use ptxkit::intrinsics::mbarrier::Publish;
    ///
    /// let mut m = Module::new(Target::SM_90);
    /// m.kernel("k", |k, ()| {
    ///     let bars = k.mbarriers("bars", 2);
    ///     k.init_barriers(Publish::Cluster, |k| bars.init(k, 1));
    /// })?;
    /// let text = m.to_ptx()?;
    /// assert!(text.contains("fence.mbarrier_init.release.cluster;"));
    /// assert!(text.contains("barrier.cluster.wait.acquire;"));
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    fn init_barriers(&mut self, publish: Publish, init: impl FnOnce(&mut Kernel));

    /// `barrier.cluster.arrive.release` then `barrier.cluster.wait.acquire`: every thread of
    /// every CTA of the cluster meets here, and their earlier writes (shared memory of any
    /// CTA of the cluster included) are visible after it (sm_90).
    fn cluster_sync(&mut self);

    /// The address `ptr` names in the shared memory of CTA `rank` of the cluster
    /// (`mapa.shared::cluster.u32`; sm_90): a `.shared::cluster` pointer, for
    /// `st.shared::cluster`, `ld.shared::cluster`, `st.async` and remote barriers.
    fn map_shared<S: CtaShared, T: crate::types::DataType>(&mut self, ptr: Ptr<S, T>, rank: impl Operand<U32>) -> Ptr<m::SharedCluster, T>;
}

impl BarrierOps for Kernel {
    #[track_caller]
    fn mbarriers(&mut self, name: &str, len: u32) -> Mbarriers {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        let base = self.shared_array::<B64>(name, len, 8);
        let name = Some(self.probes.barrier(name));
        Mbarriers { base, len, name }
    }

    #[track_caller]
    fn init_barriers(&mut self, publish: Publish, init: impl FnOnce(&mut Kernel)) {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        let t = self.thread_rank();
        let first = ptx!(self, "setp.eq.u32", t, 0u32);
        self.if_(first, |k| {
            init(k);
            if publish != Publish::Cta {
                ptx!(k, "fence.mbarrier_init.release.cluster");
            }
        });
        match publish {
            Publish::Cta | Publish::CtaAsync => {
                ptx!(self, "bar.sync", 0u32);
            }
            Publish::Cluster => self.cluster_sync(),
        }
    }

    #[track_caller]
    fn cluster_sync(&mut self) {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        ptx!(self, "barrier.cluster.arrive.release");
        ptx!(self, "barrier.cluster.wait.acquire");
    }

    #[track_caller]
    fn map_shared<S: CtaShared, T: crate::types::DataType>(&mut self, ptr: Ptr<S, T>, rank: impl Operand<U32>) -> Ptr<m::SharedCluster, T> {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        let a = ptr.addr(self);
        let r = ptx!(self, "mapa.shared::cluster.u32", a, rank);
        Ptr::from_reg32(r)
    }
}

/// A ring of `stages` buffers, each with a *full* barrier (producers arrive when they wrote
/// the stage) and an *empty* one (consumers arrive when they are done with it).
///
/// Iteration `i` uses stage `i % stages`; its round `i / stages` fixes the parities:
/// consumers wait on `full` for parity `round & 1`, producers on `empty` for the previous
/// round, parity `(round & 1) ^ 1`, which a fresh barrier reports complete at once (the first
/// round has nothing to wait for). [`Ring::slot`] computes all of it from a running index in
/// registers.
#[derive(Clone, Copy, Debug)]
pub struct Ring {
    stages: u32,
    full: Mbarriers,
    empty: Mbarriers,
}

impl Ring {
    /// `stages` full and `stages` empty barriers, in new shared arrays `{name}_full` and
    /// `{name}_empty`.
    #[track_caller]
    pub fn new(k: &mut Kernel, name: &str, stages: u32) -> Ring {
        if stages == 0 {
            k.invalid(format!("ring `{name}` needs at least one stage"));
        }
        let full = k.mbarriers(&format!("{name}_full"), stages);
        let empty = k.mbarriers(&format!("{name}_empty"), stages);
        Ring { stages: stages.max(1), full, empty }
    }

    /// Initialises the ring in thread 0 and publishes it ([`BarrierOps::init_barriers`]): each
    /// full barrier completes after `producers` arrivals, each empty one after `consumers`.
    #[track_caller]
    pub fn init(&self, k: &mut Kernel, producers: u32, consumers: u32, publish: Publish) {
        let (full, empty) = (self.full, self.empty);
        k.init_barriers(publish, |k| {
            full.init(k, producers);
            empty.init(k, consumers);
        });
    }

    /// The number of stages.
    pub fn stages(&self) -> u32 {
        self.stages
    }
    /// The full barriers.
    pub fn full(&self) -> Mbarriers {
        self.full
    }
    /// The empty barriers.
    pub fn empty(&self) -> Mbarriers {
        self.empty
    }

    /// The stage of iteration `i`: `i % stages` (`and.b32` when `stages` is a power of two).
    #[track_caller]
    pub fn stage(&self, k: &mut Kernel, i: Reg<U32>) -> Reg<U32> {
        if self.stages.is_power_of_two() {
            ptx!(k, "and.b32", i, self.stages - 1).bitcast()
        } else {
            ptx!(k, "rem.u32", i, self.stages)
        }
    }

    /// The parity of the phase iteration `i` fills: `(i / stages) & 1`.
    #[track_caller]
    pub fn parity(&self, k: &mut Kernel, i: Reg<U32>) -> Reg<U32> {
        let round = if self.stages.is_power_of_two() {
            ptx!(k, "shr.u32", i, self.stages.trailing_zeros())
        } else {
            ptx!(k, "div.u32", i, self.stages)
        };
        ptx!(k, "and.b32", round, 1u32).bitcast()
    }

    /// Everything iteration `i` needs: its stage, its parity, and the stage's barriers.
    #[track_caller]
    pub fn slot(&self, k: &mut Kernel, i: Reg<U32>) -> Slot {
        let stage = self.stage(k, i);
        let parity = self.parity(k, i);
        let full = self.full.at(k, stage);
        let empty = self.empty.at(k, stage);
        Slot { stage, parity, full, empty }
    }
}

/// One iteration's stage of a [`Ring`].
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    /// The stage, from 0 to `stages - 1`.
    pub stage: Reg<U32>,
    /// The parity of the phase this iteration fills: `(i / stages) & 1`.
    pub parity: Reg<U32>,
    /// The stage's full barrier.
    pub full: Mbarrier,
    /// The stage's empty barrier.
    pub empty: Mbarrier,
}

impl Slot {
    /// Producer: waits (bounded) until the consumers released this stage's previous round
    /// (`empty`, parity `parity ^ 1`; the first round passes at once). `true` when it did.
    #[track_caller]
    pub fn acquire(&self, k: &mut Kernel, deadline: &Deadline) -> Reg<Pred> {
        let prev = ptx!(k, "xor.b32", self.parity, 1u32).bitcast::<U32>();
        self.empty.wait(k, prev, deadline)
    }
    /// Producer: arrives on the stage's full barrier (releasing this thread's writes).
    #[track_caller]
    pub fn commit(&self, k: &mut Kernel) {
        self.full.arrive(k);
    }
    /// Consumer: waits (bounded) until the stage is full for this round (`full`, parity
    /// `parity`). `true` when it is.
    #[track_caller]
    pub fn wait(&self, k: &mut Kernel, deadline: &Deadline) -> Reg<Pred> {
        self.full.wait(k, self.parity, deadline)
    }
    /// Consumer: arrives on the stage's empty barrier (this thread is done with it).
    #[track_caller]
    pub fn release(&self, k: &mut Kernel) {
        self.empty.arrive(k);
    }
}
