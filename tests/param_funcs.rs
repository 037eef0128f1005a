//! Device functions of `.param` variables, as compilers write them (`Module::param_func`,
//! `declare_func`, `define_func`; `Kernel::block`, `param_var`, `call_func`,
//! `call_prototype`, `call_func_indirect`): what the builder prints ptxas assembles, and
//! what it refuses is an error naming the mistake.

#[macro_use]
mod common;

use ptxkit::builder::{Linkage, ParamBytes};
use ptxkit::prelude::*;
use ptxkit::ptxas::{compile, CompileOptions};
use ptxkit::regs::ParamPtr;

type Vec3 = ParamBytes<12, 4>;

/// Every linkage, a result of bytes, a prototype defined after its first call (recursion
/// through it), an early `ret`, a guarded call, a call through an address, and calls of an
/// `.extern` function, assembled as a relocatable object (the extern one is undefined).
fn functions_and_calls_assemble() {
    let px = common::ptxas("functions_and_calls_assemble");
    let mut m = Module::new(Target::SM_80);
    let free = m.declare_func::<(ParamPtr<B64>,), ()>("free", Linkage::Extern).unwrap();
    let fib = m.declare_func::<(ParamPtr<B32>,), (ParamPtr<B64>,)>("fib", Linkage::Visible).unwrap();
    let scale = m
        .param_func("scale", Linkage::Weak, |k, (v, s): (Vec3, ParamPtr<F32>), (r,): (Vec3,)| {
            let s = ptx!(k, "ld.param.f32", s);
            for i in 0..3 {
                let x = ptx!(k, "ld.param.f32", v.ptr::<F32>().offset(i));
                let y = ptx!(k, "mul.rn.f32", x, s);
                ptx!(k, "st.param.f32", r.ptr::<F32>().offset(i), y);
            }
        })
        .unwrap();
    m.define_func(&fib, |k, (n,), (r,)| {
        let n = ptx!(k, "ld.param.b32", n).bitcast::<S32>();
        let small = ptx!(k, "setp.lt.s32", n, 2i32);
        let n64 = ptx!(k, "cvt.s64.s32", n);
        let done = k.label();
        k.if_(small, |k| {
            ptx!(k, "st.param.b64", r, n64.bitcast::<B64>());
            k.ret();
        });
        let m1 = ptx!(k, "add.s32", n, -1i32);
        let f1 = k.block(|k| {
            let (a, b): (ParamPtr<B32>, ParamPtr<B64>) = (k.param_var("param0"), k.param_var("retval0"));
            ptx!(k, "st.param.b32", a, m1.bitcast::<B32>());
            k.call_func_uni(&fib, (b,), (a,));
            ptx!(k, "ld.param.b64", b)
        });
        ptx!(k, "st.param.b64", r, f1);
        k.place(done);
    })
    .unwrap();
    m.kernel("k", |k, (out, p): (GlobalPtr<F32>, Reg<U64>)| {
        let t = ptx!(k, "mov.u32", sreg::TID_X);
        let first = ptx!(k, "setp.eq.u32", t, 0u32);
        let x = k.block(|k| {
            let (v, s, r): (Vec3, ParamPtr<F32>, Vec3) = (k.param_var("param0"), k.param_var("param1"), k.param_var("retval0"));
            for i in 0..3 {
                ptx!(k, "st.param.f32", v.ptr::<F32>().offset(i), 1.0f32);
            }
            ptx!(k, "st.param.f32", s, 2.0f32);
            k.guarded(first, |k| k.call_func(&scale, (r,), (v, s)));
            ptx!(k, "ld.param.f32", r.ptr::<F32>().offset(2))
        });
        let f = ptx!(k, "mov.u64", fib.addr());
        let y = k.block(|k| {
            let (a, b): (ParamPtr<B32>, ParamPtr<B64>) = (k.param_var("param0"), k.param_var("retval0"));
            ptx!(k, "st.param.b32", a, t.bitcast::<B32>());
            let proto = k.call_prototype::<(ParamPtr<B32>,), (ParamPtr<B64>,)>("prototype_0");
            k.call_func_indirect(f, &proto, (b,), (a,));
            ptx!(k, "ld.param.b64", b)
        });
        let yf = ptx!(k, "cvt.rn.f32.s64", y.bitcast::<S64>());
        let z = ptx!(k, "add.f32", x, yf);
        ptx!(k, "st.global.f32", out.at(t), z);
        k.block(|k| {
            let a: ParamPtr<B64> = k.param_var("param0");
            ptx!(k, "st.param.b64", a, p.bitcast::<B64>());
            k.call_func_uni(&free, (), (a,));
        });
    })
    .unwrap();
    let text = m.to_ptx().unwrap();
    for want in [
        ".extern .func free(.param .b64 free_param_0);",
        ".visible .func (.param .b64 func_retval0) fib(.param .b32 fib_param_0);",
        ".weak .func (.param .align 4 .b8 func_retval0[12]) scale(.param .align 4 .b8 scale_param_0[12], .param .f32 scale_param_1)",
        ".visible .func (.param .b64 func_retval0) fib(.param .b32 fib_param_0)\n{",
        "call.uni (retval0), fib, (param0);",
        "call (retval0), scale, (param0, param1);",
        "prototype_0 : .callprototype (.param .b64 _) _ (.param .b32 _);",
        "call.uni free, (param0);",
    ] {
        assert!(text.contains(want), "no `{want}` in\n{text}");
    }
    assert!(text.lines().any(|l| l.trim_start().starts_with("@%p") && l.contains("call (retval0), scale")), "{text}");
    let opts = CompileOptions { relocatable: true, ..Default::default() };
    compile(&px, &text, Target::SM_80, &opts).unwrap_or_else(|e| panic!("ptxas: {e}\n{text}"));
}

