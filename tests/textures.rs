//! Texture and surface instructions end to end: typed calls in every operand shape (unified
//! lookups through texture objects, the independent mode's samplers, module variables,
//! padded coordinate lists, the optional parts as variants, queries, surfaces), printed,
//! read and assembled by ptxas with no warning; and the texturing-mode errors.

#[macro_use]
mod common;

use common::assemble;
use ptxkit::builder::{AddressMode, FilterMode, SamplerState};
use ptxkit::core::TexMode;
use ptxkit::prelude::*;

fn line<'a>(text: &'a str, start: &str) -> &'a str {
    text.lines().map(str::trim).find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("no `{start}` in\n{text}"))
}

fn unified_lookups_through_texture_objects() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("lookups", |k, (tex, out): (Texture, GlobalPtr<F32>)| {
        let (x, y, z) = (ptx!(k, "mov.f32", 1.5f32), ptx!(k, "mov.f32", 2.5f32), ptx!(k, "mov.f32", 0.5f32));
        let (i, j) = (ptx!(k, "mov.s32", 3i32), ptx!(k, "mov.s32", 4i32));
        let layer = ptx!(k, "mov.u32", 1u32);
        let [a, _, _, _] = ptx!(k, "tex.2d.v4.f32.f32", tex.at([x, y]));
        // 3-D: three coordinates, the fourth an ignored zero of the coordinates' type.
        let _ = ptx!(k, "tex.3d.v4.s32.s32", tex.at([i, j, i]));
        let _ = ptx!(k, "tex.3d.v4.f32.f32", tex.at([x, y, z]));
        let _ = ptx!(k, "tex.1d.v4.u32.s32", tex.at([i]));
        let _ = ptx!(k, "tex.a1d.v4.f32.f32", tex.at((layer, x)));
        let _ = ptx!(k, "tex.a2d.v4.f32.s32", tex.at((layer, i, j)));
        let _ = ptx!(k, "tex.cube.v4.f32.f32", tex.at([x, y, z]));
        let _ = ptx!(k, "tex.acube.v4.f32.f32", tex.at((layer, x, y, z)));
        let _ = ptx!(k, "tex.2dms.v4.s32.s32", tex.at((layer, i, j)));
        let _ = ptx!(k, "tex.a2dms.v4.s32.s32", tex.at((layer, layer, i, j)));
        let _: [Reg<F16x2>; 2] = ptx!(k, "tex.2d.v2.f16x2.f32", tex.at([x, y]));
        let _: [Reg<F16>; 4] = ptx!(k, "tex.base.2d.v4.f16.f32", tex.at([x, y]));
        // Mipmaps: a level of detail of the coordinates' type, or two gradient vectors.
        let _ = ptx!(k, "tex.level.2d.v4.f32.f32", tex.at([x, y]), z);
        let _ = ptx!(k, "tex.level.2d.v4.f32.s32", tex.at([i, j]), i);
        let _ = ptx!(k, "tex.grad.2d.v4.f32.f32", tex.at([x, y]), [z, z], [z, z]);
        let _ = ptx!(k, "tex.grad.3d.v4.f32.f32", tex.at([x, y, z]), [z, z, z], [z, z, z]);
        // The optional parts: an offset, a depth-compare value, the residency predicate.
        let _ = ptx!(k, "tex.2d.v4.f32.f32" as offset, tex.at([x, y]), [i, j]);
        let _ = ptx!(k, "tex.3d.v4.f32.f32" as offset, tex.at([x, y, z]), [i, j, i]);
        let _ = ptx!(k, "tex.2d.v4.f32.f32" as depth, tex.at([x, y]), z);
        let (_, resident) = ptx!(k, "tex.level.a2d.v4.f32.f32" as offset_depth_resident, tex.at((layer, x, y)), z, [i, j], z);
        let b = ptx!(k, "selp.f32", a, z, resident);
        // Gathers and queries.
        let _ = ptx!(k, "tld4.r.2d.v4.f32.f32", tex.at([x, y]));
        let _ = ptx!(k, "tld4.a.acube.v4.u32.f32" as depth_resident, tex.at((layer, x, y, z)), z);
        let w = ptx!(k, "txq.width.b32", tex);
        let _ = ptx!(k, "txq.level.height.b32", tex, i);
        let _ = ptx!(k, "txq.addr_mode_0.b32", tex.sampler());
        let h = tex.handle(k);
        let is_tex = ptx!(k, "istypep.texref", h);
        let c = ptx!(k, "selp.b32", w, 0u32, is_tex);
        let cf = ptx!(k, "cvt.rn.f32.u32", c.bitcast::<U32>());
        let s = ptx!(k, "add.f32", b, cf);
        k.st(out, s);
    })
    .unwrap();
    let text = assemble("lookups", &m);
    assert!(line(&text, "tex.3d.v4.s32.s32").ends_with("{%r4, %r5, %r4, 0}];"), "{text}");
    assert!(line(&text, "tex.3d.v4.f32.f32").ends_with("{%r1, %r2, %r3, 0f00000000}];"), "{text}");
    assert!(line(&text, "tex.1d.v4.u32.s32").ends_with("[%rd1, {%r4}];"));
    assert!(line(&text, "tex.a2d.v4.f32.s32").ends_with("{%r6, %r4, %r5, 0}];"));
    assert!(line(&text, "tex.a2dms.v4.s32.s32").ends_with("{%r6, %r6, %r4, %r5}];"));
    assert!(line(&text, "tex.grad.3d").ends_with("{%r3, %r3, %r3, 0f00000000}, {%r3, %r3, %r3, 0f00000000};"), "{text}");
    let r = line(&text, "tex.level.a2d.v4.f32.f32");
    assert!(r.contains("}|%p1, [%rd1, {%r6, %r1, %r2, 0f00000000}], %r3, {%r4, %r5}, %r3;"), "{r}");
    assert!(line(&text, "txq.addr_mode_0.b32").ends_with("[%rd1];"));
    assert!(line(&text, "istypep.texref").ends_with(", %rd1;"));
    assert!(text.contains(".target sm_80\n"));
}

