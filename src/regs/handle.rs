//! Texture, sampler and surface handles, and the `[handle, {coords}]` operands of the
//! texture and surface instructions.
//!
//! A [`Texture`] or [`Surface`] is a 64-bit object handle in a register (a kernel
//! parameter, which the host fills with a texture or surface object, or a value loaded from
//! memory) or a module variable (`.texref`, `.surfref`). The two are different types, so a
//! texture cannot be passed where an instruction names a surface. `tex.at(coords)` and
//! `surf.at(coords)` make the address operand, whose coordinate count and types the form
//! fixes; `tex.with(smp).at(coords)` names a separate [`Sampler`] (the independent
//! texturing mode).

use crate::core::ir::Opnd;
use crate::core::names::sym_name;
use crate::core::{Kernel, TexMode};
use crate::ops::{h, handle_addr, CoordKinds, CoordList, HandleAddr, Operand};
use crate::ptx;
use crate::regs::SymAddr;
use crate::types::{Reg, U64};

/// Where a handle is: a register holding a 64-bit object handle, or a module variable.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Handle {
    Reg(Reg<U64>),
    /// Interned name and owning module.
    Sym(u32, u32),
}

impl Handle {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        match self {
            Handle::Reg(r) => Opnd::Reg(r.checked(k)),
            Handle::Sym(s, owner) => {
                k.check_module(owner, sym_name(s));
                Opnd::Sym(s)
            }
        }
    }
    #[track_caller]
    fn value(self, k: &mut Kernel) -> Reg<U64> {
        match self {
            Handle::Reg(r) => r,
            Handle::Sym(s, owner) => ptx!(k, "mov.u64", SymAddr::<U64>::new(s, owner)),
        }
    }
}

macro_rules! handle_type {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name(Handle);

        impl $name {
            #[doc = concat!("The ", $what, " object whose 64-bit handle is in `r`.")]
            pub fn from_reg(r: Reg<U64>) -> Self {
                $name(Handle::Reg(r))
            }
            pub(crate) fn from_sym(name: u32, module: u32) -> Self {
                $name(Handle::Sym(name, module))
            }
            #[doc = concat!("The ", $what, "'s handle as a 64-bit value: its register, or for a module variable the")]
            /// variable's address (`mov.u64`), as `istypep` reads it and memory can hold it.
            #[track_caller]
            pub fn handle(self, k: &mut Kernel) -> Reg<U64> {
                self.0.value(k)
            }
        }
    };
}

handle_type!(
    /// A texture: a texture object in a register (what the CUDA driver creates; passed as a
    /// kernel parameter, it is a `.u64`) or a `.texref` module variable. Read it with `tex`
    /// and `tld4` at [`at`](Self::at), query it with `txq`.
    ///
    /// ```
    /// use ptxkit::prelude::*;
    /// use ptxkit::regs::Texture;
    ///
    /// let mut m = Module::new(Target::SM_80);
    /// m.kernel("sample", |k, (tex, out): (Texture, GlobalPtr<F32>)| {
    ///     let (x, y) = (ptx!(k, "mov.f32", 1.5f32), ptx!(k, "mov.f32", 0.25f32));
    ///     let [r, _, _, _] = ptx!(k, "tex.2d.v4.f32.f32", tex.at([x, y]));
    ///     let w = ptx!(k, "txq.width.b32", tex);
    ///     let filter = ptx!(k, "txq.filter_mode.b32", tex.sampler());
    ///     k.st(out, r);
    ///     let _ = (w, filter);
    /// })?;
    /// let ptx = m.to_ptx()?;
    /// assert!(ptx.contains("tex.2d.v4.f32.f32 {%r3, %r4, %r5, %r6}, [%rd1, {%r1, %r2}];"), "{ptx}");
    /// assert!(ptx.contains("txq.filter_mode.b32 %r8, [%rd1];"));
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    Texture,
    "texture"
);

handle_type!(
    /// A surface: a surface object in a register (a `.u64` kernel parameter) or a `.surfref`
    /// module variable. Load and store it with `suld`/`sust`, reduce into it with `sured`,
    /// query it with `suq`. The first coordinate of `.b` (unformatted) accesses is a byte
    /// offset.
    ///
    /// ```
    /// use ptxkit::prelude::*;
    /// use ptxkit::regs::Surface;
    ///
    /// let mut m = Module::new(Target::SM_80);
    /// m.kernel("bump", |k, (surf,): (Surface,)| {
    ///     let x = ptx!(k, "mov.u32", 4u32); // byte offset of element 1 of a row of u32
    ///     let y = ptx!(k, "mov.u32", 3u32);
    ///     let v = ptx!(k, "suld.b.2d.b32.trap", surf.at([x, y]));
    ///     let v = ptx!(k, "add.u32", v, 1u32);
    ///     ptx!(k, "sust.b.2d.b32.trap", surf.at([x, y]), v);
    ///     ptx!(k, "sured.b.add.2d.u32.trap", surf.at([x, y]), v);
    /// })?;
    /// assert!(m.to_ptx()?.contains("sust.b.2d.b32.trap [%rd1, {%r1, %r2}], %r4;"));
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    Surface,
    "surface"
);

