//! Warpgroup matrix multiply-accumulate (`wgmma`, sm_90a): `wgmma.mma_async` for every dense
//! shape and type, with A and B from shared-memory descriptors ([`Gdesc`](crate::types::Gdesc)
//! registers) or A from registers (`as rs`), and `wgmma.fence`, `commit_group`,
//! `wait_group`; the sparse `wgmma.mma_async.sp` forms (metadata register and selector). The
//! accumulator is a tied [`Acc`](crate::ops::Acc) (`N/2` registers for an `m64nNk16` f32
//! accumulator), passed with `=> acc` and updated in place, so k-steps chain with no copy;
//! the scale and transpose immediates take only the values PTX allows (`-1|1`, `0|1`).
//!
//! ```
//! use ptxkit::descriptors::{ElemBytes, Major, Swizzle, TileLayout};
//! use ptxkit::prelude::*;
//!
//! let a_tile = TileLayout::new(ElemBytes::B2, 64, 64, Major::K, Swizzle::B128)?;
//! let b_tile = TileLayout::new(ElemBytes::B2, 128, 64, Major::K, Swizzle::B128)?;
//! let mut m = Module::new(Target::SM_90A);
//! m.kernel("tile_gemm", |k, (out,): (GlobalPtr<F32>,)| {
//!     let smem = k.dynamic_shared_aligned::<Bf16>(1024);
//!     let (a, b) = (k.gmma_desc(&a_tile, smem), k.gmma_desc(&b_tile, smem.byte_offset(8192)));
//!     let acc: Acc<F32, 64> = k.zeroed_acc(); // m64n128: 64 f32 per thread
//!     ptx!(k, "wgmma.fence.sync.aligned");
//!     for step in 0..4 {
//!         let (da, db) = (k.gmma_desc_k(a, &a_tile, step), k.gmma_desc_k(b, &b_tile, step));
//!         ptx!(k, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16" => acc, da, db, step > 0, 1, 1, 0, 0);
//!     }
//!     ptx!(k, "wgmma.commit_group.sync.aligned");
//!     ptx!(k, "wgmma.wait_group.sync.aligned", 0);
//!     let t = ptx!(k, "mov.u32", sreg::TID_X);
//!     ptx!(k, "st.global.f32", out.at(t), acc[0]);
//! })
//! .unwrap();
//! let text = m.to_ptx().unwrap();
//! assert_eq!(text.matches("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16").count(), 4);
//! assert!(text.contains(".target sm_90a"));
//! # Ok::<(), ptxkit::descriptors::DescError>(())
//! ```
//!
//! The forms come from the table `macros/tables/wgmma.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(wgmma);
