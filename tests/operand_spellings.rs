//! The operands PTX writes in more than one way, each with its one spelling in the typed API,
//! assembled by ptxas: registers wider than the instruction's type (`r.wide()`) at the data
//! operands of ld, ldu, st and cvt; vector destinations with dropped elements (`[Some(a),
//! None]`) and vector sources mixing registers and immediates (tuples); zero offsets written
//! out (`Ptr::explicit_offset`); tensor-memory addresses with an offset (`TmemAddr::offset`);
//! registers and labels with the names a compiler gave them (`Kernel::named_reg`,
//! `Kernel::named_label`) in a `-G` build; the data operands of ld, ldu and st in braces
//! (`r.braced()`), which ptx2rs keeps.

#[macro_use]
mod common;

use common::assemble;
use ptxkit::prelude::*;
use ptxkit::regs::TmemAddr;

fn wide_registers_at_the_data_operands_of_ld_st_and_cvt() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("wide", |k, (p, q, x): (GlobalPtr<U8>, GlobalPtr<F32>, ParamPtr<S32>)| {
        let (r, s, d) = (k.reg::<U32>(), k.reg::<S32>(), k.reg::<B64>());
        // Loads zero- or sign-extended into wider registers.
        ptx!(k, "ld.global.u8" => r.wide(), p);
        ptx!(k, "ld.global.s8" => s.wide(), p.offset(1));
        ptx!(k, "ldu.global.u16" => d.wide(), p.cast::<U16>().offset(1));
        ptx!(k, "ld.global.nc.b8" => r.wide(), p.offset(3));
        ptx!(k, "ld.param.s32" => d.wide(), x);
        // A float load only into a bit-size register.
        ptx!(k, "ld.global.f32" => d.wide(), q);
        // Stores of the low part, scalar and vector.
        ptx!(k, "st.global.u8", p, s.wide());
        ptx!(k, "st.global.u16", p.cast::<U16>(), d.wide());
        ptx!(k, "st.global.b32", q.cast::<B32>(), d.wide());
        ptx!(k, "st.global.v2.u8", p.offset(4), (r.wide(), s.wide()));
        ptx!(k, "st.global.L2::cache_hint.u8", p.offset(6), r.wide(), d);
        // Immediates stay what they were at those operands.
        ptx!(k, "st.global.u8", p.offset(7), 7u8);
        // Conversions from and into wider registers.
        let e = ptx!(k, "cvt.s32.s8", r.wide());
        let f = ptx!(k, "cvt.rn.f32.s16", d.wide());
        let h = k.reg::<B32>();
        ptx!(k, "cvt.rn.f16.f32" => h.wide(), f);
        ptx!(k, "cvt.u16.u32" => d.wide(), e);
        ptx!(k, "st.global.u32", p.cast::<U32>(), e);
    })
    .unwrap();
    let text = assemble("wide", &m);
    for line in [
        "ld.global.u8 %r1,",
        "ld.global.s8 %r2,",
        "ldu.global.u16 %rd",
        "ld.param.s32 %rd",
        "ld.global.f32 %rd",
        "st.global.v2.u8 [%rd2+4], {%r1, %r2};",
        "cvt.s32.s8 %r3, %r1;",
        "cvt.rn.f16.f32 %r",
    ] {
        assert!(text.contains(line), "{line}:\n{text}");
    }
}

fn vectors_with_dropped_elements_and_mixed_operands() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("vectors", |k, (p, x): (GlobalPtr<U32>, Reg<B64>)| {
        let (lo, hi) = (k.reg::<B32>(), k.reg::<B32>());
        ptx!(k, "mov.b64" as unpack => [Some(lo), None], x);
        ptx!(k, "mov.b64" as unpack => [None, Some(hi)], x);
        let h = k.reg::<B16>();
        ptx!(k, "mov.b32" as unpack => [None, Some(h)], lo);
        let packed: Reg<B32> = ptx!(k, "mov.b32" as pack, (0u16, h));
        let wide: Reg<B64> = ptx!(k, "mov.b64" as pack, (packed, 0u32));
        let [a, b] = [k.reg::<U32>(), k.reg::<U32>()];
        ptx!(k, "ld.global.v4.u32" => [Some(a), None, Some(b), None], p);
        ptx!(k, "st.global.v4.u32", p.offset(4), (a, 0u32, b, 1u32));
        ptx!(k, "st.global.b64", p.cast::<B64>().offset(4), wide);
    })
    .unwrap();
    let text = assemble("vectors", &m);
    for line in
        ["{%r1, _}, %rd3;", "{_, %r2}, %rd3;", "{_, %rs1}, %r1;", "{0, %rs1};", "{%r3, 0};", "{%r4, _, %r5, _}", "{%r4, 0, %r5, 1};"]
    {
        assert!(text.contains(line), "{line}:\n{text}");
    }
    // Every element dropped is no destination ptxas takes.
    let mut m = Module::new(Target::SM_80);
    let r = m.kernel("none", |k, (x,): (Reg<B64>,)| {
        ptx!(k, "mov.b64" as unpack => [None::<Reg<B32>>, None], x);
    });
    assert!(r.is_err(), "{r:?}");
}

