//! Warp-level matrix multiply-accumulate through opaque fragments (`wmma`, sm_75/sm_80
//! onwards): the warp loads A, B and C from memory (`wmma.load.a/b/c`), computes
//! D = A·B + C (`wmma.mma`) and stores D (`wmma.store.d`). Every form PTX ISA 9.0 lists: f16
//! inputs with f16 or f32 C and D at m16n16k16, m8n32k16 and m32n8k16; bf16 at the same
//! shapes; tf32 at m16n16k8; f64 at m8n8k4 (with or without `.rn`/`.rz`/`.rm`/`.rp`); u8/s8
//! at the three 16-deep shapes, u4/s4 at m8n8k32 and b1 at m8n8k128 (`.and.popc` or
//! `.xor.popc`), the integer products with or without `.satfinite`. Each matrix is row- or
//! column-major in memory (u4/s4 and b1: A row-major, B column-major), at a generic address or
//! in `.global` or `.shared`.
//!
//! Which tile elements a thread's registers hold is unspecified (it may differ between
//! GPUs), so fragments are meant for the next wmma instruction only. They are arrays of
//! registers whose length the form fixes ("Matrix Fragments for WMMA"): for
//! `m16n16k16.f32.f32`, A and B are `[Reg<F16x2>; 8]` (any `Reg<B32>` too), C and D
//! `[Reg<F32>; 8]`. A fragment of the wrong length, or a shape the ISA does not have, does not
//! compile. Integer, tf32, u4/s4 and b1 inputs are packed into `.b32` registers.
//!
//! An address names the matrix's element type (`GlobalPtr<F16>` for `.f16`; the packed u4/s4
//! and b1 matrices as 32-bit words; tf32 as [`Tf32`](crate::types::Tf32), which an f32
//! pointer becomes with `.cast()`). `as strided` adds the stride operand, a 32-bit integer:
//! the elements between the starts of consecutive rows (row-major) or columns (column-major),
//! for a tile inside a larger matrix; without it the tile is packed.
//!
//! ```
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_80);
//! // One warp: D (16x16 f32, row-major) = A (16x16 f16, row-major) * B (column-major) + C,
//! // where C is the top-left tile of a row-major matrix 64 columns wide.
//! m.kernel("tile", |k, (a, b, c, d): (GlobalPtr<F16>, GlobalPtr<F16>, GlobalPtr<F32>, GlobalPtr<F32>)| {
//!     let af = ptx!(k, "wmma.load.a.sync.aligned.row.m16n16k16.global.f16", a);
//!     let bf = ptx!(k, "wmma.load.b.sync.aligned.col.m16n16k16.global.f16", b);
//!     let cf = ptx!(k, "wmma.load.c.sync.aligned.row.m16n16k16.global.f32" as strided, c, 64u32);
//!     let df = ptx!(k, "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32", af, bf, cf);
//!     ptx!(k, "wmma.store.d.sync.aligned.row.m16n16k16.global.f32", d, df);
//! })?;
//! let text = m.to_ptx()?;
//! let line = |op: &str| text.lines().find(|l| l.contains(op)).unwrap().trim().to_string();
//! assert_eq!(
//!     line("wmma.load.c"),
//!     "wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%r17, %r18, %r19, %r20, %r21, %r22, %r23, %r24}, [%rd6], 64;"
//! );
//! assert!(line("wmma.mma").ends_with("{%r17, %r18, %r19, %r20, %r21, %r22, %r23, %r24};"));
//! # Ok::<(), ptxkit::Error>(())
//! ```
//!
//! The forms come from the table `macros/tables/wmma.forms`; [`FORMS`] lists them and shows
//! the table.

ptxkit_macros::forms!(wmma);
