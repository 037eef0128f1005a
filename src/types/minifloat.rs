//! Host encoding of the narrow float formats that FP8, FP6 and FP4 data hold, code by code:
//! what a kernel's `.e4m3x2`, `.e5m2x2`, `.e2m3x2`, `.e3m2x2`, `.e2m1x2` and `.ue8m0x2`
//! operands pack, two or four to a register.
//!
//! | format | exponent, mantissa bits | bias | largest finite | infinities, NaN |
//! |---|---|---|---|---|
//! | [`E4M3`] | 4, 3 | 7 | 448 | none; `S.1111.111` is NaN |
//! | [`E5M2`] | 5, 2 | 15 | 57344 | `S.11111.00` is ∞, other `S.11111.xx` NaN |
//! | [`E3M2`] | 3, 2 | 3 | 28 | none |
//! | [`E2M3`] | 2, 3 | 1 | 7.5 | none |
//! | [`E2M1`] | 2, 1 | 1 | 6 | none |
//! | [`UE8M0`] | 8, 0, unsigned | 127 | 2¹²⁷ | `0xFF` is NaN |
//!
//! [`Format::encode`] is the conversion `cvt.rn.satfinite` performs on each element: the
//! nearest code, ties to the even code, magnitudes beyond the largest finite value clamped
//! to it, NaN to the format's NaN where it has one.
//!
//! ```
//! use ptxkit::types::minifloat::{e4m3_from_f32, e4m3_to_f32, E2M1, E5M2};
//! assert_eq!(e4m3_to_f32(e4m3_from_f32(1.0)), 1.0);
//! assert_eq!(e4m3_to_f32(e4m3_from_f32(0.3)), 0.3125); // the nearest of 0.28125, 0.3125
//! assert_eq!(e4m3_to_f32(e4m3_from_f32(1e6)), 448.0); // saturates
//! assert!(e4m3_to_f32(0x7F).is_nan());
//! assert_eq!(E5M2.decode(0x7C), f32::INFINITY);
//! assert_eq!(E2M1.decode(E2M1.encode(2.6)), 3.0);
//! ```

/// A narrow float format: its field widths and special codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// Name as PTX spells the element type.
    pub name: &'static str,
    /// Whether there is a sign bit.
    pub signed: bool,
    /// Exponent and mantissa bits.
    pub exp: u32,
    pub man: u32,
    /// Exponent bias.
    pub bias: i32,
    /// Infinities and NaN as IEEE codes them (all-ones exponent).
    pub ieee: bool,
    /// `S.1..1.1..1` is NaN (with no infinities): e4m3.
    pub nan_all_ones: bool,
}

/// FP8 e4m3 (E4M3FN).
pub const E4M3: Format = Format { name: "e4m3", signed: true, exp: 4, man: 3, bias: 7, ieee: false, nan_all_ones: true };
/// FP8 e5m2.
pub const E5M2: Format = Format { name: "e5m2", signed: true, exp: 5, man: 2, bias: 15, ieee: true, nan_all_ones: false };
/// FP6 e3m2.
pub const E3M2: Format = Format { name: "e3m2", signed: true, exp: 3, man: 2, bias: 3, ieee: false, nan_all_ones: false };
/// FP6 e2m3.
pub const E2M3: Format = Format { name: "e2m3", signed: true, exp: 2, man: 3, bias: 1, ieee: false, nan_all_ones: false };
/// FP4 e2m1.
pub const E2M1: Format = Format { name: "e2m1", signed: true, exp: 2, man: 1, bias: 1, ieee: false, nan_all_ones: false };
/// The block scale ue8m0: an unsigned power of two, `0xFF` NaN.
pub const UE8M0: Format = Format { name: "ue8m0", signed: false, exp: 8, man: 0, bias: 127, ieee: false, nan_all_ones: true };

impl Format {
    /// Bits per code.
    pub const fn bits(&self) -> u32 {
        self.signed as u32 + self.exp + self.man
    }

    /// Number of codes (`2^bits`).
    pub const fn codes(&self) -> u32 {
        1 << self.bits()
    }

