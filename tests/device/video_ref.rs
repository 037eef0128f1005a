//! CPU models of the video instructions, written from the PTX ISA 9.0 pages (vadd, vshl,
//! vmad, vset, vadd2, vadd4, vset2, vset4 and the "Scalar Video Instructions" section's
//! `optSaturate`, `optSecOp` and `optMerge`). A form is read from its chain and variant,
//! with the selectors its operands took; where the device departs from the pages, the model
//! follows the device and says so ([`Quirks`]).

use ptxkit::core::Sel;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    fn of(s: &str) -> Option<Cmp> {
        Some(match s {
            "eq" => Cmp::Eq,
            "ne" => Cmp::Ne,
            "lt" => Cmp::Lt,
            "le" => Cmp::Le,
            "gt" => Cmp::Gt,
            "ge" => Cmp::Ge,
            _ => return None,
        })
    }
    fn test(self, a: i64, b: i64) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    Add,
    Sub,
    Absdiff,
    Min,
    Max,
    Avrg,
    Shl,
    Shr,
    Mad,
    Set(Cmp),
}

/// The secondary operation of a scalar form, or `.add` accumulation of a SIMD one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op2 {
    None,
    Add,
    Min,
    Max,
}

/// One form with the selectors its operands took.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub op: Op,
    /// 1 (scalar), 2 or 4 lanes.
    pub lanes: u32,
    pub d_signed: bool,
    pub a_signed: bool,
    pub b_signed: bool,
    pub sat: bool,
    pub op2: Op2,
    /// Shifts: `.clamp` (true) or `.wrap`.
    pub clamp: bool,
    /// vmad: `.po`, the right shift of `.shr7`/`.shr15`, and which operand is negated.
    pub po: bool,
    pub shr: u32,
    pub neg: [bool; 3],
    /// The destination's selector or mask (`Sel::NONE`: the whole register, or every lane).
    pub dsel: Sel,
    pub asel: Sel,
    pub bsel: Sel,
}

impl Spec {
    /// Reads a video form's chain and variant.
    pub fn parse(chain: &str, variant: &str, dsel: Sel, asel: Sel, bsel: Sel) -> Spec {
        let parts: Vec<&str> = chain.split('.').collect();
        let (name, rest) = (parts[0], &parts[1..]);
        let lanes = match name.chars().last() {
            Some('2') => 2,
            Some('4') => 4,
            _ => 1,
        };
        let base = name.trim_end_matches(['2', '4']);
        let cmp = rest.iter().find_map(|p| Cmp::of(p));
        let op = match base {
            "vadd" => Op::Add,
            "vsub" => Op::Sub,
            "vabsdiff" => Op::Absdiff,
            "vmin" => Op::Min,
            "vmax" => Op::Max,
            "vavrg" => Op::Avrg,
            "vshl" => Op::Shl,
            "vshr" => Op::Shr,
            "vmad" => Op::Mad,
            "vset" => Op::Set(cmp.expect("vset has a comparison")),
            o => panic!("not a video opcode: {o}"),
        };
        let types: Vec<bool> = rest.iter().filter(|p| **p == "u32" || **p == "s32").map(|p| *p == "s32").collect();
        // vset names no destination type: its result is unsigned.
        let (d, a, b) = if matches!(op, Op::Set(_)) { (false, types[0], types[1]) } else { (types[0], types[1], types[2]) };
        let has = |t: &str| rest.contains(&t);
        let op2 = if has("add") {
            Op2::Add
        } else if has("min") {
            Op2::Min
        } else if has("max") {
            Op2::Max
        } else {
            Op2::None
        };
        let neg = [variant == "neg_a", variant == "neg_b", variant == "neg_c"];
        let shr = if has("shr7") {
            7
        } else if has("shr15") {
            15
        } else {
            0
        };
        Spec {
            op,
            lanes,
            d_signed: d,
            a_signed: a,
            b_signed: b,
            sat: has("sat"),
            op2,
            clamp: has("clamp"),
            po: has("po"),
            shr,
            neg,
            dsel,
            asel,
            bsel,
        }
    }

