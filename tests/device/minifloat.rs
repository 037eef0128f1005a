//! The narrow-float conversions against the host model of `ptxkit::types::minifloat`, over
//! every code of each format and over f32/f16 inputs chosen to hit every rounding case:
//! each code's value, the midpoints between neighbouring codes (ties) and the floats next
//! to them, values past the largest finite one, infinities, NaN and random values.
//!
//! FP8 (`.e4m3x2`, `.e5m2x2`) runs from sm_89, so on Hopper. FP6, FP4 and ue8m0
//! (`.e2m3x2`, `.e3m2x2`, `.e2m1x2` in an 8-bit register, `.ue8m0x2`) need sm_100a or
//! newer: that test runs on such a GPU and says that it was not run otherwise.

use super::*;
use half::f16;
use ptxkit::types::minifloat::{Format, E2M1, E2M3, E3M2, E4M3, E5M2, UE8M0};
use rand::Rng;

/// The f32 inputs that exercise `f`'s rounding: every value, the midpoints of neighbours
/// and the floats on either side of them, beyond-range values, ±∞, NaN, both zeros, and
/// random floats over the format's exponent range.
fn probes(f: &Format, g: &mut impl Rng) -> Vec<f32> {
    let mut vals: Vec<f32> = (0..f.codes()).map(|c| f.decode(c as u8)).filter(|v| v.is_finite()).collect();
    vals.sort_by(f32::total_cmp);
    vals.dedup();
    let mut out = vec![0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e30, -1e30];
    for w in vals.windows(2) {
        let mid = (w[0] + w[1]) / 2.0; // exact: neighbours differ in few low bits
        out.extend([w[0], mid, f32::from_bits(mid.to_bits() + 1), f32::from_bits(mid.to_bits().wrapping_sub(1))]);
    }
    let top = f.max_finite();
    out.extend([top * 1.0625, top * 1.5, top * 4.0, -top * 1.0625]);
    for _ in 0..4096 {
        let e: i32 = g.gen_range(-(f.bias + f.man as i32 + 3)..=(1 << f.exp) - f.bias + 2);
        out.push(g.gen_range(-1.0f32..1.0) * 2f32.powi(e));
    }
    // Every value also with its sign flipped (ue8m0 and .relu clamp those).
    let neg: Vec<f32> = out.iter().map(|v| -v).collect();
    out.extend(neg);
    out
}

/// `f.encode` after `.relu` (negative values, -0 included, become +0; NaN stays NaN).
fn relu_encode(f: &Format, x: f32) -> u8 {
    f.encode(if x.is_nan() {
        x
    } else if x <= 0.0 {
        0.0
    } else {
        x
    })
}

/// Two encoded elements as the instruction packs them: the first operand's in the upper half.
fn pack(f: &Format, hi: u8, lo: u8) -> u16 {
    ((hi as u16) << f.bits()) | lo as u16
}

/// Both halves of a decoded `f16x2`, compared with the model: equal bits, or both NaN.
fn same_f16x2(got: u32, want: (f32, f32)) -> bool {
    let ok = |bits: u16, w: f32| {
        let h = f16::from_bits(bits);
        (h.is_nan() && w.is_nan()) || h.to_bits() == f16::from_f32(w).to_bits()
    };
    ok((got >> 16) as u16, want.0) && ok(got as u16, want.1)
}

fn expect_all<T: Copy + Debug, I: Debug>(
    what: &str,
    inputs: impl Fn(usize) -> I,
    got: &[T],
    ok: impl Fn(usize, T) -> bool,
    want: impl Fn(usize) -> String,
) {
    let bad: Vec<usize> = (0..got.len()).filter(|&i| !ok(i, got[i])).collect();
    println!("{what}: {} values, {} differ", got.len(), bad.len());
    if let Some(&i) = bad.first() {
        panic!("{what}: {} of {} differ; first at {i}: input {:?}, GPU {:?}, model {}", bad.len(), got.len(), inputs(i), got[i], want(i));
    }
}

