//! Golden text: small modules printed and compared with the checked-in `.ptx` files in
//! tests/golden/. `PTXKIT_BLESS=1 cargo test --test golden` rewrites them; every module is
//! also assembled by ptxas at its target.

#[macro_use]
mod common;

use ptxkit::prelude::*;
use std::path::Path;

fn check(name: &str, m: &Module) {
    check_allowing(name, m, &[]);
}

/// As [`check`], with ptxas warnings containing one of `allowed` accepted.
fn check_allowing(name: &str, m: &Module, allowed: &[&str]) {
    let text = common::assemble_allowing(name, m, allowed);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(format!("{name}.ptx"));
    if std::env::var("PTXKIT_BLESS").as_deref() == Ok("1") {
        std::fs::write(&path, &text).expect("bless");
    } else {
        let want = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("{} missing: run with PTXKIT_BLESS=1", path.display()));
        assert_eq!(text, want, "{name}: printed PTX differs from {} (PTXKIT_BLESS=1 to accept)", path.display());
    }
}

fn saxpy() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("saxpy", |k, (x, y, a, n): (GlobalPtr<F32>, GlobalPtr<F32>, Reg<F32>, Reg<U32>)| {
        k.maxntid(256, 1, 1);
        let i = k.global_thread_index_x();
        let inb = ptx!(k, "setp.lt.u32", i, n);
        k.if_(inb, |k| {
            let xi = ptx!(k, "ld.global.f32", x.at(i));
            let yi = ptx!(k, "ld.global.f32", y.at(i));
            let r = ptx!(k, "fma.rn.f32", a, xi, yi);
            ptx!(k, "st.global.f32", y.at(i), r);
        });
    })
    .unwrap();
    check("saxpy", &m);
}

fn control_flow() {
    let mut m = Module::new(Target::SM_75);
    m.kernel("loops", |k, (out, n): (GlobalPtr<U32>, Reg<U32>)| {
        let acc: Reg<U32> = ptx!(k, "mov.u32", 0u32);
        k.for_range(0u32, n, 1, |k, i| {
            let odd = ptx!(k, "and.b32", i, 1u32);
            let p = ptx!(k, "setp.ne.b32", odd, 0u32);
            k.if_else(
                p,
                |k| {
                    ptx!(k, "add.u32" => acc, acc, i);
                },
                |k| {
                    ptx!(k, "sub.u32" => acc, acc, 1u32);
                },
            );
        });
        let j: Reg<U32> = ptx!(k, "mov.u32", 10u32);
        k.while_(
            |k| ptx!(k, "setp.gt.u32", j, 0u32),
            |k| {
                ptx!(k, "shr.u32" => j, j, 1u32);
            },
        );
        k.loop_(|k, l| {
            let q = ptx!(k, "setp.ge.u32", acc, 1000u32);
            k.bra_if(q, l.brk);
            ptx!(k, "mul.lo.u32" => acc, acc, 3u32);
        });
        let done = k.named_label("done");
        let z = ptx!(k, "setp.eq.u32", j, 0u32);
        ptx!(k, @!z, "bra", done);
        ptx!(k, @z, "add.u32" => acc, acc, j);
        k.place(done);
        ptx!(k, "st.global.u32", out.offset(0), acc);
        k.comment("end of loops");
    })
    .unwrap();
    check("control_flow", &m);
}

fn device_function() {
    let mut m = Module::new(Target::SM_75);
    let f = m
        .func("mix", |k, (a, b): (Reg<U32>, Reg<F32>)| {
            let fa = ptx!(k, "cvt.rn.f32.u32", a);
            let r = ptx!(k, "mul.rn.f32", fa, b);
            let s = ptx!(k, "add.f32", r, 0.5f32);
            (s, a)
        })
        .unwrap();
    m.kernel("caller", |k, (out,): (GlobalPtr<F32>,)| {
        let t = ptx!(k, "mov.u32", sreg::TID_X);
        let two = ptx!(k, "mov.f32", 2.0f32);
        let (v, _) = k.call(&f, (t, two));
        ptx!(k, "st.global.f32", out.at(t), v);
    })
    .unwrap();
    // A `.func` with several `.reg` results has no call ABI; ptxas says so.
    check_allowing("device_function", &m, &["with multiple return values found, disabling ABI"]);
}

