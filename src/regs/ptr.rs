//! Pointers typed by state space, the addresses built from them (`p.at(i)`), symbols used
//! as values, tensor-map coordinates and tensor-memory addresses.

use crate::core::ir::{AddrBase, Opnd, RegRef};
use crate::core::names::sym_name;
use crate::core::{Kernel, RegClass};
use crate::ops::access::MemType;
use crate::ops::{h, handle_addr, m, Addr, AnyElem, CoordKinds, CoordList, Generic, HandleAddr, InWindow, Operand, StateSpace, Tmem};
use crate::ptx;
use crate::types::{Accepts, DataType, Reg, B32, S32, S64, U32, U64};
use core::marker::PhantomData;

/// Where an address starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Base {
    Reg(Reg<U64>),
    Reg32(Reg<U32>),
    /// Interned symbol name and the kernel or module that owns it.
    Sym(u32, u32),
}

/// A pointer to `T` in state space `S`: global, shared (32-bit window addresses), generic,
/// const, param or local. Offsets are in bytes; `at(i)` indexes by elements.
pub struct Ptr<S, T> {
    pub(crate) base: Base,
    pub(crate) off: i64,
    /// An offset computation overflowed `i64`: reported when the pointer is used.
    overflow: bool,
    /// A zero offset is written out (`[%r1+0]`): [`Ptr::explicit_offset`].
    explicit: bool,
    _t: PhantomData<(S, T)>,
}

impl<S, T> Clone for Ptr<S, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S, T> Copy for Ptr<S, T> {}
impl<S, T> core::fmt::Debug for Ptr<S, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        write!(f, "Ptr({:?}+{})", self.base, self.off)
    }
}

pub type GlobalPtr<T> = Ptr<m::Global, T>;
pub type SharedPtr<T> = Ptr<m::Shared, T>;
pub type GenericPtr<T> = Ptr<Generic, T>;
pub type ConstPtr<T> = Ptr<m::Const, T>;
pub type LocalPtr<T> = Ptr<m::Local, T>;
pub type ParamPtr<T> = Ptr<m::Param, T>;

