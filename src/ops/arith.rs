//! Arithmetic: integer and floating-point add, sub, mul, mad, fma, div, rem, abs, neg, min,
//! max, copysign, and the special functions, with rounding, ftz and sat where PTX has them.
//! `min`/`max` of three `.f32` values (sm_100) are the variant `as three`:
//!
//! ```
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_100);
//! m.kernel("k", |k, (a, b, c, out): (Reg<F32>, Reg<F32>, Reg<F32>, GlobalPtr<F32>)| {
//!     let v = ptx!(k, "max.NaN.abs.f32" as three, a, b, c);
//!     k.st(out.offset(0), v);
//! })?;
//! assert!(m.to_ptx()?.contains("max.NaN.abs.f32 %r"));
//! # Ok::<(), ptxkit::Error>(())
//! ```
//!
//! The forms come from the table `macros/tables/arith.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(arith);
