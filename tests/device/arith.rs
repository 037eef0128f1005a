//! Arithmetic: integers (wrapping, high halves, wide products, division), and floats
//! under each rounding mode, against correctly rounded CPU references.

use super::reference::{self as r, Mode, MODES};
use super::*;
use rand::Rng;

fn ints32(rng: &mut StdRng) -> Vec<u32> {
    let edges = [0, 1, 2, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0xffff_fffe];
    (0..N).map(|i| if i < edges.len() * 8 { edges[i % edges.len()] } else { rng.gen() }).collect()
}

fn integer_arithmetic_32(gpu: Gpu) {
    let mut g = rng("integer_arithmetic_32");
    let (a, b, c) = (ints32(&mut g), ints32(&mut g), ints32(&mut g));
    let s = |v: &[u32]| v.iter().map(|x| *x as i32).collect::<Vec<i32>>();
    let (sa, sb) = (s(&a), s(&b));
    let inp = |i: usize| (a[i], b[i]);
    let w = |f: fn(u32, u32) -> u32| a.iter().zip(&b).map(|(x, y)| f(*x, *y)).collect::<Vec<_>>();
    check("add.u32", inp, &map2::<U32, U32, U32>(&gpu, &a, &b, |k, x, y| ptx!(k, "add.u32", x, y)), &w(|x, y| x.wrapping_add(y)));
    check("sub.u32", inp, &map2::<U32, U32, U32>(&gpu, &a, &b, |k, x, y| ptx!(k, "sub.u32", x, y)), &w(|x, y| x.wrapping_sub(y)));
    check("mul.lo.u32", inp, &map2::<U32, U32, U32>(&gpu, &a, &b, |k, x, y| ptx!(k, "mul.lo.u32", x, y)), &w(|x, y| x.wrapping_mul(y)));
    check(
        "mul.hi.u32",
        inp,
        &map2::<U32, U32, U32>(&gpu, &a, &b, |k, x, y| ptx!(k, "mul.hi.u32", x, y)),
        &w(|x, y| ((x as u64 * y as u64) >> 32) as u32),
    );
    check("min.u32", inp, &map2::<U32, U32, U32>(&gpu, &a, &b, |k, x, y| ptx!(k, "min.u32", x, y)), &w(|x, y| x.min(y)));
    check("max.u32", inp, &map2::<U32, U32, U32>(&gpu, &a, &b, |k, x, y| ptx!(k, "max.u32", x, y)), &w(|x, y| x.max(y)));
    let bnz: Vec<u32> = b.iter().map(|x| if *x == 0 { 7 } else { *x }).collect();
    let wd = |f: fn(u32, u32) -> u32| a.iter().zip(&bnz).map(|(x, y)| f(*x, *y)).collect::<Vec<_>>();
    check("div.u32", inp, &map2::<U32, U32, U32>(&gpu, &a, &bnz, |k, x, y| ptx!(k, "div.u32", x, y)), &wd(|x, y| x / y));
    check("rem.u32", inp, &map2::<U32, U32, U32>(&gpu, &a, &bnz, |k, x, y| ptx!(k, "rem.u32", x, y)), &wd(|x, y| x % y));
    let want: Vec<u32> = (0..N).map(|i| a[i].wrapping_mul(b[i]).wrapping_add(c[i])).collect();
    check("mad.lo.u32", |i| (a[i], b[i], c[i]), &map3::<U32, U32>(&gpu, &a, &b, &c, |k, x, y, z| ptx!(k, "mad.lo.u32", x, y, z)), &want);
    let want: Vec<u64> = (0..N).map(|i| a[i] as u64 * b[i] as u64).collect();
    check("mul.wide.u32", inp, &map2::<U32, U32, U64>(&gpu, &a, &b, |k, x, y| ptx!(k, "mul.wide.u32", x, y)), &want);

    // Signed.
    let sw = |f: fn(i32, i32) -> i32| sa.iter().zip(&sb).map(|(x, y)| f(*x, *y)).collect::<Vec<_>>();
    check(
        "mul.hi.s32",
        inp,
        &map2::<S32, S32, S32>(&gpu, &sa, &sb, |k, x, y| ptx!(k, "mul.hi.s32", x, y)),
        &sw(|x, y| ((x as i64 * y as i64) >> 32) as i32),
    );
    check("min.s32", inp, &map2::<S32, S32, S32>(&gpu, &sa, &sb, |k, x, y| ptx!(k, "min.s32", x, y)), &sw(|x, y| x.min(y)));
    check("max.s32", inp, &map2::<S32, S32, S32>(&gpu, &sa, &sb, |k, x, y| ptx!(k, "max.s32", x, y)), &sw(|x, y| x.max(y)));
    check(
        "add.sat.s32",
        inp,
        &map2::<S32, S32, S32>(&gpu, &sa, &sb, |k, x, y| ptx!(k, "add.sat.s32", x, y)),
        &sw(|x, y| x.saturating_add(y)),
    );
    check(
        "abs.s32",
        inp,
        &map1::<S32, S32>(&gpu, &sa, |k, x| ptx!(k, "abs.s32", x)),
        &sa.iter().map(|x| x.wrapping_abs()).collect::<Vec<_>>(),
    );
    check(
        "neg.s32",
        inp,
        &map1::<S32, S32>(&gpu, &sa, |k, x| ptx!(k, "neg.s32", x)),
        &sa.iter().map(|x| x.wrapping_neg()).collect::<Vec<_>>(),
    );
    let sbd: Vec<i32> = sb.iter().map(|y| if *y == 0 || *y == -1 { 3 } else { *y }).collect();
    let sd = |f: fn(i32, i32) -> i32| sa.iter().zip(&sbd).map(|(x, y)| f(*x, *y)).collect::<Vec<_>>();
    check("div.s32", inp, &map2::<S32, S32, S32>(&gpu, &sa, &sbd, |k, x, y| ptx!(k, "div.s32", x, y)), &sd(|x, y| x / y));
    check("rem.s32", inp, &map2::<S32, S32, S32>(&gpu, &sa, &sbd, |k, x, y| ptx!(k, "rem.s32", x, y)), &sd(|x, y| x % y));
    let want: Vec<i64> = (0..N).map(|i| sa[i] as i64 * sb[i] as i64).collect();
    check("mul.wide.s32", inp, &map2::<S32, S32, S64>(&gpu, &sa, &sb, |k, x, y| ptx!(k, "mul.wide.s32", x, y)), &want);

    // Two 16-bit halves at once (sm_90): wrapping adds, minima and maxima, and `.relu`
    // (negative results as 0) on the signed ones.
    let halves = |f: &dyn Fn(u16, u16) -> u16| {
        a.iter()
            .zip(&b)
            .map(|(x, y)| f(*x as u16, *y as u16) as u32 | (f((x >> 16) as u16, (y >> 16) as u16) as u32) << 16)
            .collect::<Vec<_>>()
    };
    let s16 = |f: fn(i16, i16) -> i16| move |x: u16, y: u16| f(x as i16, y as i16) as u16;
    check("add.u16x2", inp, &map2::<B32, B32, B32>(&gpu, &a, &b, |k, x, y| ptx!(k, "add.u16x2", x, y)), &halves(&|x, y| x.wrapping_add(y)));
    check("add.s16x2", inp, &map2::<B32, B32, B32>(&gpu, &a, &b, |k, x, y| ptx!(k, "add.s16x2", x, y)), &halves(&|x, y| x.wrapping_add(y)));
    check("min.u16x2", inp, &map2::<B32, B32, B32>(&gpu, &a, &b, |k, x, y| ptx!(k, "min.u16x2", x, y)), &halves(&|x, y| x.min(y)));
    check("max.u16x2", inp, &map2::<B32, B32, B32>(&gpu, &a, &b, |k, x, y| ptx!(k, "max.u16x2", x, y)), &halves(&|x, y| x.max(y)));
    check("min.s16x2", inp, &map2::<B32, B32, B32>(&gpu, &a, &b, |k, x, y| ptx!(k, "min.s16x2", x, y)), &halves(&s16(|x, y| x.min(y))));
    check("max.s16x2", inp, &map2::<B32, B32, B32>(&gpu, &a, &b, |k, x, y| ptx!(k, "max.s16x2", x, y)), &halves(&s16(|x, y| x.max(y))));
    check(
        "min.relu.s16x2",
        inp,
        &map2::<B32, B32, B32>(&gpu, &a, &b, |k, x, y| ptx!(k, "min.relu.s16x2", x, y)),
        &halves(&s16(|x, y| x.min(y).max(0))),
    );
    check(
        "max.relu.s16x2",
        inp,
        &map2::<B32, B32, B32>(&gpu, &a, &b, |k, x, y| ptx!(k, "max.relu.s16x2", x, y)),
        &halves(&s16(|x, y| x.max(y).max(0))),
    );
}

