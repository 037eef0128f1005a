//! Asynchronous copies from global to shared memory (`cp.async`, sm_80): 4, 8 or 16 bytes
//! per thread, with zero-fill (`as src_size`) or an ignore-source predicate
//! (`as ignore_src`), L2 cache hints and prefetch sizes; their groups
//! (`commit_group`/`wait_group`/`wait_all`) and their completion on an mbarrier
//! (`cp.async.mbarrier.arrive`).
//!
//! The copy size is an immediate from its legal set: `.ca` copies 4, 8 or 16 bytes, `.cg`
//! only 16, and another size does not compile (a [`Const`](crate::regs::Const)) or is an
//! error of the kernel (a plain integer).
//!
//! ```
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_80);
//! m.kernel("stage", |k, (src, out, n): (GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>)| {
//!     let tile = k.shared_array::<U32>("tile", 1024, 16);
//!     let t = ptx!(k, "mov.u32", sreg::TID_X);
//!     let i = ptx!(k, "shl.b32", t, 2u32); // four words per thread
//!     // 16 bytes, of which only `n` come from global memory; the rest are zeros.
//!     ptx!(k, "cp.async.cg.shared.global" as src_size, tile.at(i), src.at(i), Const::<16>, n);
//!     ptx!(k, "cp.async.commit_group");
//!     ptx!(k, "cp.async.wait_group", 0);
//!     ptx!(k, "bar.sync", 0);
//!     let v = k.ld(tile.at(i));
//!     k.st(out.at(i), v);
//! })?;
//! let text = m.to_ptx()?;
//! assert!(text.contains("cp.async.cg.shared.global [%r"));
//! assert!(text.contains(", 16, %r"));
//! # Ok::<(), ptxkit::Error>(())
//! ```
//!
//! The forms come from the table `macros/tables/cpasync.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(cpasync);
