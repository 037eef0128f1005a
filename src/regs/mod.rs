//! Typed values: registers, predicates and guards, immediates, special registers, labels,
//! and pointers typed by state space.

use crate::builder::ir::{AddrBase, Opnd, RegRef};
use crate::builder::Kernel;
use crate::ops::{m, Addr, Dst, Generic, Imm, LabelOp, Operand, StateSpace, Vector};
use crate::types::{Accepts, DType, DataType, Pred, U32, U64};
use core::marker::PhantomData;

/// A virtual register holding a `T`. Copy it freely; it belongs to the kernel that made it.
pub struct Reg<T> {
    pub(crate) r: RegRef,
    pub(crate) owner: u32,
    _t: PhantomData<T>,
}

impl<T> Clone for Reg<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Reg<T> {}
impl<T> PartialEq for Reg<T> {
    fn eq(&self, o: &Self) -> bool {
        self.r == o.r && self.owner == o.owner
    }
}
impl<T: DataType> core::fmt::Debug for Reg<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        write!(f, "Reg<{}>({}{})", T::NAME, self.r.class().prefix(), self.r.idx())
    }
}

impl<T: DataType> Reg<T> {
    pub(crate) fn new(r: RegRef, owner: u32) -> Self {
        Reg { r, owner, _t: PhantomData }
    }
    /// The same register seen as another type of the same register class (no instruction).
    pub fn bitcast<U: DataType>(self) -> Reg<U> {
        const { assert!(T::CLASS as u8 == U::CLASS as u8, "bitcast needs the same register class; use cvt or mov to change width") };
        Reg::new(self.r, self.owner)
    }
    /// Same register, another type; only for arms where the class is known to match.
    pub(crate) fn retype<U: DataType>(self) -> Reg<U> {
        Reg::new(self.r, self.owner)
    }
    pub(crate) fn checked(self, k: &mut Kernel) -> RegRef {
        k.check_owner(self.owner, || format!("register {}{}", self.r.class().prefix(), self.r.idx()));
        self.r
    }
}

/// `!p`: a negated predicate operand.
#[derive(Clone, Copy, Debug)]
pub struct NotPred(pub Reg<Pred>);

impl core::ops::Not for Reg<Pred> {
    type Output = NotPred;
    fn not(self) -> NotPred {
        NotPred(self)
    }
}
impl core::ops::Not for NotPred {
    type Output = Reg<Pred>;
    fn not(self) -> Reg<Pred> {
        self.0
    }
}

/// Something that can guard an instruction: `p` (`@p`) or `!p` (`@!p`).
pub trait IntoGuard {
    fn into_guard(self, k: &mut Kernel) -> (RegRef, bool);
}
impl IntoGuard for Reg<Pred> {
    fn into_guard(self, k: &mut Kernel) -> (RegRef, bool) {
        (self.checked(k), false)
    }
}
impl IntoGuard for NotPred {
    fn into_guard(self, k: &mut Kernel) -> (RegRef, bool) {
        (self.0.checked(k), true)
    }
}

impl<I: Accepts<T>, T: DataType> Operand<I> for Reg<T> {
    #[inline]
    fn lower(self, k: &mut Kernel) -> Opnd {
        Opnd::Reg(self.checked(k))
    }
}
impl Operand<Pred> for NotPred {
    fn lower(self, k: &mut Kernel) -> Opnd {
        Opnd::NotPred(self.0.checked(k))
    }
}
impl Operand<Pred> for bool {
    fn lower(self, _: &mut Kernel) -> Opnd {
        Opnd::Int(self as i64)
    }
}

/// Instruction types that take integer immediates.
pub trait IntImm: DataType {}
macro_rules! int_imm { ($($t:ident)*) => {$(impl IntImm for crate::types::$t {})*}; }
int_imm!(B8 B16 B32 B64 U8 U16 U32 U64 S8 S16 S32 S64);

fn int_opnd(k: &mut Kernel, v: i128, ty: DType) -> Opnd {
    if !ty.int_fits(v) {
        k.imm_error(v.to_string(), ty.name());
    }
    if v < 0 {
        Opnd::Int(v as i64)
    } else {
        Opnd::UInt(v as u64)
    }
}

macro_rules! rust_ints {
    ($($t:ty)*) => {$(
        impl<I: IntImm> Operand<I> for $t {
            #[inline]
            fn lower(self, k: &mut Kernel) -> Opnd { int_opnd(k, self as i128, I::ID) }
        }
        impl<I: IntImm> Operand<Imm<I>> for $t {
            #[inline]
            fn lower(self, k: &mut Kernel) -> Opnd { int_opnd(k, self as i128, I::ID) }
        }
    )*};
}
rust_ints!(u8 u16 u32 u64 i8 i16 i32 i64 usize);

