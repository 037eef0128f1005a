//! A form as a type: `Form<Op<Opcode, (Modifiers..), Variant>, Dst, (Operands..)>`.
//!
//! `ptx!` and `op!` write this type for the form a chain names in the tables; its
//! parameters are everything the type checker needs (what the call returns, the kind of
//! every operand) and everything the descriptor of the instruction holds, which is built
//! from them when the program is compiled ([`Instr::DESC`]). So a form costs nothing until
//! a program uses it: the crate has no item per form. Generic code that chooses a form by
//! its modifier types goes through [`Select`], implemented for the table rows marked
//! `select`.

use super::coords::{CoordKinds, HandleKinds};
use super::kinds::ElemKind;
use super::sel::SelectorSet;
use super::{
    v, Acc, Addr, Coords, Dst, HandleAddr, Imm, ImmIn, LabelOp, Legal, Negated, PartDst, Selectable, StateSpace, TargetsOp, Vector,
};
use crate::core::{DType, DstKind, FormDesc, Kind};
use crate::types::{self, DataType, Pred, Reg};
use core::marker::PhantomData;

/// An opcode (`ops::op::Fma`): the first part of a chain.
pub trait Opcode: 'static {
    const NAME: &'static str;
}

/// A part of a chain after its opcode: a modifier (`ops::m::Rn`) or a data type.
pub trait Part: 'static {
    const NAME: &'static str;
}

/// A form variant (`ops::v::Pair`): the same chain with another operand layout.
pub trait Variant: 'static {
    const NAME: &'static str;
}

/// A tuple of chain parts.
pub trait Parts: 'static {
    const NAMES: &'static [&'static str];
}

/// The name of a form: opcode `K`, modifiers `M` (a tuple of [`Part`]s), variant `V`.
pub struct Op<K, M, V = v::Plain>(PhantomData<(K, M, V)>);

/// A form: its name `O` (an [`Op`]), its destination kind `D` ([`DstSpec`]) and its operand
/// kinds `S` (a tuple of [`OperandKind`]s). Written by `ptx!` and `op!` from the tables:
/// `op!("fma.rn.f32")` is `Form<Op<op::Fma, (m::Rn, F32)>, F32, (F32, F32, F32)>`.
pub struct Form<O, D, S>(PhantomData<(O, D, S)>);

/// An operand kind: what a form's operand position takes.
pub trait OperandKind: 'static {
    const KIND: Kind;
}

/// A tuple of operand kinds.
pub trait OperandKinds: 'static {
    const KINDS: &'static [Kind];
}

/// A destination kind: the value a call returns and how the instruction writes it.
pub trait DstSpec: 'static {
    type Out: Dst;
    const KIND: DstKind;
}

/// A form with its descriptor: what [`Call`](super::Call) emits.
pub trait Instr: 'static {
    /// What a call returns.
    type Out: Dst;
    /// The operand kinds, a tuple.
    type Src;
    /// The instruction's run-time description, built from the type when it is compiled.
    const DESC: &'static FormDesc;
}

/// The form named by the modifiers `M` and variant `V` of the opcode `Self`, for generic
/// code that composes a chain from types (`ld` of any element type from any state space).
/// Implemented for the forms of the table rows marked `select`.
#[diagnostic::on_unimplemented(
    message = "PTX has no form `{Self}` with modifiers `{M}` that generic code can select",
    label = "no such form",
    note = "the rows marked `select` in the tables (tables/forms/mem.forms) are the forms generic code chooses by type"
)]
pub trait Select<M, V = v::Plain> {
    type Form: Instr;
}

/// The longest chain a form may have (the longest in the tables is well below it).
const CHAIN_MAX: usize = 192;

/// A chain's text in a fixed buffer, written at compile time.
struct Chain {
    buf: [u8; CHAIN_MAX],
    len: usize,
}

const fn chain(op: &str, parts: &[&str]) -> Chain {
    let mut c = Chain { buf: [0; CHAIN_MAX], len: 0 };
    c = push(c, op.as_bytes());
    let mut i = 0;
    while i < parts.len() {
        c = push(c, b".");
        c = push(c, parts[i].as_bytes());
        i += 1;
    }
    c
}

const fn push(mut c: Chain, b: &[u8]) -> Chain {
    assert!(c.len + b.len() <= CHAIN_MAX, "a chain longer than 192 bytes");
    let mut i = 0;
    while i < b.len() {
        c.buf[c.len] = b[i];
        c.len += 1;
        i += 1;
    }
    c
}

impl<K: Opcode, M: Parts, V> Op<K, M, V> {
    const TEXT: Chain = chain(K::NAME, M::NAMES);
    /// The chain, `fma.rn.f32`.
    pub const CHAIN: &'static str = match core::str::from_utf8(Self::TEXT.buf.split_at(Self::TEXT.len).0) {
        Ok(s) => s,
        Err(_) => panic!("chain parts are ASCII"),
    };
}

impl<K: Opcode, M: Parts, V: Variant, D: DstSpec, S: OperandKinds> Instr for Form<Op<K, M, V>, D, S> {
    type Out = D::Out;
    type Src = S;
    const DESC: &'static FormDesc = &FormDesc { chain: Op::<K, M, V>::CHAIN, variant: V::NAME, dst: D::KIND, src: S::KINDS };
}

