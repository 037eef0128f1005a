//! Matrix fragments in shared memory: `ldmatrix`, `stmatrix` and `movmatrix` (the 8x8 b16
//! shapes from sm_75/sm_90; Blackwell's 16x16 and 8x16 b8 shapes). A load of `.xN` matrices
//! returns `[Reg<B32>; N]` (two registers per 16x16 b8 matrix), so a fragment of the wrong
//! length does not compile.
//!
//! The forms come from the table `macros/tables/matrix.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(matrix);
