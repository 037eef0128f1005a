//! Comparisons (ordered and unordered, signed and unsigned), selects, and conversions with
//! each rounding mode and saturation.

use super::reference::{self as r, Mode, MODES};
use super::*;
use rand::Rng;

/// `selp.u32 1, 0, p` so a predicate can be stored.
fn as_u32(k: &mut Kernel, p: Reg<Pred>) -> Reg<U32> {
    ptx!(k, "selp.u32", 1u32, 0u32, p)
}

fn setp_and_selp(gpu: Gpu) {
    let mut g = rng("setp_and_selp");
    let a: Vec<u32> = (0..N).map(|i| if i % 5 == 0 { i as u32 } else { g.gen() }).collect();
    let b: Vec<u32> = (0..N).map(|i| if i % 5 == 0 { i as u32 } else { g.gen() }).collect();
    let inp = |i: usize| (a[i], b[i]);
    let v = |f: &dyn Fn(u32, u32) -> bool| (0..N).map(|i| f(a[i], b[i]) as u32).collect::<Vec<u32>>();
    check(
        "setp.lo.u32",
        inp,
        &map2::<U32, U32, U32>(&gpu, &a, &b, |k, x, y| {
            let p = ptx!(k, "setp.lo.u32", x, y);
            as_u32(k, p)
        }),
        &v(&|x, y| x < y),
    );
    check(
        "setp.hs.u32",
        inp,
        &map2::<U32, U32, U32>(&gpu, &a, &b, |k, x, y| {
            let p = ptx!(k, "setp.hs.u32", x, y);
            as_u32(k, p)
        }),
        &v(&|x, y| x >= y),
    );
    check(
        "setp.eq.u32",
        inp,
        &map2::<U32, U32, U32>(&gpu, &a, &b, |k, x, y| {
            let p = ptx!(k, "setp.eq.u32", x, y);
            as_u32(k, p)
        }),
        &v(&|x, y| x == y),
    );
    let (sa, sb): (Vec<i32>, Vec<i32>) = (a.iter().map(|x| *x as i32).collect(), b.iter().map(|x| *x as i32).collect());
    let sv = |f: &dyn Fn(i32, i32) -> bool| (0..N).map(|i| f(sa[i], sb[i]) as u32).collect::<Vec<u32>>();
    check(
        "setp.lt.s32",
        inp,
        &map2::<S32, S32, U32>(&gpu, &sa, &sb, |k, x, y| {
            let p = ptx!(k, "setp.lt.s32", x, y);
            as_u32(k, p)
        }),
        &sv(&|x, y| x < y),
    );
    check(
        "setp.ge.s32",
        inp,
        &map2::<S32, S32, U32>(&gpu, &sa, &sb, |k, x, y| {
            let p = ptx!(k, "setp.ge.s32", x, y);
            as_u32(k, p)
        }),
        &sv(&|x, y| x >= y),
    );
    // The dual-predicate form gives the comparison and its complement.
    let got = map2::<S32, S32, U32>(&gpu, &sa, &sb, |k, x, y| {
        let (p, q) = ptx!(k, "setp.gt.s32" as pair, x, y);
        let (p, q) = (as_u32(k, p), as_u32(k, q));
        let q2 = ptx!(k, "shl.b32", q, 1u32);
        ptx!(k, "or.b32", p, q2).bitcast()
    });
    check("setp.gt.s32 p|q", inp, &got, &sv(&|x, y| x > y).iter().map(|p| p | (1 - p) << 1).collect::<Vec<_>>());

    // Floats with NaNs: ordered comparisons are false on NaN, unordered ones true.
    let specials = [f32::NAN, 0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, 1.0];
    let fa: Vec<f32> = (0..N).map(|i| if i % 7 == 0 { specials[i % 6] } else { r::f32_in(&mut g, 3) }).collect();
    let fb: Vec<f32> = (0..N)
        .map(|i| {
            if i % 11 == 0 {
                specials[i % 6]
            } else if i % 13 == 0 {
                fa[i]
            } else {
                r::f32_in(&mut g, 3)
            }
        })
        .collect();
    let finp = |i: usize| (fa[i], fb[i]);
    let fv = |f: &dyn Fn(f32, f32) -> bool| (0..N).map(|i| f(fa[i], fb[i]) as u32).collect::<Vec<u32>>();
    let un = |x: f32, y: f32| x.is_nan() || y.is_nan();
    check(
        "setp.lt.f32",
        finp,
        &map2::<F32, F32, U32>(&gpu, &fa, &fb, |k, x, y| {
            let p = ptx!(k, "setp.lt.f32", x, y);
            as_u32(k, p)
        }),
        &fv(&|x, y| x < y),
    );
    check(
        "setp.ltu.f32",
        finp,
        &map2::<F32, F32, U32>(&gpu, &fa, &fb, |k, x, y| {
            let p = ptx!(k, "setp.ltu.f32", x, y);
            as_u32(k, p)
        }),
        &fv(&|x, y| un(x, y) || x < y),
    );
    check(
        "setp.ne.f32",
        finp,
        &map2::<F32, F32, U32>(&gpu, &fa, &fb, |k, x, y| {
            let p = ptx!(k, "setp.ne.f32", x, y);
            as_u32(k, p)
        }),
        &fv(&|x, y| !un(x, y) && x != y),
    );
    check(
        "setp.equ.f32",
        finp,
        &map2::<F32, F32, U32>(&gpu, &fa, &fb, |k, x, y| {
            let p = ptx!(k, "setp.equ.f32", x, y);
            as_u32(k, p)
        }),
        &fv(&|x, y| un(x, y) || x == y),
    );
    check(
        "setp.num.f32",
        finp,
        &map2::<F32, F32, U32>(&gpu, &fa, &fb, |k, x, y| {
            let p = ptx!(k, "setp.num.f32", x, y);
            as_u32(k, p)
        }),
        &fv(&|x, y| !un(x, y)),
    );
    check(
        "setp.nan.f32",
        finp,
        &map2::<F32, F32, U32>(&gpu, &fa, &fb, |k, x, y| {
            let p = ptx!(k, "setp.nan.f32", x, y);
            as_u32(k, p)
        }),
        &fv(&|x, y| un(x, y)),
    );
    let got = map2::<F32, F32, U32>(&gpu, &fa, &fb, |k, x, y| {
        let q = ptx!(k, "setp.gt.f32", x, 0.0f32);
        let p = ptx!(k, "setp.le.and.f32", x, y, !q);
        as_u32(k, p)
    });
    check("setp.le.and.f32 with !q", finp, &got, &fv(&|x, y| x <= y && !(x > 0.0)));
    let got = map2::<F32, F32, F32>(&gpu, &fa, &fb, |k, x, y| {
        let p = ptx!(k, "setp.geu.f32", x, y);
        ptx!(k, "selp.f32", x, y, p)
    });
    check("selp.f32", finp, &got, &(0..N).map(|i| if un(fa[i], fb[i]) || fa[i] >= fb[i] { fa[i] } else { fb[i] }).collect::<Vec<_>>());
}