fn shared_memory_and_atomics() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("histogram", |k, (data, hist, n): (GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>)| {
        let bins = k.shared_array::<U32>("bins", 256, 4);
        let dynm = k.dynamic_shared::<F32>();
        let t = ptx!(k, "mov.u32", sreg::TID_X);
        ptx!(k, "st.shared.u32", bins.at(t), 0u32);
        ptx!(k, "st.shared.f32", dynm.at(t), 1.0f32);
        ptx!(k, "bar.sync", 0u32);
        let i = k.global_thread_index_x();
        let inb = ptx!(k, "setp.lt.u32", i, n);
        k.if_(inb, |k| {
            let v = ptx!(k, "ld.global.nc.u32", data.at(i));
            let b = ptx!(k, "and.b32", v, 255u32);
            ptx!(k, "red.shared.add.u32", bins.at(b), 1u32);
        });
        ptx!(k, "bar.sync" as counted, 0u32, 256u32);
        let c = ptx!(k, "ld.shared.u32", bins.at(t));
        let old = ptx!(k, "atom.relaxed.gpu.global.add.u32", hist.at(t), c);
        let _ = ptx!(k, "atom.global.cas.b32", hist.at(t), old, c);
        ptx!(k, "fence.acq_rel.gpu");
    })
    .unwrap();
    check("shared_memory_and_atomics", &m);
}

fn warp_collectives() {
    let mut m = Module::new(Target::SM_90);
    m.kernel("warp", |k, (out,): (GlobalPtr<U32>,)| {
        let lane = ptx!(k, "mov.u32", sreg::LANEID);
        let full = 0xffff_ffffu32;
        let (x, inrange) = ptx!(k, "shfl.sync.bfly.b32" as pair, lane, 1u32, 0x1fu32, full);
        let y = ptx!(k, "shfl.sync.down.b32", lane, 2u32, 0x1fu32, full);
        let s = ptx!(k, "redux.sync.add.u32", lane, full);
        let any = ptx!(k, "vote.sync.any.pred", inrange, full);
        let ballot = ptx!(k, "vote.sync.ballot.b32", !any, full);
        let (leader, is_leader) = ptx!(k, "elect.sync", full);
        let (lt, ge) = ptx!(k, "setp.lt.s32" as pair, lane.bitcast::<S32>(), 16i32);
        let m1 = ptx!(k, "match.any.sync.b32", x, full);
        let pick = ptx!(k, "selp.b32", x, y, lt);
        let pick2 = ptx!(k, "selp.b32", s, ballot, ge);
        let mix = ptx!(k, "lop3.b32", pick, pick2, m1, 0x96);
        ptx!(k, @is_leader, "st.global.u32", out.at(lane), leader);
        ptx!(k, "st.global.u32", out.at(lane), mix);
        let am = ptx!(k, "activemask.b32");
        ptx!(k, "bar.warp.sync", am);
    })
    .unwrap();
    check("warp_collectives", &m);
}