fn integer_arithmetic_64(gpu: Gpu) {
    let mut g = rng("integer_arithmetic_64");
    let a: Vec<u64> = (0..N).map(|_| g.gen()).collect();
    let b: Vec<u64> = (0..N).map(|i| if i % 97 == 0 { u64::MAX } else { g.gen() }).collect();
    let inp = |i: usize| (a[i], b[i]);
    let w = |f: fn(u64, u64) -> u64| a.iter().zip(&b).map(|(x, y)| f(*x, *y)).collect::<Vec<_>>();
    check("add.u64", inp, &map2::<U64, U64, U64>(&gpu, &a, &b, |k, x, y| ptx!(k, "add.u64", x, y)), &w(|x, y| x.wrapping_add(y)));
    check("mul.lo.u64", inp, &map2::<U64, U64, U64>(&gpu, &a, &b, |k, x, y| ptx!(k, "mul.lo.u64", x, y)), &w(|x, y| x.wrapping_mul(y)));
    check(
        "mul.hi.u64",
        inp,
        &map2::<U64, U64, U64>(&gpu, &a, &b, |k, x, y| ptx!(k, "mul.hi.u64", x, y)),
        &w(|x, y| ((x as u128 * y as u128) >> 64) as u64),
    );
    let bs: Vec<u64> = b.iter().map(|y| (y >> (y % 60)).max(1)).collect();
    let wd = |f: fn(u64, u64) -> u64| a.iter().zip(&bs).map(|(x, y)| f(*x, *y)).collect::<Vec<_>>();
    check("div.u64", inp, &map2::<U64, U64, U64>(&gpu, &a, &bs, |k, x, y| ptx!(k, "div.u64", x, y)), &wd(|x, y| x / y));
    check("rem.u64", inp, &map2::<U64, U64, U64>(&gpu, &a, &bs, |k, x, y| ptx!(k, "rem.u64", x, y)), &wd(|x, y| x % y));
    let sa: Vec<i64> = a.iter().map(|x| *x as i64).collect();
    let sb: Vec<i64> = b.iter().map(|x| *x as i64).collect();
    let want: Vec<i64> = sa.iter().zip(&sb).map(|(x, y)| *x.min(y)).collect();
    check("min.s64", inp, &map2::<S64, S64, S64>(&gpu, &sa, &sb, |k, x, y| ptx!(k, "min.s64", x, y)), &want);
}