fn conversions(gpu: Gpu) {
    let mut g = rng("conversions");
    // float -> int: each integer rounding; out of range saturates, NaN gives 0 (as Rust's `as`).
    let specials = [f32::NAN, 3e9, -3e9, 2.5, -2.5, 0.5, -0.5, 1.5];
    let f: Vec<f32> = (0..N).map(|i| if i % 9 == 0 { specials[i % 8] } else { r::f32_in(&mut g, 33) }).collect();
    let inp = |i: usize| f[i];
    let want = |h: fn(f32) -> f32| f.iter().map(|x| h(*x) as i32).collect::<Vec<i32>>();
    check("cvt.rni.s32.f32", inp, &map1::<F32, S32>(&gpu, &f, |k, x| ptx!(k, "cvt.rni.s32.f32", x)), &want(f32::round_ties_even));
    check("cvt.rzi.s32.f32", inp, &map1::<F32, S32>(&gpu, &f, |k, x| ptx!(k, "cvt.rzi.s32.f32", x)), &want(f32::trunc));
    check("cvt.rmi.s32.f32", inp, &map1::<F32, S32>(&gpu, &f, |k, x| ptx!(k, "cvt.rmi.s32.f32", x)), &want(f32::floor));
    check("cvt.rpi.s32.f32", inp, &map1::<F32, S32>(&gpu, &f, |k, x| ptx!(k, "cvt.rpi.s32.f32", x)), &want(f32::ceil));
    check(
        "cvt.rzi.u32.f32",
        inp,
        &map1::<F32, U32>(&gpu, &f, |k, x| ptx!(k, "cvt.rzi.u32.f32", x)),
        &f.iter().map(|x| *x as u32).collect::<Vec<u32>>(),
    );
    // To 64 bits the hardware gives NaN the pattern 0x8000000000000000 (as CUDA's
    // __float2ll_rn documents), not 0.
    let want64: Vec<i64> = f.iter().map(|x| if x.is_nan() { i64::MIN } else { x.round_ties_even() as i64 }).collect();
    check("cvt.rni.s64.f32", inp, &map1::<F32, S64>(&gpu, &f, |k, x| ptx!(k, "cvt.rni.s64.f32", x)), &want64);

    // int -> float under each rounding mode (inexact above 2^24).
    let ints: Vec<i32> = (0..N).map(|_| g.gen()).collect();
    let iinp = |i: usize| ints[i];
    for m in MODES {
        let got = match m {
            Mode::Rn => map1::<S32, F32>(&gpu, &ints, |k, x| ptx!(k, "cvt.rn.f32.s32", x)),
            Mode::Rz => map1::<S32, F32>(&gpu, &ints, |k, x| ptx!(k, "cvt.rz.f32.s32", x)),
            Mode::Rm => map1::<S32, F32>(&gpu, &ints, |k, x| ptx!(k, "cvt.rm.f32.s32", x)),
            Mode::Rp => map1::<S32, F32>(&gpu, &ints, |k, x| ptx!(k, "cvt.rp.f32.s32", x)),
        };
        check(&format!("cvt.{m:?}.f32.s32"), iinp, &got, &ints.iter().map(|x| r::round32(*x as f64, 0.0, m)).collect::<Vec<_>>());
    }
    let wide: Vec<u64> = (0..N).map(|_| g.gen()).collect();
    check(
        "cvt.rz.f64.u64",
        |i| wide[i],
        &map1::<U64, F64>(&gpu, &wide, |k, x| ptx!(k, "cvt.rz.f64.u64", x)),
        &wide
            .iter()
            .map(|x| {
                let n = *x as f64; // nearest
                if (n as u128) > *x as u128 {
                    f64::from_bits(n.to_bits() - 1)
                } else {
                    n
                }
            })
            .collect::<Vec<_>>(),
    );

    // Integer narrowing and widening; saturation.
    check(
        "cvt.u8.s32",
        iinp,
        &map1::<S32, U8>(&gpu, &ints, |k, x| ptx!(k, "cvt.u8.s32", x)),
        &ints.iter().map(|x| *x as u8).collect::<Vec<_>>(),
    );
    check(
        "cvt.sat.u8.s32",
        iinp,
        &map1::<S32, U8>(&gpu, &ints, |k, x| ptx!(k, "cvt.sat.u8.s32", x)),
        &ints.iter().map(|x| (*x).clamp(0, 255) as u8).collect::<Vec<_>>(),
    );
    check(
        "cvt.sat.s16.s32",
        iinp,
        &map1::<S32, S16>(&gpu, &ints, |k, x| ptx!(k, "cvt.sat.s16.s32", x)),
        &ints.iter().map(|x| (*x).clamp(-32768, 32767) as i16).collect::<Vec<_>>(),
    );
    check(
        "cvt.s64.s32",
        iinp,
        &map1::<S32, S64>(&gpu, &ints, |k, x| ptx!(k, "cvt.s64.s32", x)),
        &ints.iter().map(|x| *x as i64).collect::<Vec<_>>(),
    );
    check(
        "cvt.u32.u64",
        |i| wide[i],
        &map1::<U64, U32>(&gpu, &wide, |k, x| ptx!(k, "cvt.u32.u64", x)),
        &wide.iter().map(|x| *x as u32).collect::<Vec<_>>(),
    );

    // Float <-> float.
    let ff: Vec<f32> = (0..N).map(|_| r::f32_in(&mut g, 14)).collect();
    let finp = |i: usize| ff[i];
    check(
        "cvt.rn.f16.f32",
        finp,
        &map1::<F32, F16>(&gpu, &ff, |k, x| ptx!(k, "cvt.rn.f16.f32", x)),
        &ff.iter().map(|x| half::f16::from_f32(*x)).collect::<Vec<_>>(),
    );
    let h: Vec<half::f16> = ff.iter().map(|x| half::f16::from_f32(*x)).collect();
    check(
        "cvt.f32.f16",
        |i| h[i],
        &map1::<F16, F32>(&gpu, &h, |k, x| ptx!(k, "cvt.f32.f16", x)),
        &h.iter().map(|x| x.to_f32()).collect::<Vec<_>>(),
    );
    check(
        "cvt.rn.bf16.f32",
        finp,
        &map1::<F32, Bf16>(&gpu, &ff, |k, x| ptx!(k, "cvt.rn.bf16.f32", x)),
        &ff.iter().map(|x| half::bf16::from_f32(*x)).collect::<Vec<_>>(),
    );
    let d: Vec<f64> = (0..N).map(|_| r::f64_in(&mut g, 100)).collect();
    check(
        "cvt.rn.f32.f64",
        |i| d[i],
        &map1::<F64, F32>(&gpu, &d, |k, x| ptx!(k, "cvt.rn.f32.f64", x)),
        &d.iter().map(|x| *x as f32).collect::<Vec<_>>(),
    );
    check(
        "cvt.f64.f32",
        finp,
        &map1::<F32, F64>(&gpu, &ff, |k, x| ptx!(k, "cvt.f64.f32", x)),
        &ff.iter().map(|x| *x as f64).collect::<Vec<_>>(),
    );
    // bf16 from and to the other floats under each rounding mode (sm_90); widening is exact
    // whatever the mode.
    macro_rules! each_mode {
        ($from:ty, $to:ty, $inputs:expr, $want:expr, $($mode:ident $chain:literal),*) => {$(
            let inputs = $inputs;
            check(
                $chain,
                |i| inputs[i],
                &map1::<$from, $to>(&gpu, &inputs, |k, x| ptx!(k, $chain, x)),
                &inputs.iter().map(|x| $want(*x, Mode::$mode)).collect::<Vec<_>>(),
            );
        )*};
    }
    let hb: Vec<half::bf16> = ff.iter().map(|x| half::bf16::from_f32(*x)).collect();
    each_mode!(F64, Bf16, &d, r::bf16_of, Rn "cvt.rn.bf16.f64", Rz "cvt.rz.bf16.f64", Rm "cvt.rm.bf16.f64", Rp "cvt.rp.bf16.f64");
    each_mode!(F16, Bf16, &h, |x: half::f16, m| r::bf16_of(x.to_f64(), m),
        Rn "cvt.rn.bf16.f16", Rz "cvt.rz.bf16.f16", Rm "cvt.rm.bf16.f16", Rp "cvt.rp.bf16.f16");
    each_mode!(Bf16, F16, &hb, |x: half::bf16, m| r::f16_of(x.to_f64(), m),
        Rn "cvt.rn.f16.bf16", Rz "cvt.rz.f16.bf16", Rm "cvt.rm.f16.bf16", Rp "cvt.rp.f16.bf16");
    each_mode!(F32, Bf16, &ff, |x: f32, m| r::bf16_of(x as f64, m),
        Rn "cvt.rn.ftz.bf16.f32", Rz "cvt.rz.ftz.bf16.f32", Rm "cvt.rm.ftz.bf16.f32", Rp "cvt.rp.ftz.bf16.f32");
    each_mode!(Bf16, F32, &hb, |x: half::bf16, _| x.to_f32(), Rn "cvt.rn.f32.bf16", Rp "cvt.rp.ftz.f32.bf16");
    each_mode!(Bf16, F64, &hb, |x: half::bf16, _| x.to_f64(), Rn "cvt.f64.bf16", Rz "cvt.rz.f64.bf16");

    // Packing: cvt.rn.bf16x2.f32 d, a, b puts a in the upper half.
    let got = map2::<F32, F32, U32>(&gpu, &ff, &f, |k, x, y| ptx!(k, "cvt.rn.bf16x2.f32", x, y).bitcast());
    let want: Vec<u32> =
        (0..N).map(|i| (half::bf16::from_f32(ff[i]).to_bits() as u32) << 16 | half::bf16::from_f32(f[i]).to_bits() as u32).collect();
    let nan_free: Vec<usize> = (0..N).filter(|i| !f[*i].is_nan()).collect();
    check(
        "cvt.rn.bf16x2.f32",
        |i| (ff[nan_free[i]], f[nan_free[i]]),
        &nan_free.iter().map(|i| got[*i]).collect::<Vec<_>>(),
        &nan_free.iter().map(|i| want[*i]).collect::<Vec<_>>(),
    );
}

pub const TESTS: &[Test] = &[gpu!(setp_and_selp), gpu!(conversions)];
