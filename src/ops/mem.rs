//! Data movement and atomics: mov; ld/st over every state space with cache operators,
//! .volatile/.relaxed/.acquire/.release and scopes, .v2/.v4; ldu; prefetch; isspacep;
//! atom and red with semantics, scopes, cas and exch.
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
//! addresses are 32-bit.
//!
//! The forms come from the table `macros/tables/mem.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(mem);
