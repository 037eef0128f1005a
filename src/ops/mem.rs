//! Data movement and atomics: mov; ld/st over every state space, with `.weak`, `.volatile`,
//! `.relaxed`/`.acquire`/`.release` and scopes, `.mmio`, `.v2`/`.v4` and the 256-bit
//! `.v8`/`.v4` (sm_100); the cache controls of global memory: cache operators, L1 and L2
//! eviction priorities, L2 prefetch sizes and `.L2::cache_hint` with its cache policy;
//! `ld.global.nc` with the same; `ld.param::entry`/`::func`, `st.param::func`; ldu;
//! prefetch; isspacep; atom and red with semantics, scopes, cas and exch.
//!
//! The 16-bit float atomics need `.noftz` (`atom.global.add.noftz.bf16`, also `.f16`,
//! `.f16x2`, `.bf16x2`); `atom.cas.b16` swaps a 16-bit value. Vector atomics and reductions
//! (sm_90, global memory only) add `.v2`/`.v4` of `.f32`, and add, min or max `.v2`/`.v4`/`.v8`
//! of `.f16`/`.bf16` and `.v2`/`.v4` of `.f16x2`/`.bf16x2`, element by element (each element
//! is atomic on its own); their operands are arrays. A chain with `.L2::cache_hint` (global
//! or generic addresses, every operation but cas) takes a 64-bit cache policy from
//! [`createpolicy`](super::cache) as its last operand.
//!
//! ```
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_90);
//! m.kernel("k", |k, (acc, h): (GlobalPtr<F32>, GlobalPtr<Bf16>)| {
//!     let x = k.ld(acc.offset(0));
//!     let old: [Reg<F32>; 4] = ptx!(k, "atom.global.add.v4.f32", acc, [x, x, x, x]);
//!     let policy = ptx!(k, "createpolicy.fractional.L2::evict_last.b64");
//!     ptx!(k, "red.global.add.L2::cache_hint.v2.f32", acc.offset(4), [old[0], old[1]], policy);
//!     let b = k.ld(h.offset(0));
//!     let _ = ptx!(k, "atom.global.max.noftz.v8.bf16", h.offset(8), [b; 8]);
//!     let c = ptx!(k, "mov.b16", 0x3f80u16);
//!     let _ = ptx!(k, "atom.global.cas.b16", h.cast::<B16>(), b, c);
//! })?;
//! assert!(m.to_ptx()?.contains("atom.global.max.noftz.v8.bf16 {"));
//! # Ok::<(), ptxkit::Error>(())
//! ```
//!
//! An address operand `[T]` takes a pointer in the chain's state space (generic when the
//! chain names none) whose element type the instruction type accepts; shared-space
//! addresses are 32-bit. `ld.param::entry`, `ld.param::func` and `st.param::func` take a
//! `.param` pointer, as `ld.param` does (PTX 8.3 and later; the builder's `.param` calls
//! load and store their own arguments). A chain with `.L2::cache_hint` takes the 64-bit
//! cache policy as its last operand.
//!
//! ```
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_100);
//! m.kernel("copy", |k, (x, out, policy): (GlobalPtr<F32>, GlobalPtr<F32>, Reg<B64>)| {
//!     let t = ptx!(k, "mov.u32", sreg::TID_X);
//!     let i = ptx!(k, "shl.b32", t, 3u32).bitcast::<U32>();
//!     // 32 bytes through the read-only path, not kept in L1, evicted first from L2.
//!     let v = ptx!(k, "ld.global.nc.L1::no_allocate.L2::evict_first.v8.f32", x.at(i));
//!     // A store under a cache policy (from `createpolicy`, or made on the host).
//!     ptx!(k, "st.global.L2::cache_hint.v8.f32", out.at(i), v, policy);
//!     // One word with an L1 eviction priority and a 128-byte L2 prefetch.
//!     let w = ptx!(k, "ld.global.L1::evict_last.L2::128B.f32", x.at(t));
//!     k.st(out.at(t), w);
//! })?;
//! let text = m.to_ptx()?;
//! assert!(text.contains("ld.global.nc.L1::no_allocate.L2::evict_first.v8.f32 {%r"));
//! assert!(text.contains("st.global.L2::cache_hint.v8.f32 [%rd"));
//! # Ok::<(), ptxkit::Error>(())
//! ```
//!
//! The forms come from the table `macros/tables/mem.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(mem);