    /// The model's result for inputs `a`, `b`, `c`.
    pub fn eval(&self, a: u32, b: u32, c: u32) -> u32 {
        match (self.lanes, self.op) {
            (1, Op::Mad) => self.vmad(a, b, c),
            (1, _) => self.scalar(a, b, c),
            _ => self.simd(a, b, c),
        }
    }

    /// `partSelectSignExtend`: the selected byte, half-word or word, sign- or zero-extended.
    fn part(x: u32, signed: bool, sel: Sel) -> i64 {
        let (bits, lane) = match sel.lanes() {
            [] => (32, 0),
            [l] if sel.is_half() => (16, *l as u32),
            [l] => (8, *l as u32),
            _ => panic!("a scalar selector has one lane"),
        };
        let v = (x as u64 >> (bits * lane)) & ((1u64 << bits) - 1);
        if signed && v >> (bits - 1) & 1 == 1 {
            v as i64 - (1i64 << bits)
        } else {
            v as i64
        }
    }

    /// The scalar forms but vmad: the primary operation on the selected parts, then
    /// saturation, the secondary operation or the merge, as the ISA's pseudocode has them,
    /// with the departures of [`Quirks`].
    fn scalar(&self, a: u32, b: u32, c: u32) -> u32 {
        let ta = Self::part(a, self.a_signed, self.asel) as i128;
        let shift = matches!(self.op, Op::Shl | Op::Shr);
        let tmp = if shift {
            let tb = Self::part(b, false, self.bsel) as u32;
            let n = if self.clamp { tb.min(32) } else { tb & 0x1f };
            if self.op == Op::Shl {
                ta << n
            } else {
                ta >> n
            }
        } else {
            let tb = Self::part(b, self.b_signed, self.bsel) as i128;
            match self.op {
                Op::Add => ta + tb,
                Op::Sub => ta - tb,
                Op::Absdiff => (ta - tb).abs(),
                Op::Min => ta.min(tb),
                Op::Max => ta.max(tb),
                Op::Set(cmp) => cmp.test(ta as i64, tb as i64) as i128,
                _ => unreachable!(),
            }
        };
        let ds = self.d_signed;
        // Shifts saturate to the destination type's word range, merged or not.
        let tmp = if self.sat && shift { Quirks::shift_saturate(tmp, ds) } else { tmp };
        if !self.dsel.is_none() {
            let t = if self.sat && !shift { Quirks::merge_saturate(tmp, ds, self.dsel) } else { tmp };
            return Quirks::merge(self.dsel, t as u32, c);
        }
        let t = match (self.sat && !shift, ds) {
            (true, true) => tmp.clamp(i32::MIN as i128, i32::MAX as i128),
            (true, false) => Quirks::word_saturate_unsigned(tmp),
            _ => tmp,
        };
        let t = Quirks::secondary_operand(self.op, self.sat, t);
        // vset's comparison with c is signed where a is (its d and c are unsigned on the page).
        let signed = if let Op::Set(_) = self.op { self.a_signed } else { ds };
        let d = match (self.op2, signed) {
            (Op2::None, _) => t,
            (Op2::Add, _) => t + if ds { c as i32 as i128 } else { c as i128 },
            (Op2::Min, true) => t.min(c as i32 as i128),
            (Op2::Max, true) => t.max(c as i32 as i128),
            // Unsigned: the intermediate result's 64 bits against c, unsigned.
            (Op2::Min, false) => (t as u64).min(c as u64) as i128,
            (Op2::Max, false) => (t as u64).max(c as u64) as i128,
        };
        d as u32
    }

