//! Chains composed from types, for helpers generic over the state space and the element
//! type (`k.ld(p)`, `k.st_ordered(Release, Gpu, p, v)`, `k.vload`, kernel parameters, `assign`):
//! the modifiers of `ld.acquire.gpu.global.u32` are `(m::Acquire, m::Gpu) ++ (m::Global,) ++
//! (U32,)`, and the form is `<op::Ld as Select<(m::Acquire, m::Gpu, m::Global, U32)>>::Form`
//! (the `select` rows of the `mem` table), so it is found by the type checker, as a `ptx!`
//! call's is, never by looking a string up.

use super::{op, Addr, Call, Instr, Operand, Select, StateSpace};
use crate::core::ir::Guard;
use crate::core::Kernel;
use crate::types::{self, Accepts, DataType, Reg};

/// Types `ld`/`st` move: the type their chains name (`.b16` for `.f16`; 8-bit types as
/// themselves, into 16-bit registers).
pub trait MemType: DataType + Accepts<Self> {
    type Mem: DataType + Accepts<Self>;
}

/// Types `mov` moves: the type its chain names (`.b16` for `.f16`, `.u16` for `.u8`).
pub trait MovType: DataType {
    type Mov: DataType;
}

macro_rules! moves {
    ($($t:ident  $mov:ident  $($mem:ident)?;)*) => {$(
        impl MovType for types::$t { type Mov = types::$mov; }
        $( impl MemType for types::$t { type Mem = types::$mem; } )?
    )*};
}
moves! {
//  type     mov    ld/st
    Pred     Pred;
    B8       B16    B8;
    B16      B16    B16;
    B32      B32    B32;
    B64      B64    B64;
    B128     B128   B128;
    U8       U16    U8;
    U16      U16    U16;
    U32      U32    U32;
    U64      U64    U64;
    S8       S16    S8;
    S16      S16    S16;
    S32      S32    S32;
    S64      S64    S64;
    F16      B16    B16;
    F16x2    B32    B32;
    Bf16     B16    B16;
    Bf16x2   B32    B32;
    Tf32     B32    B32;
    F32      F32    F32;
    F64      F64    F64;
    F32x2    B64    B64;
    E4m3x2   B16    B16;
    E5m2x2   B16    B16;
    E3m2x2   B16    B16;
    E2m3x2   B16    B16;
    Ue8m0x2  B16    B16;
    S2f6x2   B16    B16;
    Ue5m3x2  B16    B16;
    E4m3x4   B32    B32;
    E5m2x4   B32    B32;
    E2m1x4   B16    B16;
    E3m2x4   B32    B32;
    E2m3x4   B32    B32;
    Gdesc    B64    B64;
}

// `.e2m1x2` and the single FP8 values `.e4m3`/`.e5m2` live in 8-bit registers
// (`RegClass::B8`), which `mov` cannot move: they have `ld`/`st .b8` and no `MovType`, so
// `k.assign` into one does not compile.
macro_rules! byte_regs {
    ($($t:ident)*) => {$(
        impl MemType for types::$t { type Mem = types::B8; }
    )*};
}
byte_regs!(E2m1x2 E4m3 E5m2);

/// Tuple concatenation at the type level: `(A,) ++ (B, C)` is `(A, B, C)`.
pub trait Cat<B> {
    type Out;
}
macro_rules! cat {
    ($(($($a:ident)*) ($($b:ident)*);)*) => {$( impl<$($a,)* $($b,)*> Cat<($($b,)*)> for ($($a,)*) { type Out = ($($a,)* $($b,)*); } )*};
}
cat! {
    () (); () (B1); () (B1 B2); () (B1 B2 B3);
    (A1) (); (A1) (B1); (A1) (B1 B2); (A1) (B1 B2 B3);
    (A1 A2) (); (A1 A2) (B1); (A1 A2) (B1 B2); (A1 A2) (B1 B2 B3);
    (A1 A2 A3) (); (A1 A2 A3) (B1); (A1 A2 A3) (B1 B2); (A1 A2 A3) (B1 B2 B3);
}

/// Prefixes `P` that compose with space `S` and suffix `T` into a memory chain.
pub trait ChainOf<S, T> {
    /// `P ++ S::Part ++ T`.
    type Mods;
}
impl<P, S, T> ChainOf<S, T> for P
where
    S: StateSpace,
    P: Cat<S::Part>,
    <P as Cat<S::Part>>::Out: Cat<T>,
{
    type Mods = <<P as Cat<S::Part>>::Out as Cat<T>>::Out;
}

/// The chain type of `ld`/`st` for elements of type `E`.
pub type Mem<E> = <E as MemType>::Mem;

