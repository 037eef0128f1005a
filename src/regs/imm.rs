//! Immediates: Rust integers and floats as operands, range-checked against the instruction
//! type, and [`Const`] for operands whose legal values are a set (`imm(s32: -1|1)`),
//! checked when the kernel is compiled.

use crate::core::ir::Opnd;
use crate::core::{DType, Kernel};
use crate::ops::sel::Scalar;
use crate::ops::{Admits, Imm, ImmIn, Legal, Operand, Selectable, Widenable};
use crate::types::DataType;

/// Instruction types that take integer immediates.
pub trait IntImm: DataType {}
macro_rules! int_imm {
    ($($t:ident)*) => {$(
        impl IntImm for crate::types::$t {}
        #[diagnostic::do_not_recommend]
        impl<const V: i64> ConstKind<V> for crate::types::$t {
            const TY: DType = DType::$t;
        }
    )*};
}
int_imm!(B8 B16 B32 B64 U8 U16 U32 U64 S8 S16 S32 S64);

#[track_caller]
fn int_opnd(k: &mut Kernel, v: i128, ty: DType) -> Opnd {
    if !ty.int_fits(v) {
        k.imm_error(v.to_string(), ty.name());
    }
    if v < 0 {
        Opnd::int(v as i64)
    } else {
        Opnd::uint(v as u64)
    }
}

#[track_caller]
fn legal_opnd<L: Legal>(k: &mut Kernel, v: i128, ty: DType) -> Opnd {
    match i64::try_from(v) {
        Ok(x) if L::contains(x) => int_opnd(k, v, ty),
        _ => {
            let e = crate::core::Error::ImmediateNotAllowed {
                kernel: k.name().to_string(),
                value: v.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
                allowed: L::VALUES,
            };
            k.error(e);
            Opnd::int(L::VALUES.first().copied().unwrap_or(0))
        }
    }
}

macro_rules! rust_ints {
    ($($t:ty)*) => {$(
        impl<I: IntImm> Operand<I> for $t {
            #[inline]
            #[track_caller]
            fn lower(self, k: &mut Kernel) -> Opnd { int_opnd(k, self as i128, I::ID) }
        }
        impl<I: IntImm, B> Operand<Widenable<I, B>> for $t {
            #[inline]
            #[track_caller]
            fn lower(self, k: &mut Kernel) -> Opnd { int_opnd(k, self as i128, I::ID) }
        }
        impl<I: IntImm> Operand<Imm<I>> for $t {
            #[inline]
            #[track_caller]
            fn lower(self, k: &mut Kernel) -> Opnd { int_opnd(k, self as i128, I::ID) }
        }
        impl<I: IntImm, L: Legal> Operand<ImmIn<I, L>> for $t {
            #[track_caller]
            fn lower(self, k: &mut Kernel) -> Opnd { legal_opnd::<L>(k, self as i128, I::ID) }
        }
        /// A scalar video source takes an immediate where it takes a part selector.
        impl<I: IntImm> Operand<Selectable<I, Scalar>> for $t {
            #[inline]
            #[track_caller]
            fn lower(self, k: &mut Kernel) -> Opnd { int_opnd(k, self as i128, I::ID) }
        }
    )*};
}
rust_ints!(u8 u16 u32 u64 i8 i16 i32 i64 usize);

/// `true`/`false` where the legal values are 0 and 1 (transpose flags, selectors).
impl<I: IntImm, L: Legal> Operand<ImmIn<I, L>> for bool {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        legal_opnd::<L>(k, self as i128, I::ID)
    }
}

/// A constant known when the kernel's Rust code compiles: `Const::<-1>`. Where an operand
/// takes a set of legal values, a `Const` outside the set does not compile (a plain integer
/// there is checked when the kernel is built, and an error returned).
#[derive(Clone, Copy, Debug, Default)]
pub struct Const<const V: i64>;

/// The operand kinds a `Const<V>` stands for: an integer type, an immediate of one, or an
/// immediate from a legal set that holds `V`.
#[diagnostic::on_unimplemented(message = "a constant {V} cannot stand where PTX expects `{Self}`", label = "not an integer operand here")]
pub trait ConstKind<const V: i64> {
    /// The instruction type the constant is written as.
    const TY: DType;
}
#[diagnostic::do_not_recommend]
impl<const V: i64, I: IntImm> ConstKind<V> for Imm<I> {
    const TY: DType = I::ID;
}
#[diagnostic::do_not_recommend]
impl<const V: i64, I: IntImm, B> ConstKind<V> for Widenable<I, B> {
    const TY: DType = I::ID;
}
impl<const V: i64, I: IntImm, L: Legal + Admits<V>> ConstKind<V> for ImmIn<I, L> {
    const TY: DType = I::ID;
}
impl<const V: i64, K: ConstKind<V>> Operand<K> for Const<V> {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        int_opnd(k, V as i128, K::TY)
    }
}

/// Floats are written exactly, in hex (`0f3F800000`).
macro_rules! rust_floats {
    ($($t:ty, $ty:ident, $v:ident;)*) => {$(
        impl Operand<crate::types::$ty> for $t {
            #[track_caller]
            fn lower(self, _: &mut Kernel) -> Opnd { Opnd::$v(self.to_bits().into()) }
        }
        impl<B> Operand<Widenable<crate::types::$ty, B>> for $t {
            #[track_caller]
            fn lower(self, _: &mut Kernel) -> Opnd { Opnd::$v(self.to_bits().into()) }
        }
        impl Operand<Imm<crate::types::$ty>> for $t {
            #[track_caller]
            fn lower(self, _: &mut Kernel) -> Opnd { Opnd::$v(self.to_bits().into()) }
        }
    )*};
}
rust_floats!(f32, F32, F32; f64, F64, F64;);
