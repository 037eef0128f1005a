//! A TMA tensor map as a kernel parameter: [`TensorMap<T, R>`] is declared like a
//! [`ParamBytes<128>`] and hands out `[map, {c0, .., c(R-1)}]` operands whose coordinate
//! count is the map's rank.

use super::{KernelParam, ParamBytes};
use crate::core::Kernel;
use crate::descriptors::TensorDataType;
use crate::ops::num::{Dim, Spell};
use crate::ops::{emit, h, m, op, Addr, AnyElem, CoordKinds, CoordList, HandleAddr, Instr, Operand, Opnd, Select};
use crate::ptx;
use crate::regs::{GenericPtr, TensorAt};
use crate::types::{self, DataType, Reg, B8, S32, U64};
use core::marker::PhantomData;

/// Element types a tensor map can describe, with the driver's data type for each
/// (`CUtensorMapDataType`). 8- and 16-bit types of every signedness map to the unsigned
/// type of their width (a copy moves bits; reductions of those widths do not exist), `.b32`
/// and `.b64` to the unsigned ones; `f32` and `tf32` are not flushed to zero.
#[diagnostic::on_unimplemented(
    message = "a tensor map cannot hold `{Self}` elements",
    label = "not an element type of TMA tensor maps",
    note = "tensor maps hold 1-, 2-, 4- and 8-byte integers, f16, bf16, f32, tf32 and f64; FP8 data travels as u8"
)]
pub trait TensorElem: DataType {
    /// The tensor map's element type.
    const TMA: TensorDataType;
}

macro_rules! tensor_elems {
    ($($t:ident => $d:ident;)*) => {$( impl TensorElem for types::$t { const TMA: TensorDataType = TensorDataType::$d; } )*};
}
tensor_elems! {
    U8 => U8; S8 => U8; B8 => U8;
    U16 => U16; S16 => U16; B16 => U16;
    U32 => U32; B32 => U32; S32 => S32;
    U64 => U64; B64 => U64; S64 => S64;
    F16 => F16; Bf16 => Bf16; F32 => F32; Tf32 => Tf32; F64 => F64;
}

/// A tensor map of `T` elements and rank `R` (1 to 5), passed by value: declared
/// `.param .align 64 .b8 name[128]`, as [`ParamBytes<128>`] is. On entry the kernel takes
/// the parameter's generic address (`mov.u64` of the symbol, `cvta.param.u64`), which is
/// what the tensor instructions read the map through. The host passes a
/// `&HostTensorMap<T, R>` (`ptxkit::runtime`, feature `cuda`), encoded once.
///
/// [`at`](Self::at) makes the tensor operand: exactly `R` coordinates, or the kernel does
/// not compile. [`load`](Self::load), [`store`](Self::store) and
/// [`prefetch_tile`](Self::prefetch_tile) emit the tile-mode copy of the map's rank (the
/// form [`TileRank`] picks for `Dim<R>`), so code generic over `R` can use them; other forms
/// take `map.at(..)` in `ptx!`.
///
/// ```
/// use ptxkit::builder::TensorMap;
/// use ptxkit::prelude::*;
///
/// let mut m = Module::new(Target::SM_90);
/// m.kernel("tile_copy", |k, (src, dst): (TensorMap<F32, 2>, TensorMap<F32, 2>)| {
///     let tile = k.dynamic_shared_aligned::<F32>(1024);
///     let bar = k.shared_array::<B64>("bar", 1, 8);
///     let (x, y) = (ptx!(k, "mov.s32", 32i32), ptx!(k, "mov.s32", 8i32));
///     src.prefetch(k);
///     ptx!(k, "mbarrier.init.shared::cta.b64", bar, 1u32);
///     ptx!(k, "mbarrier.arrive.expect_tx.shared::cta.b64", bar, 4096u32);
///     // The same instruction twice: spelled out, and by the rank-generic helper.
///     ptx!(k, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", tile, src.at([x, y]), bar);
///     src.load(k, tile, [x, y], bar);
///     let done = ptx!(k, "mbarrier.try_wait.parity.shared::cta.b64", bar, 0u32);
///     k.if_(done, |k| {
///         dst.store(k, [x, y], tile);
///         ptx!(k, "cp.async.bulk.commit_group");
///         ptx!(k, "cp.async.bulk.wait_group", 0);
///     });
/// })?;
/// let ptx = m.to_ptx()?;
/// assert!(ptx.contains(".param .align 64 .b8 tile_copy_param_0[128]"));
/// assert!(ptx.contains("mov.u64 %rd1, tile_copy_param_0;\n\tcvta.param.u64 %rd2, %rd1;"), "{ptx}");
/// assert!(ptx.contains("[ptxkit_dynamic_smem], [%rd2, {%r1, %r2}], [bar];"));
/// assert!(ptx.contains("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd4, {%r1, %r2}], [ptxkit_dynamic_smem];"));
/// # Ok::<(), ptxkit::Error>(())
/// ```
///
/// Coordinates that are not the map's rank do not compile:
///
/// ```compile_fail
/// use ptxkit::builder::TensorMap;
/// use ptxkit::prelude::*;
/// let mut m = Module::new(Target::SM_90);
/// m.kernel("k", |k, (map,): (TensorMap<F32, 2>,)| {
///     let x = ptx!(k, "mov.s32", 0i32);
///     let _ = map.at([x, x, x]);
/// });
/// ```
pub struct TensorMap<T, const R: usize> {
    bytes: ParamBytes<128>,
    addr: Reg<U64>,
    _t: PhantomData<T>,
}