fn zero_offsets_written_out() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("offsets", |k, (p, x): (GlobalPtr<F32>, Reg<F32>)| {
        let y = k.ld(p.explicit_offset());
        let z = ptx!(k, "add.f32", x, y);
        k.st(p.explicit_offset(), z);
        k.st(p.explicit_offset().offset(1), z);
    })
    .unwrap();
    let text = assemble("offsets", &m);
    assert!(text.contains("ld.global.f32 %r2, [%rd2+0];"), "{text}");
    assert!(text.contains("st.global.f32 [%rd2+0], %r3;"), "{text}");
    assert!(text.contains("st.global.f32 [%rd2+4], %r3;"), "{text}");
}

fn tensor_memory_addresses_with_an_offset() {
    let mut m = Module::new(Target::SM_100A);
    m.kernel("tmem", |k, (t, v): (Reg<B32>, Reg<B32>)| {
        let a = TmemAddr::from_reg(t);
        ptx!(k, "tcgen05.st.sync.aligned.32x32b.x1.b32", a.offset(8), [v]);
        let [w] = ptx!(k, "tcgen05.ld.sync.aligned.32x32b.x1.b32", a.offset(8).offset(8));
        ptx!(k, "tcgen05.st.sync.aligned.32x32b.x1.b32", a, [w]);
    })
    .unwrap();
    let text = assemble("tmem", &m);
    assert!(text.contains("[%r1+8], {%r2};"), "{text}");
    assert!(text.contains(", [%r1+16];"), "{text}");
}

fn registers_and_labels_with_their_names() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("named", |k, (p,): (GlobalPtr<F32>,)| {
        let f: Vec<Reg<F32>> = (0..3).map(|i| k.named_reg(&format!("%f{i}"))).collect();
        let done = k.named_label("$L__BB0_2");
        let end = k.named_label("$L__func_end0");
        ptx!(k, "ld.global.f32" => f[1], p);
        let neg = ptx!(k, "setp.lt.f32", f[1], 0f32);
        ptx!(k, @neg, "bra", done);
        ptx!(k, "add.f32" => f[2], f[1], f[1]);
        k.st(p, f[2]);
        k.place(done);
        k.ret();
        k.place(end);
    })
    .unwrap();
    let text = assemble("named", &m);
    assert!(text.contains("\t.reg .b32 %f2;\n"), "{text}");
    assert!(text.contains("add.f32 %f2, %f1, %f1;"), "{text}");
    assert!(text.contains("$L__BB0_2:\n"), "{text}");
    // The body ends with its own `ret` before an unused label: no second one.
    assert_eq!(text.matches("ret;").count(), 1, "{text}");
    // A name the builder numbers too, a name of two classes, the builder's own label names.
    let mut m = Module::new(Target::SM_80);
    let r = m.kernel("clash", |k, (x,): (Reg<U32>,)| {
        let r: Reg<U32> = k.named_reg("%r1");
        ptx!(k, "add.u32" => r, x, 1u32);
    });
    assert!(r.is_err(), "{r:?}");
    let mut m = Module::new(Target::SM_80);
    let r = m.kernel("classes", |k, (): ()| {
        let _: Reg<U32> = k.named_reg("%x");
        let _: Reg<U64> = k.named_reg("%x");
    });
    assert!(r.is_err(), "{r:?}");
    let mut m = Module::new(Target::SM_80);
    let r = m.kernel("label", |k, (): ()| {
        let l = k.named_label("$L__3");
        k.place(l);
    });
    assert!(r.is_err(), "{r:?}");
}

fn data_operands_in_braces() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("braced", |k, (p, n): (GlobalPtr<B16>, ParamPtr<U32>)| {
        let (h, w, x) = (k.reg::<B16>(), k.reg::<B32>(), k.reg::<B16>());
        let n = ptx!(k, "ld.param.u32", n);
        let live = ptx!(k, "setp.ne.u32", n, 0u32);
        ptx!(k, "mov.b16" => h, 0u16);
        // A guarded load into a braced register, as Triton writes its masked loads.
        ptx!(k, @live, "ld.global.b16" => h.braced(), p);
        ptx!(k, "ldu.global.b16" => x.braced(), p.offset(1));
        ptx!(k, "ld.global.b8" => w.wide().braced(), p.cast::<B8>().offset(4));
        ptx!(k, @live, "st.global.b16", p.offset(3), h.braced());
        ptx!(k, "st.global.b16", p.offset(4), x.braced());
        ptx!(k, "st.global.b8", p.cast::<B8>().offset(10), w.wide().braced());
    })
    .unwrap();
    let text = assemble("braced", &m);
    for line in [
        "@%p1 ld.global.b16 {%rs1}, [%rd2];",
        "ldu.global.b16 {%rs2}, [%rd2+2];",
        "ld.global.b8 {%r1}, [%rd2+4];",
        "@%p1 st.global.b16 [%rd2+6], {%rs1};",
        "st.global.b8 [%rd2+10], {%r1};",
    ] {
        assert!(text.contains(line), "{line}:\n{text}");
    }
    // ptx2rs writes them back in braces.
    let rust = ptxkit::import::to_rust(&text, "braced.ptx").unwrap();
    assert_eq!(rust.matches(".braced()").count(), 6, "{rust}");
}

fn main() {
    common::harness::main(&[&[
        host!(wide_registers_at_the_data_operands_of_ld_st_and_cvt),
        host!(vectors_with_dropped_elements_and_mixed_operands),
        host!(zero_offsets_written_out),
        host!(tensor_memory_addresses_with_an_offset),
        host!(registers_and_labels_with_their_names),
        host!(data_operands_in_braces),
    ]]);
}