/// Every `.e4m3x2`/`.e5m2x2` word to `f16x2`; f32 pairs and f16x2 to both formats, with and
/// without `.relu`.
fn fp8_conversions_match_the_model(gpu: Gpu) {
    if gpu.compute_capability() < (8, 9) {
        skip(format!("FP8 conversions need sm_89, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("fp8_conversions_match_the_model");
    let words: Vec<u16> = (0..=u16::MAX).collect();
    for f in [E4M3, E5M2] {
        let e4 = f.name == "e4m3";
        // Decode: every pair of codes.
        let got = if e4 {
            map1::<E4m3x2, B32>(&gpu, &words, |k, x| ptx!(k, "cvt.rn.f16x2.e4m3x2", x).bitcast())
        } else {
            map1::<E5m2x2, B32>(&gpu, &words, |k, x| ptx!(k, "cvt.rn.f16x2.e5m2x2", x).bitcast())
        };
        let model = |i: usize| (f.decode((words[i] >> 8) as u8), f.decode(words[i] as u8));
        expect_all(
            &format!("cvt.rn.f16x2.{}x2", f.name),
            |i| words[i],
            &got,
            |i, v| same_f16x2(v, model(i)),
            |i| format!("{:?}", model(i)),
        );

        // Encode f32 pairs: each probe against a shuffled partner.
        let a = probes(&f, &mut g);
        let mut b = a.clone();
        for i in (1..b.len()).rev() {
            b.swap(i, g.gen_range(0..=i));
        }
        for relu in [false, true] {
            let got = match (e4, relu) {
                (true, false) => map2::<F32, F32, E4m3x2>(&gpu, &a, &b, |k, x, y| ptx!(k, "cvt.rn.satfinite.e4m3x2.f32", x, y)),
                (true, true) => map2::<F32, F32, E4m3x2>(&gpu, &a, &b, |k, x, y| ptx!(k, "cvt.rn.satfinite.relu.e4m3x2.f32", x, y)),
                (false, false) => map2::<F32, F32, E5m2x2>(&gpu, &a, &b, |k, x, y| ptx!(k, "cvt.rn.satfinite.e5m2x2.f32", x, y)),
                (false, true) => map2::<F32, F32, E5m2x2>(&gpu, &a, &b, |k, x, y| ptx!(k, "cvt.rn.satfinite.relu.e5m2x2.f32", x, y)),
            };
            let enc = |x: f32| if relu { relu_encode(&f, x) } else { f.encode(x) };
            let want = |i: usize| pack(&f, enc(a[i]), enc(b[i]));
            let what = format!("cvt.rn.satfinite{}.{}x2.f32", if relu { ".relu" } else { "" }, f.name);
            expect_all(&what, |i| (a[i], b[i]), &got, |i, v| v == want(i), |i| format!("{:#06x}", want(i)));
        }

        // Encode f16x2: every f16 in the upper half against a spread partner in the lower.
        let pairs: Vec<[f16; 2]> = (0..=u16::MAX).map(|h| [f16::from_bits(h.wrapping_mul(40503)), f16::from_bits(h)]).collect();
        let got = if e4 {
            map1::<F16x2, E4m3x2>(&gpu, &pairs, |k, x| ptx!(k, "cvt.rn.satfinite.e4m3x2.f16x2", x))
        } else {
            map1::<F16x2, E5m2x2>(&gpu, &pairs, |k, x| ptx!(k, "cvt.rn.satfinite.e5m2x2.f16x2", x))
        };
        // The host array's element 1 is the upper half of the register.
        let want = |i: usize| pack(&f, f.encode(pairs[i][1].to_f32()), f.encode(pairs[i][0].to_f32()));
        expect_all(
            &format!("cvt.rn.satfinite.{}x2.f16x2", f.name),
            |i| pairs[i],
            &got,
            |i, v| v == want(i),
            |i| format!("{:#06x}", want(i)),
        );
    }
}

/// FP6, FP4 (in an 8-bit register) and ue8m0, on sm_100a and newer.
fn fp6_fp4_ue8m0_conversions_match_the_model(gpu: Gpu) {
    let test = "fp6_fp4_ue8m0_conversions_match_the_model";
    let cc = gpu.compute_capability();
    // The architecture-specific target of this GPU (sm_100a, sm_120a, ...).
    let Some(t) = Target::parse(&format!("sm_{}{}a", cc.0, cc.1)).filter(|_| cc.0 >= 10) else {
        skip(format!("FP6/FP4/ue8m0 conversions need sm_100a or newer, the GPU is {cc:?}"));
    };
    let mut g = rng(test);
    let words: Vec<u16> = (0..=u16::MAX).collect();
    for f in [E2M3, E3M2] {
        let got = if f.name == "e2m3" {
            map2_on::<E2m3x2, E2m3x2, B32>(&gpu, t, &words, &words, |k, x, _| ptx!(k, "cvt.rn.f16x2.e2m3x2", x).bitcast())
        } else {
            map2_on::<E3m2x2, E3m2x2, B32>(&gpu, t, &words, &words, |k, x, _| ptx!(k, "cvt.rn.f16x2.e3m2x2", x).bitcast())
        };
        // Each 6-bit code sits in the low bits of its byte.
        let model = |i: usize| (f.decode((words[i] >> 8) as u8), f.decode(words[i] as u8));
        expect_all(
            &format!("cvt.rn.f16x2.{}x2", f.name),
            |i| words[i],
            &got,
            |i, v| same_f16x2(v, model(i)),
            |i| format!("{:?}", model(i)),
        );
        let a: Vec<f32> = probes(&f, &mut g).into_iter().filter(|x| !x.is_nan()).collect();
        let b: Vec<f32> = a.iter().rev().copied().collect();
        let got = if f.name == "e2m3" {
            map2_on::<F32, F32, E2m3x2>(&gpu, t, &a, &b, |k, x, y| ptx!(k, "cvt.rn.satfinite.e2m3x2.f32", x, y))
        } else {
            map2_on::<F32, F32, E3m2x2>(&gpu, t, &a, &b, |k, x, y| ptx!(k, "cvt.rn.satfinite.e3m2x2.f32", x, y))
        };
        let want = |i: usize| ((f.encode(a[i]) as u16) << 8) | f.encode(b[i]) as u16;
        expect_all(
            &format!("cvt.rn.satfinite.{}x2.f32", f.name),
            |i| (a[i], b[i]),
            &got,
            |i, v| v == want(i),
            |i| format!("{:#06x}", want(i)),
        );
    }

    // e2m1x2: one byte, two 4-bit codes, through an 8-bit register both ways.
    let bytes: Vec<u8> = (0..=u8::MAX).collect();
    let got = map2_on::<E2m1x2, E2m1x2, B32>(&gpu, t, &bytes, &bytes, |k, x, _| ptx!(k, "cvt.rn.f16x2.e2m1x2", x).bitcast());
    let model = |i: usize| (E2M1.decode(bytes[i] >> 4), E2M1.decode(bytes[i] & 15));
    expect_all("cvt.rn.f16x2.e2m1x2", |i| bytes[i], &got, |i, v| same_f16x2(v, model(i)), |i| format!("{:?}", model(i)));
    let a: Vec<f32> = probes(&E2M1, &mut g).into_iter().filter(|x| !x.is_nan()).collect();
    let b: Vec<f32> = a.iter().rev().copied().collect();
    let got = map2_on::<F32, F32, E2m1x2>(&gpu, t, &a, &b, |k, x, y| ptx!(k, "cvt.rn.satfinite.e2m1x2.f32", x, y));
    let want = |i: usize| (E2M1.encode(a[i]) << 4) | E2M1.encode(b[i]);
    expect_all("cvt.rn.satfinite.e2m1x2.f32", |i| (a[i], b[i]), &got, |i, v| v == want(i), |i| format!("{:#04x}", want(i)));

    // ue8m0x2 to bf16x2: every pair of codes (powers of two, 0xFF NaN).
    let got = map2_on::<Ue8m0x2, Ue8m0x2, B32>(&gpu, t, &words, &words, |k, x, _| ptx!(k, "cvt.rn.bf16x2.ue8m0x2", x).bitcast());
    let bf = |bits: u16, w: f32| {
        let h = half::bf16::from_bits(bits);
        (h.is_nan() && w.is_nan()) || h.to_bits() == half::bf16::from_f32(w).to_bits()
    };
    let model = |i: usize| (UE8M0.decode((words[i] >> 8) as u8), UE8M0.decode(words[i] as u8));
    expect_all(
        "cvt.rn.bf16x2.ue8m0x2",
        |i| words[i],
        &got,
        |i, v| bf((v >> 16) as u16, model(i).0) && bf(v as u16, model(i).1),
        |i| format!("{:?}", model(i)),
    );
}

pub const TESTS: &[Test] = &[gpu!(fp8_conversions_match_the_model), gpu!(fp6_fp4_ue8m0_conversions_match_the_model)];