    /// The value of `code` (its low [`bits`](Self::bits) bits).
    pub fn decode(&self, code: u8) -> f32 {
        let code = code as u32 & (self.codes() - 1);
        let sign: f64 = if self.signed && code >> (self.exp + self.man) & 1 == 1 { -1.0 } else { 1.0 };
        let e = (code >> self.man) & ((1 << self.exp) - 1);
        let m = code & ((1 << self.man) - 1);
        let e_max = (1 << self.exp) - 1;
        if self.ieee && e == e_max {
            return if m == 0 { (sign * f64::INFINITY) as f32 } else { f32::NAN };
        }
        if self.nan_all_ones && e == e_max && m == (1 << self.man) - 1 {
            return f32::NAN;
        }
        let frac = m as f64 / (1u64 << self.man) as f64;
        let v = if e == 0 && self.man > 0 { frac * 2f64.powi(1 - self.bias) } else { (1.0 + frac) * 2f64.powi(e as i32 - self.bias) };
        (sign * v) as f32
    }

    /// The largest finite value.
    pub fn max_finite(&self) -> f32 {
        (0..self.codes()).map(|c| self.decode(c as u8)).filter(|v| v.is_finite()).fold(0.0, f32::max)
    }

    /// The code `cvt.rn.satfinite` gives `x`: the nearest finite value, ties to the even
    /// code; beyond the largest finite value, that value with `x`'s sign; NaN gives the
    /// format's NaN (`0x7F` for e4m3 and e5m2, `0xFF` for ue8m0), or `None` for the formats
    /// that have no NaN (FP6, FP4), whose result PTX leaves to the hardware. Negative values
    /// of the unsigned ue8m0 clamp to its smallest code (PTX converts to ue8m0 with `.rz`
    /// or `.rp` only, not to nearest).
    pub fn encode_checked(&self, x: f32) -> Option<u8> {
        self.table().encode_checked(x)
    }

    /// [`encode_checked`](Self::encode_checked), with NaN of a format without NaN giving
    /// code 0.
    pub fn encode(&self, x: f32) -> u8 {
        self.encode_checked(x).unwrap_or(0)
    }

    /// Every code's value, for converting many values: [`Table::encode_checked`] and
    /// [`Table::decode`] give what [`Format::encode_checked`] and [`Format::decode`] give,
    /// without recomputing the format's values at each call.
    pub fn table(&self) -> Table {
        let mut values = [0.0; 256];
        for (c, v) in values.iter_mut().enumerate().take(self.codes() as usize) {
            *v = self.decode(c as u8);
        }
        // The non-negative codes rise in value from 0; `top` is the largest finite one.
        let positive = if self.signed { 1u32 << (self.exp + self.man) } else { self.codes() };
        let top = (0..positive).filter(|&c| values[c as usize].is_finite()).max().unwrap_or(0);
        Table { format: *self, values, top }
    }
}

/// A [`Format`] with every code's value computed once ([`Format::table`]).
#[derive(Clone, Debug)]
pub struct Table {
    format: Format,
    values: [f32; 256],
    top: u32,
}

impl Table {
    /// The value of `code` (its low bits, as [`Format::decode`]).
    pub fn decode(&self, code: u8) -> f32 {
        self.values[(code as u32 & (self.format.codes() - 1)) as usize]
    }

    /// The code `cvt.rn.satfinite` gives `x`, as [`Format::encode_checked`].
    pub fn encode_checked(&self, x: f32) -> Option<u8> {
        let f = &self.format;
        if x.is_nan() {
            return match (f.ieee, f.nan_all_ones) {
                (true, _) => Some(0x7F),
                (false, true) => Some((f.codes() - 1) as u8 & if f.signed { 0x7F } else { 0xFF }),
                _ => None,
            };
        }
        let sign_bit = if f.signed { 1u32 << (f.exp + f.man) } else { 0 };
        let sign = if f.signed && x.is_sign_negative() { sign_bit } else { 0 };
        let a = if f.signed { x.abs() } else { x.max(0.0) };
        let value = |c: u32| self.values[c as usize];
        if a >= value(self.top) {
            return Some((sign | self.top) as u8);
        }
        let (mut lo, mut hi) = (0u32, self.top);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if value(mid) <= a {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let (dl, dh) = (a - value(lo), value(hi) - a);
        let code = if dl < dh || (dl == dh && lo % 2 == 0) { lo } else { hi };
        Some((sign | code) as u8)
    }

    /// [`encode_checked`](Self::encode_checked), with NaN of a format without NaN giving
    /// code 0, as [`Format::encode`].
    pub fn encode(&self, x: f32) -> u8 {
        self.encode_checked(x).unwrap_or(0)
    }
}

/// The e4m3 table, computed once.
fn e4m3() -> &'static Table {
    static T: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    T.get_or_init(|| E4M3.table())
}

