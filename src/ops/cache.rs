//! L2 cache policies and hints: `createpolicy` (fractional, range and `cvt` forms),
//! `discard` and `applypriority`.
//!
//! `createpolicy` returns an opaque `b64` cache policy, which the `.L2::cache_hint` forms
//! (`atom`, `red`, `cp.async`, the bulk copies) take as their last operand. A
//! fractional policy gives the primary priority to a fraction of the accesses (an `f32` in
//! (0, 1]; without `as fraction` it is 1.0) and the secondary one (`.L2::evict_first` or
//! `.L2::evict_unchanged`, `.L2::evict_unchanged` when omitted) to the rest; a range policy
//! gives it to the first `primary-size` bytes of a `total-size`-byte range from an address.
//! A fraction outside (0, 1] or a primary size above the total size, given as immediates,
//! is an error when the kernel is built. A policy is a hint: it never changes what memory
//! holds.
//!
//! `discard.L2` marks the 128 bytes at a 128-byte-aligned global address as not worth
//! writing back: afterwards they read as indeterminate until written again.
//! `applypriority.L2::evict_normal` lowers the eviction priority of such a line back to
//! normal. Both take the size as the immediate 128 (a legal-value immediate: another size
//! does not compile).
//!
//! ```
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_90);
//! m.kernel("hinted", |k, (x, scratch): (GlobalPtr<U32>, GlobalPtr<U32>)| {
//!     // Keep a quarter of the accesses in L2, evict the rest first.
//!     let keep = ptx!(k, "createpolicy.fractional.L2::evict_last.L2::evict_first.b64" as fraction, 0.25f32);
//!     let old = ptx!(k, "atom.global.add.L2::cache_hint.u32", x, 1u32, keep);
//!     ptx!(k, "red.global.add.L2::cache_hint.u32", x.offset(1), old, keep);
//!     // The first 4 KiB of a 64 KiB range at `x` evicted last.
//!     let range = ptx!(k, "createpolicy.range.global.L2::evict_last.b64", x, 4096u32, 65536u32);
//!     ptx!(k, "red.global.max.L2::cache_hint.u32", x.offset(2), old, range);
//!     // A scratch line whose contents no longer matter, and one back to normal priority.
//!     ptx!(k, "discard.global.L2", scratch, Const::<128>);
//!     ptx!(k, "applypriority.global.L2::evict_normal", x, Const::<128>);
//! })?;
//! let ptx = m.to_ptx()?;
//! assert!(ptx.contains("createpolicy.fractional.L2::evict_last.L2::evict_first.b64 %rd5, 0f3E800000;"), "{ptx}");
//! assert!(ptx.contains("discard.global.L2 [%rd4], 128;"), "{ptx}");
//! # Ok::<(), ptxkit::Error>(())
//! ```
//!
//! A size other than 128 does not compile:
//!
//! ```compile_fail
//! use ptxkit::prelude::*;
//! let mut m = Module::new(Target::SM_90);
//! m.kernel("bad", |k, (x,): (GlobalPtr<U32>,)| {
//!     ptx!(k, "discard.global.L2", x, Const::<64>);
//! });
//! ```
//!
//! The forms come from the table `macros/tables/cache.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(cache);