/// The width of a memory access: one value, or a `.v2`/`.v4` vector.
pub trait Width {
    /// The chain's suffix for values of type `M`: `(M,)`, `(m::V2, M)`.
    type Suffix<M>;
    /// The registers it loads.
    type Regs<M: DataType>: Copy;
    /// The operand kind it stores: `M`, `Vector<M, 2>`.
    type Kind<M>;
}
/// One value per access.
pub struct Scalar;
/// `.v2`
pub struct W2;
/// `.v4`
pub struct W4;
impl Width for Scalar {
    type Suffix<M> = (M,);
    type Regs<M: DataType> = Reg<M>;
    type Kind<M> = M;
}
impl Width for W2 {
    type Suffix<M> = (super::m::V2, M);
    type Regs<M: DataType> = [Reg<M>; 2];
    type Kind<M> = super::Vector<M, 2>;
}
impl Width for W4 {
    type Suffix<M> = (super::m::V4, M);
    type Regs<M: DataType> = [Reg<M>; 4];
    type Kind<M> = super::Vector<M, 4>;
}

/// Values of `Self` load from space `S` with `ld`, the modifiers `P` before the space
/// (ordering and scope: `(m::Acquire, m::Gpu)`) and `W` values per access. The bound
/// `T: Load<(), m::Global>` is what code generic over the element type needs for `k.ld`.
#[diagnostic::on_unimplemented(
    message = "PTX has no `ld` of `{Self}` from `{S}` with the modifiers `{P}` and width `{W}`",
    label = "no such load",
    note = "the `select` rows of the `mem` table (tables/forms/mem.forms) are the loads generic code chooses"
)]
pub trait Load<P, S, W: Width = Scalar>: MemType {
    #[doc(hidden)]
    fn emit_ld<A: Operand<Addr<S, Self::Mem>>>(k: &mut Kernel, guard: Guard, dst: W::Regs<Self::Mem>, addr: A);
}
impl<P, S, W, T> Load<P, S, W> for T
where
    T: MemType,
    S: StateSpace,
    W: Width,
    P: ChainOf<S, W::Suffix<T::Mem>>,
    op::Ld: Select<<P as ChainOf<S, W::Suffix<T::Mem>>>::Mods>,
    <op::Ld as Select<<P as ChainOf<S, W::Suffix<T::Mem>>>::Mods>>::Form: Instr<Out = W::Regs<T::Mem>, Src = (Addr<S, T::Mem>,)>,
{
    #[track_caller]
    fn emit_ld<A: Operand<Addr<S, T::Mem>>>(k: &mut Kernel, guard: Guard, dst: W::Regs<T::Mem>, addr: A) {
        <<op::Ld as Select<<P as ChainOf<S, W::Suffix<T::Mem>>>::Mods>>::Form as Call<(A,)>>::call_into_if(k, guard, dst, (addr,));
    }
}

/// Values of `Self` store to space `S` with `st`, the modifiers `P` before the space and
/// `W` values per access.
#[diagnostic::on_unimplemented(
    message = "PTX has no `st` of `{Self}` to `{S}` with the modifiers `{P}` and width `{W}`",
    label = "no such store",
    note = "the `select` rows of the `mem` table (tables/forms/mem.forms) are the stores generic code chooses"
)]
pub trait Store<P, S, W: Width = Scalar>: MemType {
    #[doc(hidden)]
    fn emit_st<A: Operand<Addr<S, Self::Mem>>, V: Operand<W::Kind<Self::Mem>>>(k: &mut Kernel, guard: Guard, addr: A, v: V);
}
impl<P, S, W, T> Store<P, S, W> for T
where
    T: MemType,
    S: StateSpace,
    W: Width,
    P: ChainOf<S, W::Suffix<T::Mem>>,
    op::St: Select<<P as ChainOf<S, W::Suffix<T::Mem>>>::Mods>,
    <op::St as Select<<P as ChainOf<S, W::Suffix<T::Mem>>>::Mods>>::Form: Instr<Out = (), Src = (Addr<S, T::Mem>, W::Kind<T::Mem>)>,
{
    #[track_caller]
    fn emit_st<A: Operand<Addr<S, T::Mem>>, V: Operand<W::Kind<T::Mem>>>(k: &mut Kernel, guard: Guard, addr: A, v: V) {
        <<op::St as Select<<P as ChainOf<S, W::Suffix<T::Mem>>>::Mods>>::Form as Call<(A, V)>>::call_into_if(k, guard, (), (addr, v));
    }
}

/// `mov.T` for registers of type `T`.
pub type MovOp<T> = <op::Mov as Select<(<T as MovType>::Mov,)>>::Form;
