//! Warp-level matrix multiply-accumulate (`mma.sync.aligned`, sm_75/sm_80 onwards): one warp
//! computes D = A·B + C for a small tile, every thread holding a fixed fragment of each
//! matrix in registers. Every dense form PTX ISA 9.0 has from sm_80 to sm_90a: f16 (m8n8k4
//! with any A/B layout; m16n8k8, m16n8k16), bf16 (m16n8k8, m16n8k16), tf32 (m16n8k4,
//! m16n8k8), f64 (m8n8k4; m16n8k4, m16n8k8, m16n8k16 from sm_90), e4m3/e5m2 (m16n8k16,
//! m16n8k32, sm_89), u8/s8 (m8n8k16, m16n8k16, m16n8k32), u4/s4 (m8n8k32, m16n8k32, m16n8k64)
//! and b1 (m8n8k128, m16n8k128, m16n8k256 with `.and.popc` or `.xor.popc`); and the 2:4
//! sparse `mma.sp::ordered_metadata` and `mma.sp` forms.
//!
//! Fragments are arrays of registers whose length the form fixes, so a fragment of the wrong
//! length, or an f32 accumulator where the form has f16 ones, does not compile. Packed inputs
//! are typed by their packing: f16 and bf16 two to a register (`Reg<F16x2>`, `Reg<Bf16x2>`,
//! or any `Reg<B32>`), tf32 and the 8-, 4- and 1-bit types in `.b32` registers, f64 one to a
//! register; accumulators are `f32`, `s32`, `f64` or `f16x2` (two f16 per register). For
//! `m16n8k16.row.col.f32.bf16.bf16.f32`, A is `[Reg<Bf16x2>; 4]`, B `[Reg<Bf16x2>; 2]`, C and D
//! `[Reg<F32>; 4]`. Which element of the tile each register holds is the PTX ISA's "Matrix
//! Fragments for mma" layout (the device tests in `tests/device/mma.rs` write it out).
//!
//! C is an operand of its own, not tied to D: `ptx!(k, "..." , a, b, c)` returns D in fresh
//! registers, and `ptx!(k, "..." => d, a, b, d)` accumulates in place (when C and D have one
//! type).
//!
//! Sparse forms take A with the kept half of each row (the fragment of the dense shape with
//! half the K), then the metadata register (`.b32`: the positions of the kept elements) and the
//! sparsity selector, an immediate from the set the shape allows: which threads of each group
//! of four supply the metadata, `0..3` where one thread does, `0|1` where a pair does, `0`
//! where all four do. A value outside the set is a type error for a
//! [`Const`](crate::regs::Const) and a build error for a plain integer. ptxas advises
//! `.sp::ordered_metadata` over `.sp` on every target (an advisory the ptxas checks report).
//!
//! The f16 m8n8k4 forms compute four independent 8×8×4 products, one per quad-pair (lanes
//! 0–3 with 16–19, 4–7 with 20–23, ...); PTX notes they are tuned for sm_70 and may be much
//! slower on later GPUs.
//!
//! ```
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_80);
//! m.kernel("tile", |k, (a, b, d): (GlobalPtr<B32>, GlobalPtr<B32>, GlobalPtr<F32>)| {
//!     // Each thread loads its fragments: 4 registers of A (8 bf16), 2 of B (4 bf16).
//!     let lane = ptx!(k, "mov.u32", sreg::LANEID);
//!     let i = ptx!(k, "mul.lo.u32", lane, 4u32);
//!     let af: [Reg<Bf16x2>; 4] = std::array::from_fn(|j| k.ld(a.at(i).offset(j as i64)).bitcast());
//!     let bf: [Reg<Bf16x2>; 2] = std::array::from_fn(|j| k.ld(b.at(i).offset(j as i64)).bitcast());
//!     let acc: [Reg<F32>; 4] = std::array::from_fn(|_| ptx!(k, "mov.f32", 0.0f32));
//!     // acc += A * B, written over the accumulator.
//!     ptx!(k, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" => acc, af, bf, acc);
//!     for (j, r) in acc.iter().enumerate() {
//!         k.st(d.at(i).offset(j as i64), *r);
//!     }
//! })?;
//! let text = m.to_ptx()?;
//! let line = text.lines().find(|l| l.contains("mma.sync")).unwrap().trim();
//! assert_eq!(
//!     line,
//!     "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%r9, %r10, %r11, %r12}, \
//!      {%r3, %r4, %r5, %r6}, {%r7, %r8}, {%r9, %r10, %r11, %r12};"
//! );
//! assert!(text.contains(".version 7.0") && text.contains(".target sm_80"));
//! # Ok::<(), ptxkit::Error>(())
//! ```
//!
//! The forms come from the table `macros/tables/mma.forms`; [`FORMS`] lists them and shows
//! the table.

ptxkit_macros::forms!(mma);