    /// vmad: `(a*b) + c` with the page's negations, `.po`, scaling and saturation, in the
    /// 64 bits ptxas computes it in ([`Quirks::vmad_operands`]).
    fn vmad(&self, a: u32, b: u32, c: u32) -> u32 {
        let [na, nb, nc] = self.neg;
        let signed = self.a_signed || self.b_signed || (na ^ nb) || nc;
        let (ta, tb) = Quirks::vmad_operands(Self::part(a, self.a_signed, self.asel), Self::part(b, self.b_signed, self.bsel));
        let mut tmp = ta.wrapping_mul(tb) as u64;
        let mut c = c;
        let mut lsb = 0u64;
        if self.po {
            lsb = 1;
        } else if na ^ nb {
            tmp = !tmp;
            lsb = 1;
        } else if nc {
            c = !c;
            lsb = 1;
        }
        let tmp = tmp.wrapping_add(Quirks::vmad_c(c)).wrapping_add(lsb);
        let r: i128 = if signed { ((tmp as i64) >> self.shr) as i128 } else { (tmp >> self.shr) as i128 };
        let r = match (self.sat, signed) {
            (false, _) => r,
            (true, true) => r.clamp(i32::MIN as i128, i32::MAX as i128),
            (true, false) => Quirks::vmad_saturate_unsigned(r as u64) as i128,
        };
        r as u32
    }

    /// The 2- and 4-lane forms.
    fn simd(&self, a: u32, b: u32, c: u32) -> u32 {
        let n = self.lanes as usize;
        let bits = 32 / self.lanes;
        let pair = (b as u64) << 32 | a as u64;
        let lane_of = |src: u64, i: u32, signed: bool| -> i64 {
            let v = (src >> (bits * i)) & ((1u64 << bits) - 1);
            if signed && v >> (bits - 1) & 1 == 1 {
                v as i64 - (1i64 << bits)
            } else {
                v as i64
            }
        };
        // `.hxy` / `.bxyzw`: the most significant lane first; the defaults are a's lanes
        // for a and b's lanes for b.
        let pick = |sel: Sel, default: &[u8], signed: bool| -> Vec<i64> {
            let l = if sel.is_none() { default.to_vec() } else { sel.lanes().to_vec() };
            (0..n).map(|i| lane_of(pair, l[n - 1 - i] as u32, signed)).collect()
        };
        let (da, db): (&[u8], &[u8]) = if n == 2 { (&[1, 0], &[3, 2]) } else { (&[3, 2, 1, 0], &[7, 6, 5, 4]) };
        let va = pick(self.asel, da, self.a_signed);
        let vb = pick(self.bsel, db, self.b_signed);
        let (lo, hi) = match (self.d_signed, bits) {
            (true, 16) => (i16::MIN as i64, i16::MAX as i64),
            (false, 16) => (0, u16::MAX as i64),
            (true, _) => (i8::MIN as i64, i8::MAX as i64),
            (false, _) => (0, u8::MAX as i64),
        };
        let t: Vec<i64> = (0..n)
            .map(|i| {
                let (x, y) = (va[i], vb[i]);
                let t = match self.op {
                    Op::Add => x + y,
                    Op::Sub => x - y,
                    Op::Avrg => {
                        let s = x + y;
                        if s >= 0 {
                            (s + 1) >> 1
                        } else {
                            s >> 1
                        }
                    }
                    Op::Absdiff => (x - y).abs(),
                    Op::Min => x.min(y),
                    Op::Max => x.max(y),
                    Op::Set(cmp) => cmp.test(x, y) as i64,
                    _ => unreachable!(),
                };
                if self.sat {
                    t.clamp(lo, hi)
                } else {
                    t
                }
            })
            .collect();
        let mask: Vec<bool> = (0..n as u8).map(|i| self.dsel.is_none() || self.dsel.lanes().contains(&i)).collect();
        if self.op2 == Op2::Add {
            (0..n).filter(|&i| mask[i]).fold(c, |d, i| d.wrapping_add(t[i] as u32))
        } else {
            let lane_mask = (1u64 << bits) - 1;
            (0..n).fold(0u32, |d, i| {
                let v = if mask[i] { t[i] as u64 & lane_mask } else { (c as u64 >> (bits * i as u32)) & lane_mask };
                d | (v << (bits * i as u32)) as u32
            })
        }
    }
}

/// `optMerge`: the low byte or half-word of `tmp` into the selected part of `c`.
fn merge(dsel: Sel, tmp: u32, c: u32) -> u32 {
    let (bits, lane) = match dsel.lanes() {
        [] => return tmp,
        [l] if dsel.is_half() => (16, *l as u32),
        [l] => (8, *l as u32),
        _ => panic!("a merge selector has one lane"),
    };
    let m = ((1u64 << bits) - 1) as u32;
    ((tmp & m) << (bits * lane)) | (c & !(m << (bits * lane)))
}