impl<S: StateSpace, T: DataType> Ptr<S, T> {
    /// A pointer whose address is in register `r` (of the space's address width).
    pub(crate) fn from_ref(r: RegRef, owner: u32) -> Self {
        if S::SPACE.addr_bits() == 64 {
            Self::from_base(Base::Reg(Reg::new(r, owner)))
        } else {
            Self::from_base(Base::Reg32(Reg::new(r, owner)))
        }
    }
    pub(crate) fn from_sym(name: u32, owner: u32) -> Self {
        Self::from_base(Base::Sym(name, owner))
    }
    pub(crate) fn from_base(base: Base) -> Self {
        Ptr { base, off: 0, overflow: false, explicit: false, _t: PhantomData }
    }
    /// The symbol and its owner, where the pointer is a symbol's address with no offset.
    pub(crate) fn sym_base(&self) -> Option<(u32, u32)> {
        match self.base {
            Base::Sym(s, o) if self.off == 0 && !self.overflow => Some((s, o)),
            _ => None,
        }
    }
    /// A 64-bit address register as a pointer (global, generic, const, local, param).
    pub fn from_reg(r: Reg<U64>) -> Self
    where
        S: StateSpace<AddrT = U64>,
    {
        Self::from_base(Base::Reg(r))
    }
    /// A pointer whose address is in `r`, a 32- or 64-bit register, whatever the space's
    /// own width: PTX takes a 64-bit register for a `.shared` address too, as compilers
    /// write it (`st.shared.f32 [%rd4], %f1;`).
    pub fn from_addr_reg<R: DataType>(r: Reg<R>) -> Self {
        const { assert!(matches!(R::CLASS, RegClass::B32 | RegClass::B64), "an address register has 32 or 64 bits") };
        match R::CLASS {
            RegClass::B64 => Self::from_base(Base::Reg(r.retype())),
            _ => Self::from_base(Base::Reg32(r.retype())),
        }
    }
    /// The pointer's symbol as a value of type `V` (`mov.u64 %rd1, table;`: the symbol's
    /// address in its state space), at offset 0; `None` for a pointer held in a register
    /// or moved from its symbol.
    pub fn symbol<V: DataType>(&self) -> Option<SymAddr<V>> {
        match self.base {
            Base::Sym(name, owner) if self.off == 0 && !self.overflow => Some(SymAddr::new(name, owner)),
            _ => None,
        }
    }
    /// A 32-bit shared-window address register as a pointer.
    pub fn from_reg32(r: Reg<U32>) -> Self
    where
        S: StateSpace<AddrT = U32>,
    {
        Self::from_base(Base::Reg32(r))
    }
    /// The pointer `bytes` further on (folded into the address operand).
    /// An offset beyond `i64` is an error when the pointer is used.
    pub fn byte_offset(&self, bytes: i64) -> Self {
        self.with_offset(self.off as i128 + bytes as i128)
    }
    /// The pointer `n` elements further on, for a constant `n`.
    pub fn offset(&self, n: i64) -> Self {
        self.with_offset(self.off as i128 + n as i128 * elem_bytes::<T>() as i128)
    }
    /// The same address, its offset written out even where it is zero: `[%r1+0]` rather
    /// than `[%r1]`. Without optimisation (`-G`, [`Module::set_debug`](crate::Module::set_debug))
    /// ptxas assembles `[%r1+0]` as an add where `[%r1]` is a move, so code that must
    /// assemble as such a build does keeps the offset as that build wrote it.
    ///
    /// ```
    /// use ptxkit::prelude::*;
    ///
    /// let mut m = Module::new(Target::SM_80);
    /// m.set_debug(true);
    /// m.kernel("k", |k, (p, x): (GlobalPtr<F32>, Reg<F32>)| {
    ///     k.st(p, x);
    ///     k.st(p.explicit_offset(), x);
    ///     k.st(p.explicit_offset().offset(1), x);
    /// })?;
    /// let text = m.to_ptx()?;
    /// assert!(text.contains("st.global.f32 [%rd2], %r1;"), "{text}");
    /// assert!(text.contains("st.global.f32 [%rd2+0], %r1;"), "{text}");
    /// assert!(text.contains("st.global.f32 [%rd2+4], %r1;"), "{text}");
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    pub fn explicit_offset(&self) -> Self {
        Ptr { explicit: true, ..*self }
    }
    fn with_offset(&self, off: i128) -> Self {
        match i64::try_from(off) {
            Ok(off) => Ptr { base: self.base, off, overflow: self.overflow, explicit: self.explicit, _t: PhantomData },
            Err(_) => Ptr { base: self.base, off: 0, overflow: true, explicit: self.explicit, _t: PhantomData },
        }
    }
    /// The constant byte offset, after reporting an overflow to `k`.
    #[track_caller]
    pub(crate) fn checked_off(&self, k: &mut Kernel) -> i64 {
        if self.overflow {
            k.invalid("a pointer offset overflows the 64-bit address space".into());
        }
        self.off
    }
    /// The address of element `i` (computed when the operand is lowered).
    pub fn at<I: Index>(&self, i: I) -> Elem<S, T, I> {
        Elem { ptr: self.clone(), i }
    }
    /// The same address viewed as another element type.
    pub fn cast<U: DataType>(&self) -> Ptr<S, U> {
        Ptr { base: self.base.clone(), off: self.off, overflow: self.overflow, explicit: self.explicit, _t: PhantomData }
    }
    /// The address in a register of the space's width (`mov`/`add` as needed).
    #[track_caller]
    pub fn addr(&self, k: &mut Kernel) -> Reg<S::AddrT> {
        k.materialize(self)
    }
}

/// Bytes per element (8-bit types count 1 although they sit in 16-bit registers).
pub fn elem_bytes<T: DataType>() -> u32 {
    (T::BITS / 8).max(1)
}

