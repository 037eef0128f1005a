//! Part selectors as types: the sets an operand position takes ([`Scalar`], [`Half2`],
//! [`Byte4`], [`Mask2`], [`Mask4`], and [`Whole`] for none) and the selectors themselves
//! ([`B`], [`H`], [`H2`], [`B2`], [`B3`], [`B4`]), with [`In`] saying which set holds which
//! selector. A register takes a selector through its methods (`a.b1()`, `d.h10()`,
//! `b.bytes::<7, 6, 5, 4>()`, in [`crate::regs::Part`]); a selector outside the set of its
//! operand position does not compile.

use crate::core::sel::{Sel, SelSet};
use crate::types::{DataType, B32, S32, U32};

/// The 32-bit integer types whose registers take part selectors.
pub trait Word: DataType {}
impl Word for U32 {}
impl Word for S32 {}
impl Word for B32 {}

/// A set of selectors an operand position takes (a zero-sized marker).
pub trait SelectorSet: Copy + Default + 'static {
    /// `None` for [`Whole`].
    const SET: Option<SelSet>;
}

/// A part selector (a zero-sized type per selector).
pub trait Selector: Copy + Default + 'static {
    const SEL: Sel;
}

/// The selector `Self` is one of the set `S`.
#[diagnostic::on_unimplemented(
    message = "the part selector `{Self}` is not one the operand takes (`{S}`)",
    label = "this operand takes the selectors of `{S}`",
    note = "scalar video sources and merge destinations take .b0-.b3, .h0, .h1; 2-lane SIMD sources .hxy (x, y in 0..3), 4-lane SIMD sources .bxyzw (each in 0..7); 2-lane masks .h0, .h1, .h10; 4-lane masks the written bytes in descending order, .b0 to .b3210"
)]
pub trait In<S: SelectorSet>: Selector {}

