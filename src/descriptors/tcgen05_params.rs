//! The typed parameters of a tcgen05.mma instruction descriptor: the issue form, the kind
//! with its operand types, sparsity, and [`MmaParams`] that gathers them.

use super::operand::Major;
use super::tcgen05::Tcgen05Swizzle;
use std::fmt;

/// How a `tcgen05.mma` is issued: one CTA, a CTA pair, or the weight-stationary `.ws`
/// form (which is `.cta_group::1` only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaIssue {
    /// `.cta_group::1`.
    Cta1,
    /// `.cta_group::2`: M spans the CTA pair.
    Cta2,
    /// `tcgen05.mma.ws` (`.cta_group::1`).
    Ws,
}

impl MmaIssue {
    /// The qualifier as PTX writes it.
    pub const fn name(self) -> &'static str {
        match self {
            MmaIssue::Cta1 => ".cta_group::1",
            MmaIssue::Cta2 => ".cta_group::2",
            MmaIssue::Ws => ".ws.cta_group::1",
        }
    }
}

/// A and B type of `kind::f16` (both operands have the same one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum F16Type {
    /// `.f16` (code 0).
    F16,
    /// `.bf16` (code 1).
    Bf16,
}

/// The floating-point accumulator of `kind::f16` and `kind::f8f6f4`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatAccum {
    /// `.f16` (code 0).
    F16,
    /// `.f32` (code 1).
    F32,
}

/// An A or B type of `kind::f8f6f4` and `kind::mxf8f6f4`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum F8f6f4Type {
    /// 8-bit `e4m3` (code 0).
    E4m3,
    /// 8-bit `e5m2` (code 1).
    E5m2,
    /// 6-bit `e2m3` (code 3).
    E2m3,
    /// 6-bit `e3m2` (code 4).
    E3m2,
    /// 4-bit `e2m1` (code 5).
    E2m1,
}

/// An A or B type of `kind::i8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum I8Type {
    /// Unsigned 8-bit (code 0).
    U8,
    /// Signed 8-bit (code 1).
    S8,
}

/// Scale type and vector size of `kind::mxf4nvf4` (ISA table "Valid combinations of
/// scale_vectorsize with types": UE4M3 scales come only in blocks of 16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fp4Scale {
    /// `.ue8m0` scales, one per 32 elements (`.block32`, `scale_vec::2X`).
    Ue8m0Block32,
    /// `.ue8m0` scales, one per 16 elements (`.block16`, `scale_vec::4X`).
    Ue8m0Block16,
    /// `.ue4m3` scales, one per 16 elements (`.block16`, `scale_vec::4X`): NVFP4.
    Ue4m3Block16,
}

/// The K of a `kind::mxf4`/`mxf4nvf4` instruction (descriptor bit 31).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fp4K {
    /// K = 64 dense, 128 sparse (bit 31 = 0).
    K64,
    /// K = 96, dense `.cta_group::2` with M = 256 only (bit 31 = 1).
    K96,
}

/// The kind of a `tcgen05.mma` with its operand types, accumulator and kind-specific
/// fields. Each kind has its own type enum, so a type that a kind does not take cannot
/// be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaKind {
    /// `kind::f16`: f16 or bf16 inputs; f16 accumulates f16 inputs only.
    F16 {
        /// A and B type.
        ab: F16Type,
        /// D type.
        d: FloatAccum,
    },
    /// `kind::tf32`: tf32 inputs, f32 accumulator.
    Tf32,
    /// `kind::f8f6f4`: 8-, 6- and 4-bit float inputs, A and B independently.
    F8f6f4 {
        /// A type.
        a: F8f6f4Type,
        /// B type.
        b: F8f6f4Type,
        /// D type.
        d: FloatAccum,
    },
    /// `kind::i8`: s8/u8 inputs, s32 accumulator.
    I8 {
        /// A type.
        a: I8Type,
        /// B type.
        b: I8Type,
        /// Saturate the s32 result (bit 3).
        saturate: bool,
    },
    /// `kind::mxf8f6f4.block_scale` (`scale_vec::1X`, ue8m0 scales per 32 elements), f32
    /// accumulator. Scale-factor IDs 0–3 pick a byte of the tensor-memory word.
    Mxf8f6f4 {
        /// A type.
        a: F8f6f4Type,
        /// B type.
        b: F8f6f4Type,
        /// Scale factor A ID.
        sfa_id: u8,
        /// Scale factor B ID.
        sfb_id: u8,
    },
    /// `kind::mxf4.block_scale`: e2m1 inputs, ue8m0 scales per 32 elements, f32 accumulator.
    Mxf4 {
        /// The instruction's K.
        k: Fp4K,
        /// Scale factor A ID: 0 or 2 for K = 64, 0–3 for K = 96.
        sfa_id: u8,
        /// Scale factor B ID, as A's.
        sfb_id: u8,
    },
    /// `kind::mxf4nvf4.block_scale`: e2m1 inputs, f32 accumulator.
    Mxf4nvf4 {
        /// Scale type and block size.
        scale: Fp4Scale,
        /// The instruction's K.
        k: Fp4K,
        /// Scale factor A ID: as `Mxf4` for block32; 0 (K = 64) or 0/2 (K = 96) for block16.
        sfa_id: u8,
        /// Scale factor B ID, as A's.
        sfb_id: u8,
    },
}