impl<T, const R: usize> Clone for TensorMap<T, R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const R: usize> Copy for TensorMap<T, R> {}
impl<T, const R: usize> core::fmt::Debug for TensorMap<T, R> {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        write!(f, "TensorMap<{}>({:?})", R, self.bytes)
    }
}

impl<T: TensorElem, const R: usize> TensorMap<T, R> {
    /// The rank.
    pub const RANK: usize = R;
    const VALID_RANK: () = assert!(R >= 1 && R <= 5, "a tensor map has rank 1 to 5");

    /// The tensor operand `[map, {c0, .., c(R-1)}]` at element coordinates `coords`
    /// (innermost first; they may be negative or past the tensor's end, where loads fill and
    /// stores skip). In tile mode the innermost coordinate times the element size must be a
    /// multiple of 16 bytes: on an H100 any other value stops the kernel with
    /// `CUDA_ERROR_ILLEGAL_INSTRUCTION` (the coordinates are registers, so nothing can check
    /// them before the kernel runs).
    pub fn at(&self, coords: [Reg<S32>; R]) -> TensorAt<R> {
        TensorAt::new(self.addr, coords)
    }

    /// The generic address of the map (the parameter's), in a register.
    pub fn addr(&self) -> Reg<U64> {
        self.addr
    }

    /// The map's 128 bytes as a plain parameter (to read them with `ld.param`).
    pub fn param(&self) -> ParamBytes<128> {
        self.bytes
    }

    /// `prefetch.tensormap [map]`: fetch the map itself ahead of the first copy.
    #[track_caller]
    pub fn prefetch(&self, k: &mut Kernel) {
        ptx!(k, "prefetch.tensormap", GenericPtr::<B8>::from_reg(self.addr));
    }
}

/// The tile-mode copies, of the map's rank: the forms are chosen by [`TileRank`] (`Dim<R>`),
/// so code generic over `R` calls them with the bound `Dim<R>: TileRank<R>`.
impl<T: TensorElem, const R: usize> TensorMap<T, R>
where
    Dim<R>: TileRank<R>,
{
    /// `cp.async.bulk.prefetch.tensor.{R}d.L2.global.tile [map, coords]`: bring the box at
    /// `coords` into L2.
    pub fn prefetch_tile(&self, k: &mut Kernel, coords: [Reg<S32>; R]) {
        let map = self.addr;
        emit::<<Dim<R> as TileRank<R>>::Prefetch>(k, None, (), |k, out| out.push(Dim::<R>::tensor(k, map, coords)));
    }

    /// `cp.async.bulk.tensor.{R}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
    /// [dst], [map, coords], [bar]`: load the box at `coords` into shared memory at `dst`,
    /// completing the box's bytes of transactions on the mbarrier `bar` (armed with
    /// `mbarrier.arrive.expect_tx` of that count). `dst` and `bar` may be `.shared`
    /// addresses of this CTA.
    pub fn load<D, B>(&self, k: &mut Kernel, dst: D, coords: [Reg<S32>; R], bar: B)
    where
        D: Operand<Addr<m::SharedCluster, AnyElem>>,
        B: Operand<Addr<m::SharedCluster, types::B64>>,
    {
        let map = self.addr;
        emit::<<Dim<R> as TileRank<R>>::Load>(k, None, (), |k, out| {
            out.push(dst.lower(k));
            out.push(Dim::<R>::tensor(k, map, coords));
            out.push(bar.lower(k));
        });
    }

    /// `cp.async.bulk.tensor.{R}d.global.shared::cta.tile.bulk_group [map, coords], [src]`:
    /// store the box at `coords` from shared memory at `src` (elements of the box outside the
    /// tensor are not written), in the thread's open bulk group (`cp.async.bulk.commit_group`,
    /// then `cp.async.bulk.wait_group`). Shared memory written by ordinary stores needs
    /// `fence.proxy.async.shared::cta` before the copy reads it.
    ///
    /// Measured on an H100 (driver 580): every coordinate must be nonnegative, or the kernel
    /// stops with `CUDA_ERROR_ILLEGAL_INSTRUCTION`; and a box past the innermost end writes
    /// whole 16-byte units, so when that extent in bytes is not a multiple of 16 the bytes
    /// after it up to the next 16-byte boundary of each row (the row's padding) are written
    /// too.
    pub fn store<S>(&self, k: &mut Kernel, coords: [Reg<S32>; R], src: S)
    where
        S: Operand<Addr<m::SharedCta, AnyElem>>,
    {
        let map = self.addr;
        emit::<<Dim<R> as TileRank<R>>::Store>(k, None, (), |k, out| {
            out.push(Dim::<R>::tensor(k, map, coords));
            out.push(src.lower(k));
        });
    }
}

