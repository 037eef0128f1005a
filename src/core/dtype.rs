//! PTX data types known at run time ([`DType`]) and register classes ([`RegClass`]).
//!
//! The one table of data types is `dtype_table!`: this module expands it into the
//! run-time enum, `crate::types` into the zero-sized types.

/// Register classes. Every register is declared by width (`.b16`, `.b32`, ...), and keeps
/// its data type at the Rust level, so the declaration never fights the instruction type.
///
/// 8-bit integers (`.u8`, `.s8`, `.b8`) live in 16-bit registers, as nvcc keeps them: PTX
/// loads, stores and converts them there, and `mov` has no 8-bit form. Only the values PTX
/// requires in an 8-bit register have the `B8` class: the packed FP4 pair `.e2m1x2`, which
/// `cvt` writes and reads as `.b8`, and the single FP8 values `.e4m3`/`.e5m2`, which the
/// `multimem` vectors take (`.v4.e4m3`). Such a register is copied with `cvt.u8.u8` and widened
/// with `cvt.u16.u8`/`cvt.u32.u8`, and `ld`/`st .b8` move it to and from memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegClass {
    Pred = 0,
    B16 = 1,
    B32 = 2,
    B64 = 3,
    B128 = 4,
    B8 = 5,
}

impl RegClass {
    pub const ALL: [RegClass; 6] = [RegClass::Pred, RegClass::B16, RegClass::B32, RegClass::B64, RegClass::B128, RegClass::B8];
    /// The `.reg` declaration type.
    pub fn decl(self) -> &'static str {
        ["pred", "b16", "b32", "b64", "b128", "b8"][self as usize]
    }
    /// The register-name prefix (`%r7`).
    pub fn prefix(self) -> &'static str {
        ["%p", "%rs", "%r", "%rd", "%rq", "%rc"][self as usize]
    }
    pub fn bits(self) -> u32 {
        [1, 16, 32, 64, 128, 8][self as usize]
    }
}

/// What family of values a type belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Pred,
    Bits,
    Unsigned,
    Signed,
    Float,
    /// Packed or reduced-precision floats carried in integer registers.
    Packed,
}

