//! Registers with part selectors, the operands of the video instructions: `a.b1()` is
//! `%r1.b1`, `d.h10()` is `%r2.h10`, `b.bytes::<7, 6, 5, 4>()` is `%r3.b7654`.
//!
//! A selector is a type ([`crate::ops::sel`]), and each operand position of a form names the
//! set it takes, so a selector outside it does not compile:
//!
//! ```
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_90);
//! m.kernel("video", |k, (a, b, c): (Reg<U32>, Reg<S32>, Reg<U32>)| {
//!     // Byte 0 of `a` plus half-word 1 of `b`, clamped to `.s32`.
//!     let d = ptx!(k, "vadd.s32.u32.s32.sat", a.b0(), b.h1());
//!     // The same, written into half-word 1 of `d2` (the other half from `c`).
//!     let d2 = k.reg::<S32>();
//!     ptx!(k, "vadd.s32.u32.s32.sat" as dsel => d2.h1(), a.b0(), b.h1(), c);
//!     // Two half-word lanes from {b, a}, only the high lane written.
//!     let e = k.reg::<U32>();
//!     ptx!(k, "vadd2.u32.u32.u32" as mask => e.h1(), a.halves::<3, 0>(), c, d);
//!     // The bytes of a 4-lane source from anywhere in {b, a}.
//!     let f = ptx!(k, "vmax4.u32.u32.u32", a.bytes::<7, 6, 1, 0>(), c, e);
//!     let _ = f;
//! })
//! .unwrap();
//! let text = m.to_ptx().unwrap();
//! assert!(text.contains("vadd.s32.u32.s32.sat %r4, %r1.b0, %r2.h1;"));
//! assert!(text.contains(".h1, %r1.b0, %r2.h1, %r3;"));
//! assert!(text.contains(".h1, %r1.h30, %r3, %r4;"));
//! assert!(text.contains("%r1.b7610, %r3,"));
//! ```

use crate::core::ir::Opnd;
use crate::core::{Kernel, Sel};
use crate::ops::sel::{ByteLane, ByteQuad, HalfLane, In, Lane, SelectorSet, Word, B, B2, B3, B4, H, H2};
use crate::ops::{IntoDst, Negated, Operand, PartDst, Selectable};
use crate::types::{Accepts, DataType, Reg};

/// A register of `T` with the part selector `P`: what `a.b1()`, `d.h10()`, ... return.
#[derive(Clone, Copy, Debug)]
pub struct Part<T: DataType, P> {
    pub reg: Reg<T>,
    pub sel: P,
}

impl<T: DataType + Accepts<R>, S: SelectorSet, R: DataType, P: In<S>> Operand<Selectable<T, S>> for Part<R, P> {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        Opnd::Part { reg: self.reg.checked(k), sel: P::SEL, neg: false }
    }
}

/// `-x`: a register, or one with a part selector, negated: the operand of a form that
/// negates it (`ptx!(k, "vmad.s32.s32.s32" as neg_a, -a, b.h1(), c)`), printed `-%r1`.
#[derive(Clone, Copy, Debug)]
pub struct Negative<X>(pub X);

impl<T: Word> core::ops::Neg for Reg<T> {
    type Output = Negative<Reg<T>>;
    fn neg(self) -> Negative<Reg<T>> {
        Negative(self)
    }
}
impl<T: Word, P> core::ops::Neg for Part<T, P> {
    type Output = Negative<Part<T, P>>;
    fn neg(self) -> Negative<Part<T, P>> {
        Negative(self)
    }
}
impl<T: DataType + Accepts<R>, S, R: DataType> Operand<Negated<T, S>> for Negative<Reg<R>> {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        Opnd::Part { reg: self.0.checked(k), sel: Sel::NONE, neg: true }
    }
}
impl<T: DataType + Accepts<R>, S: SelectorSet, R: DataType, P: In<S>> Operand<Negated<T, S>> for Negative<Part<R, P>> {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        Opnd::Part { reg: self.0.reg.checked(k), sel: P::SEL, neg: true }
    }
}
impl<T: DataType, S: SelectorSet, P: In<S>> IntoDst<PartDst<T, S>> for Part<T, P> {
    fn into_dst(self) -> PartDst<T, S> {
        PartDst::new(self.reg, self.sel)
    }
}

