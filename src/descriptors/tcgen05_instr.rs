//! tcgen05.mma instruction descriptors: the 32-bit `idesc` operand, built from typed
//! parameters and checked against the shapes and combinations the PTX ISA lists.
//!
//! Field tables (PTX ISA 9.0, section 9.7.16.4.2 "Instruction descriptor",
//! <https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instruction-descriptor>),
//! for `kind::f16`, `kind::tf32`, `kind::f8f6f4` and `kind::i8` (table 42):
//!
//! | bits  | field                                                           |
//! |-------|-----------------------------------------------------------------|
//! | 0–1   | sparsity selector (when sparse)                                 |
//! | 2     | sparse                                                          |
//! | 3     | saturate (`kind::i8` only)                                      |
//! | 4–5   | D type: F16 0, F32 1, S32 2                                     |
//! | 7–9   | A type: F16 0, BF16 1, TF32 2; E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5; U8 0, S8 1 |
//! | 10–12 | B type, same codes                                              |
//! | 13, 14| negate A, negate B (not `kind::i8`)                             |
//! | 15, 16| transpose A, transpose B (1 = MN-major)                         |
//! | 17–22 | N >> 3                                                          |
//! | 24–28 | M >> 4                                                          |
//! | 30–31 | maximum shift of B reuse in `.ws`: none 0, 8 1, 16 2, 32 3      |
//!
//! and for the block-scaled kinds `kind::mxf8f6f4`, `kind::mxf4`, `kind::mxf4nvf4` (the two
//! tables that follow table 42; numbered 46 and 47 in the later edition read alongside):
//!
//! | bits  | field                                                           |
//! |-------|-----------------------------------------------------------------|
//! | 2     | sparse (bits 0–1 and 3 reserved)                                |
//! | 4–5   | scale factor B ID                                               |
//! | 7–9   | A type: E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5; `mxf4*`: E2M1 1 |
//! | 10–12 | B type, same codes (`mxf4*`: bits 10–11)                        |
//! | 13–16 | negate A, negate B, transpose A, transpose B (`mxf4*`: no transpose) |
//! | 17–22 | N >> 3                                                          |
//! | 23    | scale type: UE4M3 0, UE8M0 1                                    |
//! | 27–28 | M >> 7 (bits 24–26 reserved)                                    |
//! | 29–30 | scale factor A ID                                               |
//! | 31    | `mxf4*`: K = 96 (dense) instead of 64 (128 sparse); reserved for `mxf8f6f4` |
//!
//! Reserved bits are 0. Shapes follow the ISA's "Matrix Shape" table (9.7.16.2.1, table
//! 39), scale-factor IDs its "Block Scaling" sections (9.7.16.10.7: the ID picks a byte,
//! 0–3, for `scale_vec::1X` and for block32 with K = 96; a half word, 0 or 2, for
//! `scale_vec::2X` and for block16 with K = 96; and must be 0 for `scale_vec::4X`).
//!
//! Cross-checked against CUTLASS's `UMMA::InstrDescriptor` and
//! `UMMA::InstrDescriptorBlockScaled` (NVIDIA/cutlass include/cute/arch/mma_sm100_desc.hpp),
//! whose bitfields place every field as above. Where they differ:
//! - CUTLASS keeps a 2-bit sparsity selector in bits 0–1 of the block-scaled descriptor too;
//!   the ISA marks those bits reserved. Here a block-scaled selector must be 0.
//! - CUTLASS holds M >> 4 in bits 24–28 for the block-scaled kinds too; for their M (128,
//!   256) that is the same bits as the ISA's M >> 7 in 27–28.
//! - CUTLASS notes that only E4M3, E5M2, INT8, F16, BF16 and TF32 operands may be MN-major;
//!   the ISA tables do not say so for `kind::f8f6f4`/`mxf8f6f4`. Here a 6- or 4-bit operand
//!   must be K-major (the stricter rule).
//! - One rendering of the 9.0 table gives `kind::f8f6f4` only an F32 D type, while the shape
//!   table and another rendering of the descriptor table (as CUTLASS) also allow F16; F16 is
//!   accepted here.
//! - The ISA lists f16 and bf16 as the A/B types of `kind::f16` without saying whether they
//!   mix; CUTLASS checks only that both are 16-bit. Here one type serves both operands,
//!   the pairs that `mma` and `wgmma` allow (s8 and u8 of `kind::i8`, and the f8f6f4
//!   types, mix freely as CUTLASS's separate A and B types have them).
//! - For `kind::f8f6f4` with `.cta_group::1` the 9.0 shape table gives N = 8..256 in steps
//!   of 8, while a later edition reads "steps of 8 OR steps of 16" without saying when
//!   which; steps of 8 are accepted here.
//! - The `mxf4*` descriptor table says "0 or 2" for the scale-factor IDs, while the layout
//!   section of block32 with K = 96 selects any of the four bytes; the latter is followed.
//!
//! Two rules depend on the shared-memory descriptor, not on this one: a transposed tf32
//! operand needs [`Tcgen05Swizzle::B128Atom32`](super::Tcgen05Swizzle::B128Atom32) and a
//! transposed operand of any other kind must not use it; see [`MmaParams::operand_layout_ok`].

