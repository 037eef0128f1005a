//! Matrix fragments in shared memory: `ldmatrix`, `stmatrix` and `movmatrix` (the 8x8 b16
//! shapes from sm_75/sm_90; Blackwell's 16x16 and 8x16 b8 shapes). A load of `.xN` matrices
//! returns `[Reg<B32>; N]` (two registers per 16x16 b8 matrix), so a fragment of the wrong
//! length does not compile.
//!
//! ```
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_90);
//! m.kernel("frag", |k, (out,): (GlobalPtr<B32>,)| {
//!     let tile = k.shared_array::<B16>("tile", 4 * 64, 16);
//!     let lane = ptx!(k, "mov.u32", sreg::LANEID);
//!     let row = ptx!(k, "mul.lo.u32", lane, 8u32); // lane l names row l of the four matrices
//!     let [a0, a1, a2, a3] = ptx!(k, "ldmatrix.sync.aligned.m8n8.x4.shared.b16", tile.at(row));
//!     let t = ptx!(k, "movmatrix.sync.aligned.m8n8.trans.b16", a0);
//!     ptx!(k, "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", tile.at(row), [t, a1, a2, a3]);
//!     ptx!(k, "st.global.b32", out.at(lane), a3);
//! })
//! .unwrap();
//! assert!(m.to_ptx().unwrap().contains("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r"));
//! ```
//!
//! The forms come from the table `macros/tables/matrix.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(matrix);