fn f32_rounding_modes(gpu: Gpu) {
    let mut g = rng("f32_rounding_modes");
    let a: Vec<f32> = (0..N).map(|_| r::f32_in(&mut g, 20)).collect();
    let b: Vec<f32> = (0..N).map(|i| if i % 3 == 0 { a[i] * r::f32_in(&mut g, 0).abs() } else { r::f32_in(&mut g, 20) }).collect();
    let c: Vec<f32> = (0..N).map(|_| r::f32_in(&mut g, 40)).collect();
    let inp = |i: usize| (a[i], b[i], c[i]);
    for m in MODES {
        let add = |f: fn(f32, f32, Mode) -> f32| (0..N).map(|i| f(a[i], b[i], m)).collect::<Vec<f32>>();
        let (gadd, gsub, gmul, gfma) = match m {
            Mode::Rn => (
                map2::<F32, F32, F32>(&gpu, &a, &b, |k, x, y| ptx!(k, "add.rn.f32", x, y)),
                map2::<F32, F32, F32>(&gpu, &a, &b, |k, x, y| ptx!(k, "sub.rn.f32", x, y)),
                map2::<F32, F32, F32>(&gpu, &a, &b, |k, x, y| ptx!(k, "mul.rn.f32", x, y)),
                map3::<F32, F32>(&gpu, &a, &b, &c, |k, x, y, z| ptx!(k, "fma.rn.f32", x, y, z)),
            ),
            Mode::Rz => (
                map2::<F32, F32, F32>(&gpu, &a, &b, |k, x, y| ptx!(k, "add.rz.f32", x, y)),
                map2::<F32, F32, F32>(&gpu, &a, &b, |k, x, y| ptx!(k, "sub.rz.f32", x, y)),
                map2::<F32, F32, F32>(&gpu, &a, &b, |k, x, y| ptx!(k, "mul.rz.f32", x, y)),
                map3::<F32, F32>(&gpu, &a, &b, &c, |k, x, y, z| ptx!(k, "fma.rz.f32", x, y, z)),
            ),
            Mode::Rm => (
                map2::<F32, F32, F32>(&gpu, &a, &b, |k, x, y| ptx!(k, "add.rm.f32", x, y)),
                map2::<F32, F32, F32>(&gpu, &a, &b, |k, x, y| ptx!(k, "sub.rm.f32", x, y)),
                map2::<F32, F32, F32>(&gpu, &a, &b, |k, x, y| ptx!(k, "mul.rm.f32", x, y)),
                map3::<F32, F32>(&gpu, &a, &b, &c, |k, x, y, z| ptx!(k, "fma.rm.f32", x, y, z)),
            ),
            Mode::Rp => (
                map2::<F32, F32, F32>(&gpu, &a, &b, |k, x, y| ptx!(k, "add.rp.f32", x, y)),
                map2::<F32, F32, F32>(&gpu, &a, &b, |k, x, y| ptx!(k, "sub.rp.f32", x, y)),
                map2::<F32, F32, F32>(&gpu, &a, &b, |k, x, y| ptx!(k, "mul.rp.f32", x, y)),
                map3::<F32, F32>(&gpu, &a, &b, &c, |k, x, y, z| ptx!(k, "fma.rp.f32", x, y, z)),
            ),
        };
        check(&format!("add.{m:?}.f32"), inp, &gadd, &add(r::add32));
        check(&format!("sub.{m:?}.f32"), inp, &gsub, &add(|x, y, m| r::add32(x, -y, m)));
        check(&format!("mul.{m:?}.f32"), inp, &gmul, &add(r::mul32));
        check(&format!("fma.{m:?}.f32"), inp, &gfma, &(0..N).map(|i| r::fma32(a[i], b[i], c[i], m)).collect::<Vec<_>>());
    }
    // Correctly rounded division, square root and reciprocal (round to nearest).
    check(
        "div.rn.f32",
        inp,
        &map2::<F32, F32, F32>(&gpu, &a, &b, |k, x, y| ptx!(k, "div.rn.f32", x, y)),
        &(0..N).map(|i| a[i] / b[i]).collect::<Vec<_>>(),
    );
    let pos: Vec<f32> = a.iter().map(|x| x.abs()).collect();
    check(
        "sqrt.rn.f32",
        inp,
        &map1::<F32, F32>(&gpu, &pos, |k, x| ptx!(k, "sqrt.rn.f32", x)),
        &pos.iter().map(|x| x.sqrt()).collect::<Vec<_>>(),
    );
    check("rcp.rn.f32", inp, &map1::<F32, F32>(&gpu, &a, |k, x| ptx!(k, "rcp.rn.f32", x)), &a.iter().map(|x| 1.0 / x).collect::<Vec<_>>());
    check("abs.f32", inp, &map1::<F32, F32>(&gpu, &a, |k, x| ptx!(k, "abs.f32", x)), &a.iter().map(|x| x.abs()).collect::<Vec<_>>());
    check("neg.f32", inp, &map1::<F32, F32>(&gpu, &a, |k, x| ptx!(k, "neg.f32", x)), &a.iter().map(|x| -x).collect::<Vec<_>>());
    check(
        "min.f32",
        inp,
        &map2::<F32, F32, F32>(&gpu, &a, &b, |k, x, y| ptx!(k, "min.f32", x, y)),
        &(0..N).map(|i| a[i].min(b[i])).collect::<Vec<_>>(),
    );
    check(
        "copysign.f32",
        inp,
        &map2::<F32, F32, F32>(&gpu, &a, &b, |k, x, y| ptx!(k, "copysign.f32", x, y)),
        &(0..N).map(|i| b[i].copysign(a[i])).collect::<Vec<_>>(),
    );
    // Immediates are exact: x * 0.1f32 rounds the same as on the CPU.
    check(
        "mul.rn.f32 imm",
        inp,
        &map1::<F32, F32>(&gpu, &a, |k, x| ptx!(k, "mul.rn.f32", x, 0.1f32)),
        &a.iter().map(|x| x * 0.1f32).collect::<Vec<_>>(),
    );
}