/// A sampler: in the independent texturing mode a `.samplerref` module variable, named
/// beside the texture in a lookup (`tex.with(smp).at(coords)`); in the unified mode a
/// texture's own sampler state ([`Texture::sampler`]), which `txq`'s sampler queries read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampler {
    handle: Handle,
    /// The texture's own sampler state (unified mode), not a `.samplerref`.
    of_texture: bool,
}

impl Sampler {
    pub(crate) fn from_sym(name: u32, module: u32) -> Self {
        Sampler { handle: Handle::Sym(name, module), of_texture: false }
    }
    /// The sampler's handle as a 64-bit value (`mov.u64` of a `.samplerref`).
    #[track_caller]
    pub fn handle(self, k: &mut Kernel) -> Reg<U64> {
        self.handle.value(k)
    }
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        if self.of_texture {
            k.require_tex_mode(TexMode::Unified, "a texture's own sampler");
        }
        self.handle.lower(k)
    }
}

/// A texture with a separate sampler: `[tex, smp, {coords}]` lookups (independent mode).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TexSampler {
    tex: Texture,
    smp: Sampler,
}

/// A handle (or a texture and a sampler) at coordinates `L`: the `[h, {c0, ..}]` operand.
#[derive(Clone, Copy, Debug)]
pub struct At<H, L> {
    handles: H,
    coords: L,
}

impl Texture {
    /// The lookup operand `[tex, {coords}]`: the coordinates as an array (`[x, y]`) or, for
    /// layered, cube-array and multi-sample lookups whose first element is an index, a
    /// tuple (`(layer, x, y)`). The form fixes their count and types; the ignored elements
    /// PTX pads some lists with are added.
    pub fn at<L>(self, coords: L) -> At<Texture, L> {
        At { handles: self, coords }
    }
    /// This texture with the separate sampler `smp` (the independent mode).
    pub fn with(self, smp: Sampler) -> TexSampler {
        TexSampler { tex: self, smp }
    }
    /// The texture's own sampler state, for `txq`'s sampler queries (unified mode).
    pub fn sampler(self) -> Sampler {
        Sampler { handle: self.0, of_texture: true }
    }
}

impl TexSampler {
    /// The lookup operand `[tex, smp, {coords}]`.
    pub fn at<L>(self, coords: L) -> At<TexSampler, L> {
        At { handles: self, coords }
    }
}

impl Surface {
    /// The access operand `[surf, {coords}]`: for `.b` accesses the first coordinate is a
    /// byte offset, for `.p` an element index; layered surfaces take a tuple with the layer
    /// first (`(layer, x)`).
    pub fn at<L>(self, coords: L) -> At<Surface, L> {
        At { handles: self, coords }
    }
}

/// Handles that stand where an operand takes the handle kinds `K` (`(h::Tex,)`, `(h::Tex,
/// h::Smp)`, `(h::Surf,)`), lowered to their operands.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot stand where the instruction takes the handles `{K}`",
    label = "wrong kind of handle for this instruction",
    note = "`tex`/`tld4`/`txq` take a `Texture` (with `.with(sampler)` in the independent mode), the `su*` instructions a `Surface`"
)]
pub trait HandleFor<K> {
    /// The handles' operands, and how many there are.
    #[doc(hidden)]
    fn lower_handles(self, k: &mut Kernel) -> ([Opnd; 2], usize);
}
#[diagnostic::do_not_recommend]
impl HandleFor<(h::Tex,)> for Texture {
    fn lower_handles(self, k: &mut Kernel) -> ([Opnd; 2], usize) {
        k.require_tex_mode(TexMode::Unified, "a texture lookup without a sampler");
        ([self.0.lower(k), Opnd::Sink], 1)
    }
}
#[diagnostic::do_not_recommend]
impl HandleFor<(h::Tex, h::Smp)> for TexSampler {
    fn lower_handles(self, k: &mut Kernel) -> ([Opnd; 2], usize) {
        k.require_tex_mode(TexMode::Independent, "a texture lookup with a separate sampler");
        let t = self.tex.0.lower(k);
        ([t, self.smp.lower(k)], 2)
    }
}
#[diagnostic::do_not_recommend]
impl HandleFor<(h::Surf,)> for Surface {
    fn lower_handles(self, k: &mut Kernel) -> ([Opnd; 2], usize) {
        ([self.0.lower(k), Opnd::Sink], 1)
    }
}

impl<H: HandleFor<K>, K, C: CoordKinds, L: CoordList<C>, const P: usize> Operand<HandleAddr<K, C, P>> for At<H, L> {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        let (hs, n) = self.handles.lower_handles(k);
        handle_addr::<C, L>(k, &hs[..n], self.coords, P)
    }
}

/// `[tex]`: the texture itself (`txq`'s texture queries).
impl Operand<HandleAddr<(h::Tex,), (), 0>> for Texture {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        let t = self.0.lower(k);
        handle_addr::<(), ()>(k, &[t], (), 0)
    }
}

/// `[smp]`: a sampler (`txq`'s sampler queries).
impl Operand<HandleAddr<(h::Smp,), (), 0>> for Sampler {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        let s = Sampler::lower(self, k);
        handle_addr::<(), ()>(k, &[s], (), 0)
    }
}

/// `[surf]`: the surface itself (`suq`).
impl Operand<HandleAddr<(h::Surf,), (), 0>> for Surface {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        let s = self.0.lower(k);
        handle_addr::<(), ()>(k, &[s], (), 0)
    }
}
