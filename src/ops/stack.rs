//! The thread's stack: `alloca`, `stacksave`, `stackrestore`.
//!
//! `alloca.u64 p, size` moves the stack pointer down by `size` bytes and returns the new
//! one, the lowest address of the block: a `.local` address, for `ld.local`/`st.local`
//! (`cvta.local.u64` makes it generic), never a global one. `as aligned` adds the
//! alignment, a power of two from 1 to 2^23 (a legal-value immediate). The raw forms return
//! the address as a `Reg<U64>` (or, for `.u32`, a 32-bit local-window address as a
//! `Reg<U32>`); [`Kernel::alloca`](crate::Kernel::alloca) returns it typed, as a
//! [`LocalPtr<T>`](crate::regs::LocalPtr), and
//! [`Kernel::stack_frame`](crate::Kernel::stack_frame) brackets a body with `stacksave` and
//! `stackrestore`, which frees every block allocated in it.
//!
//! ```
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_90);
//! m.kernel("scratch", |k, (out, n): (GlobalPtr<U32>, Reg<U64>)| {
//!     k.stack_frame(|k| {
//!         // `n` elements of u32 per thread, 16-byte aligned.
//!         let buf: LocalPtr<U32> = k.alloca(n, 16);
//!         k.st(buf.offset(0), 7u32);
//!         let v = k.ld(buf.offset(0));
//!         k.st(out.offset(0), v);
//!     });
//!     // The same by hand.
//!     let sp = ptx!(k, "stacksave.u64");
//!     let bytes = ptx!(k, "shl.b64", n, 2u32);
//!     let raw = ptx!(k, "alloca.u64" as aligned, bytes, Const::<8>);
//!     ptx!(k, "st.local.u32", LocalPtr::<U32>::from_reg(raw), 1u32);
//!     ptx!(k, "stackrestore.u64", sp);
//! })?;
//! let ptx = m.to_ptx()?;
//! assert!(ptx.contains("alloca.u64 %rd"), "{ptx}");
//! assert!(ptx.contains("stackrestore.u64 %rd"), "{ptx}");
//! # Ok::<(), ptxkit::Error>(())
//! ```
//!
//! An `alloca` block is a local address, not a global one:
//!
//! ```compile_fail
//! use ptxkit::prelude::*;
//! let mut m = Module::new(Target::SM_90);
//! m.kernel("bad", |k, (n,): (Reg<U64>,)| {
//!     let buf: LocalPtr<U32> = k.alloca(n, 4);
//!     ptx!(k, "st.global.u32", buf, 1u32);
//! });
//! ```
//!
//! The forms come from the table `macros/tables/stack.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(stack);
