//! Distributed shared memory across the CTAs of a cluster (sm_90): `mapa` (an address in
//! another CTA), `getctarank`, and the asynchronous remote stores and reductions `st.async`
//! and `red.async`, which complete on an mbarrier in the CTA they write. And cluster launch
//! control (sm_100): `clusterlaunchcontrol.try_cancel` and `query_cancel`, below.
//!
//! ```
//! use ptxkit::prelude::*;
//! use ptxkit::ops::m;
//!
//! let mut m = Module::new(Target::SM_90);
//! m.kernel("exchange", |k, (v,): (Reg<U32>,)| {
//!     let buf = k.shared_array::<U32>("buf", 32, 4);
//!     let bar = k.shared_array::<B64>("bar", 1, 8);
//!     let rank = ptx!(k, "mov.u32", sreg::CLUSTER_CTARANK);
//!     let peer = ptx!(k, "xor.b32", rank, 1u32);
//!     // The peer CTA's `buf` and `bar`, as `.shared::cluster` addresses.
//!     let (b, r) = (buf.addr(k), bar.addr(k));
//!     let rbuf: Ptr<m::SharedCluster, U32> = Ptr::from_reg32(ptx!(k, "mapa.shared::cluster.u32", b, peer));
//!     let rbar: Ptr<m::SharedCluster, B64> = Ptr::from_reg32(ptx!(k, "mapa.shared::cluster.u32", r, peer));
//!     ptx!(k, "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32", rbuf, v, rbar);
//!     ptx!(k, "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32", rbuf.offset(1), v, rbar);
//!     let owner = ptx!(k, "getctarank.shared::cluster.u32", rbuf.addr(k));
//!     ptx!(k, "st.shared.u32", buf.offset(2), owner);
//! })?;
//! let text = m.to_ptx()?;
//! assert!(text.contains("mapa.shared::cluster.u32"));
//! assert!(text.contains("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r"));
//! # Ok::<(), ptxkit::Error>(())
//! ```
//!
//! `clusterlaunchcontrol.try_cancel` asks to cancel a cluster of the grid that has not started
//! yet; its 16-byte response lands in shared memory and completes 16 bytes on an mbarrier.
//! Loaded into a 128-bit register, `query_cancel` says whether the request succeeded and, if
//! it did, the first CTA id of the canceled cluster, whose work the asking CTA may then do:
//!
//! ```
//! use ptxkit::prelude::*;
//! use ptxkit::intrinsics::mbarrier::{Deadline, Publish};
//!
//! let mut m = Module::new(Target::SM_100);
//! m.kernel("steal", |k, (out,): (GlobalPtr<U32>,)| {
//!     let resp = k.shared_array::<B128>("resp", 1, 16);
//!     let bars = k.mbarriers("bar", 1);
//!     k.init_barriers(Publish::Cluster, |k| bars.init(k, 1));
//!     let bar = bars.get(0);
//!     let t = ptx!(k, "mov.u32", sreg::TID_X);
//!     let first = ptx!(k, "setp.eq.u32", t, 0u32);
//!     k.if_(first, |k| {
//!         let _ = bar.arrive_expect_tx(k, 16u32);
//!         ptx!(k, "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128", resp, bar.ptr());
//!         let d = Deadline::new(k, 1 << 20);
//!         let done = bar.wait(k, 0u32, &d);
//!         k.if_(done, |k| {
//!             let h = ptx!(k, "ld.shared.b128", resp);
//!             let canceled = ptx!(k, "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128", h);
//!             let x = ptx!(k, "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128", h);
//!             // The canceled cluster's first CTA id, or -1 when no cluster was canceled.
//!             let id = ptx!(k, "selp.b32", x, 0xffff_ffffu32, canceled);
//!             let me = ptx!(k, "mov.u32", sreg::CTAID_X);
//!             ptx!(k, "st.global.b32", out.at(me), id);
//!         });
//!     });
//! })?;
//! let text = m.to_ptx()?;
//! assert!(text.contains("clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p"));
//! # Ok::<(), ptxkit::Error>(())
//! ```
//!
//! The forms come from the table `macros/tables/cluster.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(cluster);