macro_rules! sets {
    ($($(#[$d:meta])* $t:ident => $v:expr;)*) => {$(
        $(#[$d])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $t;
        impl SelectorSet for $t { const SET: Option<SelSet> = $v; }
    )*};
}
sets! {
    /// No selector: the whole register (`reg(T)`, `-T` in a table).
    Whole => None;
    /// `.b0`..`.b3`, `.h0`, `.h1`: scalar video sources and merge destinations (`<sel>`).
    Scalar => Some(SelSet::Scalar);
    /// `.hxy`, x and y in 0..3: 2-lane SIMD sources (`<hsel>`).
    Half2 => Some(SelSet::Half2);
    /// `.bxyzw`, each in 0..7 (but `.b1024`, which ptxas does not parse): 4-lane SIMD
    /// sources (`<bsel>`).
    Byte4 => Some(SelSet::Byte4);
    /// `.h0`, `.h1`, `.h10`: 2-lane SIMD destination masks (`<hmask>`).
    Mask2 => Some(SelSet::Mask2);
    /// `.b0` to `.b3210`, lanes in descending order: 4-lane SIMD destination masks (`<bmask>`).
    Mask4 => Some(SelSet::Mask4);
}

/// A lane number as a type, for the bounds on the selectors' digits.
pub struct Lane<const N: u8>;

/// `Self` is one of the four half-words of `{b, a}` (0..3).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a half-word lane",
    label = "a half-word selector picks lanes 0..3 of the pair {{b, a}}"
)]
pub trait HalfLane {}
/// `Self` is one of the eight bytes of `{b, a}` (0..7).
#[diagnostic::on_unimplemented(message = "`{Self}` is not a byte lane", label = "a byte selector picks lanes 0..7 of the pair {{b, a}}")]
pub trait ByteLane {}
macro_rules! lanes {
    ($tr:ident: $($n:literal)*) => {$( #[diagnostic::do_not_recommend] impl $tr for Lane<$n> {} )*};
}
lanes!(HalfLane: 0 1 2 3);
lanes!(ByteLane: 0 1 2 3 4 5 6 7);

/// `Self`, the lanes of a `.bxyzw` selector, is one ptxas parses: every quad but
/// `.b1024`, which its lexer takes for a keyword.
#[diagnostic::on_unimplemented(
    message = "`{Self}` are not the lanes of a byte selector ptxas parses",
    label = "a byte selector picks lanes 0..7 of the pair {{b, a}}, but not 1, 0, 2, 4: ptxas lexes `.b1024` as a keyword"
)]
pub trait ByteQuad {}
#[doc(hidden)]
pub trait NotB024 {}
#[doc(hidden)]
pub trait NotB24 {}
#[doc(hidden)]
pub trait NotB4 {}
macro_rules! quads {
    ($($x:literal)*; $($y:literal)*; $($z:literal)*; $($w:literal)*) => {
        $( #[diagnostic::do_not_recommend] impl<const Y: u8, const Z: u8, const W: u8> ByteQuad for (Lane<$x>, Lane<Y>, Lane<Z>, Lane<W>) {} )*
        #[diagnostic::do_not_recommend]
        impl<const Y: u8, const Z: u8, const W: u8> ByteQuad for (Lane<1>, Lane<Y>, Lane<Z>, Lane<W>) where (Lane<Y>, Lane<Z>, Lane<W>): NotB024 {}
        $( #[diagnostic::do_not_recommend] impl<const Z: u8, const W: u8> NotB024 for (Lane<$y>, Lane<Z>, Lane<W>) {} )*
        #[diagnostic::do_not_recommend]
        impl<const Z: u8, const W: u8> NotB024 for (Lane<0>, Lane<Z>, Lane<W>) where (Lane<Z>, Lane<W>): NotB24 {}
        $( #[diagnostic::do_not_recommend] impl<const W: u8> NotB24 for (Lane<$z>, Lane<W>) {} )*
        #[diagnostic::do_not_recommend]
        impl<const W: u8> NotB24 for (Lane<2>, Lane<W>) where Lane<W>: NotB4 {}
        $( #[diagnostic::do_not_recommend] impl NotB4 for Lane<$w> {} )*
    };
}
quads!(0 2 3 4 5 6 7; 1 2 3 4 5 6 7; 0 1 3 4 5 6 7; 0 1 2 3 5 6 7);

/// `.bI`: one byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct B<const I: u8>;
/// `.hI`: one half-word.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct H<const I: u8>;
/// `.hXY`: two half-words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct H2<const X: u8, const Y: u8>;
/// `.bXY`: two bytes (a 4-lane mask).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct B2<const X: u8, const Y: u8>;
/// `.bXYZ`: three bytes (a 4-lane mask).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct B3<const X: u8, const Y: u8, const Z: u8>;
/// `.bXYZW`: four bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct B4<const X: u8, const Y: u8, const Z: u8, const W: u8>;

const fn sel(s: Option<Sel>) -> Sel {
    match s {
        Some(s) => s,
        None => panic!("selector lanes are 0..7"),
    }
}

impl<const I: u8> Selector for B<I> {
    const SEL: Sel = sel(Sel::bytes(&[I]));
}
impl<const I: u8> Selector for H<I> {
    const SEL: Sel = sel(Sel::halves(&[I]));
}
impl<const X: u8, const Y: u8> Selector for H2<X, Y> {
    const SEL: Sel = sel(Sel::halves(&[X, Y]));
}
impl<const X: u8, const Y: u8> Selector for B2<X, Y> {
    const SEL: Sel = sel(Sel::bytes(&[X, Y]));
}
impl<const X: u8, const Y: u8, const Z: u8> Selector for B3<X, Y, Z> {
    const SEL: Sel = sel(Sel::bytes(&[X, Y, Z]));
}
impl<const X: u8, const Y: u8, const Z: u8, const W: u8> Selector for B4<X, Y, Z, W> {
    const SEL: Sel = sel(Sel::bytes(&[X, Y, Z, W]));
}

macro_rules! members {
    ($set:ty: $($s:ty),*) => {$( #[diagnostic::do_not_recommend] impl In<$set> for $s {} )*};
}
members!(Scalar: B<0>, B<1>, B<2>, B<3>, H<0>, H<1>);
members!(Mask2: H<0>, H<1>, H2<1, 0>);
members!(Mask4: B<0>, B<1>, B<2>, B<3>, B2<1, 0>, B2<2, 0>, B2<2, 1>, B2<3, 0>, B2<3, 1>, B2<3, 2>);
members!(Mask4: B3<2, 1, 0>, B3<3, 1, 0>, B3<3, 2, 0>, B3<3, 2, 1>, B4<3, 2, 1, 0>);
#[diagnostic::do_not_recommend]
impl<const X: u8, const Y: u8> In<Half2> for H2<X, Y>
where
    Lane<X>: HalfLane,
    Lane<Y>: HalfLane,
{
}
#[diagnostic::do_not_recommend]
impl<const X: u8, const Y: u8, const Z: u8, const W: u8> In<Byte4> for B4<X, Y, Z, W>
where
    Lane<X>: ByteLane,
    Lane<Y>: ByteLane,
    Lane<Z>: ByteLane,
    Lane<W>: ByteLane,
    (Lane<X>, Lane<Y>, Lane<Z>, Lane<W>): ByteQuad,
{
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The typed sets agree with the run-time ones: every selector type with an `In` impl
    /// is a member there.
    #[test]
    fn typed_members_are_run_time_members() {
        fn is<S: SelectorSet, P: In<S>>() -> bool {
            S::SET.is_some_and(|s| s.admits(P::SEL))
        }
        assert!(is::<Scalar, B<3>>() && is::<Scalar, H<1>>());
        assert!(is::<Mask2, H2<1, 0>>() && is::<Mask4, B3<3, 2, 0>>() && is::<Mask4, B4<3, 2, 1, 0>>());
        assert!(is::<Half2, H2<3, 0>>() && is::<Byte4, B4<7, 0, 7, 3>>());
        assert!(is::<Byte4, B4<1, 0, 2, 5>>() && is::<Byte4, B4<1, 0, 3, 4>>() && is::<Byte4, B4<0, 0, 2, 4>>());
        assert_eq!(B2::<3, 1>::SEL.to_string(), ".b31");
    }
}