/// Floats are written exactly, in hex (`0f3F800000`).
macro_rules! rust_floats {
    ($($t:ty, $ty:ident, $v:ident;)*) => {$(
        impl Operand<crate::types::$ty> for $t {
            fn lower(self, _: &mut Kernel) -> Opnd { Opnd::$v(self.to_bits()) }
        }
        impl Operand<Imm<crate::types::$ty>> for $t {
            fn lower(self, _: &mut Kernel) -> Opnd { Opnd::$v(self.to_bits()) }
        }
    )*};
}
rust_floats!(f32, F32, F32; f64, F64, F64;);

/// A special register or predefined constant, read as a `T`.
#[derive(Clone, Copy, Debug)]
pub struct SReg<T> {
    pub name: &'static str,
    _t: PhantomData<T>,
}
impl<I: DataType + Accepts<T>, T: DataType> Operand<I> for SReg<T> {
    fn lower(self, _: &mut Kernel) -> Opnd {
        Opnd::Sym(crate::builder::intern(self.name))
    }
}

/// Every special register of PTX ISA table 3, with `.x/.y/.z` where they have them.
pub mod sreg {
    use super::SReg;
    use crate::types::{Pred, B32, U32, U64};
    use core::marker::PhantomData;
    macro_rules! sregs {
        ($($id:ident $name:literal $t:ident;)*) => {
            $( #[doc = concat!("`", $name, "`")] pub const $id: SReg<$t> = SReg { name: $name, _t: PhantomData }; )*
            /// Every special register, with its PTX name and type name.
            pub const ALL: &[(&str, &str)] = &[$(($name, stringify!($t))),*];
        };
    }
    sregs! {
        TID_X "%tid.x" U32; TID_Y "%tid.y" U32; TID_Z "%tid.z" U32;
        NTID_X "%ntid.x" U32; NTID_Y "%ntid.y" U32; NTID_Z "%ntid.z" U32;
        CTAID_X "%ctaid.x" U32; CTAID_Y "%ctaid.y" U32; CTAID_Z "%ctaid.z" U32;
        NCTAID_X "%nctaid.x" U32; NCTAID_Y "%nctaid.y" U32; NCTAID_Z "%nctaid.z" U32;
        CLUSTERID_X "%clusterid.x" U32; CLUSTERID_Y "%clusterid.y" U32; CLUSTERID_Z "%clusterid.z" U32;
        NCLUSTERID_X "%nclusterid.x" U32; NCLUSTERID_Y "%nclusterid.y" U32; NCLUSTERID_Z "%nclusterid.z" U32;
        CLUSTER_CTAID_X "%cluster_ctaid.x" U32; CLUSTER_CTAID_Y "%cluster_ctaid.y" U32; CLUSTER_CTAID_Z "%cluster_ctaid.z" U32;
        CLUSTER_NCTAID_X "%cluster_nctaid.x" U32; CLUSTER_NCTAID_Y "%cluster_nctaid.y" U32; CLUSTER_NCTAID_Z "%cluster_nctaid.z" U32;
        CLUSTER_CTARANK "%cluster_ctarank" U32; CLUSTER_NCTARANK "%cluster_nctarank" U32;
        IS_EXPLICIT_CLUSTER "%is_explicit_cluster" Pred;
        LANEID "%laneid" U32; WARPID "%warpid" U32; NWARPID "%nwarpid" U32;
        SMID "%smid" U32; NSMID "%nsmid" U32; GRIDID "%gridid" U64;
        LANEMASK_EQ "%lanemask_eq" U32; LANEMASK_LE "%lanemask_le" U32; LANEMASK_LT "%lanemask_lt" U32;
        LANEMASK_GE "%lanemask_ge" U32; LANEMASK_GT "%lanemask_gt" U32;
        CLOCK "%clock" U32; CLOCK_HI "%clock_hi" U32; CLOCK64 "%clock64" U64;
        GLOBALTIMER "%globaltimer" U64; GLOBALTIMER_LO "%globaltimer_lo" U32; GLOBALTIMER_HI "%globaltimer_hi" U32;
        PM0 "%pm0" U32; PM1 "%pm1" U32; PM2 "%pm2" U32; PM3 "%pm3" U32;
        PM4 "%pm4" U32; PM5 "%pm5" U32; PM6 "%pm6" U32; PM7 "%pm7" U32;
        PM0_64 "%pm0_64" U64; PM1_64 "%pm1_64" U64; PM2_64 "%pm2_64" U64; PM3_64 "%pm3_64" U64;
        PM4_64 "%pm4_64" U64; PM5_64 "%pm5_64" U64; PM6_64 "%pm6_64" U64; PM7_64 "%pm7_64" U64;
        ENVREG0 "%envreg0" B32; ENVREG1 "%envreg1" B32; ENVREG2 "%envreg2" B32; ENVREG3 "%envreg3" B32;
        ENVREG4 "%envreg4" B32; ENVREG5 "%envreg5" B32; ENVREG6 "%envreg6" B32; ENVREG7 "%envreg7" B32;
        ENVREG8 "%envreg8" B32; ENVREG9 "%envreg9" B32; ENVREG10 "%envreg10" B32; ENVREG11 "%envreg11" B32;
        ENVREG12 "%envreg12" B32; ENVREG13 "%envreg13" B32; ENVREG14 "%envreg14" B32; ENVREG15 "%envreg15" B32;
        ENVREG16 "%envreg16" B32; ENVREG17 "%envreg17" B32; ENVREG18 "%envreg18" B32; ENVREG19 "%envreg19" B32;
        ENVREG20 "%envreg20" B32; ENVREG21 "%envreg21" B32; ENVREG22 "%envreg22" B32; ENVREG23 "%envreg23" B32;
        ENVREG24 "%envreg24" B32; ENVREG25 "%envreg25" B32; ENVREG26 "%envreg26" B32; ENVREG27 "%envreg27" B32;
        ENVREG28 "%envreg28" B32; ENVREG29 "%envreg29" B32; ENVREG30 "%envreg30" B32; ENVREG31 "%envreg31" B32;
        TOTAL_SMEM_SIZE "%total_smem_size" U32; AGGR_SMEM_SIZE "%aggr_smem_size" U32;
        DYNAMIC_SMEM_SIZE "%dynamic_smem_size" U32;
        RESERVED_SMEM_OFFSET_BEGIN "%reserved_smem_offset_begin" B32;
        RESERVED_SMEM_OFFSET_END "%reserved_smem_offset_end" B32;
        RESERVED_SMEM_OFFSET_CAP "%reserved_smem_offset_cap" B32;
        RESERVED_SMEM_OFFSET_0 "%reserved_smem_offset_0" B32; RESERVED_SMEM_OFFSET_1 "%reserved_smem_offset_1" B32;
        CURRENT_GRAPH_EXEC "%current_graph_exec" U64;
        WARP_SZ "WARP_SZ" U32;
    }
}

/// A branch target inside one kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Label {
    pub(crate) id: u32,
    pub(crate) owner: u32,
}
impl Operand<LabelOp> for Label {
    fn lower(self, k: &mut Kernel) -> Opnd {
        k.use_label(self);
        Opnd::Label(self.id)
    }
}

