//! Kernel intrinsics built only from typed operations, so what they emit is visible and
//! checked: loads, stores and memory ordering ([`order`]), vectorised loads and stores
//! ([`vector`]), thread indices ([`thread`]), warp and block collectives ([`warp`],
//! [`block`]) over any [`Value`], shared-memory barrier objects with bounded waits and
//! producer–consumer rings ([`mbarrier`]), matrix descriptors ([`gmma`]), and the parts of
//! tensor-core kernels ([`wgmma`], [`tmem`], [`roles`]), and per-warp phase stamps
//! ([`timeline`]).
//!
//! What a module emits on a kernel is a method of its extension trait of [`Kernel`]:
//! [`MemoryOps`](order::MemoryOps), [`VectorOps`](vector::VectorOps),
//! [`ThreadIndex`](thread::ThreadIndex), [`WarpOps`](warp::WarpOps),
//! [`BlockOps`](block::BlockOps), [`BarrierOps`](mbarrier::BarrierOps) and
//! [`DescriptorOps`](gmma::DescriptorOps). They are implemented for `Kernel` only (a private
//! supertrait seals them) and `use ptxkit::prelude::*` brings them all into scope, so
//! `k.ld(p)` and `k.warp_reduce(..)` read as `Kernel`'s own methods; `Kernel`'s inherent
//! methods are the body's structure (control flow, declarations, directives, calls).

pub mod block;
pub mod gmma;
pub mod mbarrier;
pub mod order;
pub mod roles;
pub mod thread;
pub mod timeline;
pub mod tmem;
pub mod vector;
pub mod warp;
pub mod wgmma;

use crate::builder::Kernel;
use crate::ptx;
use crate::regs::Reg;
use crate::types::{DataType, Pred, RegClass, B16, B32, B64, U16, U32};

/// The supertrait of the extension traits ([`thread::ThreadIndex`], [`warp::WarpOps`], ...):
/// it is not nameable outside the crate, so they are implemented for [`Kernel`] only.
mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::builder::Kernel {}
}