fn variables_directives_and_immediates() {
    let mut m = Module::new(Target::SM_90A);
    let table = m.constant::<F32>("table", &[1.0, -2.5, 0.1, f32::INFINITY]).unwrap();
    let counters = m.global::<U64>("counters", 4).unwrap();
    let init = m.global_init::<S32>("offsets", &[-1, 0, 7]).unwrap();
    m.kernel("consts", |k, (out, scale): (GlobalPtr<F64>, Reg<F64>)| {
        k.reqntid(128, 1, 1);
        k.reqnctapercluster(2, 1, 1);
        k.maxnreg(128);
        let t = ptx!(k, "mov.u32", sreg::TID_X);
        let c = ptx!(k, "ld.const.f32", table.ptr().at(t));
        let d = ptx!(k, "cvt.f64.f32", c);
        let e = ptx!(k, "fma.rn.f64", d, scale, 0.25f64);
        let r = ptx!(k, "mov.u32", sreg::CLUSTER_CTARANK);
        let o = ptx!(k, "ld.global.s32", init.ptr().offset(2));
        let sum = ptx!(k, "add.s32", o, r.bitcast::<S32>());
        let clk = ptx!(k, "mov.u64", sreg::CLOCK64);
        ptx!(k, "red.global.add.u64", counters.ptr().at(t), clk);
        ptx!(k, "st.global.f64", out.at(sum), e);
        let h = ptx!(k, "cvt.rn.f16.f32", c);
        let packed = ptx!(k, "cvt.rn.bf16x2.f32", c, c);
        let hh = ptx!(k, "cvt.f32.f16", h);
        ptx!(k, "st.global.v2.f32", out.cast::<F32>().at(t), [hh, c]);
        ptx!(k, "st.global.b32", out.cast::<B32>().offset(64), packed);
    })
    .unwrap();
    check("variables_directives_and_immediates", &m);
}

fn example_kernels() {
    let mut m = Module::new(Target::SM_80);
    ptxkit::kernels::copy_scalar(&mut m).unwrap();
    ptxkit::kernels::copy_v4(&mut m).unwrap();
    ptxkit::kernels::vector_add(&mut m).unwrap();
    ptxkit::kernels::saxpy(&mut m).unwrap();
    check("example_kernels", &m);
}

fn reduction_and_scan_kernels() {
    let mut m = Module::new(Target::SM_80);
    ptxkit::kernels::sum_partials(&mut m).unwrap();
    ptxkit::kernels::sum_final(&mut m).unwrap();
    ptxkit::kernels::scan_tile_sums(&mut m).unwrap();
    ptxkit::kernels::scan_tile_prefix(&mut m).unwrap();
    ptxkit::kernels::scan_tiles(&mut m).unwrap();
    ptxkit::kernels::scan_single_pass::<256>(&mut m, "scan_single_pass", 16, 0).unwrap();
    check("reduction_and_scan_kernels", &m);
}

fn textures_and_surfaces() {
    let mut m = Module::new(Target::SM_80);
    let lut = m.texref("lut").unwrap();
    m.kernel("resample", |k, (tex, surf, scale): (Texture, Surface, Reg<F32>)| {
        let (tx, ty) = (ptx!(k, "mov.u32", sreg::TID_X), ptx!(k, "mov.u32", sreg::CTAID_X));
        let (fx, fy) = (ptx!(k, "cvt.rn.f32.u32", tx), ptx!(k, "cvt.rn.f32.u32", ty));
        let (x, y) = (ptx!(k, "mul.rn.f32", fx, scale), ptx!(k, "mul.rn.f32", fy, scale));
        let [r, g, b, a] = ptx!(k, "tex.2d.v4.f32.f32", tex.at([x, y]));
        let [_, _, _, corner] = ptx!(k, "tld4.a.2d.v4.f32.f32", tex.at([x, y]));
        let layer = ptx!(k, "mov.u32", 0u32);
        let [w, _, _, _] = ptx!(k, "tex.a1d.v4.f32.f32", lut.at((layer, corner)));
        let xb = ptx!(k, "mul.lo.u32", tx, 16u32);
        let a = ptx!(k, "mul.rn.f32", a, w);
        ptx!(k, "sust.b.2d.v4.b32.zero", surf.at([xb, ty]), [r, g, b, a]);
        let width = ptx!(k, "suq.width.b32", surf);
        let _ = width;
    })
    .unwrap();
    check("textures_and_surfaces", &m);
}

fn main() {
    common::harness::main(&[&[
        host!(textures_and_surfaces),
        host!(saxpy),
        host!(control_flow),
        host!(device_function),
        host!(shared_memory_and_atomics),
        host!(warp_collectives),
        host!(variables_directives_and_immediates),
        host!(example_kernels),
        host!(reduction_and_scan_kernels),
    ]]);
}
