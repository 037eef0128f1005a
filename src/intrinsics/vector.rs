//! Vectorised loads and stores: `N` elements (a power of two, checked at compile time) of
//! any 1-, 2-, 4- or 8-byte type, as an array of registers.
//!
//! - Indexing: [`Index::Rebased`] reads block `idx` (elements `idx*N .. idx*N+N`);
//!   [`Index::Direct`] reads from element `idx`.
//! - Alignment of the base pointer: [`Align::Aligned`] (aligned to the `N`-element block:
//!   rebased accesses are whole vectors, `ld.v2`/`.v4`, at most 16 bytes each);
//!   [`Align::Offset`]`(a)` (the base sits `a` elements past such a boundary: a static
//!   pattern of narrower accesses, no branch); [`Align::Unknown`] (a run-time check of the
//!   address picks one of the patterns). Direct indexing always checks at run time.
//!
//! A pattern covers the `N` elements left to right, each access the widest vector that the
//! position's alignment allows: a block of 4 `f32` one element past alignment loads as
//! scalar, `v2`, scalar.
//!
//! ```
//! use ptxkit::prelude::*;
//! use ptxkit::intrinsics::vector::{Align, Index};
//!
//! let mut m = Module::new(Target::SM_80);
//! m.kernel("v", |k, (x, y): (GlobalPtr<F32>, GlobalPtr<F32>)| {
//!     let i = k.global_thread_index_x();
//!     let v = k.vload::<4, F32, _>(x, i, Index::Rebased, Align::Aligned);
//!     k.vstore::<4, F32, _>(y, i, v, Index::Rebased, Align::Offset(1));
//! }).unwrap();
//! let text = m.to_ptx().unwrap();
//! assert_eq!(text.matches("ld.global.v4.f32").count(), 1);
//! assert_eq!(text.matches("st.global.v2.f32").count(), 1);
//! assert_eq!(text.matches("st.global.f32").count(), 2);
//! ```

use super::sealed::Sealed;
use super::{Count, PowerOfTwo};
use crate::builder::{Error, Kernel};
use crate::core::ir::RegRef;
use crate::ops::access::{Load, MemType, Store, W2, W4};
use crate::ops::StateSpace;
use crate::ptx;
use crate::regs::{elem_bytes, Ptr, Reg};
use crate::types::{self, Pred, B32, U32, U64};

/// How `idx` picks the elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index {
    /// Block `idx` of `N` elements: elements `idx*N ..`.
    Rebased,
    /// Elements from `idx` on.
    Direct,
}

/// What is known of the base pointer's alignment, in elements past an `N`-element boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Aligned,
    Offset(u32),
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

/// Vectorised loads and stores, as [`Kernel`] methods (in scope with `use ptxkit::prelude::*`).
pub trait VectorOps: Sealed {
    /// Loads `N` elements from `p`; see the module docs for `ix` and `align`.
    fn vload<const N: usize, T: VecLoad<S>, S: StateSpace>(&mut self, p: Ptr<S, T>, idx: Reg<U32>, ix: Index, align: Align) -> [Reg<T>; N]
    where
        Count<N>: PowerOfTwo;

    /// Stores `N` elements to `p`; see the module docs for `ix` and `align`.
    fn vstore<const N: usize, T: VecStore<S>, S: StateSpace>(
        &mut self,
        p: Ptr<S, T>,
        idx: Reg<U32>,
        vals: [Reg<T>; N],
        ix: Index,
        align: Align,
    ) where
        Count<N>: PowerOfTwo;
}

impl VectorOps for Kernel {
    fn vload<const N: usize, T: VecLoad<S>, S: StateSpace>(&mut self, p: Ptr<S, T>, idx: Reg<U32>, ix: Index, align: Align) -> [Reg<T>; N]
    where
        Count<N>: PowerOfTwo,
    {
        let out: [Reg<T>; N] = std::array::from_fn(|_| self.reg());
        self.vaccess::<N, T, S>(&mut T::load_chunk, p, idx, ix, align, &out);
        out
    }