/// A value that lives in registers and can cross lanes and shared memory as 32-bit words:
/// any `Reg<T>` (predicates, 8- to 64-bit types), and tuples and arrays of values, so
/// structs are tuples of their fields.
pub trait Value: Copy {
    /// How many 32-bit words the value takes.
    fn words_len() -> usize;
    /// The value as 32-bit words (sub-word types widened, 64-bit types split).
    fn to_words(self, k: &mut Kernel, out: &mut Vec<Reg<B32>>);
    /// Rebuilds a value from words taken off the front of `words`.
    fn from_words(k: &mut Kernel, words: &mut std::slice::Iter<'_, Reg<B32>>) -> Self;
    /// Copies `src` into the registers of `self` (for loop-carried values).
    fn assign(self, k: &mut Kernel, src: Self);
}

/// The words of a value.
#[track_caller]
pub fn words<V: Value>(k: &mut Kernel, v: V) -> Vec<Reg<B32>> {
    let mut out = Vec::with_capacity(V::words_len());
    v.to_words(k, &mut out);
    out
}

/// A value rebuilt from words. Too few words is an error of the kernel (reported when it
/// is built); the missing words are fresh registers.
#[track_caller]
pub fn from_words<V: Value>(k: &mut Kernel, words: &[Reg<B32>]) -> V {
    let need = V::words_len();
    if words.len() < need {
        k.invalid(format!("{} words given for a value of {need}", words.len()));
        let mut w = words.to_vec();
        w.extend((words.len()..need).map(|_| k.reg::<B32>()));
        return V::from_words(k, &mut w.iter());
    }
    V::from_words(k, &mut words.iter())
}

/// `p ? a : b`, word by word.
#[track_caller]
pub fn select<V: Value>(k: &mut Kernel, p: Reg<Pred>, a: V, b: V) -> V {
    let (wa, wb) = (words(k, a), words(k, b));
    let w: Vec<Reg<B32>> = wa.iter().zip(&wb).map(|(x, y)| ptx!(k, "selp.b32", *x, *y, p)).collect();
    from_words(k, &w)
}

/// A fresh copy of a value in new registers (so it can be updated in place).
#[track_caller]
pub fn copy<V: Value>(k: &mut Kernel, v: V) -> V {
    let w = words(k, v);
    let w: Vec<Reg<B32>> = w.into_iter().map(|x| ptx!(k, "mov.b32", x)).collect();
    from_words(k, &w)
}

impl<T: DataType> Value for Reg<T> {
    fn words_len() -> usize {
        match T::CLASS {
            RegClass::B64 => 2,
            RegClass::B128 => 4,
            _ => 1,
        }
    }
    #[track_caller]
    fn to_words(self, k: &mut Kernel, out: &mut Vec<Reg<B32>>) {
        match T::CLASS {
            RegClass::Pred => out.push(ptx!(k, "selp.b32", 1u32, 0u32, self.retype::<Pred>())),
            RegClass::B16 => out.push(ptx!(k, "cvt.u32.u16", self.retype::<U16>()).retype()),
            RegClass::B8 => out.push(ptx!(k, "cvt.u32.u8", self.retype::<crate::types::U8>()).retype()),
            RegClass::B32 => out.push(self.retype()),
            RegClass::B64 => {
                let [lo, hi] = ptx!(k, "mov.b64" as unpack, self.retype::<B64>());
                out.extend([lo, hi]);
            }
            RegClass::B128 => {
                let [lo, hi] = ptx!(k, "mov.b128" as unpack, self.retype::<crate::types::B128>());
                for h in [lo, hi] {
                    let [a, b] = ptx!(k, "mov.b64" as unpack, h);
                    out.extend([a, b]);
                }
            }
        }
    }
    #[track_caller]
    fn from_words(k: &mut Kernel, words: &mut std::slice::Iter<'_, Reg<B32>>) -> Self {
        let mut next = || *words.next().expect("from_words passes at least words_len() words");
        match T::CLASS {
            RegClass::Pred => {
                let w = next();
                ptx!(k, "setp.ne.b32", w, 0u32).retype()
            }
            RegClass::B16 => {
                let w = next();
                ptx!(k, "cvt.u16.u32", w.retype::<U32>()).retype()
            }
            RegClass::B8 => {
                // The result must be an 8-bit register: a `Reg<U8>` would be a 16-bit one.
                let r: Reg<T> = k.reg();
                ptx!(k, "cvt.u8.u32" => r.retype::<crate::types::U8>(), next().retype::<U32>());
                r
            }
            RegClass::B32 => next().retype(),
            RegClass::B64 => {
                let (lo, hi) = (next(), next());
                ptx!(k, "mov.b64" as pack, [lo, hi]).retype()
            }
            RegClass::B128 => {
                let (a, b, c, d) = (next(), next(), next(), next());
                let lo = ptx!(k, "mov.b64" as pack, [a, b]);
                let hi = ptx!(k, "mov.b64" as pack, [c, d]);
                ptx!(k, "mov.b128" as pack, [lo, hi]).retype()
            }
        }
    }
    #[track_caller]
    fn assign(self, k: &mut Kernel, src: Self) {
        match T::CLASS {
            RegClass::Pred => {
                ptx!(k, "mov.pred" => self.retype::<Pred>(), src.retype::<Pred>());
            }
            RegClass::B16 => {
                ptx!(k, "mov.b16" => self.retype::<B16>(), src.retype::<B16>());
            }
            RegClass::B8 => {
                ptx!(k, "cvt.u8.u8" => self.retype::<crate::types::U8>(), src.retype::<crate::types::U8>());
            }
            RegClass::B32 => {
                ptx!(k, "mov.b32" => self.retype::<B32>(), src.retype::<B32>());
            }
            RegClass::B64 => {
                ptx!(k, "mov.b64" => self.retype::<B64>(), src.retype::<B64>());
            }
            RegClass::B128 => {
                ptx!(k, "mov.b128" => self.retype::<crate::types::B128>(), src.retype::<crate::types::B128>());
            }
        }
    }
}

macro_rules! tuple_values {
    ($(($($t:ident $i:tt),*);)*) => {$(
        impl<$($t: Value),*> Value for ($($t,)*) {
            fn words_len() -> usize { 0 $(+ $t::words_len())* }
            #[track_caller]
            fn to_words(self, k: &mut Kernel, out: &mut Vec<Reg<B32>>) { $(self.$i.to_words(k, out);)* }
            #[track_caller]
            fn from_words(k: &mut Kernel, words: &mut std::slice::Iter<'_, Reg<B32>>) -> Self { ($($t::from_words(k, words),)*) }
            #[track_caller]
            fn assign(self, k: &mut Kernel, src: Self) { $(self.$i.assign(k, src.$i);)* }
        }
    )*};
}
tuple_values! {
    (A 0, B 1);
    (A 0, B 1, C 2);
    (A 0, B 1, C 2, D 3);
    (A 0, B 1, C 2, D 3, E 4);
    (A 0, B 1, C 2, D 3, E 4, F 5);
}

impl<V: Value, const N: usize> Value for [V; N] {
    fn words_len() -> usize {
        N * V::words_len()
    }
    #[track_caller]
    fn to_words(self, k: &mut Kernel, out: &mut Vec<Reg<B32>>) {
        for v in self {
            v.to_words(k, out);
        }
    }
    #[track_caller]
    fn from_words(k: &mut Kernel, words: &mut std::slice::Iter<'_, Reg<B32>>) -> Self {
        std::array::from_fn(|_| V::from_words(k, words))
    }
    #[track_caller]
    fn assign(self, k: &mut Kernel, src: Self) {
        for (d, s) in self.into_iter().zip(src) {
            d.assign(k, s);
        }
    }
}

/// A count known at compile time, for bounds such as [`PowerOfTwo`] and [`WarpMultiple`].
pub struct Count<const N: usize>;

/// Counts that are powers of two (vector lengths).
#[diagnostic::on_unimplemented(message = "{Self}: the element count must be a power of two, from 1 to 64")]
pub trait PowerOfTwo {}
/// Counts that are multiples of 32, from 32 to 1024 (block sizes for block collectives).
#[diagnostic::on_unimplemented(message = "{Self}: the block size must be a multiple of 32, from 32 to 1024")]
pub trait WarpMultiple {}

macro_rules! counts { ($tr:ident: $($n:literal)*) => {$(#[diagnostic::do_not_recommend] impl $tr for Count<$n> {})*}; }
counts!(PowerOfTwo: 1 2 4 8 16 32 64);
counts!(WarpMultiple: 32 64 96 128 160 192 224 256 288 320 352 384 416 448 480 512 544 576 608 640 672 704 736 768 800 832 864 896 928 960 992 1024);