/// The kind alone, without its fields: what [`InstrDesc::decode`](super::InstrDesc::decode) needs besides the bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KindTag {
    /// `kind::f16`.
    F16,
    /// `kind::tf32`.
    Tf32,
    /// `kind::f8f6f4`.
    F8f6f4,
    /// `kind::i8`.
    I8,
    /// `kind::mxf8f6f4`.
    Mxf8f6f4,
    /// `kind::mxf4`.
    Mxf4,
    /// `kind::mxf4nvf4`.
    Mxf4nvf4,
}

impl KindTag {
    /// Every kind.
    pub const ALL: [KindTag; 7] =
        [KindTag::F16, KindTag::Tf32, KindTag::F8f6f4, KindTag::I8, KindTag::Mxf8f6f4, KindTag::Mxf4, KindTag::Mxf4nvf4];

    /// The qualifier as PTX writes it, e.g. `kind::f16`.
    pub const fn name(self) -> &'static str {
        match self {
            KindTag::F16 => "kind::f16",
            KindTag::Tf32 => "kind::tf32",
            KindTag::F8f6f4 => "kind::f8f6f4",
            KindTag::I8 => "kind::i8",
            KindTag::Mxf8f6f4 => "kind::mxf8f6f4",
            KindTag::Mxf4 => "kind::mxf4",
            KindTag::Mxf4nvf4 => "kind::mxf4nvf4",
        }
    }

    /// Whether the kind scales A and B by blocks (the second descriptor layout).
    pub const fn is_block_scaled(self) -> bool {
        matches!(self, KindTag::Mxf8f6f4 | KindTag::Mxf4 | KindTag::Mxf4nvf4)
    }
}

impl MmaKind {
    /// The kind without its fields.
    pub const fn tag(&self) -> KindTag {
        match self {
            MmaKind::F16 { .. } => KindTag::F16,
            MmaKind::Tf32 => KindTag::Tf32,
            MmaKind::F8f6f4 { .. } => KindTag::F8f6f4,
            MmaKind::I8 { .. } => KindTag::I8,
            MmaKind::Mxf8f6f4 { .. } => KindTag::Mxf8f6f4,
            MmaKind::Mxf4 { .. } => KindTag::Mxf4,
            MmaKind::Mxf4nvf4 { .. } => KindTag::Mxf4nvf4,
        }
    }
}

/// Dense, or sparse A with a sparsity selector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sparsity {
    /// Dense A.
    Dense,
    /// Structured-sparse A (`tcgen05.mma.sp`); `selector` (0–3) picks the metadata
    /// threads for the non-block-scaled kinds and must be 0 for the block-scaled ones.
    Sparse {
        /// Sparsity selector, bits 0–1.
        selector: u8,
    },
}

/// The largest shift of B reuse that a `.ws` mma may attempt (bits 30–31).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum MaxShift {
    /// No shift (0).
    #[default]
    None,
    /// Up to 8 (1).
    By8,
    /// Up to 16 (2).
    By16,
    /// Up to 32 (3).
    By32,
}

