//! Typed operations: opcode and modifier tokens as zero-sized types, `Op<Opcode, Modifiers>`,
//! and one table per instruction family.
//!
//! A form is a trait impl `impl Form<(Rn, F32)> for Fma` generated from one table row by
//! `forms!`. It fixes the destination type (`Dst`), the operand kinds (`Src`), and a
//! descriptor the untyped IR and printer use. [`Call`] then accepts any tuple of operands
//! whose types fit the kinds ([`Operand`]), so a `Reg<U32>` where `.f32` is expected, a
//! modifier the family lacks, or the wrong operand count is a compile error.
//!
//! # Table notation
//!
//! A row is `"pattern" "signature" [as variant];`. In the pattern, `.tok` is a literal part,
//! `.<set>` one member of a named set, `.<T:set>` a member bound to `T`, `{..|..}` an
//! optional group and `(..|..)` a required choice. The signature is `dst = src, ...` with
//! `-` for no destination, `X|Y` for a grouped pair, `V(T)` for a braced vector, `[T]` for
//! an address in the chain's state space (`[]`: any element), `imm(T)` for an immediate only
//! and `label` for a branch target. Sets live in the vocabulary of the macro crate.

use crate::builder::ir::Opnd;
use crate::builder::Kernel;
use crate::types::{DType, DataType};
use core::marker::PhantomData;

pub mod arith;
pub mod bits;
pub mod cmp;
pub mod control;
pub mod cvt;
pub mod isa;
pub mod mem;
#[doc(hidden)]
pub mod sample;
pub mod sync;
pub mod warp;

pub use isa::Req;

/// A PTX token: its text.
pub trait Token: Copy + Default + 'static {
    const TOKEN: &'static str;
}

/// Opcode types (`op::Fma`).
pub mod op {
    ptxkit_macros::define_tokens!(opcodes);
}

/// Modifier types (`m::Rn`, `m::SharedCta`); data types are in [`crate::types`].
pub mod m {
    ptxkit_macros::define_tokens!(modifiers);
}

/// Form variants: the same chain with another operand layout (wrapper families).
pub mod v {
    /// The chain default.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Plain;
    /// A grouped second destination: `d|p`.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Pair;
    /// `mov.bN d, {a, b}`: two halves packed into one register.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Pack;
    /// `mov.bN {a, b}, d`: one register split into halves.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Unpack;
    /// A barrier with an explicit thread count.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Counted;
}

/// An instruction: opcode `O`, modifiers `M` (a tuple of tokens), variant `V`.
pub struct Op<O, M, V = v::Plain>(PhantomData<(O, M, V)>);

/// A legal PTX form. Implemented by opcode types, one impl per table row expansion.
#[diagnostic::on_unimplemented(
    message = "PTX has no form `{Self}` with modifiers `{M}`",
    label = "this opcode/modifier combination does not exist",
    note = "the family's table in src/ops/ lists every form"
)]
pub trait Form<M, V = v::Plain> {
    /// What the instruction returns: `Reg<T>`, `(Reg<T>, Reg<Pred>)`, `[Reg<T>; N]` or `()`.
    type Dst: Dst;
    /// The operand kinds, a tuple.
    type Src;
    const DESC: &'static FormDesc;
    /// Whether the instruction is observable beyond its destination (memory, barriers,
    /// warp-collective or control effects).
    const SIDE_EFFECTS: bool = Self::DESC.side_effects();
}

/// Run-time description of a form, shared by the IR, the printer and the tests.
#[derive(Debug, PartialEq)]
pub struct FormDesc {
    /// `fma.rn.f32`
    pub chain: &'static str,
    /// `plain` or a wrapper variant name.
    pub variant: &'static str,
    pub dst: DstKind,
    pub src: &'static [Kind],
}