use super::error::DescError;
use super::operand::Major;
use std::fmt;

pub use super::tcgen05_params::{
    F16Type, F8f6f4Type, FloatAccum, Fp4K, Fp4Scale, I8Type, KindTag, MaxShift, MmaIssue, MmaKind, MmaParams, Sparsity,
};

macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Err(e),
        }
    };
}

/// A `tcgen05.mma` instruction descriptor, held as its 32 bits; every value comes from
/// checked [`MmaParams`].
///
/// ```
/// use ptxkit::descriptors::{F16Type, FloatAccum, InstrDesc, KindTag, MmaIssue, MmaKind, MmaParams};
/// // bf16 x bf16 -> f32, 128 x 256, one CTA, both operands K-major.
/// let p = MmaParams::new(MmaKind::F16 { ab: F16Type::Bf16, d: FloatAccum::F32 }, MmaIssue::Cta1, 128, 256);
/// let d = InstrDesc::new(&p)?;
/// // D f32 1 << 4 | A bf16 1 << 7 | B bf16 1 << 10 | N >> 3 = 32 << 17 | M >> 4 = 8 << 24
/// assert_eq!(d.bits(), 0x0840_0490);
/// assert_eq!(InstrDesc::decode(d.bits(), KindTag::F16, MmaIssue::Cta1)?, p);
/// println!("{d}: {p}");
/// // N = 260 is not a shape of kind::f16.
/// assert!(InstrDesc::new(&MmaParams { n: 260, ..p }).is_err());
/// # Ok::<(), ptxkit::descriptors::DescError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct InstrDesc(u32);

const fn value_err(field: &'static str, value: u8, legal: &'static str) -> DescError {
    DescError::Value { field, value: value as u64, legal }
}

const fn unsupported(kind: KindTag, what: &'static str) -> DescError {
    DescError::Unsupported { kind: kind.name(), what }
}

/// `n` in `lo..=hi` and a multiple of `step`.
const fn stepped(n: u32, lo: u32, hi: u32, step: u32) -> bool {
    n >= lo && n <= hi && n.is_multiple_of(step)
}

/// The ISA's shape table (9.7.16.2.1, table 39).
const fn check_shape(p: &MmaParams) -> Result<(), DescError> {
    let tag = p.kind.tag();
    let sparse = matches!(p.sparsity, Sparsity::Sparse { .. });
    let (m, n) = (p.m, p.n);
    let (ok, legal) = if tag.is_block_scaled() {
        match p.issue {
            MmaIssue::Ws => return Err(unsupported(tag, "block-scaled kinds have no .ws form")),
            MmaIssue::Cta1 => (m == 128 && stepped(n, 8, 256, 8), "M = 128, N = 8..256 in steps of 8"),
            MmaIssue::Cta2 if sparse => (m == 256 && stepped(n, 16, 256, 16), "sparse: M = 256, N = 16..256 in steps of 16"),
            MmaIssue::Cta2 => ((m == 128 || m == 256) && stepped(n, 16, 256, 16), "M = 128 or 256, N = 16..256 in steps of 16"),
        }
    } else {
        let i8 = matches!(tag, KindTag::I8);
        match p.issue {
            MmaIssue::Ws if sparse => ((m == 32 || m == 64 || m == 128) && (n == 64 || n == 128), "M = 32, 64 or 128, N = 64 or 128"),
            MmaIssue::Ws => {
                ((m == 32 || m == 64 || m == 128) && (n == 64 || n == 128 || n == 256), "M = 32, 64 or 128, N = 64, 128 or 256")
            }
            MmaIssue::Cta1 if i8 => (
                (m == 64 || m == 128) && (stepped(n, 8, 32, 8) || stepped(n, 48, 256, 16)),
                "M = 64 or 128, N = 8, 16, 24, 32, then 48..256 in steps of 16",
            ),
            MmaIssue::Cta1 => ((m == 64 || m == 128) && stepped(n, 8, 256, 8), "M = 64 or 128, N = 8..256 in steps of 8"),
            MmaIssue::Cta2 if i8 => ((m == 128 || m == 256) && stepped(n, 32, 256, 32), "M = 128 or 256, N = 32..256 in steps of 32"),
            MmaIssue::Cta2 => ((m == 128 || m == 256) && stepped(n, 16, 256, 16), "M = 128 or 256, N = 16..256 in steps of 16"),
        }
    };
    if !ok {
        return Err(DescError::Shape { kind: tag.name(), issue: p.issue.name(), m, n, legal });
    }
    Ok(())
}

