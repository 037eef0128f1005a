//! `mma.sync` and `mma.sp` against a CPU GEMM of each tile, for every form of the `mma` table
//! the GPU runs: here every form sm_90 has; `mma_kinds.rs` runs sm_120a's `.kind::` forms
//! (FP8/FP6/FP4 in 8-bit containers, block scaling) through this harness.
//!
//! One kernel per form: thread `i` loads its A, B and C fragment registers from per-thread
//! arrays (`ld.global`), runs the typed `ptx!` call (accumulating in place where C and D have
//! one type), and stores D's registers; the host builds the arrays from random tiles through
//! the fragment layouts below and maps D back through them. Four warps per launch, each with
//! its own tile (four tiles for m8n8k4, one per quad-pair), fresh inputs every round.
//!
//! The layouts are the PTX ISA's "Matrix Fragments for mma.mMnNkK" sections (groupID =
//! `%laneid >> 2`, threadID_in_group = `%laneid % 4`), written once as [`a_coords`],
//! [`b_coords`] and [`c_coords`]. Host-only tests check that they cover every tile element
//! exactly once, give the register counts of every typed form, and put a few elements where
//! the PTX ISA's formulas do; a CPU model of the instruction checks the host side (packing,
//! metadata, reference, comparison) without a GPU, and every kernel is assembled by ptxas.
//!
//! Integer and b1 forms are compared bit for bit (with `.satfinite` also on inputs that
//! overflow, every partial sum on one side so the clamp is the same whatever the order).
//! Float forms: the inputs are exact in their format, so the products are exact (f64 ones to
//! within the bound below); the bound covers the accumulation:
//! `|D - ref| <= 2 (K + 1) u (sum_k |a_ik b_kj| + |c_ij|)`, `ref` the f64 sum, `u` the unit
//! roundoff of D's type (f32 2^-24, f16 2^-11, f64 2^-53; 2^-14 for fp8 inputs into f32,
//! whose internal accumulation is narrower and not specified), the factor 2 for adders that
//! truncate rather than round.
//!
//! Sparse forms: A holds the kept half of each row; metadata indices name 16-bit units (f16,
//! bf16; tf32 keeps one element of two, nibble 0b0100 or 0b1110) or 8-bit units (8-bit types;
//! u4/s4 keep pairs), two kept of every four. Each group of four threads gets one random
//! increasing index pair (valid for `.sp::ordered_metadata` too), the same in every chunk of
//! its two rows (groupID and groupID + 8) and in the metadata register of all four threads, so
//! the result does not depend on which bits of the register name which chunk, nor on which
//! threads the selector picks (both are given by figures only); the selector is a random
//! legal value.

use super::*;
use ptxkit::ops::{mma, Kind};
use ptxkit::types::minifloat::{E2M1, E2M3, E3M2, E4M3, UE8M0};
use rand::rngs::StdRng;
use rand::Rng;
use std::marker::PhantomData;

/// Warps per launch, each with its own tile.
const WARPS: usize = 4;
const THREADS: usize = WARPS * 32;

// ---- element types ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum El {
    F16,
    Bf16,
    Tf32,
    F32,
    F64,
    E4m3,
    E5m2,
    /// FP6 and FP4 in 8-bit containers (`kind::f8f6f4`, `kind::mxf8f6f4`): e3m2 and e2m3 in
    /// the low 6 bits, e2m1 in bits 2–5 (PTX ISA 9.0, 9.7.14.5.14), the rest zero.
    E3m2,
    E2m3,
    E2m1,
    /// e2m1 packed eight to a register, no padding (`kind::mxf4`, `kind::mxf4nvf4`).
    Fp4,
    U8,
    S8,
    U4,
    S4,
    B1,
    S32,
}

