//! CPU references: correctly rounded f32/f64 results under each PTX rounding mode, and
//! random inputs that exercise rounding without overflow or subnormals.

use crate::Test;
use rand::Rng;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    Rn,
    Rz,
    Rm,
    Rp,
}
pub const MODES: [Mode; 4] = [Mode::Rn, Mode::Rz, Mode::Rm, Mode::Rp];

fn next_up32(x: f32) -> f32 {
    if x == 0.0 {
        return f32::from_bits(1);
    }
    let b = x.to_bits();
    f32::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}
fn next_down32(x: f32) -> f32 {
    -next_up32(-x)
}

/// `hi + lo` exactly (TwoSum).
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// The f32 nearest in `mode` to the exact value `hi + lo` (|lo| <= ulp(hi)/2).
pub fn round32(hi: f64, lo: f64, mode: Mode) -> f32 {
    let c = hi as f32;
    let s = ((c as f64 - hi) - lo).partial_cmp(&0.0).expect("finite");
    let (down, up) = match s {
        std::cmp::Ordering::Equal => return c,
        std::cmp::Ordering::Greater => (next_down32(c), c),
        std::cmp::Ordering::Less => (c, next_up32(c)),
    };
    let positive = hi > 0.0 || (hi == 0.0 && lo > 0.0);
    match mode {
        Mode::Rm => down,
        Mode::Rp => up,
        Mode::Rz => {
            if positive {
                down
            } else {
                up
            }
        }
        Mode::Rn => {
            let mid = (down as f64 + up as f64) / 2.0;
            match ((hi - mid) + lo).partial_cmp(&0.0).expect("finite") {
                std::cmp::Ordering::Greater => up,
                std::cmp::Ordering::Less => down,
                std::cmp::Ordering::Equal => {
                    if down.to_bits() & 1 == 0 {
                        down
                    } else {
                        up
                    }
                }
            }
        }
    }
}

pub fn add32(a: f32, b: f32, m: Mode) -> f32 {
    let (h, l) = two_sum(a as f64, b as f64);
    round32(h, l, m)
}
pub fn mul32(a: f32, b: f32, m: Mode) -> f32 {
    round32(a as f64 * b as f64, 0.0, m)
}
pub fn fma32(a: f32, b: f32, c: f32, m: Mode) -> f32 {
    let (h, l) = two_sum(a as f64 * b as f64, c as f64);
    round32(h, l, m)
}

/// The f64 in `mode` given the round-to-nearest result `r` and the sign of `exact - r`.
fn direct64(r: f64, err: f64, m: Mode) -> f64 {
    if err == 0.0 || m == Mode::Rn {
        return r;
    }
    let up = || {
        if r == 0.0 {
            f64::from_bits(1)
        } else if r > 0.0 {
            f64::from_bits(r.to_bits() + 1)
        } else {
            f64::from_bits(r.to_bits() - 1)
        }
    };
    let down = || {
        -(if -r == 0.0 {
            f64::from_bits(1)
        } else if -r > 0.0 {
            f64::from_bits((-r).to_bits() + 1)
        } else {
            f64::from_bits((-r).to_bits() - 1)
        })
    };
    match m {
        Mode::Rp if err > 0.0 => up(),
        Mode::Rm if err < 0.0 => down(),
        Mode::Rz if err < 0.0 && r > 0.0 => down(),
        Mode::Rz if err > 0.0 && r < 0.0 => up(),
        _ => r,
    }
}
pub fn add64(a: f64, b: f64, m: Mode) -> f64 {
    let (s, e) = two_sum(a, b);
    direct64(s, e, m)
}
pub fn mul64(a: f64, b: f64, m: Mode) -> f64 {
    let p = a * b;
    direct64(p, a.mul_add(b, -p), m)
}