/// Scale-factor IDs by scale vector and K (ISA 9.7.16.10.7.2/3).
const fn check_sf_ids(k: Fp4K, block16: bool, sfa: u8, sfb: u8) -> Result<(), DescError> {
    let (ok_a, ok_b, legal) = match (k, block16) {
        (Fp4K::K64, false) => (sfa == 0 || sfa == 2, sfb == 0 || sfb == 2, "block32 with K = 64 selects a half word: 0 or 2"),
        (Fp4K::K64, true) => (sfa == 0, sfb == 0, "block16 with K = 64 uses the whole word: 0"),
        (Fp4K::K96, false) => (sfa <= 3, sfb <= 3, "block32 with K = 96 selects a byte: 0 to 3"),
        (Fp4K::K96, true) => (sfa == 0 || sfa == 2, sfb == 0 || sfb == 2, "block16 with K = 96 selects a half word: 0 or 2"),
    };
    if !ok_a {
        return Err(value_err("scale factor A ID", sfa, legal));
    }
    if !ok_b {
        return Err(value_err("scale factor B ID", sfb, legal));
    }
    Ok(())
}

/// Whether an operand of this kind and type may be MN-major.
const fn transposable(kind: &MmaKind, a: bool) -> bool {
    match *kind {
        MmaKind::F8f6f4 { a: ta, b: tb, .. } | MmaKind::Mxf8f6f4 { a: ta, b: tb, .. } => {
            matches!(if a { ta } else { tb }, F8f6f4Type::E4m3 | F8f6f4Type::E5m2)
        }
        MmaKind::Mxf4 { .. } | MmaKind::Mxf4nvf4 { .. } => false,
        _ => true,
    }
}

const fn f8_code(t: F8f6f4Type) -> u32 {
    match t {
        F8f6f4Type::E4m3 => 0,
        F8f6f4Type::E5m2 => 1,
        F8f6f4Type::E2m3 => 3,
        F8f6f4Type::E3m2 => 4,
        F8f6f4Type::E2m1 => 5,
    }
}

const fn f8_type(code: u32) -> Option<F8f6f4Type> {
    match code {
        0 => Some(F8f6f4Type::E4m3),
        1 => Some(F8f6f4Type::E5m2),
        3 => Some(F8f6f4Type::E2m3),
        4 => Some(F8f6f4Type::E3m2),
        5 => Some(F8f6f4Type::E2m1),
        _ => None,
    }
}

const fn accum_code(d: FloatAccum) -> u32 {
    match d {
        FloatAccum::F16 => 0,
        FloatAccum::F32 => 1,
    }
}

impl MmaParams {
    /// The descriptor, checked: see [`InstrDesc::new`].
    pub const fn encode(&self) -> Result<InstrDesc, DescError> {
        InstrDesc::new(self)
    }
}

