//! Operand kinds as types (what a form's `Src` tuple is made of) and state spaces.

use super::m;
use crate::core::Space;
use crate::types::{Accepts, DataType, U32, U64};
use core::marker::PhantomData;

/// Generic addressing (no state space in the chain).
#[derive(Clone, Copy, Debug, Default)]
pub struct Generic;

/// Tensor memory (`[tmem]` operands of the tcgen05 family): 32-bit addresses.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tmem;

/// A state space: the type of its addresses, and its part in a memory chain.
pub trait StateSpace: Copy + Default + 'static {
    const SPACE: Space;
    /// `U64`, or `U32` for the shared window and tensor memory.
    type AddrT: DataType;
    /// The space's modifiers in a chain: `(m::Global,)`, or `()` for generic addressing.
    type Part;
}

macro_rules! spaces {
    ($($t:ty => $s:ident, $a:ident, $part:ty;)*) => {$(
        impl StateSpace for $t { const SPACE: Space = Space::$s; type AddrT = $a; type Part = $part; }
    )*};
}
spaces! {
    Generic => Generic, U64, ();
    m::Global => Global, U64, (m::Global,);
    m::Shared => Shared, U32, (m::Shared,);
    m::SharedCta => SharedCta, U32, (m::SharedCta,);
    m::SharedCluster => SharedCluster, U32, (m::SharedCluster,);
    m::Local => Local, U64, (m::Local,);
    m::Const => Const, U64, (m::Const,);
    m::Param => Param, U64, (m::Param,);
    Tmem => Tmem, U32, ();
}

/// An address of space `Self` is valid where the chain names space `S`: every space in
/// itself; `.shared` and `.shared::cta` name the same window; a CTA's shared address is
/// also a `.shared::cluster` address (of its own CTA). A `.shared::cluster` address may be
/// another CTA's, so it is not accepted where `.shared::cta` is.
#[diagnostic::on_unimplemented(
    message = "an address in `{Self}` cannot be used where the instruction names `{S}`",
    label = "wrong state space for this operand",
    note = "write the chain for the pointer's space (a `{Self}` pointer in a `{Self}` chain), or convert the address: `cvta` between generic and a space, `mapa` to another CTA's shared memory; `.shared` and `.shared::cta` addresses are interchangeable and also valid as `.shared::cluster`"
)]
pub trait InWindow<S> {}
#[diagnostic::do_not_recommend]
impl<S: StateSpace> InWindow<S> for S {}
#[diagnostic::do_not_recommend]
impl InWindow<m::SharedCta> for m::Shared {}
#[diagnostic::do_not_recommend]
impl InWindow<m::Shared> for m::SharedCta {}
#[diagnostic::do_not_recommend]
impl InWindow<m::SharedCluster> for m::Shared {}
#[diagnostic::do_not_recommend]
impl InWindow<m::SharedCluster> for m::SharedCta {}

/// Operand kind: an address of `T` elements in space `S`.
pub struct Addr<S, T>(PhantomData<(S, T)>);

/// Element type of an address operand that takes any element (`prefetch`, `cvta`).
#[derive(Clone, Copy, Debug, Default)]
pub struct AnyElem;
#[diagnostic::do_not_recommend]
impl<E: DataType> Accepts<E> for AnyElem {}

/// The element of an address operand: a data type, or [`AnyElem`].
pub trait ElemKind: 'static {
    /// `None` for any element.
    const ELEM: Option<crate::core::DType>;
}
impl ElemKind for AnyElem {
    const ELEM: Option<crate::core::DType> = None;
}

/// Operand kind: a braced vector of `N` values of `T`.
pub struct Vector<T, const N: usize>(PhantomData<T>);

/// Operand kind: an immediate of type `T` only.
pub struct Imm<T>(PhantomData<T>);

/// A set of legal immediate values (generated from the tables: [`super::legal`]).
pub trait Legal: 'static {
    const VALUES: &'static [i64];
    /// Whether `v` is one of the values.
    fn contains(v: i64) -> bool {
        Self::VALUES.contains(&v)
    }
}

/// The legal set `Self` admits the value `V` (one impl per value, generated with the set),
/// so a [`Const`](crate::regs::Const) outside the set is a type error.
#[diagnostic::on_unimplemented(
    message = "the immediate {V} is not one of the values this operand allows",
    label = "not in the legal set `{Self}`",
    note = "the set's name spells its values: `L24to256by8` is 24, 32, .., 256; `Lm1or1` is -1 or 1"
)]
pub trait Admits<const V: i64> {}

/// Operand kind: an immediate of type `T` from the legal set `L`.
pub struct ImmIn<T, L>(PhantomData<(T, L)>);

/// Operand kind: a label.
pub struct LabelOp;

/// Operand kind: the label of a `.branchtargets` list ([`BranchTargets`](crate::core::BranchTargets)).
pub struct TargetsOp;

/// Operand kind of the video instructions: a register of `T` with an optional part selector
/// from the set `S` (`T{.<sel>}` in a table: `a`, `a.b1()`, `a.bytes::<7, 6, 5, 4>()`), or,
/// with `S` = [`sel::Whole`](super::sel::Whole), a register without one (`reg(T)`). Where
/// `S` is [`sel::Scalar`](super::sel::Scalar) an integer immediate is taken too, as ptxas
/// takes one there.
pub struct Selectable<T, S>(PhantomData<(T, S)>);
#[diagnostic::do_not_recommend]
impl<T: DataType + Accepts<R>, S, R: DataType> Accepts<R> for Selectable<T, S> {}

/// Operand kind: a negated register (`-T`, `-T{.<sel>}` in a table), the operand of a form
/// that negates it (`vmad ... as neg_a`), passed as `-a` or `-a.b1()`.
pub struct Negated<T, S>(PhantomData<(T, S)>);

/// The kind `ptx!` lowers a data operand of `ld`, `ldu`, `st` and `cvt` as: a value of type
/// `T`, or a register wider than `T` ([`Wide`](crate::regs::Wide), `r.wide()`), which PTX
/// allows there and nowhere else (its relaxed size rule). The form's own kind stays `T`.
/// `B` says whether the operand may also be written as a one-element vector ([`Braceable`]:
/// the data operands of `ld`, `ldu` and `st`, `r.braced()`) or not ([`Bare`]: `cvt`'s).
pub struct Widenable<T, B = Bare>(PhantomData<(T, B)>);
#[diagnostic::do_not_recommend]
impl<T: DataType + Accepts<R>, R: DataType, B> Accepts<R> for Widenable<T, B> {}

/// A [`Widenable`] operand that may also be written as a one-element vector, `{%r1}`
/// ([`Braced`](crate::regs::Braced)).
pub struct Braceable;
/// A [`Widenable`] operand that may not be braced.
pub struct Bare;