#[track_caller]
pub(crate) fn addr_opnd(k: &mut Kernel, base: &Base, off: i64, explicit: bool) -> Opnd {
    let b = match base {
        Base::Reg(r) => AddrBase::Reg(r.checked(k)),
        Base::Reg32(r) => AddrBase::Reg(r.checked(k)),
        Base::Sym(s, owner) => {
            k.check_module(*owner, sym_name(*s));
            AddrBase::Sym(*s)
        }
    };
    match (i32::try_from(off), b) {
        (Ok(0), AddrBase::Reg(r)) if explicit => Opnd::AddrZero(r),
        (Ok(0), AddrBase::Sym(s)) if explicit => Opnd::SymAddrZero(s),
        (Ok(off), _) => Opnd::addr(b, off),
        // An offset beyond what an address operand holds is added in a register.
        (Err(_), _) => Opnd::Addr(k.add_offset(b, base, off), 0),
    }
}

/// A pointer to `E` may stand where an instruction accesses `Self` (an element type the
/// instruction [`Accepts`] for `E`).
#[diagnostic::on_unimplemented(
    message = "a pointer to `{E}` cannot be used where the instruction accesses `{Self}`",
    label = "this pointer's element type is not the instruction's",
    note = "view the address as the instruction's element type with `.cast::<{Self}>()`, or declare the pointer with it (`GlobalPtr<{Self}>`, `k.shared_array::<{Self}>(..)`)"
)]
pub trait PointsTo<E: DataType> {}
#[diagnostic::do_not_recommend]
impl<K: Accepts<E>, E: DataType> PointsTo<E> for K {}

impl<S: StateSpace + InWindow<S2>, S2, E: DataType, K: PointsTo<E>> Operand<Addr<S2, K>> for Ptr<S, E> {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        let off = self.checked_off(k);
        addr_opnd(k, &self.base, off, self.explicit)
    }
}
#[diagnostic::do_not_recommend]
impl<S: StateSpace + InWindow<S2>, S2, E: DataType, K: PointsTo<E>> Operand<Addr<S2, K>> for &Ptr<S, E> {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        let off = self.checked_off(k);
        addr_opnd(k, &self.base, off, self.explicit)
    }
}

/// An address operand whose state space and element type are known: a pointer or an
/// indexed element. The plain and ordered loads and stores
/// ([`MemoryOps`](crate::intrinsics::order::MemoryOps)) and the vector accesses
/// ([`VectorOps`](crate::intrinsics::vector::VectorOps)) take these.
pub trait Address: Operand<Addr<Self::Space, Self::Elem>> + Operand<Addr<Self::Space, <Self::Elem as MemType>::Mem>> {
    type Space: StateSpace;
    type Elem: MemType;
}
impl<S: StateSpace, T: MemType> Address for Ptr<S, T> {
    type Space = S;
    type Elem = T;
}
impl<S: StateSpace, T: MemType, I: Index> Address for Elem<S, T, I> {
    type Space = S;
    type Elem = T;
}

/// Element indices for [`Ptr::at`]: 32- or 64-bit registers, or constants.
pub trait Index: Clone {
    #[doc(hidden)]
    fn index_addr<S: StateSpace, T: DataType>(self, k: &mut Kernel, p: &Ptr<S, T>) -> Opnd;
}

/// `p.at(i)`: the address of element `i` of `p`.
#[derive(Clone, Copy, Debug)]
pub struct Elem<S, T, I> {
    ptr: Ptr<S, T>,
    i: I,
}
impl<S: StateSpace, T: DataType, I: Index> Elem<S, T, I> {
    /// The element `n` further on (a constant, folded into the address operand).
    pub fn offset(&self, n: i64) -> Self {
        Elem { ptr: self.ptr.offset(n), i: self.i.clone() }
    }
}

impl<S: StateSpace + InWindow<S2>, S2, E: DataType, I: Index, K: PointsTo<E>> Operand<Addr<S2, K>> for Elem<S, E, I> {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        self.i.index_addr(k, &self.ptr)
    }
}

