//! Vectorised loads and stores: `N` elements (a power of two, checked at compile time) of
//! any 1-, 2-, 4- or 8-byte type, as an array of registers, at an address formed as for
//! [`ld`](super::order::MemoryOps::ld): a pointer, or `p.at(i)` for element `i`.
//!
//! The element index of `p.at(i)` is applied in 64 bits for a global, generic, local, const or
//! param pointer: a `Reg<U32>` index is widened as it is scaled (`mad.wide.u32`), a
//! `Reg<U64>` one is scaled in 64 bits (`mad.lo.u64`), and a constant one is folded into the
//! address operand (or added in a 64-bit register past the operand's 32-bit range), so the
//! `N` elements of block `b` at `p.at(b * N)` never wrap past 2^32 elements as long as the
//! product `b * N` itself is computed wide enough (`mul.wide.u32`). Shared addresses are
//! 32-bit.
//!
//! What is known of the address's alignment picks the accesses: [`Align::Aligned`] (the
//! address is a multiple of `N` elements: whole vectors, `ld.v2`/`.v4`, at most 16 bytes
//! each); [`Align::Offset`]`(a)` (the address is `a < N` elements past such a multiple: a
//! static pattern of narrower accesses, no branch); [`Align::Unknown`] (a run-time test of
//! the address picks one of the patterns).
//!
//! A pattern covers the `N` elements left to right, each access the widest vector that the
//! position's alignment allows: a block of 4 `f32` one element past alignment loads as
//! scalar, `v2`, scalar.
//!
//! ```
//! use ptxkit::prelude::*;
//! use ptxkit::intrinsics::vector::Align;
//!
//! let mut m = Module::new(Target::SM_80);
//! m.kernel("v", |k, (x, y): (GlobalPtr<F32>, GlobalPtr<F32>)| {
//!     let i = k.global_thread_index_x();
//!     let first = ptx!(k, "mul.wide.u32", i, 4u32); // block i: elements 4i.., in 64 bits
//!     let v = k.vload::<4, _>(x.at(first), Align::Aligned);
//!     k.vstore(y.at(first).offset(1), v, Align::Offset(1));
//! }).unwrap();
//! let text = m.to_ptx().unwrap();
//! assert_eq!(text.matches("ld.global.v4.f32").count(), 1);
//! assert_eq!(text.matches("st.global.v2.f32").count(), 1);
//! assert_eq!(text.matches("st.global.f32").count(), 2);
//! assert!(text.contains("mad.lo.u64"));
//! ```

use super::sealed::Sealed;
use super::{Count, PowerOfTwo};
use crate::builder::{Error, Kernel};
use crate::core::ir::Opnd;
use crate::ops::access::{Load, MemType, Store, W2, W4};
use crate::ops::{Addr, Operand, StateSpace};
use crate::ptx;
use crate::regs::{elem_bytes, Address, Ptr, Reg};
use crate::types::{self, Pred, B32, U32, U64};

/// What is known of a vector access's address: how many elements it lies past a multiple of
/// `N` elements. Only its alignment to the widest access is used (`N` elements, at most 16
/// bytes and four elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// The address is a multiple of `N` elements: whole vectors.
    Aligned,
    /// The address is `a` elements past a multiple of `N` elements (`a < N`): a static
    /// pattern of narrower accesses.
    Offset(u32),
    /// Not known when the kernel is built: a run-time test of the address picks the pattern
    /// (a branch per misalignment the widest access can have).
    Unknown,
}

/// Element types vectorised accesses move: 1- to 8-byte types `ld`/`st` have.
pub trait VecElem: MemType {
    /// Elements in the widest access: 16 bytes, and at most four elements (`.v4`).
    const MAX_CHUNK: u32;
}

/// Loads of 1, 2 or 4 elements of `Self` (`ld{.space}{.v2|.v4}.type`) in space `S`.
#[diagnostic::on_unimplemented(message = "no vector loads of `{Self}` in state space `{S}`")]
pub trait VecLoad<S>: VecElem {
    #[doc(hidden)]
    fn load_chunk(k: &mut Kernel, at: Ptr<S, Self>, regs: &[Reg<Self>]);
}

/// Stores of 1, 2 or 4 elements of `Self` (`st{.space}{.v2|.v4}.type`) in space `S`.
#[diagnostic::on_unimplemented(message = "no vector stores of `{Self}` in state space `{S}`")]
pub trait VecStore<S>: VecElem {
    #[doc(hidden)]
    fn store_chunk(k: &mut Kernel, at: Ptr<S, Self>, regs: &[Reg<Self>]);
}

#[track_caller]
fn bad_chunk(k: &mut Kernel, n: usize) {
    k.invalid(format!("a vector access of {n} elements"));
}