impl El {
    pub(super) fn parse(s: &str) -> El {
        match s {
            "f16" => El::F16,
            "bf16" => El::Bf16,
            "tf32" => El::Tf32,
            "f32" => El::F32,
            "f64" => El::F64,
            "e4m3" => El::E4m3,
            "e5m2" => El::E5m2,
            "e3m2" => El::E3m2,
            "e2m3" => El::E2m3,
            "e2m1" => El::E2m1,
            "u8" => El::U8,
            "s8" => El::S8,
            "u4" => El::U4,
            "s4" => El::S4,
            "b1" => El::B1,
            "s32" => El::S32,
            _ => panic!("no element type `{s}`"),
        }
    }
    /// Width in a register.
    pub(super) fn bits(self) -> usize {
        match self {
            El::F16 | El::Bf16 => 16,
            El::Tf32 | El::F32 | El::S32 => 32,
            El::F64 => 64,
            El::E4m3 | El::E5m2 | El::E3m2 | El::E2m3 | El::E2m1 | El::U8 | El::S8 => 8,
            El::U4 | El::S4 | El::Fp4 => 4,
            El::B1 => 1,
        }
    }
    /// Elements per register (f64 registers are 64-bit, the rest 32-bit).
    fn per_reg(self) -> usize {
        if self == El::F64 {
            1
        } else {
            32 / self.bits()
        }
    }
    pub(super) fn is_float(self) -> bool {
        matches!(self, El::F16 | El::Bf16 | El::Tf32 | El::F32 | El::F64) || self.narrow()
    }
    /// The 8-, 6- and 4-bit floats.
    fn narrow(self) -> bool {
        matches!(self, El::E4m3 | El::E5m2 | El::E3m2 | El::E2m3 | El::E2m1 | El::Fp4)
    }
    pub(super) fn signed(self) -> bool {
        matches!(self, El::S8 | El::S4 | El::S32)
    }
    pub(super) fn mask(self) -> u64 {
        if self.bits() == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }
    /// The value of an element's bits.
    pub(super) fn value(self, code: u64) -> f64 {
        let code = code & self.mask();
        match self {
            El::F16 => half::f16::from_bits(code as u16).to_f64(),
            El::Bf16 => half::bf16::from_bits(code as u16).to_f64(),
            El::Tf32 | El::F32 => f32::from_bits(code as u32) as f64,
            El::F64 => f64::from_bits(code),
            El::E4m3 => e4m3(code as u8),
            El::E5m2 => e5m2(code as u8),
            El::E3m2 => E3M2.decode(code as u8 & 0x3F) as f64,
            El::E2m3 => E2M3.decode(code as u8 & 0x3F) as f64,
            El::E2m1 => E2M1.decode(code as u8 >> 2 & 0xF) as f64,
            El::Fp4 => E2M1.decode(code as u8 & 0xF) as f64,
            El::U8 | El::U4 | El::B1 => code as f64,
            El::S8 => code as u8 as i8 as f64,
            El::S4 => (((code as u8) << 4) as i8 >> 4) as f64,
            El::S32 => code as u32 as i32 as f64,
        }
    }
    /// Random bits of an input or accumulator element whose value has sign `sign`: floats
    /// exactly representable (a random significand of the format's width times a power of
    /// two, |x| < 4; fp8 any finite code with |x| <= 8), integers over their whole range,
    /// s32 accumulators in ±2^20.
    pub(super) fn random(self, g: &mut StdRng, sign: Sign) -> u64 {
        loop {
            let code = self.any(g);
            let v = self.value(code);
            let ok = match sign {
                Sign::Any => true,
                Sign::NonNeg => v >= 0.0,
                Sign::NonPos => v <= 0.0,
            };
            if ok {
                return code;
            }
        }
    }
    fn any(self, g: &mut StdRng) -> u64 {
        // m * 2^(s - p + 1): p significant bits, |value| < 2^(s + 1) <= 4.
        let sig = |g: &mut StdRng, p: u32| -> f64 {
            let m = g.gen_range(-(1i64 << p) + 1..1i64 << p) as f64;
            m * 2f64.powi(g.gen_range(-3..=1) - p as i32 + 1)
        };
        match self {
            El::F16 => {
                let v = sig(g, 11);
                let h = half::f16::from_f64(v);
                assert_eq!(h.to_f64(), v);
                h.to_bits() as u64
            }
            El::Bf16 => {
                let v = sig(g, 8);
                let h = half::bf16::from_f64(v);
                assert_eq!(h.to_f64(), v);
                h.to_bits() as u64
            }
            El::Tf32 => (sig(g, 11) as f32).to_bits() as u64,
            El::F32 => (sig(g, 24) as f32).to_bits() as u64,
            El::F64 => sig(g, 53).to_bits(),
            El::E4m3 | El::E5m2 => loop {
                let c: u8 = g.gen();
                let v = self.value(c as u64);
                if v.is_finite() && v.abs() <= 8.0 {
                    return c as u64;
                }
            },
            // Every FP6/FP4 code (all are finite), padding bits zero.
            El::E3m2 | El::E2m3 => g.gen::<u64>() & 0x3F,
            El::E2m1 => (g.gen::<u64>() & 0xF) << 2,
            El::Fp4 => g.gen::<u64>() & 0xF,
            El::S32 => g.gen_range(-(1i64 << 20)..=1 << 20) as u32 as u64,
            _ => g.gen::<u64>() & self.mask(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Sign {
    Any,
    NonNeg,
    NonPos,
}

fn e4m3(b: u8) -> f64 {
    let s = if b & 0x80 != 0 { -1.0 } else { 1.0 };
    let (e, m) = (((b >> 3) & 15) as i32, (b & 7) as f64);
    match e {
        15 if m == 7.0 => f64::NAN,
        0 => s * m / 8.0 * 2f64.powi(-6),
        _ => s * (1.0 + m / 8.0) * 2f64.powi(e - 7),
    }
}

fn e5m2(b: u8) -> f64 {
    let s = if b & 0x80 != 0 { -1.0 } else { 1.0 };
    let (e, m) = (((b >> 2) & 31) as i32, (b & 3) as f64);
    match e {
        31 => f64::NAN,
        0 => s * m / 4.0 * 2f64.powi(-14),
        _ => s * (1.0 + m / 4.0) * 2f64.powi(e - 15),
    }
}

// ---- fragment layouts ------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Major {
    Row,
    Col,
}

/// An M×N×K tile; `quad` for f16 m8n8k4, where each quad-pair (lanes 4q..4q+3 and
/// 4q+16..4q+19) computes its own product, with the layouts of A and B.
#[derive(Clone, Copy, Debug)]
struct Shape {
    m: usize,
    n: usize,
    k: usize,
    quad: Option<(Major, Major)>,
}

impl Shape {
    fn tiles(&self) -> usize {
        if self.quad.is_some() {
            4
        } else {
            1
        }
    }
    /// Registers per thread for a `rows`×`cols` operand of `e` elements per register.
    fn regs(&self, rows: usize, cols: usize, e: usize) -> usize {
        self.tiles() * rows * cols / (32 * e)
    }
}

/// (tile, row, col) of an element.
type Coords = (usize, usize, usize);

/// (tile, row, col) of element `j` (low to high) of A register `r` of `lane`, `e` elements
/// per register. m16n8kK: a register per 8 rows and 4e columns, rows first (row groupID or
/// groupID + 8, columns from threadID_in_group * e); m8n8kK: one register, row groupID;
/// m8n8k4 .f16: row-major A gives each thread of the quad-pair a row, column-major a column.
fn a_coords(s: Shape, e: usize, lane: usize, r: usize, j: usize) -> Coords {
    let (g, t) = (lane / 4, lane % 4);
    if let Some((a, _)) = s.quad {
        let (tile, hi, i) = ((lane % 16) / 4, lane / 16, r * e + j);
        return match a {
            Major::Row => (tile, t + 4 * hi, i),
            Major::Col => (tile, i + 4 * hi, t),
        };
    }
    let (h, kb) = if s.m == 16 { (r % 2, r / 2) } else { (0, r) };
    (0, g + 8 * h, kb * 4 * e + t * e + j)
}

/// (tile, row, col) of element `j` of B register `r`: a register per 4e rows, rows from
/// threadID_in_group * e, column groupID; m8n8k4 .f16: column-major B gives each thread of
/// the quad-pair a column, row-major a row.
fn b_coords(s: Shape, e: usize, lane: usize, r: usize, j: usize) -> Coords {
    let (g, t) = (lane / 4, lane % 4);
    if let Some((_, b)) = s.quad {
        let (tile, hi, i) = ((lane % 16) / 4, lane / 16, r * e + j);
        return match b {
            Major::Col => (tile, i, t + 4 * hi),
            Major::Row => (tile, t, i + 4 * hi),
        };
    }
    (0, r * 4 * e + t * e + j, g)
}

/// (tile, row, col) of element `j` of C/D register `r` (`e` = 2 for f16x2 accumulators):
/// element i = r * e + j sits at row groupID (+ 8 for i >= 2), column threadID_in_group * 2 +
/// i % 2. m8n8k4 .f16: f16 accumulators give each thread of the quad-pair a row; f32 ones
/// rows (t & 1) + (i & 2) and columns (t & 2) + (i & 1) + (i & 4), rows + 4 in the high half.
fn c_coords(s: Shape, e: usize, lane: usize, r: usize, j: usize) -> Coords {
    let (g, t, i) = (lane / 4, lane % 4, r * e + j);
    if s.quad.is_some() {
        let (tile, hi) = ((lane % 16) / 4, lane / 16);
        return if e == 2 { (tile, t + 4 * hi, i) } else { (tile, (t & 1) + (i & 2) + 4 * hi, (t & 2) + (i & 1) + (i & 4)) };
    }
    (0, g + 8 * (i / 2), 2 * t + i % 2)
}

// ---- the forms -------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Mul,
    And,
    Xor,
}

/// A form, read from its chain.
#[derive(Clone, Copy, Debug)]
pub(super) struct Mma {
    chain: &'static str,
    sparse: bool,
    shape: Shape,
    d: El,
    a: El,
    b: El,
    c: El,
    op: Op,
    sat: bool,
    /// Block scaling (`.block_scale`).
    scale: Option<Scale>,
}

/// The block scaling of a form: scale factors per row of A and column of B (1, 2 or 4 along
/// K) and their type.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Scale {
    vec: usize,
    ue4m3: bool,
}

impl Mma {
    pub(super) fn parse(chain: &'static str) -> Mma {
        let p: Vec<&str> = chain.split('.').collect();
        let si = p.iter().position(|x| x.starts_with("m8n") || x.starts_with("m16n")).expect("a shape");
        let dims: Vec<usize> = p[si][1..].split(['n', 'k']).map(|x| x.parse().unwrap()).collect();
        let major = |x: &str| if x == "row" { Major::Row } else { Major::Col };
        let mut i = si + 3;
        // sm_120a's kinds: `.kind::*`, `.block_scale`, `.scale_vec::NX` before the types.
        let kind = p[i].strip_prefix("kind::");
        while p[i].starts_with("kind::") || p[i] == "block_scale" || p[i].starts_with("scale_vec::") {
            i += 1;
        }
        let sat = p[i] == "satfinite";
        i += sat as usize;
        let (d, mut a, mut b, c) = (El::parse(p[i]), El::parse(p[i + 1]), El::parse(p[i + 2]), El::parse(p[i + 3]));
        if matches!(kind, Some("mxf4" | "mxf4nvf4")) {
            (a, b) = (El::Fp4, El::Fp4);
        }
        let scale = chain.contains(".block_scale").then(|| {
            let vec = match p.iter().find_map(|x| x.strip_prefix("scale_vec::")) {
                Some(v) => v.trim_end_matches('X').parse().unwrap(),
                None if kind == Some("mxf8f6f4") => 1,
                None => 2,
            };
            Scale { vec, ue4m3: p.last() == Some(&"ue4m3") }
        });
        let op = match p.get(i + 4) {
            Some(&"and") => Op::And,
            Some(&"xor") => Op::Xor,
            _ => Op::Mul,
        };
        let quad = (dims == [8, 8, 4] && a == El::F16).then(|| (major(p[si + 1]), major(p[si + 2])));
        let shape = Shape { m: dims[0], n: dims[1], k: dims[2], quad };
        Mma { chain, sparse: p[1].starts_with("sp"), shape, d, a, b, c, op, sat, scale }
    }
    /// The shape of A as stored: half the K when sparse.
    fn a_shape(&self) -> Shape {
        Shape { k: if self.sparse { self.shape.k / 2 } else { self.shape.k }, ..self.shape }
    }
    fn acc_per_reg(t: El) -> usize {
        if t == El::F16 {
            2
        } else {
            1
        }
    }
    /// Registers per thread of A, B, C, D, from the layouts.
    fn counts(&self) -> (usize, usize, usize, usize) {
        let (s, sa) = (self.shape, self.a_shape());
        (
            sa.regs(sa.m, sa.k, self.a.per_reg()),
            s.regs(s.k, s.n, self.b.per_reg()),
            s.regs(s.m, s.n, Self::acc_per_reg(self.c)),
            s.regs(s.m, s.n, Self::acc_per_reg(self.d)),
        )
    }
    pub(super) fn desc(&self) -> &'static ptxkit::ops::FormDesc {
        mma::forms().iter().find(|f| f.chain == self.chain).unwrap_or_else(|| panic!("{} is not an mma form", self.chain))
    }
    /// The legal sparsity selectors the table records.
    fn selectors(&self) -> &'static [i64] {
        match self.desc().src.last() {
            Some(Kind::ImmIn(_, legal)) => legal,
            _ => panic!("{}: no selector", self.chain),
        }
    }
    /// Metadata is indexed in units of 16 bits (f16, bf16, tf32) or 8 bits (8- and 4-bit
    /// types), four to a chunk, two kept: tf32 keeps one element of two, u4/s4 pairs.
    fn unit_bits(&self) -> usize {
        if self.a.bits() >= 16 {
            16
        } else {
            8
        }
    }
    /// The selectors the metadata's size allows: one per thread of the group when one thread
    /// holds a group's metadata (2 rows x kept units x 2 bits), and so on.
    fn expected_selectors(&self) -> Vec<i64> {
        let kept = self.shape.k * self.a.bits() / self.unit_bits() / 2;
        let threads = 2 * kept * 2 / 32;
        (0..(4 / threads) as i64).collect()
    }
    /// The index pairs a chunk may keep.
    fn pairs(&self) -> &'static [(usize, usize)] {
        if self.a == El::Tf32 {
            &[(0, 1), (2, 3)]
        } else {
            &[(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
        }
    }
    /// The column of A that kept element `c` of a row stands for, under index pair `pair`.
    fn sparse_col(&self, c: usize, pair: (usize, usize)) -> usize {
        let (w, ub) = (self.a.bits(), self.unit_bits());
        let (unit, within) = (c * w / ub, c * w % ub);
        let at = 4 * (unit / 2) + if unit % 2 == 0 { pair.0 } else { pair.1 };
        (at * ub + within) / w
    }
    /// A random selector operand: a legal sparsity selector, or for block scaling the four
    /// 16-bit selectors packed a byte each (byte-id-a, thread-id-a, byte-id-b, thread-id-b)
    /// from PTX ISA Table 37's legal values; 0 for the other forms.
    fn draw_sel(&self, g: &mut StdRng) -> u32 {
        if self.sparse {
            return self.selectors()[g.gen_range(0..self.selectors().len())] as u32;
        }
        let Some(sc) = self.scale else { return 0 };
        let byte = |g: &mut StdRng| match sc.vec {
            1 => g.gen_range(0..4u32),
            2 => 2 * g.gen_range(0..2u32),
            _ => 0,
        };
        byte(g) | g.gen_range(0..2u32) << 8 | byte(g) << 16 | g.gen_range(0..4u32) << 24
    }
    /// A random scale word: four codes that each scale by 2^-6 .. 2^6 (ue8m0), or by
    /// 2^-3 .. 2^3·1.875 (ue4m3: positive e4m3 codes).
    fn scale_word(&self, g: &mut StdRng) -> u32 {
        let ue4m3 = self.scale.is_some_and(|s| s.ue4m3);
        (0..4).fold(0, |w, i| {
            let code = if ue4m3 { g.gen_range(4..=10u32) << 3 | g.gen_range(0..8u32) } else { (127 + g.gen_range(-6..=6i32)) as u32 };
            w | code << (8 * i)
        })
    }
    /// Unit roundoff of the accumulation, in D's type (see the module docs).
    fn roundoff(&self) -> f64 {
        match (self.d, self.a) {
            (El::F64, _) => 2f64.powi(-53),
            (El::F16, _) => 2f64.powi(-11),
            (_, a) if a.narrow() => 2f64.powi(-14),
            _ => 2f64.powi(-24),
        }
    }
}