/// The data types, one row each: Rust name, PTX name, width, register class, family, host
/// type, and the register types an instruction of this type accepts. Expands through the
/// callback macro `$m`.
macro_rules! dtype_table {
    ($m:ident) => {
        $m! {
        //  type     ptx        bits class fam       host                 accepts
            Pred     "pred"     1    Pred  Pred      bool                 [Pred];
            B8       "b8"       8    B16   Bits      u8                   [B8 U8 S8 E2m1x2 E4m3 E5m2];
            B16      "b16"      16   B16   Bits      u16                  [B16 U16 S16 F16 Bf16 E4m3x2 E5m2x2 E3m2x2 E2m3x2 Ue8m0x2 S2f6x2 Ue5m3x2 E2m1x4];
            B32      "b32"      32   B32   Bits      u32                  [B32 U32 S32 F32 F16x2 Bf16x2 Tf32 E4m3x4 E5m2x4 E3m2x4 E2m3x4];
            B64      "b64"      64   B64   Bits      u64                  [B64 U64 S64 F64 F32x2 Gdesc];
            B128     "b128"     128  B128  Bits      u128                 [B128];
            U8       "u8"       8    B16   Unsigned  u8                   [U8 S8 B8];
            U16      "u16"      16   B16   Unsigned  u16                  [U16 S16 B16];
            U32      "u32"      32   B32   Unsigned  u32                  [U32 S32 B32];
            U64      "u64"      64   B64   Unsigned  u64                  [U64 S64 B64];
            S8       "s8"       8    B16   Signed    i8                   [S8 U8 B8];
            S16      "s16"      16   B16   Signed    i16                  [S16 U16 B16];
            S32      "s32"      32   B32   Signed    i32                  [S32 U32 B32];
            S64      "s64"      64   B64   Signed    i64                  [S64 U64 B64];
            F16      "f16"      16   B16   Float     half::f16            [F16 B16];
            F16x2    "f16x2"    32   B32   Packed    [half::f16; 2]       [F16x2 B32];
            Bf16     "bf16"     16   B16   Packed    half::bf16           [Bf16 B16];
            Bf16x2   "bf16x2"   32   B32   Packed    [half::bf16; 2]      [Bf16x2 B32];
            Tf32     "tf32"     32   B32   Packed    f32                  [Tf32 B32];
            F32      "f32"      32   B32   Float     f32                  [F32 B32];
            F64      "f64"      64   B64   Float     f64                  [F64 B64];
            F32x2    "f32x2"    64   B64   Packed    [f32; 2]             [F32x2 B64];
            E4m3x2   "e4m3x2"   16   B16   Packed    u16                  [E4m3x2 B16];
            E5m2x2   "e5m2x2"   16   B16   Packed    u16                  [E5m2x2 B16];
            E2m1x2   "e2m1x2"   8    B8    Packed    u8                   [E2m1x2 B8];
            E3m2x2   "e3m2x2"   16   B16   Packed    u16                  [E3m2x2 B16];
            E2m3x2   "e2m3x2"   16   B16   Packed    u16                  [E2m3x2 B16];
            Ue8m0x2  "ue8m0x2"  16   B16   Packed    u16                  [Ue8m0x2 B16];
            S2f6x2   "s2f6x2"   16   B16   Packed    u16                  [S2f6x2 B16];
            Ue5m3x2  "ue5m3x2"  16   B16   Packed    u16                  [Ue5m3x2 B16];
            E4m3x4   "e4m3x4"   32   B32   Packed    u32                  [E4m3x4 B32];
            E5m2x4   "e5m2x4"   32   B32   Packed    u32                  [E5m2x4 B32];
            E2m1x4   "e2m1x4"   16   B16   Packed    u16                  [E2m1x4 B16];
            E3m2x4   "e3m2x4"   32   B32   Packed    u32                  [E3m2x4 B32];
            E2m3x4   "e2m3x4"   32   B32   Packed    u32                  [E2m3x4 B32];
            E4m3     "e4m3"     8    B8    Packed    u8                   [E4m3 B8];
            E5m2     "e5m2"     8    B8    Packed    u8                   [E5m2 B8];
            Gdesc    "gdesc"    64   B64   Packed    u64                  [Gdesc];
        }
    };
}
pub(crate) use dtype_table;

macro_rules! dtype_enum {
    ($( $id:ident $name:literal $bits:literal $class:ident $fam:ident $host:ty [$($acc:ident)*]; )*) => {
        /// A data type known at run time.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum DType { $($id),* }
        impl DType {
            pub const ALL: &'static [DType] = &[$(DType::$id),*];
            pub fn name(self) -> &'static str { match self { $(DType::$id => $name),* } }
            /// The type named `name` (`f32`), if there is one.
            pub fn from_name(name: &str) -> Option<DType> { match name { $($name => Some(DType::$id),)* _ => None } }
            pub fn bits(self) -> u32 { match self { $(DType::$id => $bits),* } }
            pub fn class(self) -> RegClass { match self { $(DType::$id => RegClass::$class),* } }
            pub fn family(self) -> Family { match self { $(DType::$id => Family::$fam),* } }
            /// Whether an instruction of type `self` accepts a register of type `t`.
            pub fn accepts(self, t: DType) -> bool {
                match self { $(DType::$id => matches!(t, $(DType::$acc)|*)),* }
            }
        }
    };
}
dtype_table!(dtype_enum);

impl DType {
    /// Whether an integer value fits this type's immediate range. Bit types take either
    /// signedness's range, as PTX does.
    pub fn int_fits(self, v: i128) -> bool {
        let b = self.bits();
        match self.family() {
            Family::Pred => v == 0 || v == 1,
            Family::Unsigned => v >= 0 && v < (1i128 << b),
            Family::Signed => v >= -(1i128 << (b - 1)) && v < (1i128 << (b - 1)),
            Family::Bits => v >= -(1i128 << (b - 1)) && v < (1i128 << b),
            Family::Float | Family::Packed => false,
        }
    }
}