/// Everything an instruction descriptor encodes, plus the issue form its shape is checked
/// against. [`new`](Self::new) gives a dense, K-major, unnegated mma; the `with_` methods
/// change one thing each.
///
/// ```
/// use ptxkit::descriptors::{
///     DescError, F8f6f4Type, FloatAccum, Fp4K, Fp4Scale, InstrDesc, KindTag, Major, MmaIssue, MmaKind, MmaParams, Sparsity,
/// };
/// // NVFP4 (e2m1 with ue4m3 scales per 16 elements) on a CTA pair, 256 x 256 x 64.
/// let nvfp4 = MmaKind::Mxf4nvf4 { scale: Fp4Scale::Ue4m3Block16, k: Fp4K::K64, sfa_id: 0, sfb_id: 0 };
/// let p = MmaParams::new(nvfp4, MmaIssue::Cta2, 256, 256);
/// assert_eq!(p.k(), 64);
/// // A e2m1 1 << 7 | B 1 << 10 | N >> 3 = 32 << 17 | ue4m3 0 << 23 | M >> 7 = 2 << 27
/// assert_eq!(p.encode()?.bits(), 0x1040_0480);
/// // fp4 operands are K-major only, and one CTA has no M = 256.
/// assert!(matches!(p.with_majors(Major::MN, Major::K).encode(), Err(DescError::Unsupported { .. })));
/// assert!(matches!(MmaParams { issue: MmaIssue::Cta1, ..p }.encode(), Err(DescError::Shape { .. })));
///
/// // e4m3 x e5m2 -> f32, sparse A (K = 64), B MN-major.
/// let f8 = MmaKind::F8f6f4 { a: F8f6f4Type::E4m3, b: F8f6f4Type::E5m2, d: FloatAccum::F32 };
/// let p = MmaParams::new(f8, MmaIssue::Cta1, 128, 128)
///     .with_sparsity(Sparsity::Sparse { selector: 1 })
///     .with_majors(Major::K, Major::MN);
/// assert_eq!(p.k(), 64);
/// let d = p.encode()?;
/// assert_eq!(InstrDesc::decode(d.bits(), KindTag::F8f6f4, MmaIssue::Cta1)?, p);
/// # Ok::<(), DescError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MmaParams {
    /// Kind, types and kind-specific fields.
    pub kind: MmaKind,
    /// `.cta_group::1`, `.cta_group::2` or `.ws`.
    pub issue: MmaIssue,
    /// M (rows of A and D).
    pub m: u32,
    /// N (columns of B and D).
    pub n: u32,
    /// Dense or sparse A.
    pub sparsity: Sparsity,
    /// Negate A (bit 13).
    pub negate_a: bool,
    /// Negate B (bit 14).
    pub negate_b: bool,
    /// A's layout in shared memory: MN-major is "transpose A" (bit 15).
    pub major_a: Major,
    /// B's layout: MN-major is "transpose B" (bit 16).
    pub major_b: Major,
    /// B-reuse shift limit, `.ws` only.
    pub max_shift: MaxShift,
}

impl MmaParams {
    /// A dense mma of `kind`, M × N, issued as `issue`, both operands K-major, nothing
    /// negated, no shift.
    pub const fn new(kind: MmaKind, issue: MmaIssue, m: u32, n: u32) -> MmaParams {
        MmaParams {
            kind,
            issue,
            m,
            n,
            sparsity: Sparsity::Dense,
            negate_a: false,
            negate_b: false,
            major_a: Major::K,
            major_b: Major::K,
            max_shift: MaxShift::None,
        }
    }

    /// The same with `sparsity`.
    pub const fn with_sparsity(self, sparsity: Sparsity) -> MmaParams {
        MmaParams { sparsity, ..self }
    }

    /// The same with A and B negated as given.
    pub const fn with_negate(self, a: bool, b: bool) -> MmaParams {
        MmaParams { negate_a: a, negate_b: b, ..self }
    }

    /// The same with A and B laid out as given.
    pub const fn with_majors(self, a: Major, b: Major) -> MmaParams {
        MmaParams { major_a: a, major_b: b, ..self }
    }

    /// The same with a `.ws` B-reuse shift limit.
    pub const fn with_max_shift(self, max_shift: MaxShift) -> MmaParams {
        MmaParams { max_shift, ..self }
    }

