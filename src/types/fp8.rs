//! Host encoding of FP8 values: what the FP8 data of a kernel holds, byte by byte.
//!
//! e4m3 (`.e4m3` in PTX, E4M3FN elsewhere): 1 sign, 4 exponent (bias 7) and 3 mantissa
//! bits; no infinities, the codes `0x7F`/`0xFF` are NaN, the largest finite value is 448,
//! and subnormals step by 2⁻⁹.
//!
//! ```
//! use ptxkit::types::fp8::{e4m3_from_f32, e4m3_to_f32};
//! assert_eq!(e4m3_to_f32(e4m3_from_f32(1.0)), 1.0);
//! assert_eq!(e4m3_to_f32(e4m3_from_f32(0.3)), 0.3125); // the nearest of 0.28125, 0.3125
//! assert_eq!(e4m3_to_f32(e4m3_from_f32(1e6)), 448.0); // saturates
//! assert!(e4m3_to_f32(0x7F).is_nan());
//! ```

/// The value of the e4m3 code `b`.
pub fn e4m3_to_f32(b: u8) -> f32 {
    let sign = if b & 0x80 != 0 { -1.0 } else { 1.0 };
    let (e, m) = (((b >> 3) & 15) as i32, (b & 7) as f32);
    match e {
        15 if m == 7.0 => f32::NAN,
        0 => sign * m * 2f32.powi(-9),
        _ => sign * (1.0 + m / 8.0) * 2f32.powi(e - 7),
    }
}

/// The e4m3 code nearest to `x` (ties to the even code), saturated to ±448; NaN gives
/// `0x7F`. This is what `cvt.rn.satfinite.e4m3x2.f32` does to each element.
pub fn e4m3_from_f32(x: f32) -> u8 {
    if x.is_nan() {
        return 0x7F;
    }
    let sign = if x.is_sign_negative() { 0x80 } else { 0 };
    let a = x.abs();
    if a >= 448.0 {
        return sign | 0x7E;
    }
    // The magnitudes are monotonic in the code: find the nearest of the two neighbours.
    let (mut lo, mut hi) = (0u8, 0x7Eu8);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if e4m3_to_f32(mid) <= a {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let (dl, dh) = (a - e4m3_to_f32(lo), e4m3_to_f32(hi) - a);
    let code = if dl < dh || (dl == dh && lo % 2 == 0) { lo } else { hi };
    sign | code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_finite_code_round_trips_and_neighbours_round_to_nearest() {
        let mut finite = 0;
        for b in 0..=255u8 {
            let v = e4m3_to_f32(b);
            if v.is_nan() {
                assert!(b & 0x7F == 0x7F, "{b:#x}");
                continue;
            }
            finite += 1;
            // -0 and +0 are both zero; every other code is its own value's encoding.
            if b != 0x80 {
                assert_eq!(e4m3_from_f32(v), b, "{b:#x} = {v}");
            }
        }
        assert_eq!(finite, 254);
        // Between 1 (0x38) and 1.125 (0x39): below the midpoint, above it, and the tie goes
        // to the even code.
        assert_eq!(e4m3_from_f32(1.06), 0x38);
        assert_eq!(e4m3_from_f32(1.07), 0x39);
        assert_eq!(e4m3_from_f32(1.0625), 0x38);
        assert_eq!(e4m3_from_f32(1.1875), 0x3A);
        // The smallest subnormal, and half of it (a tie with zero, which is even).
        assert_eq!(e4m3_to_f32(1), 2f32.powi(-9));
        assert_eq!(e4m3_from_f32(2f32.powi(-10)), 0);
        assert_eq!(e4m3_from_f32(-500.0), 0xFE);
        assert_eq!(e4m3_to_f32(0x7E), 448.0);
    }
}