/// The value of the e4m3 code `b`.
pub fn e4m3_to_f32(b: u8) -> f32 {
    e4m3().decode(b)
}

/// The e4m3 code nearest to `x` (ties to the even code), saturated to ±448; NaN gives
/// `0x7F`. This is what `cvt.rn.satfinite.e4m3x2.f32` does to each element.
pub fn e4m3_from_f32(x: f32) -> u8 {
    e4m3().encode(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every finite code decodes to a value that encodes back to it, and the values rise
    /// with the code.
    #[test]
    fn every_code_round_trips() {
        for f in [E4M3, E5M2, E3M2, E2M3, E2M1, UE8M0] {
            let mut finite = 0;
            let mut last = f32::NEG_INFINITY;
            let half = if f.signed { f.codes() / 2 } else { f.codes() };
            for c in 0..f.codes() {
                let v = f.decode(c as u8);
                if !v.is_finite() {
                    continue;
                }
                finite += 1;
                if c < half {
                    assert!(v > last || (c == 0 && v == 0.0), "{}: {c:#x} = {v} after {last}", f.name);
                    last = v;
                }
                // -0 encodes as +0.
                if !(v == 0.0 && c != 0) {
                    assert_eq!(f.encode(v), c as u8, "{}: {c:#x} = {v}", f.name);
                }
            }
            let want = match f.name {
                "e4m3" => 254,
                "e5m2" => 248,
                "ue8m0" => 255,
                _ => f.codes(),
            };
            assert_eq!(finite, want, "{}", f.name);
        }
    }

    /// Values worked out by hand from the formats' definitions.
    #[test]
    fn known_values() {
        assert_eq!(
            (E4M3.max_finite(), E5M2.max_finite(), E3M2.max_finite(), E2M3.max_finite(), E2M1.max_finite()),
            (448.0, 57344.0, 28.0, 7.5, 6.0)
        );
        let e2m1: Vec<f32> = (0..8).map(|c| E2M1.decode(c)).collect();
        assert_eq!(e2m1, [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]);
        assert_eq!(E2M1.decode(0xF), -6.0);
        // Smallest subnormals.
        assert_eq!((E4M3.decode(1), E5M2.decode(1), E3M2.decode(1), E2M3.decode(1)), (2f32.powi(-9), 2f32.powi(-16), 0.0625, 0.125));
        assert_eq!((UE8M0.decode(127), UE8M0.decode(0), UE8M0.decode(254)), (1.0, 2f32.powi(-127), 2f32.powi(127)));
        assert!(UE8M0.decode(0xFF).is_nan() && E5M2.decode(0x7D).is_nan() && E4M3.decode(0xFF).is_nan());
        // Ties to even: 1.0625 lies between e4m3 1 (0x38) and 1.125 (0x39).
        assert_eq!((E4M3.encode(1.06), E4M3.encode(1.07), E4M3.encode(1.0625), E4M3.encode(1.1875)), (0x38, 0x39, 0x38, 0x3A));
        // e2m1: 2.5 ties between 2 (0x4) and 3 (0x5) to the even code; 5 between 4 and 6.
        assert_eq!((E2M1.encode(2.5), E2M1.encode(2.6), E2M1.encode(5.0), E2M1.encode(-0.25)), (0x4, 0x5, 0x6, 0x8));
        // Saturation, infinities included, and NaN.
        assert_eq!((E4M3.encode(-500.0), E5M2.encode(f32::INFINITY), E2M1.encode(100.0)), (0xFE, 0x7B, 0x7));
        assert_eq!((E4M3.encode(f32::NAN), E5M2.encode(f32::NAN), E2M1.encode_checked(f32::NAN)), (0x7F, 0x7F, None));
        assert_eq!(UE8M0.encode(f32::NAN), 0xFF);
    }
}