// ---- one launch ------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Fill {
    /// Random inputs in the ranges of [`El::random`]; integer sums never overflow.
    Normal,
    /// `.satfinite` inputs that overflow: every product of a tile on one side, C near the
    /// limit it runs towards.
    Overflow,
}

fn at(tile: usize, row: usize, col: usize, rows: usize, cols: usize) -> usize {
    (tile * rows + row) * cols + col
}

/// The tiles of one launch, per warp, as element bits, row-major per tile: A as stored (the
/// kept half of each row when sparse), B, C, for sparse forms each group's index pair, for
/// block-scaled ones every thread's scale-a-data and scale-b-data words; and the selector
/// operand ([`Mma::draw_sel`]).
struct Round {
    a: Vec<Vec<u64>>,
    b: Vec<Vec<u64>>,
    c: Vec<Vec<u64>>,
    pairs: Vec<[(usize, usize); 8]>,
    scales: Vec<[Vec<u32>; 2]>,
    sel: u32,
}

impl Round {
    fn random(f: &Mma, g: &mut StdRng, fill: Fill) -> Round {
        let (s, sa) = (f.shape, f.a_shape());
        let mut r = Round { a: vec![], b: vec![], c: vec![], pairs: vec![], scales: vec![], sel: f.draw_sel(g) };
        let amax = |t: El| if t.signed() { 1i64 << (t.bits() - 1) } else { (1i64 << t.bits()) - 1 };
        for w in 0..WARPS {
            let (sign_a, sign_b, up) = match fill {
                Fill::Normal => (Sign::Any, Sign::Any, true),
                Fill::Overflow if w % 2 == 0 || !(f.a.signed() || f.b.signed()) => (Sign::NonNeg, Sign::NonNeg, true),
                Fill::Overflow if f.b.signed() => (Sign::NonNeg, Sign::NonPos, false),
                Fill::Overflow => (Sign::NonPos, Sign::NonNeg, false),
            };
            r.a.push((0..sa.tiles() * sa.m * sa.k).map(|_| f.a.random(g, sign_a)).collect());
            r.b.push((0..s.tiles() * s.k * s.n).map(|_| f.b.random(g, sign_b)).collect());
            r.c.push(
                (0..s.tiles() * s.m * s.n)
                    .map(|_| match fill {
                        Fill::Normal => f.c.random(g, Sign::Any),
                        Fill::Overflow => {
                            // About half the sums pass the limit.
                            let d = g.gen_range(0..=s.k as i64 * amax(f.a) * amax(f.b) / 2);
                            (if up { i32::MAX as i64 - d } else { i32::MIN as i64 + d }) as i32 as u32 as u64
                        }
                    })
                    .collect(),
            );
            r.pairs.push(std::array::from_fn(|_| f.pairs()[g.gen_range(0..f.pairs().len())]));
            r.scales.push(std::array::from_fn(|_| (0..32).map(|_| if f.scale.is_some() { f.scale_word(g) } else { 0 }).collect()));
        }
        r
    }