fn surfaces_of_every_kind_of_access() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("surfaces", |k, (surf, tex): (Surface, Texture)| {
        let (x, y, z) = (ptx!(k, "mov.u32", 8u32), ptx!(k, "mov.u32", 2u32), ptx!(k, "mov.u32", 1u32));
        let v: Reg<B32> = ptx!(k, "suld.b.2d.b32.trap", surf.at([x, y]));
        let [p, q] = ptx!(k, "suld.b.2d.cg.v2.b64.clamp", surf.at([x, y]));
        let bytes: [Reg<B8>; 4] = ptx!(k, "suld.b.3d.v4.b8.zero", surf.at([x, y, z]));
        let _ = ptx!(k, "suld.b.a1d.cv.b16.trap", surf.at((z, x)));
        let _ = ptx!(k, "suld.b.a2d.v4.b32.trap", surf.at((z, x, y)));
        ptx!(k, "sust.b.2d.b32.trap", surf.at([x, y]), v);
        ptx!(k, "sust.b.1d.wt.v2.b64.clamp", surf.at([x]), [p, q]);
        ptx!(k, "sust.b.a2d.v4.b8.zero", surf.at((z, x, y)), bytes);
        ptx!(k, "sust.p.2d.v4.b32.trap", surf.at([x, y]), [v, v, v, v]);
        ptx!(k, "sust.p.3d.b32.trap", surf.at([x, y, z]), v);
        ptx!(k, "sured.b.add.2d.u32.trap", surf.at([x, y]), v);
        ptx!(k, "sured.b.max.3d.s64.clamp", surf.at([x, y, z]), p);
        ptx!(k, "sured.b.and.1d.b32.zero", surf.at([x]), v);
        ptx!(k, "sured.p.min.2d.b64.trap", surf.at([x, y]), q);
        let w = ptx!(k, "suq.width.b32", surf);
        let _ = ptx!(k, "suq.memory_layout.b32", surf);
        let h = surf.handle(k);
        let a = ptx!(k, "istypep.surfref", h);
        let b = ptx!(k, "istypep.texref", tex.handle(k));
        let both = ptx!(k, "and.pred", a, b);
        k.if_(both, |k| ptx!(k, "sust.b.2d.b32.trap", surf.at([x, y]), w));
    })
    .unwrap();
    let text = assemble("surfaces", &m);
    assert!(line(&text, "suld.b.3d.v4.b8.zero").contains("{%rs1, %rs2, %rs3, %rs4}, [%rd1, {%r1, %r2, %r3, 0}];"), "{text}");
    assert!(line(&text, "sust.b.a2d.v4.b8.zero").ends_with("[%rd1, {%r3, %r1, %r2, 0}], {%rs1, %rs2, %rs3, %rs4};"));
    assert!(line(&text, "suq.width.b32").ends_with("[%rd1];"));
}