/// A name declared twice in one block, a variable with an offset as an argument, another
/// kernel's variable, an extern function defined, a function defined twice: each an error.
fn misuse_is_an_error() {
    let mut m = Module::new(Target::SM_80);
    let f = m.param_func("f", Linkage::Internal, |_, (): (), (): ()| {}).unwrap();
    let g = m.declare_func::<(ParamPtr<B32>,), ()>("g", Linkage::Internal).unwrap();
    let e = m
        .kernel("twice", |k, (): ()| {
            k.block(|k| {
                let _: ParamPtr<B32> = k.param_var("param0");
                let _: ParamPtr<B32> = k.param_var("param0");
            });
        })
        .unwrap_err()
        .to_string();
    assert!(e.contains("param0"), "{e}");
    // The same name in two blocks is two variables.
    m.kernel("apart", |k, (): ()| {
        for _ in 0..2 {
            k.block(|k| {
                let _: ParamPtr<B32> = k.param_var("param0");
                k.call_func(&f, (), ());
            });
        }
    })
    .unwrap();
    let e = m
        .kernel("offset", |k, (): ()| {
            let a: ParamPtr<B32> = k.param_var("param0");
            k.call_func(&g, (), (a.offset(1),));
        })
        .unwrap_err()
        .to_string();
    assert!(e.contains("with no offset"), "{e}");
    let mut stolen = None;
    m.kernel("owner", |k, (): ()| stolen = Some(k.param_var::<ParamPtr<B32>>("param0"))).unwrap();
    let e = m.kernel("thief", |k, (): ()| k.call_func(&g, (), (stolen.unwrap(),))).unwrap_err().to_string();
    assert!(e.contains("param0"), "{e}");
    let x = m.declare_func::<(), ()>("x", Linkage::Extern).unwrap();
    assert!(m.define_func(&x, |_, (), ()| {}).is_err());
    assert!(m.param_func("y", Linkage::Extern, |_, (): (), (): ()| {}).is_err());
    m.define_func(&g, |_, _, ()| {}).unwrap();
    assert!(m.define_func(&g, |_, _, ()| {}).is_err());
}

fn main() {
    common::harness::main(&[&[host!(functions_and_calls_assemble), host!(misuse_is_an_error)]]);
}