impl InstrDesc {
    /// Packs `p` after checking it: the shape against the kind and issue form; f16
    /// accumulation only of f16 inputs; no negation for `kind::i8`; MN-major operands only
    /// for 8-bit-or-wider types (not the 6- and 4-bit ones, and never for `mxf4*`); a
    /// sparsity selector of 0–3 (0 for block-scaled kinds); a max shift only with `.ws`;
    /// K = 96 only dense with `.cta_group::2` and M = 256; scale-factor IDs as the scale
    /// vector allows.
    pub const fn new(p: &MmaParams) -> Result<InstrDesc, DescError> {
        let tag = p.kind.tag();
        tri!(check_shape(p));
        let (selector, sparse) = match p.sparsity {
            Sparsity::Dense => (0, 0),
            Sparsity::Sparse { selector } => (selector, 1),
        };
        if tag.is_block_scaled() && selector != 0 {
            return Err(value_err("sparsity selector", selector, "bits 0-1 are reserved in block-scaled descriptors: 0"));
        }
        if selector > 3 {
            return Err(DescError::OutOfRange { field: "sparsity selector", value: selector as u64, max: 3 });
        }
        if !matches!(p.max_shift, MaxShift::None) && !matches!(p.issue, MmaIssue::Ws) {
            return Err(unsupported(tag, "a B-reuse max shift needs the .ws form"));
        }
        if matches!(tag, KindTag::I8) && (p.negate_a || p.negate_b) {
            return Err(unsupported(tag, "integer operands cannot be negated"));
        }
        if matches!(p.major_a, Major::MN) && !transposable(&p.kind, true) {
            return Err(unsupported(tag, "A of this type must be K-major (only 8-bit and wider types transpose)"));
        }
        if matches!(p.major_b, Major::MN) && !transposable(&p.kind, false) {
            return Err(unsupported(tag, "B of this type must be K-major (only 8-bit and wider types transpose)"));
        }
        let mut bits = selector as u32 | sparse << 2;
        bits |= (p.negate_a as u32) << 13 | (p.negate_b as u32) << 14;
        bits |= (matches!(p.major_a, Major::MN) as u32) << 15 | (matches!(p.major_b, Major::MN) as u32) << 16;
        bits |= (p.n >> 3) << 17;
        // non-block-scaled: (saturate, D, A, B); block-scaled: (SF A ID, SF B ID, A, B, UE8M0, K96)
        let plain = match p.kind {
            MmaKind::F16 { ab, d } => {
                if matches!((ab, d), (F16Type::Bf16, FloatAccum::F16)) {
                    return Err(unsupported(tag, "bf16 inputs accumulate in f32 only"));
                }
                let t = match ab {
                    F16Type::F16 => 0,
                    F16Type::Bf16 => 1,
                };
                Some((0, accum_code(d), t, t))
            }
            MmaKind::Tf32 => Some((0, 1, 2, 2)),
            MmaKind::F8f6f4 { a, b, d } => Some((0, accum_code(d), f8_code(a), f8_code(b))),
            MmaKind::I8 { a, b, saturate } => Some((saturate as u32, 2, matches!(a, I8Type::S8) as u32, matches!(b, I8Type::S8) as u32)),
            _ => None,
        };
        if let Some((sat, d, a, b)) = plain {
            let shift = match p.max_shift {
                MaxShift::None => 0,
                MaxShift::By8 => 1,
                MaxShift::By16 => 2,
                MaxShift::By32 => 3,
            };
            bits |= sat << 3 | d << 4 | a << 7 | b << 10 | (p.m >> 4) << 24 | shift << 30;
            return Ok(InstrDesc(bits));
        }
        let (sfa, sfb, a, b, ue8m0, k96) = match p.kind {
            MmaKind::Mxf8f6f4 { a, b, sfa_id, sfb_id } => {
                if sfa_id > 3 {
                    return Err(value_err("scale factor A ID", sfa_id, "scale_vec::1X selects a byte: 0 to 3"));
                }
                if sfb_id > 3 {
                    return Err(value_err("scale factor B ID", sfb_id, "scale_vec::1X selects a byte: 0 to 3"));
                }
                (sfa_id, sfb_id, f8_code(a), f8_code(b), true, false)
            }
            MmaKind::Mxf4 { k, sfa_id, sfb_id } => (sfa_id, sfb_id, 1, 1, true, matches!(k, Fp4K::K96)),
            MmaKind::Mxf4nvf4 { scale, k, sfa_id, sfb_id } => {
                (sfa_id, sfb_id, 1, 1, !matches!(scale, Fp4Scale::Ue4m3Block16), matches!(k, Fp4K::K96))
            }
            _ => (0, 0, 0, 0, false, false), // unreachable: the plain kinds returned above
        };
        if let MmaKind::Mxf4 { k, .. } | MmaKind::Mxf4nvf4 { k, .. } = p.kind {
            let block16 = matches!(p.kind, MmaKind::Mxf4nvf4 { scale: Fp4Scale::Ue8m0Block16 | Fp4Scale::Ue4m3Block16, .. });
            tri!(check_sf_ids(k, block16, sfa, sfb));
            if k96 && (sparse == 1 || !matches!(p.issue, MmaIssue::Cta2) || p.m != 256) {
                return Err(unsupported(tag, "K = 96 is dense .cta_group::2 with M = 256 only"));
            }
        }
        bits |= (sfb as u32) << 4 | a << 7 | b << 10 | (ue8m0 as u32) << 23 | (p.m >> 7) << 27 | (sfa as u32) << 29 | (k96 as u32) << 31;
        Ok(InstrDesc(bits))
    }

