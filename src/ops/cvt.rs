//! Conversions: `cvt` across the standard types with rounding, saturation and ftz, the
//! packing forms (`cvt.rn.bf16x2.f32 d, a, b` puts `a` in the upper half) whose results are
//! integer-register carriers typed as the packed format, and `cvta`.
//!
//! The forms come from the table `macros/tables/cvt.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(cvt);
