//! `multimem`: loads with reduction, stores and reductions through a multimem address
//! (sm_90 and later). A multimem address names one location in the memory of every GPU
//! bound to a multicast object (the driver's `cuMulticastCreate` and `cuMulticastBindMem`
//! make one): `multimem.ld_reduce` loads the location from every GPU and returns the
//! reduction, `multimem.st` stores to every GPU, `multimem.red` reduces into every GPU.
//!
//! - Integers: `min`/`max` of `.u32/.s32/.u64/.s64`, `add` of `.u32/.s32/.u64`,
//!   `and`/`or`/`xor` of `.b32/.b64`; stores of every 32- and 64-bit type.
//! - Floats: an access of 32, 64 or 128 bits: `.f16x2`, `.bf16x2`, `.f32`, `.f64` alone,
//!   `.v2`/`.v4`/`.v8` of `.f16`/`.bf16`, `.v2`/`.v4` of `.f16x2`/`.bf16x2`/`.f32` (`.f32`
//!   and `.f64` reduce by `add` only); `.acc::f32` sums 16-bit floats in f32.
//! - FP8 (sm_100a and its family): `.e4m3`/`.e5m2` in `.v4`/`.v8` (8-bit registers),
//!   `.e4m3x2`/`.e5m2x2` from `.v2`, `.e4m3x4`/`.e5m2x4` alone and in `.v2`/`.v4`, reduced
//!   with `min`/`max`/`add`, `add` optionally in `.acc::f16`.
//! - `.relaxed`/`.acquire` (loads) or `.release` (stores, reductions) come with a scope;
//!   `.weak` (loads and stores) stands alone.
//!
//! The address operand is a generic or `.global` pointer; that it is a multimem address
//! is not typed (any other is undefined behaviour). These forms are checked by ptxas only:
//! a multimem address needs several GPUs bound to a multicast object, so no device test runs
//! them.
//!
//! ```
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_90);
//! m.kernel("allreduce_step", |k, (mc, own): (GlobalPtr<F32>, GlobalPtr<F32>)| {
//!     // The sum over every GPU of four floats, written back to every GPU.
//!     let sum: [Reg<F32>; 4] = ptx!(k, "multimem.ld_reduce.relaxed.sys.global.add.v4.f32", mc);
//!     ptx!(k, "multimem.st.relaxed.sys.global.v4.f32", mc, sum);
//!     // Add this GPU's value into every GPU's copy.
//!     let x = k.ld(own.offset(0));
//!     ptx!(k, "multimem.red.release.gpu.global.add.f32", mc.offset(4), x);
//!     // Two f16 pairs summed in f32.
//!     let h: [Reg<F16x2>; 2] = ptx!(k, "multimem.ld_reduce.weak.global.add.acc::f32.v2.f16x2", mc.cast::<F16x2>().offset(8));
//!     ptx!(k, "multimem.st.weak.global.v2.f16x2", mc.cast::<F16x2>().offset(8), h);
//! })?;
//! assert!(m.to_ptx()?.contains("multimem.ld_reduce.relaxed.sys.global.add.v4.f32 {"));
//! # Ok::<(), ptxkit::Error>(())
//! ```
//!
//! The forms come from the table `macros/tables/multimem.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(multimem);