fn independent_mode_with_module_variables() {
    let mut m = Module::new(Target::SM_80);
    m.set_tex_mode(TexMode::Independent).unwrap();
    let tex = m.texref("image").unwrap();
    let state = SamplerState {
        filter: FilterMode::Linear,
        addr: [AddressMode::Wrap, AddressMode::ClampToBorder, AddressMode::Mirror],
        unnormalized: false,
    };
    let smp = m.samplerref("smooth", &state).unwrap();
    let near = m.samplerref("near", &SamplerState { unnormalized: true, addr: [AddressMode::ClampOgl; 3], ..Default::default() }).unwrap();
    let surf = m.surfref("target").unwrap();
    m.kernel("independent", |k, (obj,): (Texture,)| {
        let (x, y) = (ptx!(k, "mov.f32", 0.25f32), ptx!(k, "mov.f32", 0.75f32));
        let (i, j) = (ptx!(k, "mov.s32", 1i32), ptx!(k, "mov.s32", 2i32));
        let [r, g, _, _] = ptx!(k, "tex.2d.v4.f32.f32" as sampler, tex.with(smp).at([x, y]));
        let _ = ptx!(k, "tex.level.cube.v4.f32.f32" as sampler_depth, tex.with(near).at([x, y, x]), y, x);
        let _ = ptx!(k, "tld4.g.2d.v4.f32.f32" as sampler_offset_resident, tex.with(smp).at([x, y]), [i, j]);
        // A texture object with a sampler variable.
        let _ = ptx!(k, "tex.1d.v4.s32.s32" as sampler, obj.with(near).at([i]));
        let f = ptx!(k, "txq.filter_mode.b32", smp);
        let w = ptx!(k, "txq.width.b32", tex);
        let h = tex.handle(k);
        let p = ptx!(k, "istypep.samplerref", smp.handle(k));
        let q = ptx!(k, "istypep.texref", h);
        let both = ptx!(k, "and.pred", p, q);
        let s = ptx!(k, "add.f32", r, g);
        k.if_(both, |k| {
            ptx!(k, "sust.b.2d.b32.trap", surf.at([i, j]), s);
            ptx!(k, "sust.b.2d.b32.trap", surf.at([j, i]), f);
            ptx!(k, "sust.b.2d.b32.trap", surf.at([j, j]), w);
        });
    })
    .unwrap();
    let text = assemble("independent", &m);
    assert!(text.contains(".target sm_80, texmode_independent\n"));
    assert!(text.contains(".global .texref image;"));
    assert!(text.contains(
        ".global .samplerref smooth = { filter_mode = linear, addr_mode_0 = wrap, addr_mode_1 = clamp_to_border, addr_mode_2 = mirror, force_unnormalized_coords = 0 };"
    ));
    assert!(line(&text, "tex.2d.v4.f32.f32").ends_with("[image, smooth, {%r1, %r2}];"));
    assert!(line(&text, "tex.1d.v4.s32.s32").ends_with("[%rd1, near, {%r3}];"));
    assert!(line(&text, "txq.filter_mode.b32").ends_with("[smooth];"));
    assert!(line(&text, "sust.b.2d.b32.trap").starts_with("sust.b.2d.b32.trap [target, {"));
    assert!(text.contains("mov.u64 %rd2, image;"), "{text}");
}