macro_rules! vec_elems {
    // Up to 4-byte elements: scalar, .v2 and .v4 accesses.
    (narrow: $($t:ident)*) => {$(
        impl VecElem for types::$t {
            const MAX_CHUNK: u32 = { let n = 16 / elem_bytes_const(<types::$t as crate::types::DataType>::BITS); if n < 4 { n } else { 4 } };
        }
        impl<S: StateSpace> VecLoad<S> for types::$t
        where
            types::$t: Load<(), S> + Load<(), S, W2> + Load<(), S, W4>,
        {
            #[track_caller]
            fn load_chunk(k: &mut Kernel, at: Ptr<S, Self>, r: &[Reg<Self>]) {
                match *r {
                    [a] => <Self as Load<(), S>>::emit_ld(k, None, a.retype(), at),
                    [a, b] => <Self as Load<(), S, W2>>::emit_ld(k, None, [a.retype(), b.retype()], at),
                    [a, b, c, d] => <Self as Load<(), S, W4>>::emit_ld(k, None, [a.retype(), b.retype(), c.retype(), d.retype()], at),
                    _ => bad_chunk(k, r.len()),
                }
            }
        }
        impl<S: StateSpace> VecStore<S> for types::$t
        where
            types::$t: Store<(), S> + Store<(), S, W2> + Store<(), S, W4>,
        {
            #[track_caller]
            fn store_chunk(k: &mut Kernel, at: Ptr<S, Self>, r: &[Reg<Self>]) {
                match *r {
                    [a] => <Self as Store<(), S>>::emit_st(k, None, at, a),
                    [a, b] => <Self as Store<(), S, W2>>::emit_st(k, None, at, [a, b]),
                    [a, b, c, d] => <Self as Store<(), S, W4>>::emit_st(k, None, at, [a, b, c, d]),
                    _ => bad_chunk(k, r.len()),
                }
            }
        }
    )*};
    // 8-byte elements: scalar and .v2 accesses (16 bytes).
    (wide: $($t:ident)*) => {$(
        impl VecElem for types::$t { const MAX_CHUNK: u32 = 2; }
        impl<S: StateSpace> VecLoad<S> for types::$t
        where
            types::$t: Load<(), S> + Load<(), S, W2>,
        {
            #[track_caller]
            fn load_chunk(k: &mut Kernel, at: Ptr<S, Self>, r: &[Reg<Self>]) {
                match *r {
                    [a] => <Self as Load<(), S>>::emit_ld(k, None, a.retype(), at),
                    [a, b] => <Self as Load<(), S, W2>>::emit_ld(k, None, [a.retype(), b.retype()], at),
                    _ => bad_chunk(k, r.len()),
                }
            }
        }
        impl<S: StateSpace> VecStore<S> for types::$t
        where
            types::$t: Store<(), S> + Store<(), S, W2>,
        {
            #[track_caller]
            fn store_chunk(k: &mut Kernel, at: Ptr<S, Self>, r: &[Reg<Self>]) {
                match *r {
                    [a] => <Self as Store<(), S>>::emit_st(k, None, at, a),
                    [a, b] => <Self as Store<(), S, W2>>::emit_st(k, None, at, [a, b]),
                    _ => bad_chunk(k, r.len()),
                }
            }
        }
    )*};
}

const fn elem_bytes_const(bits: u32) -> u32 {
    if bits < 8 {
        1
    } else {
        bits / 8
    }
}

vec_elems!(narrow: B8 U8 S8 B16 U16 S16 F16 Bf16 B32 U32 S32 F32);
vec_elems!(wide: B64 U64 S64 F64);

/// Widest elements per access.
fn max_chunk<T: VecElem>() -> u32 {
    T::MAX_CHUNK
}

/// `(position, elements)` of each access for a block whose first element sits `mis`
/// elements past a boundary of the alignment modulus.
pub fn pattern<T: VecElem>(n: u32, mis: u32) -> Vec<(u32, u32)> {
    let modulus = n.min(max_chunk::<T>());
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < n {
        let cur = (mis + pos) % modulus;
        let mut c = modulus;
        while c > 1 && (cur % c != 0 || c > n - pos) {
            c /= 2;
        }
        out.push((pos, c));
        pos += c;
    }
    out
}

/// Vectorised loads and stores, as [`Kernel`] methods (in scope with
/// `use ptxkit::prelude::*`); see the [module documentation](self) for the address and the
/// alignment.
pub trait VectorOps: Sealed {
    /// Loads `N` elements from `addr` (a pointer, or `p.at(i)`), with what `align` says of
    /// the address.
    fn vload<const N: usize, A: Address>(&mut self, addr: A, align: Align) -> [Reg<A::Elem>; N]
    where
        A::Elem: VecLoad<A::Space>,
        Count<N>: PowerOfTwo;