const EFFECT_OPCODES: &[&str] = &[
    "ld",
    "st",
    "ldu",
    "atom",
    "red",
    "prefetch",
    "prefetchu",
    "bar",
    "barrier",
    "fence",
    "membar",
    "vote",
    "shfl",
    "match",
    "redux",
    "activemask",
    "elect",
    "bra",
    "call",
    "ret",
    "exit",
    "trap",
    "nanosleep",
    "brkpt",
    "pmevent",
    "mbarrier",
    "wgmma",
    "tcgen05",
    "cp",
    "setmaxnreg",
    "tensormap",
    "ldmatrix",
    "stmatrix",
    "mapa",
    "getctarank",
    "griddepcontrol",
    "clusterlaunchcontrol",
    "multimem",
];

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl FormDesc {
    /// The opcode (first part of the chain).
    pub fn opcode(&self) -> &'static str {
        self.chain.split('.').next().unwrap_or(self.chain)
    }
    pub const fn side_effects(&self) -> bool {
        let c = self.chain.as_bytes();
        let mut n = 0;
        while n < c.len() && c[n] != b'.' {
            n += 1;
        }
        let (op, _) = self.chain.split_at(n);
        let mut i = 0;
        while i < EFFECT_OPCODES.len() {
            if str_eq(op, EFFECT_OPCODES[i]) {
                return true;
            }
            i += 1;
        }
        false
    }
    /// The ISA requirement recorded for this form.
    pub fn req(&self) -> Option<Req> {
        isa::form_req(self.chain)
    }
}

/// State spaces of address operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Generic,
    Global,
    Shared,
    SharedCta,
    SharedCluster,
    Local,
    Const,
    Param,
}

impl Space {
    /// The chain part naming this space (`.global`), empty for generic addressing.
    pub fn chain_part(self) -> &'static str {
        match self {
            Space::Generic => "",
            Space::Global => ".global",
            Space::Shared => ".shared",
            Space::SharedCta => ".shared::cta",
            Space::SharedCluster => ".shared::cluster",
            Space::Local => ".local",
            Space::Const => ".const",
            Space::Param => ".param",
        }
    }
    /// Width of an address in this space: shared-window addresses are 32-bit.
    pub fn addr_bits(self) -> u32 {
        match self {
            Space::Shared | Space::SharedCta | Space::SharedCluster => 32,
            _ => 64,
        }
    }
}

/// Operand kinds at run time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Val(DType),
    Addr(Space, Option<DType>),
    Vec(DType, u8),
    Imm(DType),
    Label,
}

/// Destination kinds at run time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DstKind {
    None,
    Val(DType),
    Pair(DType, DType),
    Vec(DType, u8),
}

/// Generic addressing (no state space in the chain).
#[derive(Clone, Copy, Debug, Default)]
pub struct Generic;

/// A state space: the type of its addresses.
pub trait StateSpace: Copy + Default + 'static {
    const SPACE: Space;
    /// `U64`, or `U32` for the shared window.
    type AddrT: DataType;
}

macro_rules! spaces {
    ($($t:ty => $s:ident, $a:ident;)*) => {$(
        impl StateSpace for $t { const SPACE: Space = Space::$s; type AddrT = crate::types::$a; }
    )*};
}
spaces! {
    Generic => Generic, U64;
    m::Global => Global, U64;
    m::Shared => Shared, U32;
    m::SharedCta => SharedCta, U32;
    m::SharedCluster => SharedCluster, U32;
    m::Local => Local, U64;
    m::Const => Const, U64;
    m::Param => Param, U64;
}

/// Operand kind: an address of `T` elements in space `S`.
pub struct Addr<S, T>(PhantomData<(S, T)>);
/// Element type of an address operand that takes any element (`prefetch`, `cvta`).
#[derive(Clone, Copy, Debug, Default)]
pub struct AnyElem;
impl<E: DataType> crate::types::Accepts<E> for AnyElem {}
/// Operand kind: a braced vector of `N` values of `T`.
pub struct Vector<T, const N: usize>(PhantomData<T>);
/// Operand kind: an immediate of type `T` only.
pub struct Imm<T>(PhantomData<T>);
/// Operand kind: a label.
pub struct LabelOp;

/// A value usable as an operand of kind `K`.
#[diagnostic::on_unimplemented(message = "`{Self}` is not a valid `{K}` operand", label = "PTX expects a `{K}` operand here")]
pub trait Operand<K> {
    fn lower(self, k: &mut Kernel) -> Opnd;
}

