//! Synchronisation: bar/barrier (CTA and cluster, with block reductions), bar.warp.sync,
//! fence (thread fences,
//! the `.sync_restrict` cluster fences, proxy fences, `fence.mbarrier_init`), membar,
//! nanosleep, setmaxnreg and griddepcontrol.
//!
//! `bar.sync a, b` (with a thread count) is the `counted` variant of `bar.sync a`, and so
//! for the block reductions `bar.red`/`barrier.red` (popc, and, or): `d, a, b, {!}c`.
//! `membar.proxy.alias` is the old spelling of `fence.proxy.alias`.
//! `setmaxnreg` takes a multiple of 8 from 24 to 256 (a legal-value immediate: another value
//! does not compile). A kernel that uses it must let ptxas know its register count at entry
//! (`.maxnreg`, or `.minnctapersm` with a block size), or the kernel is refused: ptxas would
//! drop the `setmaxnreg` with only an informational message.
//!
//! ```
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_90);
//! m.kernel("k", |k, ()| {
//!     ptx!(k, "griddepcontrol.wait");
//!     ptx!(k, "fence.mbarrier_init.release.cluster");
//!     ptx!(k, "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster");
//!     ptx!(k, "barrier.cluster.arrive.relaxed.aligned");
//!     ptx!(k, "barrier.cluster.wait.acquire.aligned");
//!     ptx!(k, "griddepcontrol.launch_dependents");
//! })?;
//! assert!(m.to_ptx()?.contains("griddepcontrol.launch_dependents;"));
//! # Ok::<(), ptxkit::Error>(())
//! ```
//!
//! The forms come from the table `macros/tables/sync.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(sync);