    /// The scale of row `idx` of A (`a`) or column `idx` of B at K index `kk` in warp `w`
    /// (1 without block scaling). PTX ISA 9.0, 9.7.14.3: thread-id-a picks the thread pair
    /// of each quad that holds SF_A, thread-id-b the thread that holds SF_B; byte-id the byte
    /// (1X), the first of two bytes (2X, one per 32 of K) or 0 (4X, one byte per 16 of K).
    /// Which thread of the pair holds which row is a figure; CUTLASS's `SFALayout` of the
    /// sm_120 block-scaled atoms gives rows g and g + 8 of quad g to its even and odd thread,
    /// as here; SF_B of column g comes from thread 4g + thread-id-b.
    fn scale(&self, f: &Mma, w: usize, a: bool, idx: usize, kk: usize) -> f64 {
        let Some(sc) = f.scale else { return 1.0 };
        let sel = self.sel as usize;
        let (byte_id, thread_id) = if a { (sel & 0xFF, sel >> 8 & 0xFF) } else { (sel >> 16 & 0xFF, sel >> 24) };
        let lane = if a { 4 * (idx % 8) + 2 * thread_id + idx / 8 } else { 4 * idx + thread_id };
        let block = kk / (f.shape.k / sc.vec);
        let code = (self.scales[w][!a as usize][lane] >> (8 * (byte_id + block))) as u8;
        if sc.ue4m3 {
            E4M3.decode(code) as f64
        } else {
            UE8M0.decode(code) as f64
        }
    }

    /// A of warp `w` as a dense M×K tile of values (sparse: the kept elements at the columns
    /// their group's index pair names, zeros elsewhere).
    fn dense_a(&self, f: &Mma, w: usize) -> Vec<f64> {
        let (s, sa) = (f.shape, f.a_shape());
        let mut out = vec![0.0; s.tiles() * s.m * s.k];
        for tile in 0..sa.tiles() {
            for row in 0..sa.m {
                for c in 0..sa.k {
                    let col = if f.sparse { f.sparse_col(c, self.pairs[w][row % 8]) } else { c };
                    out[at(tile, row, col, s.m, s.k)] = f.a.value(self.a[w][at(tile, row, c, sa.m, sa.k)]);
                }
            }
        }
        out
    }

    /// Per-thread register arrays (32-bit words, a 64-bit register as two): A, B, C, and two
    /// words a thread: the metadata word (sparse) or the scale-a and scale-b words.
    fn scatter(&self, f: &Mma) -> [Vec<u32>; 4] {
        let (s, sa) = (f.shape, f.a_shape());
        let (na, nb, nc, _) = f.counts();
        let a = scatter(&self.a, na, f.a, f.a.per_reg(), |l, r, j| {
            let (t, row, col) = a_coords(sa, f.a.per_reg(), l, r, j);
            at(t, row, col, sa.m, sa.k)
        });
        let b = scatter(&self.b, nb, f.b, f.b.per_reg(), |l, r, j| {
            let (t, row, col) = b_coords(s, f.b.per_reg(), l, r, j);
            at(t, row, col, s.k, s.n)
        });
        let ce = Mma::acc_per_reg(f.c);
        let c = scatter(&self.c, nc, f.c, ce, |l, r, j| {
            let (t, row, col) = c_coords(s, ce, l, r, j);
            at(t, row, col, s.m, s.n)
        });
        let meta = (0..THREADS)
            .flat_map(|tid| {
                let (w, lane) = (tid / 32, tid % 32);
                if f.scale.is_some() {
                    return [self.scales[w][0][lane], self.scales[w][1][lane]];
                }
                let (i0, i1) = self.pairs[w][lane / 4];
                [(i0 | i1 << 2) as u32 * 0x1111_1111, 0]
            })
            .collect();
        [a, b, c, meta]
    }

    /// Compares D (per-thread words) with the CPU reference of every warp's tile.
    fn compare(&self, f: &Mma, out: &[u32], fill: Fill) -> Result<(), String> {
        let s = f.shape;
        let (.., nd) = f.counts();
        let de = Mma::acc_per_reg(f.d);
        let words = if f.d == El::F64 { 2 } else { 1 };
        let tol_k = 2.0 * (s.k + 1) as f64 * f.roundoff();
        let mut bad = vec![];
        for w in 0..WARPS {
            let a = self.dense_a(f, w);
            for lane in 0..32 {
                let tid = w * 32 + lane;
                for r in 0..nd {
                    let word = (0..words).fold(0u64, |v, i| v | (out[(tid * nd + r) * words + i] as u64) << (32 * i));
                    for j in 0..de {
                        let (tile, row, col) = c_coords(s, de, lane, r, j);
                        let cv = f.c.value(self.c[w][at(tile, row, col, s.m, s.n)]);
                        let (mut sum, mut scale) = (0.0f64, cv.abs());
                        for kk in 0..s.k {
                            let x = a[at(tile, row, kk, s.m, s.k)] * self.scale(f, w, true, row, kk);
                            let y = f.b.value(self.b[w][at(tile, kk, col, s.k, s.n)]) * self.scale(f, w, false, col, kk);
                            let term = match f.op {
                                Op::Mul | Op::And => x * y,
                                Op::Xor => x + y - 2.0 * x * y,
                            };
                            sum += term;
                            scale += term.abs();
                        }
                        let got = f.d.value(word >> (j * f.d.bits()));
                        let exact = cv + sum;
                        let (want, ok, tol) = if f.d.is_float() {
                            let tol = tol_k * scale;
                            (exact, (got - exact).abs() <= tol, tol)
                        } else {
                            let want = if f.sat {
                                exact.clamp(i32::MIN as f64, i32::MAX as f64)
                            } else {
                                assert!(exact.abs() < 2f64.powi(31), "{}: the inputs overflow a form that wraps", f.chain);
                                exact
                            };
                            (want, got == want, 0.0)
                        };
                        if !ok {
                            bad.push(format!(
                                "warp {w} lane {lane} d[{r}]{} = D[{tile}][{row}][{col}]: GPU {got:e}, CPU {want:e} (tolerance {tol:e})",
                                if de > 1 { format!(".{j}") } else { String::new() }
                            ));
                        }
                    }
                }
            }
        }
        if bad.is_empty() {
            return Ok(());
        }
        let n = bad.len();
        bad.truncate(6);
        Err(format!("{} ({fill:?} inputs): {n} elements differ; first: \n    {}", f.chain, bad.join("\n    ")))
    }
}

/// Per-thread words of `nregs` registers of `e` elements of `t`, register `r` element `j` of
/// lane `l` taken from tile index `coords(l, r, j)` of its warp's codes.
fn scatter(codes: &[Vec<u64>], nregs: usize, t: El, e: usize, coords: impl Fn(usize, usize, usize) -> usize) -> Vec<u32> {
    let words = if t == El::F64 { 2 } else { 1 };
    let mut out = Vec::with_capacity(THREADS * nregs * words);
    for tid in 0..THREADS {
        let (w, lane) = (tid / 32, tid % 32);
        for r in 0..nregs {
            let v = (0..e).fold(0u64, |v, j| v | (codes[w][coords(lane, r, j)] & t.mask()) << (j * t.bits()));
            out.extend((0..words).map(|i| (v >> (32 * i)) as u32));
        }
    }
    out
}