macro_rules! const_index {
    ($($t:ty)*) => {$(
        impl Index for $t {
            #[track_caller]
            fn index_addr<S: StateSpace, T: DataType>(self, k: &mut Kernel, p: &Ptr<S, T>) -> Opnd {
                let off = p.checked_off(k) as i128 + self as i128 * elem_bytes::<T>() as i128;
                match i64::try_from(off) {
                    Ok(off) => addr_opnd(k, &p.base, off, p.explicit),
                    Err(_) => {
                        k.invalid(format!("element {self} is beyond the 64-bit address space"));
                        addr_opnd(k, &p.base, 0, p.explicit)
                    }
                }
            }
        }
    )*};
}
const_index!(u32 i32 u64 i64 usize);

macro_rules! reg_index {
    ($($t:ident)*) => {$(
        impl Index for Reg<crate::types::$t> {
            #[track_caller]
            fn index_addr<S: StateSpace, T: DataType>(self, k: &mut Kernel, p: &Ptr<S, T>) -> Opnd {
                let r = k.index_address::<S, T, crate::types::$t>(p, self);
                let base = match p.base {
                    Base::Reg32(_) => Base::Reg32(Reg::new(r, k.id)),
                    _ => Base::Reg(Reg::new(r, k.id)),
                };
                let off = p.checked_off(k);
                addr_opnd(k, &base, off, p.explicit)
            }
        }
    )*};
}
reg_index!(U32 S32 B32 U64 S64 B64);

/// A symbol used as a value: `mov.u64 %rd1, table;` (its address in its state space).
#[derive(Clone, Debug)]
pub struct SymAddr<T> {
    pub(crate) name: u32,
    pub(crate) owner: u32,
    _t: PhantomData<T>,
}
impl<T> SymAddr<T> {
    pub(crate) fn new(name: u32, owner: u32) -> Self {
        SymAddr { name, owner, _t: PhantomData }
    }
}
impl<I: Accepts<T>, T: DataType> Operand<I> for SymAddr<T> {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        k.check_module(self.owner, sym_name(self.name));
        Opnd::Sym(self.name)
    }
}

impl Kernel {
    /// `base + off` in a 64-bit register, for offsets an address operand cannot hold.
    #[track_caller]
    pub(crate) fn add_offset(&mut self, b: AddrBase, base: &Base, off: i64) -> RegRef {
        match (b, base) {
            (AddrBase::Reg(r), Base::Reg(_)) => {
                let r: Reg<S64> = Reg::new(r, self.id);
                ptx!(self, "add.s64", r, off).r
            }
            _ => {
                self.invalid(format!("address offset {off} does not fit a 32-bit address operand"));
                self.alloc(RegClass::B64)
            }
        }
    }

    /// The address of a pointer in a register of its space's width.
    #[track_caller]
    pub(crate) fn materialize<S: StateSpace, T: DataType>(&mut self, p: &Ptr<S, T>) -> Reg<S::AddrT> {
        let wide = S::SPACE.addr_bits() == 64;
        let base: RegRef = match &p.base {
            Base::Reg(r) => r.checked(self),
            Base::Reg32(r) => r.checked(self),
            Base::Sym(s, owner) if wide => ptx!(self, "mov.u64", SymAddr::<U64>::new(*s, *owner)).r,
            Base::Sym(s, owner) => ptx!(self, "mov.u32", SymAddr::<U32>::new(*s, *owner)).r,
        };
        let off = p.checked_off(self);
        let r = if off == 0 {
            base
        } else if wide {
            let b: Reg<S64> = Reg::new(base, self.id);
            ptx!(self, "add.s64", b, off).r
        } else {
            let b: Reg<S32> = Reg::new(base, self.id);
            match i32::try_from(off) {
                Ok(off) => ptx!(self, "add.s32", b, off).r,
                Err(_) => {
                    self.invalid(format!("offset {off} does not fit a 32-bit shared address"));
                    base
                }
            }
        };
        Reg::new(r, self.id)
    }