fn f64_rounding_modes(gpu: Gpu) {
    let mut g = rng("f64_rounding_modes");
    let a: Vec<f64> = (0..N).map(|_| r::f64_in(&mut g, 60)).collect();
    let b: Vec<f64> = (0..N).map(|_| r::f64_in(&mut g, 60)).collect();
    let c: Vec<f64> = (0..N).map(|_| r::f64_in(&mut g, 60)).collect();
    let inp = |i: usize| (a[i], b[i]);
    for m in MODES {
        let (gadd, gmul) = match m {
            Mode::Rn => (
                map2::<F64, F64, F64>(&gpu, &a, &b, |k, x, y| ptx!(k, "add.rn.f64", x, y)),
                map2::<F64, F64, F64>(&gpu, &a, &b, |k, x, y| ptx!(k, "mul.rn.f64", x, y)),
            ),
            Mode::Rz => (
                map2::<F64, F64, F64>(&gpu, &a, &b, |k, x, y| ptx!(k, "add.rz.f64", x, y)),
                map2::<F64, F64, F64>(&gpu, &a, &b, |k, x, y| ptx!(k, "mul.rz.f64", x, y)),
            ),
            Mode::Rm => (
                map2::<F64, F64, F64>(&gpu, &a, &b, |k, x, y| ptx!(k, "add.rm.f64", x, y)),
                map2::<F64, F64, F64>(&gpu, &a, &b, |k, x, y| ptx!(k, "mul.rm.f64", x, y)),
            ),
            Mode::Rp => (
                map2::<F64, F64, F64>(&gpu, &a, &b, |k, x, y| ptx!(k, "add.rp.f64", x, y)),
                map2::<F64, F64, F64>(&gpu, &a, &b, |k, x, y| ptx!(k, "mul.rp.f64", x, y)),
            ),
        };
        check(&format!("add.{m:?}.f64"), inp, &gadd, &(0..N).map(|i| r::add64(a[i], b[i], m)).collect::<Vec<_>>());
        check(&format!("mul.{m:?}.f64"), inp, &gmul, &(0..N).map(|i| r::mul64(a[i], b[i], m)).collect::<Vec<_>>());
    }
    check(
        "fma.rn.f64",
        inp,
        &map3::<F64, F64>(&gpu, &a, &b, &c, |k, x, y, z| ptx!(k, "fma.rn.f64", x, y, z)),
        &(0..N).map(|i| a[i].mul_add(b[i], c[i])).collect::<Vec<_>>(),
    );
    check(
        "div.rn.f64",
        inp,
        &map2::<F64, F64, F64>(&gpu, &a, &b, |k, x, y| ptx!(k, "div.rn.f64", x, y)),
        &(0..N).map(|i| a[i] / b[i]).collect::<Vec<_>>(),
    );
    let pos: Vec<f64> = a.iter().map(|x| x.abs()).collect();
    check(
        "sqrt.rn.f64",
        inp,
        &map1::<F64, F64>(&gpu, &pos, |k, x| ptx!(k, "sqrt.rn.f64", x)),
        &pos.iter().map(|x| x.sqrt()).collect::<Vec<_>>(),
    );
}

pub const TESTS: &[Test] = &[gpu!(integer_arithmetic_32), gpu!(integer_arithmetic_64), gpu!(f32_rounding_modes), gpu!(f64_rounding_modes)];