/// `x` rounded under `mode` to a 16-bit float format (`f16` or `bf16`, both exactly
/// representable in f64): `to_bits`/`from_bits` its encoding, `near` a conversion from f64
/// that lands on one of the two neighbours of `x` (the `half` crate's goes through f32, so
/// it may round twice: it only seeds the search). `x` finite and in range.
pub fn round16<T: Copy>(x: f64, mode: Mode, near: fn(f64) -> T, to_f64: fn(T) -> f64, to_bits: fn(T) -> u16, from_bits: fn(u16) -> T) -> T {
    // One step up or down in value (the encoding is sign and magnitude).
    let up = |t: T| if to_f64(t) >= 0.0 { from_bits(to_bits(t) + 1) } else { from_bits(to_bits(t) - 1) };
    let down = |t: T| if to_f64(t) > 0.0 { from_bits(to_bits(t) - 1) } else { from_bits(to_bits(t) + 1) };
    let r = near(x);
    let floor = if to_f64(r) > x { down(r) } else { r };
    let ceil = if to_f64(floor) < x { up(floor) } else { floor };
    match mode {
        Mode::Rn => {
            // The two are within a few units of each other: the differences are exact.
            let (below, above) = (x - to_f64(floor), to_f64(ceil) - x);
            if below < above || below == above && to_bits(floor) % 2 == 0 {
                floor
            } else {
                ceil
            }
        }
        Mode::Rz if x >= 0.0 => floor,
        Mode::Rz => ceil,
        Mode::Rm => floor,
        Mode::Rp => ceil,
    }
}

/// `x` rounded to bf16 under `mode`.
pub fn bf16_of(x: f64, mode: Mode) -> half::bf16 {
    round16(x, mode, half::bf16::from_f64, half::bf16::to_f64, half::bf16::to_bits, half::bf16::from_bits)
}

/// `x` rounded to f16 under `mode`.
pub fn f16_of(x: f64, mode: Mode) -> half::f16 {
    round16(x, mode, half::f16::from_f64, half::f16::to_f64, half::f16::to_bits, half::f16::from_bits)
}

/// A random finite f32 with a random exponent in [-e, e], never subnormal.
pub fn f32_in(r: &mut impl Rng, e: i32) -> f32 {
    let m: f32 = r.gen_range(1.0..2.0);
    let x = m * 2f32.powi(r.gen_range(-e..=e));
    if r.gen_bool(0.5) {
        -x
    } else {
        x
    }
}
pub fn f64_in(r: &mut impl Rng, e: i32) -> f64 {
    let m: f64 = r.gen_range(1.0..2.0);
    let x = m * 2f64.powi(r.gen_range(-e..=e));
    if r.gen_bool(0.5) {
        -x
    } else {
        x
    }
}

fn rounding_reference_is_sane() {
    // 1 + 2^-30 is not an f32: it rounds to 1 except upward.
    let t = 2f64.powi(-30);
    assert_eq!(round32(1.0, t, Mode::Rn), 1.0);
    assert_eq!(round32(1.0, t, Mode::Rz), 1.0);
    assert_eq!(round32(1.0, t, Mode::Rm), 1.0);
    assert_eq!(round32(1.0, t, Mode::Rp), next_up32(1.0));
    assert_eq!(round32(-1.0, -t, Mode::Rm), -next_up32(1.0));
    assert_eq!(round32(-1.0, -t, Mode::Rz), -1.0);
    // A tie rounds to even.
    let half_ulp = 2f64.powi(-24);
    assert_eq!(round32(1.0 + half_ulp, 0.0, Mode::Rn), 1.0);
    assert_eq!(round32(1.0 + 3.0 * half_ulp, 0.0, Mode::Rn), 1.0 + 4.0 * half_ulp as f32);
    assert_eq!(add64(1.0, 2f64.powi(-60), Mode::Rp), f64::from_bits(1f64.to_bits() + 1));
    assert_eq!(add64(1.0, -2f64.powi(-60), Mode::Rz), f64::from_bits(1f64.to_bits() - 1));
    assert_eq!(mul64(3.0, 1.0 / 3.0, Mode::Rn), 3.0 * (1.0 / 3.0));
}

pub const TESTS: &[Test] = &[host!(rounding_reference_is_sane)];
