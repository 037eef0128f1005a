//! Textures, samplers and surfaces in a module: kernel parameters that take texture and
//! surface objects, and the `.texref`, `.samplerref` and `.surfref` module variables.
//!
//! A [`Texture`] or [`Surface`] kernel parameter is a `.param .u64`: the host passes a
//! texture or surface object (the runtime's `TexObject` and `SurfObject`, feature `cuda`).
//! This is the unified texturing mode, the module's default and what the CUDA driver creates.
//!
//! Module variables name textures, samplers and surfaces instead (`.global .texref t;`); a
//! lookup reads `[t, {..}]`, or in the independent mode (`Module::set_tex_mode`) `[t, s,
//! {..}]` with a `.samplerref` whose state the declaration sets. The driver binds nothing to
//! such variables (texture references left the CUDA API), so they serve modules run by
//! other means; ptxas checks them like any other.

use super::KernelParam;
use crate::core::module::Item;
use crate::core::names::intern;
use crate::core::{Error, Kernel, Module, TexMode};
use crate::ptx;
use crate::regs::{Ptr, Sampler, Surface, Texture};
use crate::types::U64;

#[track_caller]
fn load_handle(k: &mut Kernel, name: &str) -> crate::types::Reg<U64> {
    k.params.push(format!(".param .u64 {name}"));
    let p: Ptr<crate::ops::m::Param, U64> = Ptr::from_sym(intern(name), k.id);
    ptx!(k, "ld.param.u64", p)
}

/// A texture object, passed as a `.u64` (the runtime's `&TexObject`).
impl KernelParam for Texture {
    fn decl(name: &str) -> String {
        format!(".param .u64 {name}")
    }
    #[track_caller]
    fn declare(k: &mut Kernel, name: &str) -> Self {
        Texture::from_reg(load_handle(k, name))
    }
}

/// A surface object, passed as a `.u64` (the runtime's `&SurfObject`).
impl KernelParam for Surface {
    fn decl(name: &str) -> String {
        format!(".param .u64 {name}")
    }
    #[track_caller]
    fn declare(k: &mut Kernel, name: &str) -> Self {
        Surface::from_reg(load_handle(k, name))
    }
}

/// How a sampler (a kernel's `.samplerref`) or a texture object (`runtime::TextureDesc`)
/// filters: the nearest texel, or a linear blend of the neighbours (2, 4 or 8 of them;
/// floating-point results only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FilterMode {
    #[default]
    Nearest,
    Linear,
}

/// What a sampler (a kernel's `.samplerref`) or a texture object (`runtime::TextureDesc`)
/// does with a coordinate outside the texture, per dimension.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AddressMode {
    /// Repeat (normalised coordinates only).
    Wrap,
    /// Reflect (normalised coordinates only).
    Mirror,
    /// OpenGL's `GL_CLAMP` (PTX samplers only; a texture object refuses it).
    ClampOgl,
    /// The nearest edge texel.
    #[default]
    ClampToEdge,
    /// The border colour.
    ClampToBorder,
}

impl AddressMode {
    fn ptx(self) -> &'static str {
        match self {
            AddressMode::Wrap => "wrap",
            AddressMode::Mirror => "mirror",
            AddressMode::ClampOgl => "clamp_ogl",
            AddressMode::ClampToEdge => "clamp_to_edge",
            AddressMode::ClampToBorder => "clamp_to_border",
        }
    }
}

/// The state a `.samplerref` variable is declared with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SamplerState {
    pub filter: FilterMode,
    /// Per dimension (x, y, z).
    pub addr: [AddressMode; 3],
    /// Coordinates in texels rather than normalised to `[0, 1)`.
    pub unnormalized: bool,
}

impl Module {
    #[track_caller]
    fn opaque_var(&mut self, ty: &str, name: &str, init: Option<String>) -> Result<u32, Error> {
        self.claim(name)?;
        let decl = match init {
            Some(i) => format!(".global .{ty} {name} = {{ {i} }};"),
            None => format!(".global .{ty} {name};"),
        };
        self.items.push(Item::Var(decl));
        Ok(intern(name))
    }

    /// A `.texref` module variable: a texture named by the module. In the unified mode a
    /// lookup reads `[name, {..}]` with the texture's sampler state, in the independent mode
    /// it names a sampler too (`tex.with(smp).at(..)`).
    ///
    /// ```
    /// use ptxkit::builder::{SamplerState, FilterMode};
    /// use ptxkit::core::TexMode;
    /// use ptxkit::prelude::*;
    ///
    /// let mut m = Module::new(Target::SM_80);
    /// m.set_tex_mode(TexMode::Independent)?;
    /// let tex = m.texref("image")?;
    /// let smp = m.samplerref("bilinear", &SamplerState { filter: FilterMode::Linear, ..Default::default() })?;
    /// m.kernel("k", |k, (out,): (GlobalPtr<F32>,)| {
    ///     let (x, y) = (ptx!(k, "mov.f32", 0.5f32), ptx!(k, "mov.f32", 0.5f32));
    ///     let [r, _, _, _] = ptx!(k, "tex.2d.v4.f32.f32" as sampler, tex.with(smp).at([x, y]));
    ///     k.st(out, r);
    /// })?;
    /// let ptx = m.to_ptx()?;
    /// assert!(ptx.contains(".target sm_80, texmode_independent"));
    /// assert!(ptx.contains(".global .samplerref bilinear = { filter_mode = linear, addr_mode_0 = clamp_to_edge,"));
    /// assert!(ptx.contains("[image, bilinear, {%r1, %r2}];"), "{ptx}");
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    #[track_caller]
    pub fn texref(&mut self, name: &str) -> Result<Texture, Error> {
        let s = self.opaque_var("texref", name, None)?;
        Ok(Texture::from_sym(s, self.id))
    }

    /// A `.surfref` module variable.
    #[track_caller]
    pub fn surfref(&mut self, name: &str) -> Result<Surface, Error> {
        let s = self.opaque_var("surfref", name, None)?;
        Ok(Surface::from_sym(s, self.id))
    }

    /// A `.samplerref` module variable with its state: the independent texturing mode only
    /// (an `Err` in the unified mode, where a texture carries its sampler state).
    #[track_caller]
    pub fn samplerref(&mut self, name: &str, state: &SamplerState) -> Result<Sampler, Error> {
        if self.tex_mode() != TexMode::Independent {
            return Err(Error::InvalidArgument {
                kernel: String::new(),
                what: format!("`.samplerref {name}` needs the independent texturing mode (Module::set_tex_mode)"),
            });
        }
        let filter = if state.filter == FilterMode::Linear { "linear" } else { "nearest" };
        let [a0, a1, a2] = state.addr.map(AddressMode::ptx);
        let init = format!(
            "filter_mode = {filter}, addr_mode_0 = {a0}, addr_mode_1 = {a1}, addr_mode_2 = {a2}, force_unnormalized_coords = {}",
            state.unnormalized as u8
        );
        let s = self.opaque_var("samplerref", name, Some(init))?;
        Ok(Sampler::from_sym(s, self.id))
    }
}