fn unified_module_variables() {
    let mut m = Module::new(Target::SM_90);
    let tex = m.texref("t").unwrap();
    let surf = m.surfref("s").unwrap();
    m.kernel("vars", |k, ()| {
        let (x, y) = (ptx!(k, "mov.f32", 0.5f32), ptx!(k, "mov.f32", 0.5f32));
        let [r, _, _, _] = ptx!(k, "tex.2d.v4.f32.f32", tex.at([x, y]));
        let mode = ptx!(k, "txq.normalized_coords.b32", tex);
        let filter = ptx!(k, "txq.filter_mode.b32", tex.sampler());
        let i = ptx!(k, "mov.s32", 0i32);
        ptx!(k, "sust.b.1d.b32.trap", surf.at([i]), r);
        ptx!(k, "sured.b.or.1d.b32.trap", surf.at([i]), mode);
        ptx!(k, "sured.b.or.1d.b32.trap", surf.at([i]), filter);
    })
    .unwrap();
    let text = assemble("vars", &m);
    assert!(text.contains(".target sm_90\n") && text.contains(".global .texref t;") && text.contains(".global .surfref s;"));
    assert!(line(&text, "tex.2d.v4.f32.f32").ends_with("[t, {%r1, %r2}];"));
    assert!(line(&text, "txq.filter_mode.b32").ends_with("[t];"));
}

fn texturing_mode_errors() {
    fn err<P>(r: Result<KernelRef<P>, Error>) -> String {
        match r {
            Err(e) => e.to_string(),
            Ok(_) => panic!("built"),
        }
    }
    // A lookup without a sampler in the independent mode.
    let mut m = Module::new(Target::SM_80);
    m.set_tex_mode(TexMode::Independent).unwrap();
    let tex = m.texref("t").unwrap();
    let e = err(m.kernel("k", |k, ()| {
        let x = ptx!(k, "mov.f32", 0.5f32);
        let _ = ptx!(k, "tex.1d.v4.f32.f32", tex.at([x]));
    }));
    assert!(e.contains("a texture lookup without a sampler needs the unified texturing mode"), "{e}");
    // ... and a texture's own sampler state.
    let e = err(m.kernel("q", |k, ()| {
        let _ = ptx!(k, "txq.filter_mode.b32", tex.sampler());
    }));
    assert!(e.contains("a texture's own sampler needs the unified texturing mode"), "{e}");
    // A separate sampler in the unified mode, and no samplerref to declare there.
    let mut m = Module::new(Target::SM_80);
    let e = m.samplerref("s", &SamplerState::default()).unwrap_err().to_string();
    assert!(e.contains("needs the independent texturing mode"), "{e}");
    let mut ind = Module::new(Target::SM_80);
    ind.set_tex_mode(TexMode::Independent).unwrap();
    let smp = ind.samplerref("s", &SamplerState::default()).unwrap();
    let e = err(m.kernel("k", |k, (tex,): (Texture,)| {
        let x = ptx!(k, "mov.f32", 0.5f32);
        let _ = ptx!(k, "tex.1d.v4.f32.f32" as sampler, tex.with(smp).at([x]));
    }));
    assert!(e.contains("a texture lookup with a separate sampler needs the independent texturing mode"), "{e}");
    // The mode is fixed once the module has contents; names are the module's.
    let mut m = Module::new(Target::SM_80);
    m.texref("t").unwrap();
    assert!(m.set_tex_mode(TexMode::Independent).is_err());
    assert!(m.set_tex_mode(TexMode::Unified).is_ok());
    assert!(matches!(m.surfref("t"), Err(Error::DuplicateSymbol { .. })));
    assert!(m.texref("not a name").is_err());
    // A variable of another module is a foreign value.
    let other = Module::new(Target::SM_80).texref("elsewhere");
    let other = other.unwrap();
    let e = err(m.kernel("f", |k, ()| {
        let _ = ptx!(k, "txq.width.b32", other);
    }));
    assert!(e.contains("elsewhere"), "{e}");
}

fn main() {
    common::harness::main(&[&[
        host!(unified_lookups_through_texture_objects),
        host!(surfaces_of_every_kind_of_access),
        host!(independent_mode_with_module_variables),
        host!(unified_module_variables),
        host!(texturing_mode_errors),
    ]]);
}
