//! Conversions: `cvt` across the standard types with rounding, saturation and ftz, the
//! packing forms (`cvt.rn.bf16x2.f32 d, a, b` puts `a` in the upper half) whose results are
//! integer-register carriers typed as the packed format, and `cvta` (64-bit: ptxas 13.0 has no
//! 32-bit addressing, so no `.u32` form; `.param::entry` names a kernel's parameters). The
//! integer roundings of a 16-bit float stay in its format: `cvt.rni.bf16.bf16` (sm_90),
//! `cvt.rzi.sat.f16.f16`.
//!
//! The forms come from the table `macros/tables/cvt.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(cvt);