    /// Address of element `i` of `p` (without `p`'s constant offset, which the operand keeps).
    #[track_caller]
    pub(crate) fn index_address<S: StateSpace, T: DataType, I: DataType>(&mut self, p: &Ptr<S, T>, i: Reg<I>) -> RegRef {
        let size = elem_bytes::<T>();
        let base_ptr: Ptr<S, T> = Ptr::from_base(p.base);
        let base = self.materialize(&base_ptr).r;
        let id = self.id;
        match (S::SPACE.addr_bits(), I::ID.bits(), I::FAMILY == crate::types::Family::Signed) {
            (64, 32, false) => ptx!(self, "mad.wide.u32", i.retype::<U32>(), size, Reg::<U64>::new(base, id)).r,
            (64, 32, true) => ptx!(self, "mad.wide.s32", i.retype::<S32>(), size as i32, Reg::<S64>::new(base, id)).r,
            (64, _, _) => ptx!(self, "mad.lo.u64", i.retype::<U64>(), size as u64, Reg::<U64>::new(base, id)).r,
            (_, 32, _) => ptx!(self, "mad.lo.u32", i.retype::<U32>(), size, Reg::<U32>::new(base, id)).r,
            _ => {
                let lo = ptx!(self, "cvt.u32.u64", i.retype::<U64>());
                ptx!(self, "mad.lo.u32", lo, size, Reg::<U32>::new(base, id)).r
            }
        }
    }
}

/// `[map, {c0, .., c(R-1)}]`: the address of a tensor map (in a 64-bit register) and `R`
/// coordinates, the operand of the bulk tensor copies.
#[derive(Clone, Copy, Debug)]
pub struct TensorAt<const R: usize> {
    map: Reg<U64>,
    coords: [Reg<S32>; R],
}

impl<const R: usize> TensorAt<R> {
    pub fn new(map: Reg<U64>, coords: [Reg<S32>; R]) -> Self {
        TensorAt { map, coords }
    }
}

impl<C: CoordKinds, const R: usize> Operand<HandleAddr<(h::Tmap,), C, 0>> for TensorAt<R>
where
    [Reg<S32>; R]: CoordList<C>,
{
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        let map = Opnd::Reg(self.map.checked(k));
        handle_addr::<C, _>(k, &[map], self.coords, 0)
    }
}

/// A tensor-memory address (`lane << 16 | column`), a 32-bit value of its own kind: it is
/// neither a shared-memory pointer nor a plain `u32`, so one cannot stand for the other.
#[derive(Clone, Copy, Debug)]
pub struct TmemAddr {
    reg: Reg<B32>,
    off: i32,
}

impl TmemAddr {
    /// The address held in `r` (as `tcgen05.alloc` writes it).
    pub fn from_reg(r: Reg<B32>) -> Self {
        TmemAddr { reg: r, off: 0 }
    }
    /// The register holding the address (without [`offset`](Self::offset)'s constant).
    pub fn reg(self) -> Reg<B32> {
        self.reg
    }
    /// The address `n` further on, folded into the operand (`[%r1+8]`): as the address is
    /// `lane << 16 | column`, `n` columns on in the same lanes for an `n` below 2^16.
    ///
    /// ```
    /// use ptxkit::prelude::*;
    /// use ptxkit::regs::TmemAddr;
    ///
    /// let mut m = Module::new(Target::SM_100A);
    /// m.kernel("k", |k, (t, v): (Reg<B32>, Reg<B32>)| {
    ///     ptx!(k, "tcgen05.st.sync.aligned.32x32b.x1.b32", TmemAddr::from_reg(t).offset(8), [v]);
    /// })?;
    /// assert!(m.to_ptx()?.contains("tcgen05.st.sync.aligned.32x32b.x1.b32 [%r1+8], {%r2};"));
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    pub fn offset(self, n: i32) -> Self {
        TmemAddr { reg: self.reg, off: self.off.wrapping_add(n) }
    }
}

impl Operand<Addr<Tmem, AnyElem>> for TmemAddr {
    #[track_caller]
    fn lower(self, k: &mut Kernel) -> Opnd {
        Opnd::Addr(self.reg.checked(k), self.off)
    }
}
