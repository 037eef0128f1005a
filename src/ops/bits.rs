//! Bit operations: logic, shifts, funnel shifts, lop3, prmt, bit-field extract/insert,
//! reverse, population count, leading zeros, find-bit, find-nth-set and bit masks.
//!
//! The forms come from the table `macros/tables/bits.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(bits);