/// Where the device departs from the pages' pseudocode. sm_90 has no video unit: ptxas
/// emulates the scalar video instructions with integer code, and that code (ptxas 13.0,
/// read from its SASS for every form and run on the inputs of these tests) computes what
/// these functions say. The SIMD forms follow the pages.
pub struct Quirks;

impl Quirks {
    /// `.sat` of vadd, vsub, vabsdiff, vmin, vmax with an unsigned word destination clamps
    /// below only: a result above `U32_MAX` keeps its low 32 bits (the page clamps it to
    /// `U32_MAX`).
    fn word_saturate_unsigned(tmp: i128) -> i128 {
        tmp.max(0)
    }

    /// `.sat` before a merge (`d.dsel`) of vadd .. vmax and vset: a result outside 0 ..
    /// 2^32 - 1 counts as `0xffffffff`, then the unsigned minimum with the byte's or
    /// half-word's maximum of the destination type; a negative result so saturates to that
    /// maximum (the page: to the minimum). A signed result is then sign-extended from its
    /// byte or half-word.
    fn merge_saturate(tmp: i128, signed: bool, dsel: Sel) -> i128 {
        let bits = if dsel.is_half() { 16 } else { 8 };
        let v = if tmp >> 32 != 0 { u32::MAX } else { tmp as u32 };
        let max = if signed { (1u32 << (bits - 1)) - 1 } else { (1u32 << bits) - 1 };
        let v = v.min(max);
        if signed {
            ((v << (32 - bits)) as i32 >> (32 - bits)) as i128
        } else {
            v as i128
        }
    }

    /// vshl and vshr `.sat`: the shifted value wraps to 34 bits, then clamps to the
    /// destination type's 32-bit range, merged or not (the page: to the byte or half-word
    /// range before a merge).
    fn shift_saturate(tmp: i128, signed: bool) -> i128 {
        let t = ((tmp as u64) << 30) as i64 >> 30;
        let t = t as i128;
        if signed {
            t.clamp(i32::MIN as i128, i32::MAX as i128)
        } else {
            t.clamp(0, u32::MAX as i128)
        }
    }

    /// The merge into `c`: `.b0`..`.b3` and `.h0` as the page's `optMerge`; `.h1` takes the
    /// upper half-word of the result, not its lower one.
    fn merge(dsel: Sel, tmp: u32, c: u32) -> u32 {
        if dsel.is_half() && dsel.lanes() == [1] {
            (tmp & 0xffff_0000) | (c & 0xffff)
        } else {
            merge(dsel, tmp, c)
        }
    }

    /// The intermediate result the secondary operation takes: vadd's and vsub's are their
    /// low 32 bits, sign-extended (the page: the exact 34-bit sum); a saturated shift's
    /// likewise; an unsaturated shift's its 64 bits; vabsdiff's, vmin's, vmax's and vset's
    /// exact.
    fn secondary_operand(op: Op, sat: bool, t: i128) -> i128 {
        match op {
            Op::Add | Op::Sub => t as i32 as i128,
            Op::Shl | Op::Shr if sat => t as i32 as i128,
            Op::Shl | Op::Shr => t as i64 as i128,
            _ => t,
        }
    }

    /// vmad multiplies the selected parts as signed 32-bit values (a full-word `.u32`
    /// operand of 2^31 or more counts as negative) into 64 bits.
    fn vmad_operands(a: i64, b: i64) -> (i64, i64) {
        (a as u32 as i32 as i64, b as u32 as i32 as i64)
    }

    /// vmad's unsigned `.sat` reads the upper 32 bits of its 64-bit result as signed: a
    /// result with bit 63 set (no scaling, a product of operands counted negative) gives 0.
    fn vmad_saturate_unsigned(r: u64) -> u32 {
        match (r >> 32) as i32 {
            h if h < 0 => 0,
            0 => r as u32,
            _ => u32::MAX,
        }
    }

    /// vmad adds `c` sign-extended, also where the page zero-extends it (an unsigned final
    /// result).
    fn vmad_c(c: u32) -> u64 {
        c as i32 as i64 as u64
    }
}