// ---- kernels ---------------------------------------------------------------------------------

/// The typed call of one form: A, B, C fragments, the two extra registers (the metadata of
/// sparse forms, the scale data of block-scaled ones) and the selector operand to D.
type Call<W, const NA: usize, const NB: usize, const NC: usize, const ND: usize> =
    fn(&mut Kernel, [Reg<W>; NA], [Reg<W>; NB], [Reg<W>; NC], [Reg<B32>; 2], u32) -> [Reg<W>; ND];

/// Thread `tid`'s `N` registers from `p[tid * N ..]`.
fn load_regs<W: Load<(), m::Global>, const N: usize>(k: &mut Kernel, p: GlobalPtr<B32>, tid: Reg<U32>) -> [Reg<W>; N] {
    let base = ptx!(k, "mul.lo.u32", tid, N as u32);
    let p = p.cast::<W>();
    std::array::from_fn(|r| k.ld(p.at(base).offset(r as i64)))
}

/// Adds the kernel of `call` to `m`: thread `i` loads its fragments from `a`, `b`, `c` at
/// `i * registers`, and its two extra words from `e[2i..]`, and stores D to `d`.
fn build<W, const NA: usize, const NB: usize, const NC: usize, const ND: usize>(
    m: &mut Module,
    name: &str,
    call: Call<W, NA, NB, NC, ND>,
    sel: u32,
) -> KernelRef<KernelParams>
where
    W: Load<(), m::Global> + Store<(), m::Global>,
{
    m.kernel(name, |k, (pa, pb, pc, pe, pd): KernelParams| {
        let tid = k.global_thread_index_x();
        let a = load_regs::<W, NA>(k, pa, tid);
        let b = load_regs::<W, NB>(k, pb, tid);
        let c = load_regs::<W, NC>(k, pc, tid);
        let e = load_regs::<B32, 2>(k, pe, tid);
        let d = call(k, a, b, c, e, sel);
        let base = ptx!(k, "mul.lo.u32", tid, ND as u32);
        let pd = pd.cast::<W>();
        for (r, v) in d.into_iter().enumerate() {
            k.st(pd.at(base).offset(r as i64), v);
        }
    })
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

type KernelParams = (GlobalPtr<B32>, GlobalPtr<B32>, GlobalPtr<B32>, GlobalPtr<B32>, GlobalPtr<B32>);

/// Runs `call` in one kernel of [`WARPS`] warps on per-thread inputs; returns D's words.
fn launch<W, const NA: usize, const NB: usize, const NC: usize, const ND: usize>(
    gpu: &Gpu,
    t: Target,
    call: Call<W, NA, NB, NC, ND>,
    ins: &[Vec<u32>; 4],
    sel: u32,
) -> Vec<u32>
where
    W: Load<(), m::Global> + Store<(), m::Global>,
{
    let mut m = Module::new(t);
    let kr = build(&mut m, "mma", call, sel);
    let module = load(gpu, &m);
    let up = |v: &Vec<u32>| gpu.upload(v).unwrap();
    let (da, db, dc, de) = (up(&ins[0]), up(&ins[1]), up(&ins[2]), up(&ins[3]));
    let mut out = poisoned::<u32>(gpu, THREADS * ND * (W::BITS as usize / 32)).unwrap();
    module.kernel(&kr).unwrap().launch(&Launch::new(1u32, THREADS as u32), (&da, &db, &dc, &de, &mut out)).unwrap();
    gpu.download(&out).unwrap()
}

/// A CPU model of the instruction, reading the per-thread registers through the same
/// layouts: it checks the host side (packing, metadata words, the reference, the comparison)
/// where there is no GPU, not the layouts themselves.
fn simulate(f: &Mma, ins: &[Vec<u32>; 4], sel: u32) -> Vec<u32> {
    let (s, sa) = (f.shape, f.a_shape());
    let (na, nb, nc, nd) = f.counts();
    let gather = |words: &[u32], t: El, e: usize, nregs: usize, len: usize, coords: &dyn Fn(usize, usize, usize) -> usize| {
        let ww = if t == El::F64 { 2 } else { 1 };
        let mut tiles = vec![vec![0u64; len]; WARPS];
        for tid in 0..THREADS {
            for r in 0..nregs {
                let v = (0..ww).fold(0u64, |v, i| v | (words[(tid * nregs + r) * ww + i] as u64) << (32 * i));
                for j in 0..e {
                    tiles[tid / 32][coords(tid % 32, r, j)] = (v >> (j * t.bits())) & t.mask();
                }
            }
        }
        tiles
    };
    let (ea, eb, ec, ed) = (f.a.per_reg(), f.b.per_reg(), Mma::acc_per_reg(f.c), Mma::acc_per_reg(f.d));
    let round = Round {
        a: gather(&ins[0], f.a, ea, na, sa.tiles() * sa.m * sa.k, &|l, r, j| {
            let (t, row, col) = a_coords(sa, ea, l, r, j);
            at(t, row, col, sa.m, sa.k)
        }),
        b: gather(&ins[1], f.b, eb, nb, s.tiles() * s.k * s.n, &|l, r, j| {
            let (t, row, col) = b_coords(s, eb, l, r, j);
            at(t, row, col, s.k, s.n)
        }),
        c: gather(&ins[2], f.c, ec, nc, s.tiles() * s.m * s.n, &|l, r, j| {
            let (t, row, col) = c_coords(s, ec, l, r, j);
            at(t, row, col, s.m, s.n)
        }),
        pairs: (0..WARPS)
            .map(|w| {
                std::array::from_fn(|g| {
                    let nibble = ins[3][2 * (w * 32 + 4 * g)] as usize;
                    (nibble & 3, nibble >> 2 & 3)
                })
            })
            .collect(),
        scales: (0..WARPS).map(|w| std::array::from_fn(|i| (0..32).map(|l| ins[3][2 * (w * 32 + l) + i]).collect())).collect(),
        sel,
    };
    let mut d = vec![vec![0u64; s.tiles() * s.m * s.n]; WARPS];
    for (w, dw) in d.iter_mut().enumerate() {
        let a = round.dense_a(f, w);
        for (i, out) in dw.iter_mut().enumerate() {
            let (tile, row, col) = (i / (s.m * s.n), i / s.n % s.m, i % s.n);
            let mut x = f.c.value(round.c[w][i]);
            for kk in 0..s.k {
                let p = a[at(tile, row, kk, s.m, s.k)] * round.scale(f, w, true, row, kk);
                let q = f.b.value(round.b[w][at(tile, kk, col, s.k, s.n)]) * round.scale(f, w, false, col, kk);
                x += if f.op == Op::Xor { p + q - 2.0 * p * q } else { p * q };
            }
            *out = match f.d {
                El::F32 => (x as f32).to_bits() as u64,
                El::F16 => half::f16::from_f64(x).to_bits() as u64,
                El::F64 => x.to_bits(),
                _ if f.sat => x.clamp(i32::MIN as f64, i32::MAX as f64) as i32 as u32 as u64,
                _ => x as i64 as i32 as u32 as u64,
            };
        }
    }
    scatter(&d, nd, f.d, ed, |l, r, j| {
        let (t, row, col) = c_coords(s, ed, l, r, j);
        at(t, row, col, s.m, s.n)
    })
}

/// Where a check runs: on the GPU (modules for the target given), on the CPU model, or only
/// building its kernel into a module (for ptxas).
pub(super) enum Env<'a> {
    Gpu(&'a Gpu, Target),
    Cpu,
    Build(&'a mut Module),
}

/// Two rounds of fresh inputs (three with `.satfinite`: one that overflows); `W` is the
/// register width (`B64` for f64 forms, `B32` otherwise).
pub(super) fn check<W, const NA: usize, const NB: usize, const NC: usize, const ND: usize>(
    env: &mut Env,
    g: &mut StdRng,
    chain: &'static str,
    _word: PhantomData<W>,
    call: Call<W, NA, NB, NC, ND>,
) -> Result<(), String>
where
    W: Load<(), m::Global> + Store<(), m::Global>,
{
    let f = Mma::parse(chain);
    assert_eq!((NA, NB, NC, ND), f.counts(), "{chain}: the typed fragments and the layouts disagree");
    if let Env::Build(m) = env {
        build(m, &chain.replace(['.', ':'], "_"), call, f.draw_sel(g));
        return Ok(());
    }
    let mut fills = vec![Fill::Normal, Fill::Normal];
    if f.sat {
        fills.push(Fill::Overflow);
    }
    for fill in fills {
        let round = Round::random(&f, g, fill);
        let ins = round.scatter(&f);
        let out = match env {
            Env::Gpu(gpu, t) => launch(gpu, *t, call, &ins, round.sel),
            _ => simulate(&f, &ins, round.sel),
        };
        round.compare(&f, &out, fill)?;
    }
    Ok(())
}

pub(super) type Check = fn(&mut Env, &mut StdRng) -> Result<(), String>;

/// `(chain, check)` per form: D written over C's registers (`=> d, a, b, d`), C separate
/// (C and D of different types), or sparse (metadata and selector after C).
macro_rules! forms {
    (in_place $w:ident: $($chain:literal)*) => {
        vec![$(($chain, (|env: &mut Env, g: &mut StdRng| check(env, g, $chain, PhantomData::<$w>, |k, a, b, c, _, _| {
            let d = c.map(|r| r.bitcast());
            ptx!(k, $chain => d, a, b, d).map(|r| r.bitcast())
        })) as Check)),*]
    };
    (separate $w:ident: $($chain:literal)*) => {
        vec![$(($chain, (|env: &mut Env, g: &mut StdRng| check(env, g, $chain, PhantomData::<$w>, |k, a, b, c, _, _| {
            ptx!(k, $chain, a, b, c).map(|r| r.bitcast())
        })) as Check)),*]
    };
    (sparse $w:ident: $($chain:literal)*) => {
        vec![$(($chain, (|env: &mut Env, g: &mut StdRng| check(env, g, $chain, PhantomData::<$w>, |k, a, b, c, e, sel| {
            let d = c.map(|r| r.bitcast());
            ptx!(k, $chain => d, a, b, d, e[0], sel).map(|r| r.bitcast())
        })) as Check)),*]
    };
    (scaled $w:ident: $($chain:literal)*) => {
        vec![$(($chain, (|env: &mut Env, g: &mut StdRng| check(env, g, $chain, PhantomData::<$w>, |k, a, b, c, e, sel| {
            let d = c.map(|r| r.bitcast());
            let pair = |k: &mut Kernel, lo: u32, hi: u32| -> [Reg<U16>; 2] { [ptx!(k, "mov.u16", lo as u16), ptx!(k, "mov.u16", hi as u16)] };
            let (ids_a, ids_b) = (pair(k, sel & 0xFF, sel >> 8 & 0xFF), pair(k, sel >> 16 & 0xFF, sel >> 24));
            ptx!(k, $chain => d, a, b, d, e[0], ids_a, e[1], ids_b).map(|r| r.bitcast())
        })) as Check)),*]
    };
}
pub(super) use forms;

/// Runs every form of `forms` the GPU has; the failures of all of them are reported together.
fn run_all(gpu: Gpu, test: &str, forms: Vec<(&'static str, Check)>) {
    let t = target(&gpu);
    run_all_on(&gpu, t, test, forms);
}

/// [`run_all`] with the modules built for `t` (an architecture-specific target, say).
pub(super) fn run_all_on(gpu: &Gpu, t: Target, test: &str, forms: Vec<(&'static str, Check)>) {
    let mut g = rng(test);
    let (mut ran, mut absent, mut failed) = (0, vec![], vec![]);
    for (chain, check) in forms {
        if !Mma::parse(chain).desc().req().is_some_and(|r| r.allows(t)) {
            absent.push(chain);
            continue;
        }
        ran += 1;
        if let Err(e) = check(&mut Env::Gpu(gpu, t), &mut g) {
            failed.push(e);
        }
    }
    println!("{test}: {ran} forms checked on {t}; not on {t}: {absent:?}");
    if ran == 0 {
        skip(format!("none of the {} forms runs on {t}", absent.len()));
    }
    assert!(failed.is_empty(), "{test}: {} of {ran} forms differ from the CPU:\n{}", failed.len(), failed.join("\n"));
}

// ---- the tests -------------------------------------------------------------------------------

fn float_forms() -> Vec<(&'static str, Check)> {
    let mut v = forms!(in_place B32:
        "mma.sync.aligned.m8n8k4.row.row.f16.f16.f16.f16"
        "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16"
        "mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16"
        "mma.sync.aligned.m8n8k4.col.col.f16.f16.f16.f16"
        "mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f32"
        "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32"
        "mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32"
        "mma.sync.aligned.m8n8k4.col.col.f32.f16.f16.f32"
        "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16"
        "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
        "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32"
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
        "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32"
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
        "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32"
        "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e5m2.f32"
        "mma.sync.aligned.m16n8k16.row.col.f32.e5m2.e4m3.f32"
        "mma.sync.aligned.m16n8k16.row.col.f32.e5m2.e5m2.f32"
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32"
        "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32"
        "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32"
        "mma.sync.aligned.m16n8k16.row.col.f16.e4m3.e4m3.f16"
        "mma.sync.aligned.m16n8k16.row.col.f16.e4m3.e5m2.f16"
        "mma.sync.aligned.m16n8k16.row.col.f16.e5m2.e4m3.f16"
        "mma.sync.aligned.m16n8k16.row.col.f16.e5m2.e5m2.f16"
        "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16"
        "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16"
        "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e4m3.f16"
        "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16"
    );
    v.extend(forms!(in_place B64:
        "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"
        "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64"
        "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64"
        "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64"
    ));
    v.extend(forms!(separate B32:
        "mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f16"
        "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f16"
        "mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f16"
        "mma.sync.aligned.m8n8k4.col.col.f32.f16.f16.f16"
    ));
    v
}

fn integer_forms() -> Vec<(&'static str, Check)> {
    forms!(in_place B32:
        "mma.sync.aligned.m8n8k16.row.col.s32.u8.u8.s32"
        "mma.sync.aligned.m8n8k16.row.col.s32.u8.s8.s32"
        "mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32"
        "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32"
        "mma.sync.aligned.m8n8k16.row.col.satfinite.s32.u8.u8.s32"
        "mma.sync.aligned.m8n8k16.row.col.satfinite.s32.u8.s8.s32"
        "mma.sync.aligned.m8n8k16.row.col.satfinite.s32.s8.u8.s32"
        "mma.sync.aligned.m8n8k16.row.col.satfinite.s32.s8.s8.s32"
        "mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32"
        "mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32"
        "mma.sync.aligned.m16n8k16.row.col.s32.s8.u8.s32"
        "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32"
        "mma.sync.aligned.m16n8k16.row.col.satfinite.s32.u8.u8.s32"
        "mma.sync.aligned.m16n8k16.row.col.satfinite.s32.u8.s8.s32"
        "mma.sync.aligned.m16n8k16.row.col.satfinite.s32.s8.u8.s32"
        "mma.sync.aligned.m16n8k16.row.col.satfinite.s32.s8.s8.s32"
        "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32"
        "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32"
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32"
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"
        "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32"
        "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32"
        "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32"
        "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32"
        "mma.sync.aligned.m8n8k32.row.col.s32.u4.u4.s32"
        "mma.sync.aligned.m8n8k32.row.col.s32.u4.s4.s32"
        "mma.sync.aligned.m8n8k32.row.col.s32.s4.u4.s32"
        "mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32"
        "mma.sync.aligned.m8n8k32.row.col.satfinite.s32.u4.u4.s32"
        "mma.sync.aligned.m8n8k32.row.col.satfinite.s32.u4.s4.s32"
        "mma.sync.aligned.m8n8k32.row.col.satfinite.s32.s4.u4.s32"
        "mma.sync.aligned.m8n8k32.row.col.satfinite.s32.s4.s4.s32"
        "mma.sync.aligned.m16n8k32.row.col.s32.u4.u4.s32"
        "mma.sync.aligned.m16n8k32.row.col.s32.u4.s4.s32"
        "mma.sync.aligned.m16n8k32.row.col.s32.s4.u4.s32"
        "mma.sync.aligned.m16n8k32.row.col.s32.s4.s4.s32"
        "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u4.u4.s32"
        "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u4.s4.s32"
        "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s4.u4.s32"
        "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s4.s4.s32"
        "mma.sync.aligned.m16n8k64.row.col.s32.u4.u4.s32"
        "mma.sync.aligned.m16n8k64.row.col.s32.u4.s4.s32"
        "mma.sync.aligned.m16n8k64.row.col.s32.s4.u4.s32"
        "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32"
        "mma.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.u4.s32"
        "mma.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.s4.s32"
        "mma.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.u4.s32"
        "mma.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.s4.s32"
        "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc"
        "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc"
        "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc"
        "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.xor.popc"
        "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc"
        "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc"
    )
}

fn sparse_forms() -> Vec<(&'static str, Check)> {
    forms!(sparse B32:
        "mma.sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"
        "mma.sp.sync.aligned.m16n8k32.row.col.f16.f16.f16.f16"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f16.f16.f16.f16"
        "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
        "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32"
        "mma.sp.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
        "mma.sp.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32"
        "mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
        "mma.sp.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32"
        "mma.sp.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32"
        "mma.sp.sync.aligned.m16n8k64.row.col.f32.e4m3.e5m2.f32"
        "mma.sp.sync.aligned.m16n8k64.row.col.f32.e5m2.e4m3.f32"
        "mma.sp.sync.aligned.m16n8k64.row.col.f32.e5m2.e5m2.f32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e5m2.f32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e5m2.e4m3.f32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e5m2.e5m2.f32"
        "mma.sp.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32"
        "mma.sp.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32"
        "mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32"
        "mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"
        "mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32"
        "mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32"
        "mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32"
        "mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32"
        "mma.sp.sync.aligned.m16n8k64.row.col.s32.u8.u8.s32"
        "mma.sp.sync.aligned.m16n8k64.row.col.s32.u8.s8.s32"
        "mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.u8.s32"
        "mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32"
        "mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.u8.u8.s32"
        "mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.u8.s8.s32"
        "mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.s8.u8.s32"
        "mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.s8.s8.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.u8.u8.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.u8.s8.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s8.u8.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.u8.u8.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.u8.s8.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.s8.u8.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.s8.s8.s32"
        "mma.sp.sync.aligned.m16n8k64.row.col.s32.u4.u4.s32"
        "mma.sp.sync.aligned.m16n8k64.row.col.s32.u4.s4.s32"
        "mma.sp.sync.aligned.m16n8k64.row.col.s32.s4.u4.s32"
        "mma.sp.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32"
        "mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.u4.s32"
        "mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.s4.s32"
        "mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.u4.s32"
        "mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.s4.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.u4.u4.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.u4.s4.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s4.u4.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.u4.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.s4.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.u4.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.s4.s32"
        "mma.sp.sync.aligned.m16n8k128.row.col.s32.u4.u4.s32"
        "mma.sp.sync.aligned.m16n8k128.row.col.s32.u4.s4.s32"
        "mma.sp.sync.aligned.m16n8k128.row.col.s32.s4.u4.s32"
        "mma.sp.sync.aligned.m16n8k128.row.col.s32.s4.s4.s32"
        "mma.sp.sync.aligned.m16n8k128.row.col.satfinite.s32.u4.u4.s32"
        "mma.sp.sync.aligned.m16n8k128.row.col.satfinite.s32.u4.s4.s32"
        "mma.sp.sync.aligned.m16n8k128.row.col.satfinite.s32.s4.u4.s32"
        "mma.sp.sync.aligned.m16n8k128.row.col.satfinite.s32.s4.s4.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.s32.u4.u4.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.s32.u4.s4.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.s32.s4.u4.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.s32.s4.s4.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.satfinite.s32.u4.u4.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.satfinite.s32.u4.s4.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.satfinite.s32.s4.u4.s32"
        "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.satfinite.s32.s4.s4.s32"
    )
}

fn mma_float_forms(gpu: Gpu) {
    run_all(gpu, "mma_float_forms", float_forms());
}

fn mma_integer_and_b1_forms(gpu: Gpu) {
    run_all(gpu, "mma_integer_and_b1_forms", integer_forms());
}

fn mma_sparse_forms(gpu: Gpu) {
    run_all(gpu, "mma_sparse_forms", sparse_forms());
}

// ---- host-only checks of the layouts and the lists -------------------------------------------

/// Every element of a `tiles`×`rows`×`cols` operand is held by exactly one (lane, register,
/// element) of `nregs` registers of `e` elements.
fn covers_once(
    what: &str,
    (tiles, rows, cols): (usize, usize, usize),
    nregs: usize,
    e: usize,
    coords: impl Fn(usize, usize, usize) -> Coords,
) {
    let mut seen = vec![0u8; tiles * rows * cols];
    for lane in 0..32 {
        for r in 0..nregs {
            for j in 0..e {
                let (t, row, col) = coords(lane, r, j);
                assert!(t < tiles && row < rows && col < cols, "{what}: lane {lane} reg {r}.{j} -> ({t}, {row}, {col}) is outside");
                seen[at(t, row, col, rows, cols)] += 1;
            }
        }
    }
    assert!(seen.iter().all(|&n| n == 1), "{what}: the layout does not cover the tile once");
}

fn vec_len(k: &Kind) -> usize {
    match k {
        Kind::Vec(_, n) => *n as usize,
        other => panic!("{other:?} is not a fragment"),
    }
}

/// The forms that run on sm_90: all but sm_120a's `kind::` forms (FP4/FP6 and block scaling),
/// which ptxas checks (tests/ptxas_forms.rs) and no Hopper GPU can run.
pub(super) fn hopper_forms() -> impl Iterator<Item = &'static ptxkit::ops::FormDesc> {
    mma::forms().iter().filter(|f| !f.chain.contains(".kind::"))
}

fn fragment_layouts_match_the_table() {
    for desc in mma::forms().iter() {
        let f = Mma::parse(desc.chain);
        let (s, sa) = (f.shape, f.a_shape());
        let (na, nb, nc, nd) = f.counts();
        let dst = match desc.dst {
            ptxkit::ops::DstKind::Vec(_, n) => n as usize,
            other => panic!("{}: {other:?}", desc.chain),
        };
        let table = (vec_len(&desc.src[0]), vec_len(&desc.src[1]), vec_len(&desc.src[2]), dst);
        assert_eq!(table, (na, nb, nc, nd), "{}: registers per thread in the table and from the layouts", desc.chain);
        let (ea, eb, ec, ed) = (f.a.per_reg(), f.b.per_reg(), Mma::acc_per_reg(f.c), Mma::acc_per_reg(f.d));
        covers_once(desc.chain, (sa.tiles(), sa.m, sa.k), na, ea, |l, r, j| a_coords(sa, ea, l, r, j));
        covers_once(desc.chain, (s.tiles(), s.k, s.n), nb, eb, |l, r, j| b_coords(s, eb, l, r, j));
        covers_once(desc.chain, (s.tiles(), s.m, s.n), nc, ec, |l, r, j| c_coords(s, ec, l, r, j));
        covers_once(desc.chain, (s.tiles(), s.m, s.n), nd, ed, |l, r, j| c_coords(s, ed, l, r, j));
        if f.sparse {
            assert_eq!(f.selectors(), &f.expected_selectors()[..], "{}: sparsity selectors", desc.chain);
            // Each pair keeps half of every chunk, at distinct columns.
            for &p in f.pairs() {
                let mut cols: Vec<usize> = (0..sa.k).map(|c| f.sparse_col(c, p)).collect();
                cols.sort();
                cols.dedup();
                assert_eq!(cols.len(), sa.k, "{}: {p:?}", desc.chain);
                assert!(cols.iter().all(|&c| c < s.k));
            }
        }
    }
}

fn every_form_has_a_device_check() {
    let listed: std::collections::BTreeSet<&str> =
        float_forms().into_iter().chain(integer_forms()).chain(sparse_forms()).map(|(c, _)| c).collect();
    let table: std::collections::BTreeSet<&str> = hopper_forms().map(|f| f.chain).collect();
    assert_eq!(listed, table);
}

fn layouts_of_a_few_documented_elements() {
    // Spot values from the PTX ISA's fragment sections.
    let m16k16 = Shape { m: 16, n: 8, k: 16, quad: None };
    // f16 A: a4, a5 (register 2) at row groupID, columns threadID_in_group * 2 + 8 + (0, 1).
    assert_eq!(a_coords(m16k16, 2, 6, 2, 1), (0, 1, 2 * 2 + 8 + 1));
    // f64 m16n8k16 A: a3 at row groupID + 8, column threadID_in_group + 4.
    assert_eq!(a_coords(m16k16, 1, 5, 3, 0), (0, 9, 1 + 4));
    // u4 m16n8k64 B: b8..b15 at rows threadID_in_group * 8 + 32 + (i & 7).
    assert_eq!(b_coords(Shape { m: 16, n: 8, k: 64, quad: None }, 8, 7, 1, 3), (0, 3 * 8 + 32 + 3, 1));
    // C f32: c2, c3 at row groupID + 8.
    assert_eq!(c_coords(m16k16, 1, 9, 3, 0), (0, 2 + 8, 2 + 1));
    // m8n8k4 f32 C, lane 18 (high half, threadID_in_group 2), c5: row (2 & 1) + (5 & 2) + 4,
    // column (2 & 2) + (5 & 1) + (5 & 4).
    let quad = Shape { m: 8, n: 8, k: 4, quad: Some((Major::Row, Major::Col)) };
    assert_eq!(c_coords(quad, 1, 18, 5, 0), (0, 4, 2 + 1 + 4));
    // m8n8k4 column-major A, lane 21: row i + 4, column 1, quad-pair 1.
    assert_eq!(a_coords(Shape { quad: Some((Major::Col, Major::Col)), ..quad }, 2, 21, 1, 0), (1, 2 + 4, 1));
    // Block scaling (PTX ISA 9.7.14.3): every thread's scale words hold, in byte b of lane l,
    // the ue8m0 code 4l + b, so a scale's log2 + 127 names the thread and byte it came from.
    let lookup = |chain: &'static str, sel: u32, a: bool, idx: usize, kk: usize| -> (usize, usize) {
        let f = Mma::parse(chain);
        let words: Vec<u32> = (0..32u32).map(|l| (0..4).fold(0, |w, b| w | (4 * l + b) << (8 * b))).collect();
        let r = Round { a: vec![], b: vec![], c: vec![], pairs: vec![], scales: vec![[words.clone(), words]], sel };
        let code = (r.scale(&f, 0, a, idx, kk).log2() + 127.0) as usize;
        (code / 4, code % 4)
    };
    let mx = "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e2m1.e3m2.f32.ue8m0";
    // 1X, byte-id-a 2, thread-id-a 1: rows g and g + 8 from threads 4g + 2 and 4g + 3.
    let sel = 2 | 1 << 8 | 3 << 16 | 2 << 24;
    assert_eq!(lookup(mx, sel, true, 1, 5), (4 + 2, 2));
    assert_eq!(lookup(mx, sel, true, 9, 31), (4 + 3, 2));
    // thread-id-b 2, byte-id-b 3: column g from thread 4g + 2.
    assert_eq!(lookup(mx, sel, false, 5, 0), (22, 3));
    // 2X: byte-id 2 selects bytes 2 (K 0-31) and 3 (K 32-63).
    let f4 = "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0";
    let sel = 2 | 2 << 16 | 3 << 24;
    assert_eq!((lookup(f4, sel, true, 3, 31), lookup(f4, sel, true, 3, 32)), ((12, 2), (12, 3)));
    assert_eq!(lookup(f4, sel, false, 7, 63), (31, 3));
    assert_eq!(Mma::parse(f4).scale, Some(Scale { vec: 2, ue4m3: false }));
    let nv = "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3";
    assert_eq!(Mma::parse(nv).scale, Some(Scale { vec: 4, ue4m3: true }));
    assert_eq!((Mma::parse(nv).a, Mma::parse(mx).a, Mma::parse(mx).b), (El::Fp4, El::E2m1, El::E3m2));
    // Containers: e2m1 in bits 2-5, e3m2 and e2m3 in bits 0-5.
    let values = [El::E2m1.value(0b0000_1000), El::E2m1.value(0b0000_0011), El::E3m2.value(0b0000_1100), El::E2m3.value(0b0000_1100)];
    assert_eq!(values, [1.0, 0.0, 1.0, 1.5]);
}

fn host_side_round_trips_through_a_cpu_model() {
    let mut g = rng("host_side_round_trips_through_a_cpu_model");
    let failed: Vec<String> = float_forms()
        .into_iter()
        .chain(integer_forms())
        .chain(sparse_forms())
        .filter_map(|(_, check)| check(&mut Env::Cpu, &mut g).err())
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

fn every_device_kernel_assembles() {
    let px = ptxas("every_device_kernel_assembles");
    let mut g = rng("every_device_kernel_assembles");
    let mut m = Module::new(Target::SM_90);
    let mut built = 0;
    for (chain, check) in float_forms().into_iter().chain(integer_forms()).chain(sparse_forms()) {
        if Mma::parse(chain).desc().req().is_some_and(|r| r.allows(Target::SM_90)) {
            check(&mut Env::Build(&mut m), &mut g).unwrap_or_else(|e| panic!("{chain}: {e}"));
            built += 1;
        }
    }
    let text = m.to_ptx().unwrap();
    // ptxas advises `.sp::ordered_metadata` over plain `.sp` on every plain sparse form.
    let said = ptxkit::ptxas::check(&px, &text, m.target(), ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("{e}"));
    let advice = "should be used on instruction 'mma' instead of modifier '.sp'";
    let other: Vec<&String> = said.iter().filter(|w| !w.contains(advice)).collect();
    assert!(other.is_empty(), "ptxas: {other:?}");
    assert_eq!(said.len(), sparse_forms().iter().filter(|(c, _)| c.starts_with("mma.sp.")).count());
    assert_eq!(text.matches("\tmma.").count(), built);
    println!("{built} kernels assembled for sm_90");
}

pub const TESTS: &[Test] = &[
    gpu!(mma_float_forms),
    gpu!(mma_integer_and_b1_forms),
    gpu!(mma_sparse_forms),
    host!(fragment_layouts_match_the_table),
    host!(every_form_has_a_device_check),
    host!(layouts_of_a_few_documented_elements),
    host!(host_side_round_trips_through_a_cpu_model),
    host!(every_device_kernel_assembles),
];
