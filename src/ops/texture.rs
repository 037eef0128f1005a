//! Textures and surfaces: `tex` lookups in every geometry (1-D to 3-D, layered, cube maps and
//! cube-map arrays, multi-sample) with `.level` and `.grad` mipmap selection, `tld4`
//! gathers, `txq` texture and sampler queries, `suld.b`/`sust.b`/`sust.p` surface loads and
//! stores, `sured` reductions into surfaces, `suq` queries and `istypep`.
//!
//! Textures, samplers and surfaces are [`Texture`](crate::regs::Texture),
//! [`Sampler`](crate::regs::Sampler) and [`Surface`](crate::regs::Surface) handles (object
//! handles in registers, or module variables); `tex.at(coords)` and `surf.at(coords)` make
//! the `[handle, {coords}]` operand, whose coordinate count and types the form fixes. The
//! lookups' optional parts are variants: `as sampler` (a separate sampler, the independent
//! texturing mode: `tex.with(smp).at(coords)`), `as offset` (a coordinate offset), `as
//! depth` (a depth-compare value), `as resident` (a second destination, whether the texels
//! were resident) and their combinations in that order (`as offset_depth_resident`).
//!
//! ```
//! use ptxkit::prelude::*;
//! use ptxkit::regs::Texture;
//!
//! let mut m = Module::new(Target::SM_80);
//! m.kernel("lookups", |k, (tex,): (Texture,)| {
//!     let (x, y) = (ptx!(k, "mov.f32", 2.5f32), ptx!(k, "mov.f32", 1.0f32));
//!     let layer = ptx!(k, "mov.u32", 3u32);
//!     let (dx, dy) = (ptx!(k, "mov.s32", -1i32), ptx!(k, "mov.s32", 2i32));
//!     // A 2-D array lookup: the layer first, then the coordinates (padded for PTX).
//!     let _ = ptx!(k, "tex.a2d.v4.f32.f32", tex.at((layer, x, y)));
//!     // An offset and the residency predicate.
//!     let (_texels, resident) = ptx!(k, "tex.2d.v4.f32.f32" as offset_resident, tex.at([x, y]), [dx, dy]);
//!     // The four red components around (x, y).
//!     let _reds = ptx!(k, "tld4.r.2d.v4.f32.f32", tex.at([x, y]));
//!     let _ = resident;
//! })?;
//! let ptx = m.to_ptx()?;
//! assert!(ptx.contains("[%rd1, {%r3, %r1, %r2, 0f00000000}];"), "{ptx}");
//! assert!(ptx.contains("|%p1, [%rd1, {%r1, %r2}], {%r4, %r5};"), "{ptx}");
//! # Ok::<(), ptxkit::Error>(())
//! ```
//!
//! The forms come from the table `macros/tables/texture.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(texture);