    fn vstore<const N: usize, T: VecStore<S>, S: StateSpace>(
        &mut self,
        p: Ptr<S, T>,
        idx: Reg<U32>,
        vals: [Reg<T>; N],
        ix: Index,
        align: Align,
    ) where
        Count<N>: PowerOfTwo,
    {
        self.vaccess::<N, T, S>(&mut T::store_chunk, p, idx, ix, align, &vals);
    }
}

impl Kernel {
    fn vaccess<const N: usize, T: VecElem, S: StateSpace>(
        &mut self,
        chunk: &mut dyn FnMut(&mut Kernel, Ptr<S, T>, &[Reg<T>]),
        p: Ptr<S, T>,
        idx: Reg<U32>,
        ix: Index,
        align: Align,
        regs: &[Reg<T>],
    ) {
        let n = N as u32;
        let first = match ix {
            Index::Rebased => ptx!(self, "mul.lo.u32", idx, n),
            Index::Direct => idx,
        };
        let addr = self.index_address::<S, T, U32>(&p.byte_offset(p.off.wrapping_neg()), first);
        let off = p.checked_off(self);
        let modulus = n.min(max_chunk::<T>());
        let known = match (ix, align) {
            (_, _) if modulus == 1 => Some(0),
            (Index::Rebased, Align::Aligned) => Some(0),
            (Index::Rebased, Align::Offset(a)) => {
                if a >= n {
                    self.error(Error::InvalidArgument {
                        kernel: self.name().to_string(),
                        what: format!("alignment offset {a} is not below N = {n}"),
                    });
                    return;
                }
                Some(a % modulus)
            }
            _ => None,
        };
        match known {
            Some(mis) if off % (modulus as i64 * elem_bytes::<T>() as i64) == 0 => self.vpattern::<T, S>(chunk, addr, off, mis, regs),
            Some(_) | None => {
                // Misalignment in elements, from the address itself.
                let wide = S::SPACE.addr_bits() == 64;
                let shift = elem_bytes::<T>().trailing_zeros();
                let lo: Reg<U32> = if wide {
                    let a: Reg<U64> = Reg::new(addr, self.id);
                    let a = ptx!(self, "add.u64", a, off as u64);
                    ptx!(self, "cvt.u32.u64", a)
                } else {
                    let a: Reg<U32> = Reg::new(addr, self.id);
                    ptx!(self, "add.u32", a, off as u32)
                };
                let el = ptx!(self, "shr.u32", lo, shift);
                let mis = ptx!(self, "and.b32", el.bitcast::<B32>(), modulus - 1);
                let end = self.label();
                for m in 0..modulus {
                    let next = self.label();
                    if m + 1 < modulus {
                        let here: Reg<Pred> = ptx!(self, "setp.eq.b32", mis, m);
                        self.bra_if(!here, next);
                    }
                    self.vpattern::<T, S>(chunk, addr, off, m, regs);
                    if m + 1 < modulus {
                        self.bra(end);
                    }
                    self.place(next);
                }
                self.place(end);
            }
        }
    }

    fn vpattern<T: VecElem, S: StateSpace>(
        &mut self,
        chunk: &mut dyn FnMut(&mut Kernel, Ptr<S, T>, &[Reg<T>]),
        addr: RegRef,
        off: i64,
        mis: u32,
        regs: &[Reg<T>],
    ) {
        let e = elem_bytes::<T>() as i64;
        let base: Ptr<S, T> = Ptr::from_ref(addr, self.id);
        for (pos, c) in pattern::<T>(regs.len() as u32, mis) {
            let at = off as i128 + pos as i128 * e as i128;
            if i32::try_from(at).is_err() {
                self.error(Error::InvalidArgument {
                    kernel: self.name().to_string(),
                    what: format!("vector access offset {at} out of range"),
                });
                return;
            }
            chunk(self, base.byte_offset(at as i64), &regs[pos as usize..(pos + c) as usize]);
        }
    }
}