/// Braced vectors: `[a, b, c, d]` for a `.v4` operand.
impl<K, X: Operand<K>, const N: usize> Operand<Vector<K, N>> for [X; N] {
    fn lower(self, k: &mut Kernel) -> Opnd {
        Opnd::Vec(Box::new(self.into_iter().map(|x| x.lower(k)).collect()))
    }
}

/// `_`: a sink for a vector element or destination PTX lets you drop.
#[derive(Clone, Copy, Debug)]
pub struct Sink;

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
    pub(crate) fn from_base(base: Base) -> Self {
        Ptr { base, off: 0, _t: PhantomData }
    }
    /// A 64-bit address register as a pointer (global, generic, const, local, param).
    pub fn from_reg(r: Reg<U64>) -> Self
    where
        S: StateSpace<AddrT = U64>,
    {
        Self::from_base(Base::Reg(r))
    }
    /// A 32-bit shared-window address register as a pointer.
    pub fn from_reg32(r: Reg<U32>) -> Self
    where
        S: StateSpace<AddrT = U32>,
    {
        Self::from_base(Base::Reg32(r))
    }
    /// The pointer `bytes` further on (folded into the address operand).
    pub fn byte_offset(&self, bytes: i64) -> Self {
        Ptr { base: self.base.clone(), off: self.off + bytes, _t: PhantomData }
    }
    /// The pointer `n` elements further on, for a constant `n`.
    pub fn offset(&self, n: i64) -> Self {
        self.byte_offset(n * elem_bytes::<T>() as i64)
    }
    /// The address of element `i` (computed when the operand is lowered).
    pub fn at<I: Index>(&self, i: I) -> Elem<S, T, I> {
        Elem { ptr: self.clone(), i }
    }
    /// The same address viewed as another element type.
    pub fn cast<U: DataType>(&self) -> Ptr<S, U> {
        Ptr { base: self.base.clone(), off: self.off, _t: PhantomData }
    }
    /// The address in a register of the space's width (`mov`/`add` as needed).
    pub fn addr(&self, k: &mut Kernel) -> Reg<S::AddrT> {
        k.materialize(self)
    }
}