/// The chain of a tile-mode TMA load of rank `R` (the part `.{R}d` spelled by `Dim<R>`).
type LoadChain<const R: usize> =
    (m::Async, m::Bulk, m::Tensor, <Dim<R> as Spell>::Part, m::SharedCluster, m::Global, m::Tile, m::MbarrierCompleteTxBytes);
/// The chain of a tile-mode TMA store of rank `R`.
type StoreChain<const R: usize> = (m::Async, m::Bulk, m::Tensor, <Dim<R> as Spell>::Part, m::Global, m::SharedCta, m::Tile, m::BulkGroup);
/// The chain of a tile-mode L2 prefetch of rank `R`.
type PrefetchChain<const R: usize> = (m::Async, m::Bulk, m::Prefetch, m::Tensor, <Dim<R> as Spell>::Part, m::L2, m::Global, m::Tile);
/// The tensor operand `[map, {c0, ..}]` with the coordinate kinds `C`.
type TensorKind<C> = HandleAddr<(h::Tmap,), C, 0>;

/// The tile-mode TMA forms of rank `R`, chosen from the bulk table's `select` rows by the
/// part `.{R}d` (`Dim<R>`): implemented for the ranks those rows have, 1 to 5, and for no
/// other, so a copy of another rank does not compile. [`TensorMap`]'s copies emit them.
#[diagnostic::on_unimplemented(
    message = "no tile-mode TMA copy has rank {R}",
    label = "tensor maps have rank 1 to 5",
    note = "code generic over the rank carries the bound `Dim<R>: TileRank<R>`"
)]
pub trait TileRank<const R: usize> {
    /// The coordinates' kinds, `R` × `S32`.
    type Coords: CoordKinds;
    /// `cp.async.bulk.tensor.{R}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes`
    type Load: Instr<Out = (), Src = (Addr<m::SharedCluster, AnyElem>, TensorKind<Self::Coords>, Addr<m::SharedCluster, types::B64>)>;
    /// `cp.async.bulk.tensor.{R}d.global.shared::cta.tile.bulk_group`
    type Store: Instr<Out = (), Src = (TensorKind<Self::Coords>, Addr<m::SharedCta, AnyElem>)>;
    /// `cp.async.bulk.prefetch.tensor.{R}d.L2.global.tile`
    type Prefetch: Instr<Out = (), Src = (TensorKind<Self::Coords>,)>;
    /// The operand `[map, {coords}]`, lowered.
    #[doc(hidden)]
    fn tensor(k: &mut Kernel, map: Reg<U64>, coords: [Reg<S32>; R]) -> Opnd;
}

impl<const R: usize, C> TileRank<R> for Dim<R>
where
    Dim<R>: Spell,
    C: CoordKinds,
    [Reg<S32>; R]: CoordList<C>,
    op::Cp: Select<LoadChain<R>> + Select<StoreChain<R>> + Select<PrefetchChain<R>>,
    <op::Cp as Select<LoadChain<R>>>::Form:
        Instr<Out = (), Src = (Addr<m::SharedCluster, AnyElem>, TensorKind<C>, Addr<m::SharedCluster, types::B64>)>,
    <op::Cp as Select<StoreChain<R>>>::Form: Instr<Out = (), Src = (TensorKind<C>, Addr<m::SharedCta, AnyElem>)>,
    <op::Cp as Select<PrefetchChain<R>>>::Form: Instr<Out = (), Src = (TensorKind<C>,)>,
{
    type Coords = C;
    type Load = <op::Cp as Select<LoadChain<R>>>::Form;
    type Store = <op::Cp as Select<StoreChain<R>>>::Form;
    type Prefetch = <op::Cp as Select<PrefetchChain<R>>>::Form;
    fn tensor(k: &mut Kernel, map: Reg<U64>, coords: [Reg<S32>; R]) -> Opnd {
        <TensorAt<R> as Operand<TensorKind<C>>>::lower(TensorAt::new(map, coords), k)
    }
}

impl<T: TensorElem, const R: usize> KernelParam for TensorMap<T, R> {
    fn decl(name: &str) -> String {
        let () = Self::VALID_RANK;
        <ParamBytes<128> as KernelParam>::decl(name)
    }
    #[track_caller]
    fn declare(k: &mut Kernel, name: &str) -> Self {
        let () = Self::VALID_RANK;
        let bytes = <ParamBytes<128> as KernelParam>::declare(k, name);
        let symbol = bytes.ptr::<B8>().addr(k);
        let addr = ptx!(k, "cvta.param.u64", symbol);
        TensorMap { bytes, addr, _t: PhantomData }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Bf16, F32, S8, U16};

    #[test]
    fn declared_as_128_parameter_bytes() {
        assert_eq!(<TensorMap<F32, 2> as KernelParam>::decl("p"), <ParamBytes<128> as KernelParam>::decl("p"));
        assert_eq!(TensorMap::<F32, 3>::RANK, 3);
        assert_eq!((S8::TMA, U16::TMA, Bf16::TMA), (TensorDataType::U8, TensorDataType::U16, TensorDataType::Bf16));
    }
}
