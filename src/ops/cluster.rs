//! Distributed shared memory across the CTAs of a cluster (sm_90): `mapa` (an address in
//! another CTA), `getctarank`, and the asynchronous remote stores and reductions `st.async`
//! and `red.async`, which complete on an mbarrier in the CTA they write.
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
//! The forms come from the table `macros/tables/cluster.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(cluster);
