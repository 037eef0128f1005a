//! Arithmetic: integer and floating-point add, sub, mul, mad, fma, div, rem, abs, neg, min,
//! max, copysign, and the special functions, with rounding, ftz and sat where PTX has them.
//!
//! The forms come from the table `macros/tables/arith.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(arith);