    /// Stores `N` elements to `addr` (a pointer, or `p.at(i)`), with what `align` says of the
    /// address.
    fn vstore<const N: usize, A: Address>(&mut self, addr: A, vals: [Reg<A::Elem>; N], align: Align)
    where
        A::Elem: VecStore<A::Space>,
        Count<N>: PowerOfTwo;
}

impl VectorOps for Kernel {
    #[track_caller]
    fn vload<const N: usize, A: Address>(&mut self, addr: A, align: Align) -> [Reg<A::Elem>; N]
    where
        A::Elem: VecLoad<A::Space>,
        Count<N>: PowerOfTwo,
    {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        let out: [Reg<A::Elem>; N] = std::array::from_fn(|_| self.reg());
        vaccess::<A::Elem, A::Space, A>(self, &mut <A::Elem as VecLoad<A::Space>>::load_chunk, addr, align, &out);
        out
    }

    #[track_caller]
    fn vstore<const N: usize, A: Address>(&mut self, addr: A, vals: [Reg<A::Elem>; N], align: Align)
    where
        A::Elem: VecStore<A::Space>,
        Count<N>: PowerOfTwo,
    {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        vaccess::<A::Elem, A::Space, A>(self, &mut <A::Elem as VecStore<A::Space>>::store_chunk, addr, align, &vals);
    }
}

/// One access of a pattern: its address and registers.
type Chunk<'a, S, T> = dyn FnMut(&mut Kernel, Ptr<S, T>, &[Reg<T>]) + 'a;

/// The address as a pointer: its register or symbol and its constant offset (the index of
/// `p.at(i)` applied once, here).
#[track_caller]
fn address_ptr<T: VecElem, S: StateSpace, A: Address<Space = S, Elem = T>>(k: &mut Kernel, addr: A) -> Option<Ptr<S, T>> {
    match <A as Operand<Addr<S, T>>>::lower(addr, k) {
        Opnd::Addr(r, off) => Some(Ptr::from_ref(r, k.id).byte_offset(off as i64)),
        Opnd::SymAddr(s, off) => Some(Ptr::from_sym(s, k.id).byte_offset(off as i64)),
        Opnd::AddrZero(r) => Some(Ptr::from_ref(r, k.id)),
        Opnd::SymAddrZero(s) => Some(Ptr::from_sym(s, k.id)),
        _ => None,
    }
}

#[track_caller]
fn vaccess<T: VecElem, S: StateSpace, A: Address<Space = S, Elem = T>>(
    k: &mut Kernel,
    chunk: &mut Chunk<'_, S, T>,
    addr: A,
    align: Align,
    regs: &[Reg<T>],
) {
    let n = regs.len() as u32;
    let Some(base) = address_ptr(k, addr) else {
        k.invalid("a vector access needs a register or symbol address".into());
        return;
    };
    let modulus = n.min(max_chunk::<T>());
    let known = match align {
        Align::Offset(a) if a >= n => {
            k.error(Error::InvalidArgument { kernel: k.name().to_string(), what: format!("alignment offset {a} is not below N = {n}") });
            return;
        }
        _ if modulus == 1 => Some(0),
        Align::Aligned => Some(0),
        Align::Offset(a) => Some(a % modulus),
        Align::Unknown => None,
    };
    match known {
        Some(mis) => vpattern::<T, S>(k, chunk, base, mis, regs),
        None => {
            // Misalignment in elements, from the address itself (its low 32 bits).
            let lo: Reg<U32> = if S::SPACE.addr_bits() == 64 {
                let a: Reg<U64> = base.addr(k).retype();
                ptx!(k, "cvt.u32.u64", a)
            } else {
                base.addr(k).retype()
            };
            let shift = elem_bytes::<T>().trailing_zeros();
            let el = ptx!(k, "shr.u32", lo, shift);
            let mis = ptx!(k, "and.b32", el.bitcast::<B32>(), modulus - 1);
            let end = k.label();
            for m in 0..modulus {
                let next = k.label();
                if m + 1 < modulus {
                    let here: Reg<Pred> = ptx!(k, "setp.eq.b32", mis, m);
                    k.bra_if(!here, next);
                }
                vpattern::<T, S>(k, chunk, base, m, regs);
                if m + 1 < modulus {
                    k.bra(end);
                }
                k.place(next);
            }
            k.place(end);
        }
    }
}

/// The accesses of the pattern for misalignment `mis`, from `base`.
#[track_caller]
fn vpattern<T: VecElem, S: StateSpace>(k: &mut Kernel, chunk: &mut Chunk<'_, S, T>, base: Ptr<S, T>, mis: u32, regs: &[Reg<T>]) {
    let e = elem_bytes::<T>() as i64;
    for (pos, c) in pattern::<T>(regs.len() as u32, mis) {
        chunk(k, base.byte_offset(pos as i64 * e), &regs[pos as usize..(pos + c) as usize]);
    }
}