/// A destination: allocated by a call, or given with `=> dst`.
pub trait Dst: Sized {
    fn alloc(k: &mut Kernel) -> Self;
    fn opnd(&self, k: &mut Kernel) -> Option<Opnd>;
}

/// A tuple of operands matching a tuple of kinds.
#[diagnostic::on_unimplemented(
    message = "operands `{Self}` do not fit this PTX form, which takes `{K}`",
    label = "wrong number or kinds of operands"
)]
pub trait Lower<K> {
    fn lower_into(self, k: &mut Kernel, out: &mut Vec<Opnd>);
}

macro_rules! lower_tuples {
    ($(($($a:ident $k:ident),*);)*) => {$(
        #[allow(non_snake_case, unused_variables)]
        impl<$($a: Operand<$k>, $k,)*> Lower<($($k,)*)> for ($($a,)*) {
            fn lower_into(self, k: &mut Kernel, out: &mut Vec<Opnd>) {
                let ($($a,)*) = self;
                $( out.push($a.lower(k)); )*
            }
        }
    )*};
}
lower_tuples! {
    ();
    (A KA);
    (A KA, B KB);
    (A KA, B KB, C KC);
    (A KA, B KB, C KC, D KD);
    (A KA, B KB, C KC, D KD, E KE);
    (A KA, B KB, C KC, D KD, E KE, F KF);
}

/// Emitting a form.
pub trait Call<Args> {
    type Out;
    fn call(k: &mut Kernel, args: Args) -> Self::Out;
    /// Writes into an existing destination instead of allocating one.
    fn call_into(k: &mut Kernel, dst: Self::Out, args: Args) -> Self::Out;
}

impl<O, M, V, Args> Call<Args> for Op<O, M, V>
where
    O: Form<M, V>,
    Args: Lower<O::Src>,
{
    type Out = O::Dst;
    #[inline]
    fn call(k: &mut Kernel, args: Args) -> O::Dst {
        let d = O::Dst::alloc(k);
        Self::call_into(k, d, args)
    }
    #[inline]
    fn call_into(k: &mut Kernel, dst: O::Dst, args: Args) -> O::Dst {
        let guard = k.take_guard();
        let mut buf = k.take_scratch();
        if let Some(d) = dst.opnd(k) {
            buf.push(d);
        }
        args.lower_into(k, &mut buf);
        k.push_ins(O::DESC, guard, &mut buf);
        k.put_scratch(buf);
        dst
    }
}

/// Sets the guard of the next instruction (used by `ptx!(k, @p, ...)`).
#[doc(hidden)]
pub fn guard_next<P: crate::regs::IntoGuard>(k: &mut Kernel, p: P, negate: bool) {
    let (r, n) = p.into_guard(k);
    k.set_guard(r, n ^ negate);
}

/// Every family table, for enumeration.
pub fn families() -> &'static [(&'static str, &'static [&'static FormDesc])] {
    static F: [(&str, &[&FormDesc]); 8] = [
        ("arith", arith::FORMS),
        ("bits", bits::FORMS),
        ("cmp", cmp::FORMS),
        ("cvt", cvt::FORMS),
        ("mem", mem::FORMS),
        ("sync", sync::FORMS),
        ("warp", warp::FORMS),
        ("control", control::FORMS),
    ];
    &F
}

/// Every form of every family.
pub fn all_forms() -> impl Iterator<Item = &'static FormDesc> {
    families().iter().flat_map(|(_, f)| f.iter().copied())
}

/// The form with this chain and variant, if the tables have it.
pub fn find_form(chain: &str, variant: &str) -> Option<&'static FormDesc> {
    use std::collections::HashMap;
    use std::sync::OnceLock;
    static MAP: OnceLock<HashMap<(&'static str, &'static str), &'static FormDesc>> = OnceLock::new();
    MAP.get_or_init(|| all_forms().map(|f| ((f.chain, f.variant), f)).collect()).get(&(chain, variant)).copied()
}
