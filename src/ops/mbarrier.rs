//! Barrier objects in shared memory (`mbarrier`), the whole PTX ISA 9.0 grammar:
//! `init`/`inval`; `arrive` and `arrive_drop` (with an arrival count `as counted`, with
//! `.expect_tx` or `.noComplete`, with `.release`/`.relaxed` at `.cta`/`.cluster` scope);
//! `expect_tx`/`complete_tx`; `test_wait`/`try_wait` on a state or a phase parity (with
//! `.acquire`/`.relaxed` and a scope, `try_wait` also with a suspend-time hint `as hinted`);
//! `pending_count`.
//!
//! Without a state space in the chain the address is generic; `.shared` and `.shared::cta`
//! take the executing CTA's 32-bit window (a `.shared` pointer fits both). An arrive on a
//! `.shared::cluster` address (perhaps another CTA's barrier) returns no state: its
//! destination is the sink `_`, and the call returns `()`.
//!
//! ```
//! use ptxkit::prelude::*;
//! use ptxkit::ops::m;
//!
//! let mut m = Module::new(Target::SM_90);
//! m.kernel("k", |k, (peer, out): (Reg<U32>, GlobalPtr<U32>)| {
//!     let bar = k.shared_array::<B64>("bar", 1, 8);
//!     ptx!(k, "mbarrier.init.shared::cta.b64", bar, 2u32);
//!     let state = ptx!(k, "mbarrier.arrive.release.cta.shared::cta.b64" as counted, bar, 2u32);
//!     let done = ptx!(k, "mbarrier.test_wait.shared::cta.b64", bar, state);
//!     let pending = ptx!(k, "mbarrier.pending_count.b64", state);
//!     // Another CTA's barrier: `()` comes back, PTX gets `_`.
//!     let remote: Ptr<m::SharedCluster, B64> = Ptr::from_reg32(peer);
//!     ptx!(k, "mbarrier.arrive.expect_tx.relaxed.cluster.shared::cluster.b64", remote, 128u32);
//!     let phase = ptx!(k, "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64" as hinted, bar, 0u32, 1000u32);
//!     let both = ptx!(k, "and.pred", done, phase);
//!     let v = ptx!(k, "selp.u32", pending, 0u32, both);
//!     ptx!(k, "st.global.u32", out.offset(0), v);
//! })?;
//! let text = m.to_ptx()?;
//! assert!(text.contains("mbarrier.arrive.expect_tx.relaxed.cluster.shared::cluster.b64 _, [%r"));
//! assert!(text.contains(".target sm_90")); // the count operand needs sm_90
//! # Ok::<(), ptxkit::Error>(())
//! ```
//!
//! The typed handles in [`crate::intrinsics::mbarrier`] build on these forms: barriers as
//! values, waits bounded by a try counter, and full/empty rings.
//!
//! The forms come from the table `macros/tables/mbarrier.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(mbarrier);