macro_rules! selectors {
    ($($(#[$d:meta])* $name:ident => $p:ty;)*) => {$(
        $(#[$d])*
        pub fn $name(self) -> Part<T, $p> {
            Part { reg: self, sel: <$p>::default() }
        }
    )*};
}

/// Part selectors of a 32-bit integer register. Which selectors an operand takes is its
/// form's business: `.b0`..`.b3`, `.h0`, `.h1` the scalar video instructions' sources and
/// merge destinations; [`Reg::halves`] the 2-lane SIMD sources, [`Reg::bytes`] the 4-lane
/// ones; `.h0`, `.h1`, `.h10` the 2-lane masks and `.b0` to `.b3210` the 4-lane masks.
impl<T: Word> Reg<T> {
    selectors! {
        /// `.b0`: byte 0.
        b0 => B<0>;
        /// `.b1`: byte 1.
        b1 => B<1>;
        /// `.b2`: byte 2.
        b2 => B<2>;
        /// `.b3`: byte 3.
        b3 => B<3>;
        /// `.h0`: half-word 0.
        h0 => H<0>;
        /// `.h1`: half-word 1.
        h1 => H<1>;
        /// `.h10`: half-words 1 and 0 (a 2-lane mask, or the default 2-lane source).
        h10 => H2<1, 0>;
        /// `.b10`: a 4-lane mask of bytes 1 and 0.
        b10 => B2<1, 0>;
        /// `.b20`: a 4-lane mask of bytes 2 and 0.
        b20 => B2<2, 0>;
        /// `.b21`: a 4-lane mask of bytes 2 and 1.
        b21 => B2<2, 1>;
        /// `.b30`: a 4-lane mask of bytes 3 and 0.
        b30 => B2<3, 0>;
        /// `.b31`: a 4-lane mask of bytes 3 and 1.
        b31 => B2<3, 1>;
        /// `.b32`: a 4-lane mask of bytes 3 and 2.
        b32 => B2<3, 2>;
        /// `.b210`: a 4-lane mask of bytes 2, 1 and 0.
        b210 => B3<2, 1, 0>;
        /// `.b310`: a 4-lane mask of bytes 3, 1 and 0.
        b310 => B3<3, 1, 0>;
        /// `.b320`: a 4-lane mask of bytes 3, 2 and 0.
        b320 => B3<3, 2, 0>;
        /// `.b321`: a 4-lane mask of bytes 3, 2 and 1.
        b321 => B3<3, 2, 1>;
        /// `.b3210`: every byte (a 4-lane mask, or the default 4-lane source).
        b3210 => B4<3, 2, 1, 0>;
    }

    /// `.hXY`: a 2-lane SIMD source of half-words `X` (high lane) and `Y` (low lane) of the
    /// pair `{b, a}` (0 and 1 are `a`'s, 2 and 3 `b`'s).
    pub fn halves<const X: u8, const Y: u8>(self) -> Part<T, H2<X, Y>>
    where
        Lane<X>: HalfLane,
        Lane<Y>: HalfLane,
    {
        Part { reg: self, sel: H2 }
    }

    /// `.bXYZW`: a 4-lane SIMD source of bytes `X` (lane 3) to `W` (lane 0) of the pair
    /// `{b, a}` (0..3 are `a`'s, 4..7 `b`'s); every quad but `.b1024`, which ptxas does not
    /// parse.
    pub fn bytes<const X: u8, const Y: u8, const Z: u8, const W: u8>(self) -> Part<T, B4<X, Y, Z, W>>
    where
        Lane<X>: ByteLane,
        Lane<Y>: ByteLane,
        Lane<Z>: ByteLane,
        Lane<W>: ByteLane,
        (Lane<X>, Lane<Y>, Lane<Z>, Lane<W>): ByteQuad,
    {
        Part { reg: self, sel: B4 }
    }
}