macro_rules! tuples {
    ($(($($t:ident)*);)*) => {$(
        impl<$($t: Part),*> Parts for ($($t,)*) {
            const NAMES: &'static [&'static str] = &[$($t::NAME),*];
        }
        impl<$($t: OperandKind),*> OperandKinds for ($($t,)*) {
            const KINDS: &'static [Kind] = &[$($t::KIND),*];
        }
    )*};
}
tuples! {
    ();
    (A);
    (A B);
    (A B C);
    (A B C D);
    (A B C D E);
    (A B C D E F);
    (A B C D E F G);
    (A B C D E F G H);
    (A B C D E F G H I);
    (A B C D E F G H I J);
    (A B C D E F G H I J L);
    (A B C D E F G H I J L N);
    (A B C D E F G H I J L N O);
    (A B C D E F G H I J L N O P);
    (A B C D E F G H I J L N O P Q);
    (A B C D E F G H I J L N O P Q R);
}

// Operand kinds.

impl<S: StateSpace, E: ElemKind> OperandKind for Addr<S, E> {
    const KIND: Kind = Kind::Addr(S::SPACE, E::ELEM);
}
impl<T: DataType, const N: usize> OperandKind for Vector<T, N> {
    const KIND: Kind = Kind::Vec(T::ID, N as u16);
}
impl<T: DataType> OperandKind for Imm<T> {
    const KIND: Kind = Kind::Imm(T::ID);
}
impl<T: DataType, L: Legal> OperandKind for ImmIn<T, L> {
    const KIND: Kind = Kind::ImmIn(T::ID, L::VALUES);
}
impl OperandKind for LabelOp {
    const KIND: Kind = Kind::Label;
}
impl OperandKind for TargetsOp {
    const KIND: Kind = Kind::Targets;
}
impl<T: DataType, S: SelectorSet> OperandKind for Selectable<T, S> {
    const KIND: Kind = Kind::Part { ty: T::ID, sel: S::SET, neg: false };
}
impl<T: DataType, S: SelectorSet> OperandKind for Negated<T, S> {
    const KIND: Kind = Kind::Part { ty: T::ID, sel: S::SET, neg: true };
}
impl<H: HandleKinds, C: CoordKinds, const P: usize> OperandKind for HandleAddr<H, C, P> {
    const KIND: Kind = Kind::HandleAddr(H::HANDLES, C::TYPES, P as u8);
}
impl<C: CoordKinds, const P: usize> OperandKind for Coords<C, P> {
    const KIND: Kind = Kind::Coords(C::TYPES, P as u8);
}

// A data type is a chain part, an operand kind (a register or an immediate of the type),
// a destination kind (one register of it) and the element of an address.
macro_rules! dtype_kinds {
    ($( $id:ident $name:literal $bits:literal $class:ident $fam:ident $host:ty [$($acc:ident)*]; )*) => {$(
        impl Part for types::$id {
            const NAME: &'static str = $name;
        }
        impl OperandKind for types::$id {
            const KIND: Kind = Kind::Val(DType::$id);
        }
        impl DstSpec for types::$id {
            type Out = Reg<types::$id>;
            const KIND: DstKind = DstKind::Val(DType::$id);
        }
        impl ElemKind for types::$id {
            const ELEM: Option<DType> = Some(DType::$id);
        }
    )*};
}
crate::core::dtype::dtype_table!(dtype_kinds);

// Destination kinds.

/// Destination kind `_`: the result is dropped.
pub struct Sink;
/// Destination kind `d|p`: a grouped pair of registers.
pub struct Pair<A, B>(PhantomData<(A, B)>);
/// Destination kind `{d0, ..}|p`: a braced vector and a predicate.
pub struct VecPred<T, const N: usize>(PhantomData<T>);
/// Destination kind `_|p`: a pair whose first register is dropped.
pub struct SinkPair<T>(PhantomData<T>);

impl DstSpec for () {
    type Out = ();
    const KIND: DstKind = DstKind::None;
}
impl DstSpec for Sink {
    type Out = ();
    const KIND: DstKind = DstKind::Sink;
}
impl<A: DataType, B: DataType> DstSpec for Pair<A, B> {
    type Out = (Reg<A>, Reg<B>);
    const KIND: DstKind = DstKind::Pair(A::ID, B::ID);
}
impl<T: DataType, const N: usize> DstSpec for Vector<T, N> {
    type Out = [Reg<T>; N];
    const KIND: DstKind = DstKind::Vec(T::ID, N as u16);
}
impl<T: DataType, const N: usize> DstSpec for Acc<T, N> {
    type Out = Acc<T, N>;
    const KIND: DstKind = DstKind::Tied(T::ID, N as u16);
}
impl<T: DataType, const N: usize> DstSpec for VecPred<T, N> {
    type Out = ([Reg<T>; N], Reg<Pred>);
    const KIND: DstKind = DstKind::VecPred(T::ID, N as u16);
}
impl<A: DstSpec, B: DstSpec> DstSpec for (A, B) {
    type Out = (A::Out, B::Out);
    const KIND: DstKind = DstKind::Multi(&[A::KIND, B::KIND]);
}
impl<T: DataType, S: SelectorSet> DstSpec for PartDst<T, S> {
    type Out = PartDst<T, S>;
    const KIND: DstKind = match S::SET {
        Some(s) => DstKind::Part(T::ID, s),
        None => panic!("a part destination names its selector set"),
    };
}
impl<T: DataType> DstSpec for SinkPair<T> {
    type Out = Reg<T>;
    const KIND: DstKind = DstKind::SinkPair(T::ID);
}