/// Bytes per element (8-bit types count 1 although they sit in 16-bit registers).
pub fn elem_bytes<T: DataType>() -> u32 {
    (T::BITS / 8).max(1)
}

pub(crate) fn addr_opnd(k: &mut Kernel, base: &Base, off: i64) -> Opnd {
    let b = match base {
        Base::Reg(r) => AddrBase::Reg(r.checked(k)),
        Base::Reg32(r) => AddrBase::Reg(r.checked(k)),
        Base::Sym(s, owner) => {
            k.check_module(*owner, crate::builder::sym_name(*s));
            AddrBase::Sym(*s)
        }
    };
    match i32::try_from(off) {
        Ok(off) => Opnd::Addr(b, off),
        // An offset beyond what an address operand holds is added in a register.
        Err(_) => Opnd::Addr(AddrBase::Reg(k.add_offset(b, base, off)), 0),
    }
}

impl<S: StateSpace, E: DataType, K: Accepts<E>> Operand<Addr<S, K>> for Ptr<S, E> {
    fn lower(self, k: &mut Kernel) -> Opnd {
        addr_opnd(k, &self.base, self.off)
    }
}
impl<S: StateSpace, E: DataType, K: Accepts<E>> Operand<Addr<S, K>> for &Ptr<S, E> {
    fn lower(self, k: &mut Kernel) -> Opnd {
        addr_opnd(k, &self.base, self.off)
    }
}

/// An address operand whose state space and element type are known: a pointer or an
/// indexed element. [`Kernel::ld`] and [`Kernel::st`] take these.
pub trait Address: Operand<Addr<Self::Space, Self::Elem>> {
    type Space: StateSpace;
    type Elem: DataType;
}
impl<S: StateSpace, T: DataType + Accepts<T>> Address for Ptr<S, T> {
    type Space = S;
    type Elem = T;
}
impl<S: StateSpace, T: DataType + Accepts<T>, I: Index> Address for Elem<S, T, I> {
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

impl<S: StateSpace, E: DataType, I: Index, K: Accepts<E>> Operand<Addr<S, K>> for Elem<S, E, I> {
    fn lower(self, k: &mut Kernel) -> Opnd {
        self.i.index_addr(k, &self.ptr)
    }
}

macro_rules! const_index {
    ($($t:ty)*) => {$(
        impl Index for $t {
            fn index_addr<S: StateSpace, T: DataType>(self, k: &mut Kernel, p: &Ptr<S, T>) -> Opnd {
                addr_opnd(k, &p.base, p.off + self as i64 * elem_bytes::<T>() as i64)
            }
        }
    )*};
}
const_index!(u32 i32 u64 i64 usize);

macro_rules! reg_index {
    ($($t:ident)*) => {$(
        impl Index for Reg<crate::types::$t> {
            fn index_addr<S: StateSpace, T: DataType>(self, k: &mut Kernel, p: &Ptr<S, T>) -> Opnd {
                let r = k.index_address::<S, T, crate::types::$t>(p, self);
                let base = match p.base {
                    Base::Reg32(_) => Base::Reg32(Reg::new(r, k.id)),
                    _ => Base::Reg(Reg::new(r, k.id)),
                };
                addr_opnd(k, &base, p.off)
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
impl<I: DataType + Accepts<T>, T: DataType> Operand<I> for SymAddr<T> {
    fn lower(self, k: &mut Kernel) -> Opnd {
        k.check_module(self.owner, crate::builder::sym_name(self.name));
        Opnd::Sym(self.name)
    }
}

impl Dst for () {
    fn alloc(_: &mut Kernel) -> Self {}
    fn opnd(&self, _: &mut Kernel) -> Option<Opnd> {
        None
    }
}
impl<T: DataType> Dst for Reg<T> {
    #[inline]
    fn alloc(k: &mut Kernel) -> Self {
        k.reg()
    }
    #[inline]
    fn opnd(&self, k: &mut Kernel) -> Option<Opnd> {
        Some(Opnd::Reg(self.checked(k)))
    }
}
impl<A: DataType, B: DataType> Dst for (Reg<A>, Reg<B>) {
    fn alloc(k: &mut Kernel) -> Self {
        (k.reg(), k.reg())
    }
    fn opnd(&self, k: &mut Kernel) -> Option<Opnd> {
        Some(Opnd::Pair(self.0.checked(k), self.1.checked(k)))
    }
}
impl<T: DataType, const N: usize> Dst for [Reg<T>; N] {
    fn alloc(k: &mut Kernel) -> Self {
        core::array::from_fn(|_| k.reg())
    }
    fn opnd(&self, k: &mut Kernel) -> Option<Opnd> {
        Some(Opnd::Vec(Box::new(self.iter().map(|r| Opnd::Reg(r.checked(k))).collect())))
    }
}