    /// The 32 bits, as the `idesc` operand of `tcgen05.mma` takes them.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// M as encoded (bits 24–28 times 16; for block-scaled kinds bits 24–26 are 0, so this
    /// is bits 27–28 times 128).
    pub const fn m(self) -> u32 {
        ((self.0 >> 24) & 0x1F) << 4
    }

    /// N as encoded: bits 17–22 times 8.
    pub const fn n(self) -> u32 {
        ((self.0 >> 17) & 0x3F) << 3
    }

    /// The parameters that `bits` encode for `kind` issued as `issue`, which the bits do not
    /// hold. For `kind::mxf4nvf4` with UE8M0 scales the block size is not in the bits either
    /// and is read as [`Fp4Scale::Ue8m0Block32`]. Errors when a reserved bit is set, a field holds a code that names nothing, or
    /// the fields decode to parameters that [`new`](Self::new) refuses.
    pub fn decode(bits: u32, kind: KindTag, issue: MmaIssue) -> Result<MmaParams, DescError> {
        let field = |at: u32, width: u32| (bits >> at) & ((1 << width) - 1);
        let bad = |name: &'static str, v: u32| DescError::Encoding { field: name, value: v as u64 };
        let reserved: u32 = match kind {
            k if !k.is_block_scaled() => 1 << 6 | 1 << 23 | 1 << 29,
            KindTag::Mxf8f6f4 => 0x3 | 1 << 3 | 1 << 6 | 0x7 << 24 | 1 << 31,
            _ => 0x3 | 1 << 3 | 1 << 6 | 1 << 12 | 0x7 << 24,
        };
        if bits & reserved != 0 {
            return Err(bad("reserved bits", bits & reserved));
        }
        let sparsity = match (field(2, 1), field(0, 2)) {
            (0, 0) => Sparsity::Dense,
            (0, sel) => return Err(bad("sparsity selector of a dense mma (bits 0-1)", sel)),
            (_, sel) => Sparsity::Sparse { selector: sel as u8 },
        };
        let major = |bit: u32| if field(bit, 1) == 1 { Major::MN } else { Major::K };
        let (a, b, d) = (field(7, 3), field(10, 3), field(4, 2));
        let accum = |d: u32| match d {
            0 => Ok(FloatAccum::F16),
            1 => Ok(FloatAccum::F32),
            _ => Err(bad("D type (bits 4-5)", d)),
        };
        let f8 = |c: u32, name| f8_type(c).ok_or(bad(name, c));
        let no_sat = |k| if field(3, 1) == 1 && k != KindTag::I8 { Err(bad("saturate (bit 3)", 1)) } else { Ok(()) };
        let fp4 = || {
            if a != 1 || b != 1 {
                Err(bad("A/B type of an fp4 kind (e2m1 = 1)", a << 3 | b))
            } else {
                Ok(if field(31, 1) == 1 { Fp4K::K96 } else { Fp4K::K64 })
            }
        };
        let (sfa_id, sfb_id) = (field(29, 2) as u8, field(4, 2) as u8);
        let mma_kind = match kind {
            KindTag::F16 => {
                no_sat(kind)?;
                let ab = match (a, b) {
                    (0, 0) => F16Type::F16,
                    (1, 1) => F16Type::Bf16,
                    _ => return Err(bad("A/B type of kind::f16 (both 0 or both 1)", a << 3 | b)),
                };
                MmaKind::F16 { ab, d: accum(d)? }
            }
            KindTag::Tf32 => {
                no_sat(kind)?;
                if (a, b, d) != (2, 2, 1) {
                    return Err(bad("A/B/D type of kind::tf32 (2, 2, 1)", a << 5 | b << 2 | d));
                }
                MmaKind::Tf32
            }
            KindTag::F8f6f4 => {
                no_sat(kind)?;
                MmaKind::F8f6f4 { a: f8(a, "A type (bits 7-9)")?, b: f8(b, "B type (bits 10-12)")?, d: accum(d)? }
            }
            KindTag::I8 => {
                let t = |c: u32, name| match c {
                    0 => Ok(I8Type::U8),
                    1 => Ok(I8Type::S8),
                    _ => Err(bad(name, c)),
                };
                if d != 2 {
                    return Err(bad("D type of kind::i8 (s32 = 2)", d));
                }
                MmaKind::I8 { a: t(a, "A type (bits 7-9)")?, b: t(b, "B type (bits 10-12)")?, saturate: field(3, 1) == 1 }
            }
            KindTag::Mxf8f6f4 => {
                if field(23, 1) != 1 {
                    return Err(bad("scale type of kind::mxf8f6f4 (ue8m0 = 1)", 0));
                }
                MmaKind::Mxf8f6f4 { a: f8(a, "A type (bits 7-9)")?, b: f8(b, "B type (bits 10-12)")?, sfa_id, sfb_id }
            }
            KindTag::Mxf4 => {
                if field(23, 1) != 1 {
                    return Err(bad("scale type of kind::mxf4 (ue8m0 = 1)", 0));
                }
                MmaKind::Mxf4 { k: fp4()?, sfa_id, sfb_id }
            }
            KindTag::Mxf4nvf4 => {
                let k = fp4()?;
                // The descriptor holds the scale type, not the block size (the instruction's
                // .scale_vec/.blockN qualifier): UE4M3 means block16, and UE8M0 is read as
                // block32, whose scale-factor IDs include every ID block16 allows.
                let scale = if field(23, 1) == 1 { Fp4Scale::Ue8m0Block32 } else { Fp4Scale::Ue4m3Block16 };
                MmaKind::Mxf4nvf4 { scale, k, sfa_id, sfb_id }
            }
        };
        let (m, max_shift) = if kind.is_block_scaled() {
            (field(27, 2) << 7, MaxShift::None)
        } else {
            (field(24, 5) << 4, [MaxShift::None, MaxShift::By8, MaxShift::By16, MaxShift::By32][field(30, 2) as usize])
        };
        let p = MmaParams {
            kind: mma_kind,
            issue,
            m,
            n: field(17, 6) << 3,
            sparsity,
            negate_a: field(13, 1) == 1,
            negate_b: field(14, 1) == 1,
            major_a: major(15),
            major_b: major(16),
            max_shift,
        };
        let again = InstrDesc::new(&p)?;
        if again.0 != bits {
            return Err(bad("descriptor (re-encodes differently)", bits));
        }
        Ok(p)
    }
}

impl fmt::Debug for InstrDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "InstrDesc({:#010x})", self.0)
    }
}

impl fmt::Display for InstrDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#010x} (M {}, N {})", self.0, self.m(), self.n())
    }
}

impl fmt::Display for MmaParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tcgen05.mma{} m{}n{}k{} {}", self.issue.name(), self.m, self.n, self.k(), self.kind)?;
        if let Sparsity::Sparse { selector } = self.sparsity {
            write!(f, ", sparse (selector {selector})")?;
        }
        if self.negate_a || self.negate_b {
            write!(f, ", negate{}{}", if self.negate_a { " A" } else { "" }, if self.negate_b { " B" } else { "" })?;
        }
        write!(f, ", A {}, B {}", self.major_a, self.major_b)?;
        if !matches!(self.max_shift, MaxShift::None) {
            let by = match self.max_shift {
                MaxShift::By8 => 8,
                MaxShift::By16 => 16,
                _ => 32,
            };
            write!(f, ", max shift {by}")?;
        }
        Ok(())
    }
}