    /// The instruction's K (a property of the kind, not a descriptor field): 16 for f16,
    /// 8 for tf32, 32 for the 8-bit kinds, 64 or 96 for the fp4 kinds; twice that sparse.
    pub const fn k(&self) -> u32 {
        let dense = match self.kind {
            MmaKind::F16 { .. } => 16,
            MmaKind::Tf32 => 8,
            MmaKind::F8f6f4 { .. } | MmaKind::I8 { .. } | MmaKind::Mxf8f6f4 { .. } => 32,
            MmaKind::Mxf4 { k, .. } | MmaKind::Mxf4nvf4 { k, .. } => match k {
                Fp4K::K64 => 64,
                Fp4K::K96 => 96,
            },
        };
        match self.sparsity {
            Sparsity::Dense => dense,
            Sparsity::Sparse { .. } => 2 * dense,
        }
    }

    /// Whether an operand laid out as `major` may use shared-memory layout `swizzle` with
    /// this kind: a transposed (MN-major) tf32 operand needs the 128B layout with 32-byte
    /// atoms, a transposed operand of another kind must not use it, and K-major operands
    /// never do (PTX ISA 9.7.16.4.2 and the canonical layouts).
    pub const fn operand_layout_ok(&self, major: Major, swizzle: Tcgen05Swizzle) -> bool {
        let atom32 = matches!(swizzle, Tcgen05Swizzle::B128Atom32);
        match major {
            Major::K => !atom32,
            Major::MN => matches!(self.kind, MmaKind::Tf32) == atom32,
        }
    }
}

impl F8f6f4Type {
    /// The PTX type name, e.g. `e4m3`.
    pub const fn name(self) -> &'static str {
        match self {
            F8f6f4Type::E4m3 => "e4m3",
            F8f6f4Type::E5m2 => "e5m2",
            F8f6f4Type::E2m3 => "e2m3",
            F8f6f4Type::E3m2 => "e3m2",
            F8f6f4Type::E2m1 => "e2m1",
        }
    }
}

const fn accum_name(d: FloatAccum) -> &'static str {
    match d {
        FloatAccum::F16 => "f16",
        FloatAccum::F32 => "f32",
    }
}

const fn i8_name(t: I8Type) -> &'static str {
    match t {
        I8Type::U8 => "u8",
        I8Type::S8 => "s8",
    }
}

/// `kind::f16 bf16 x bf16 -> f32`, `kind::mxf4 e2m1 x e2m1 -> f32, ue8m0 per 32, K 96, SF A 0 B 2`.
impl fmt::Display for MmaKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.tag().name();
        let (k, sfa, sfb, scale) = match *self {
            MmaKind::F16 { ab, d } => {
                let t = if matches!(ab, F16Type::F16) { "f16" } else { "bf16" };
                return write!(f, "{name} {t} x {t} -> {}", accum_name(d));
            }
            MmaKind::Tf32 => return write!(f, "{name} tf32 x tf32 -> f32"),
            MmaKind::F8f6f4 { a, b, d } => return write!(f, "{name} {} x {} -> {}", a.name(), b.name(), accum_name(d)),
            MmaKind::I8 { a, b, saturate } => {
                let sat = if saturate { ", saturating" } else { "" };
                return write!(f, "{name} {} x {} -> s32{sat}", i8_name(a), i8_name(b));
            }
            MmaKind::Mxf8f6f4 { a, b, sfa_id, sfb_id } => {
                write!(f, "{name} {} x {} -> f32", a.name(), b.name())?;
                (None, sfa_id, sfb_id, "ue8m0 per 32")
            }
            MmaKind::Mxf4 { k, sfa_id, sfb_id } => {
                write!(f, "{name} e2m1 x e2m1 -> f32")?;
                (Some(k), sfa_id, sfb_id, "ue8m0 per 32")
            }
            MmaKind::Mxf4nvf4 { scale, k, sfa_id, sfb_id } => {
                write!(f, "{name} e2m1 x e2m1 -> f32")?;
                let s = match scale {
                    Fp4Scale::Ue8m0Block32 => "ue8m0 per 32",
                    Fp4Scale::Ue8m0Block16 => "ue8m0 per 16",
                    Fp4Scale::Ue4m3Block16 => "ue4m3 per 16",
                };
                (Some(k), sfa_id, sfb_id, s)
            }
        };
        write!(f, ", {scale}")?;
        if let Some(Fp4K::K96) = k {
            write!(f, ", K 96")?;
        }
        write!(f, ", SF A {sfa} B {sfb}")
    }
}
