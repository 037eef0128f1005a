//! Warpgroup matrix multiply-accumulate (sm_90a) for kernels generic over their tile:
//! the dense `wgmma.mma_async` form chosen by its width `N` and types ([`Mma`]), the fence,
//! commit and wait around it ([`fence`], [`commit`], [`Pending`], [`wait`]), and where each
//! register of an accumulator or operand sits in its tile: wgmma's ([`acc_coord`],
//! [`a_coord`], and in a kernel [`acc_row`], [`acc_col`]) and `mma.sync`'s
//! ([`mma_acc_coord`], [`mma_a_coord`], [`mma_b_coord`], [`lane_group_quad`]).
//!
//! `Mma<N, D, A, B>` is the form `wgmma.mma_async.sync.aligned.m64n{N}k{K}.{D}.{A}.{B}`, K
//! being 32 bytes of `A` (16 for bf16): the `select` rows of the `wgmma` table implement it
//! for every `N` and type triple PTX has, so a width or a type pair it lacks does not
//! compile, and its accumulator is a typed [`Acc`] of `N/2` registers (`N/4` for f16).
//!
//! ```
//! use ptxkit::descriptors::{ElemBytes, Major, Swizzle, TileLayout};
//! use ptxkit::intrinsics::wgmma::{self, Mma, WgmmaForm};
//! use ptxkit::prelude::*;
//!
//! /// One 64×N tile of `A·Bᵀ` (both K-major, K = 64) for any N the tables have.
//! fn tile<const N: u32>(k: &mut Kernel, a: Reg<Gdesc>, b: Reg<Gdesc>) -> <Mma<N, F32, Bf16> as WgmmaForm>::Acc
//! where
//!     Mma<N, F32, Bf16>: WgmmaForm,
//! {
//!     let acc = Mma::<N, F32, Bf16>::zeroed(k);
//!     wgmma::fence(k);
//!     for s in 0..4 {
//!         // Each K-slice of 16 elements is 32 bytes further (a descriptor counts 16 bytes).
//!         let (sa, sb) = (ptx!(k, "add.s64", a.bitcast::<S64>(), 2 * s), ptx!(k, "add.s64", b.bitcast::<S64>(), 2 * s));
//!         Mma::<N, F32, Bf16>::ss(k, acc, sa.bitcast(), sb.bitcast(), s > 0, (Major::K, Major::K));
//!     }
//!     wgmma::commit(k, acc).wait(k, 0)
//! }
//!
//! let layout = TileLayout::new(ElemBytes::B2, 64, 64, Major::K, Swizzle::B128).unwrap();
//! let mut m = Module::new(Target::SM_90A);
//! m.kernel("tiles", |k, (out,): (GlobalPtr<F32>,)| {
//!     let smem = k.dynamic_shared_aligned::<Bf16>(1024);
//!     let d = k.gmma_desc(&layout, smem);
//!     let narrow = tile::<64>(k, d, d); // Acc<F32, 32>
//!     let wide = tile::<256>(k, d, d); // Acc<F32, 128>
//!     ptx!(k, "st.global.f32", out.offset(0), narrow[0]);
//!     ptx!(k, "st.global.f32", out.offset(1), wide[127]);
//! })?;
//! let text = m.to_ptx()?;
//! assert_eq!(text.matches("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16").count(), 4);
//! assert_eq!(text.matches("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16").count(), 4);
//! # Ok::<(), ptxkit::Error>(())
//! ```
//!
//! A width no form has does not compile:
//!
//! ```compile_fail
//! use ptxkit::intrinsics::wgmma::{Mma, WgmmaForm};
//! use ptxkit::prelude::*;
//! let mut m = Module::new(Target::SM_90A);
//! m.kernel("k", |k, (): ()| {
//!     let _ = Mma::<100, F32, Bf16>::zeroed(k);
//! });
//! ```

use crate::builder::Kernel;
use crate::core::{DType, Kind};
use crate::descriptors::Major;
use crate::ops::num::{Mnk, Spell};
use crate::ops::{emit, m, op, v, Acc, Dst, Instr, Operand, Opnd, Select};
use crate::ptx;
use crate::regs::Reg;
use crate::types::{self, DataType, Gdesc, Pred, B32, U32};
use core::marker::PhantomData;

/// Input types of the dense wgmma forms, with the shape of one instruction of width `N`:
/// K is 32 bytes of the type (8 for tf32, 16 for f16 and bf16, 32 for FP8 and 8-bit
/// integers).
pub trait MmaIn: DataType {
    /// `Mnk<64, N, K>`.
    type Shape<const N: u32>;
}
macro_rules! mma_in {
    ($($t:ident $k:literal;)*) => {$( impl MmaIn for types::$t { type Shape<const N: u32> = Mnk<64, N, $k>; } )*};
}
mma_in! { F16 16; Bf16 16; Tf32 8; E4m3 32; E5m2 32; U8 32; S8 32; }

/// The dense wgmma form of width `N` accumulating into `D` from inputs `A` and `B`:
/// `wgmma.mma_async.sync.aligned.m64n{N}k{K}.{D}.{A}.{B}`. Its methods are available where
/// the tables have the form ([`WgmmaForm`]).
pub struct Mma<const N: u32, D, A, B = A>(PhantomData<(D, A, B)>);

/// The chain of [`Mma`].
type Chain<const N: u32, D, A, B> = (m::MmaAsync, m::Sync, m::Aligned, <<A as MmaIn>::Shape<N> as Spell>::Part, D, A, B);
/// The form of the chain, `V` the variant (A from shared memory, or `v::Rs` from registers).
type FormOf<const N: u32, D, A, B, V> = <op::Wgmma as Select<Chain<N, D, A, B>, V>>::Form;

/// A dense wgmma form the tables have: its accumulator, and its two forms (A from shared
/// memory and from registers).
#[diagnostic::on_unimplemented(
    message = "PTX has no dense wgmma `{Self}`",
    label = "no such width or type combination",
    note = "the `select` rows of tables/forms/wgmma.forms list them: N from 8 to 256 in steps of 8 (16 above 32 for 8-bit integers), \
            f32 or f16 from f16, bf16 (f32 only), tf32 (f32 only), e4m3/e5m2; s32 from u8/s8"
)]
pub trait WgmmaForm {
    /// The tied accumulator (`Acc<F32, N/2>` for an f32 one).
    type Acc: Accumulator;
    /// The form reading A and B through shared-memory descriptors.
    type Ss: Instr<Out = Self::Acc>;
    /// The form reading A from four registers and B through a descriptor.
    type Rs: Instr<Out = Self::Acc>;
}

impl<const N: u32, D, A, B, C> WgmmaForm for Mma<N, D, A, B>
where
    A: MmaIn,
    A::Shape<N>: Spell,
    op::Wgmma: Select<Chain<N, D, A, B>> + Select<Chain<N, D, A, B>, v::Rs>,
    FormOf<N, D, A, B, v::Plain>: Instr<Out = C>,
    FormOf<N, D, A, B, v::Rs>: Instr<Out = C>,
    C: Accumulator,
{
    type Acc = C;
    type Ss = FormOf<N, D, A, B, v::Plain>;
    type Rs = FormOf<N, D, A, B, v::Rs>;
}

/// A tied accumulator of some length, for code generic over the wgmma width: what
/// [`WgmmaForm::Acc`] is (an [`Acc`]).
pub trait Accumulator: Dst + Copy {
    /// The element type (`F32`, `F16x2`, `S32`).
    type Elem: DataType;
    /// A fresh accumulator, zeroed.
    fn zeroed(k: &mut Kernel) -> Self;
    /// Its registers.
    fn regs(&self) -> &[Reg<Self::Elem>];
}
impl<T: DataType, const R: usize> Accumulator for Acc<T, R> {
    type Elem = T;
    #[track_caller]
    fn zeroed(k: &mut Kernel) -> Self {
        k.zeroed_acc()
    }
    fn regs(&self) -> &[Reg<T>] {
        &self.0
    }
}

impl<const N: u32, D, A, B> Mma<N, D, A, B>
where
    Self: WgmmaForm,
{
    /// A fresh accumulator, zeroed (wgmma's first K-step may instead pass `scale_d` false).
    #[track_caller]
    pub fn zeroed(k: &mut Kernel) -> <Self as WgmmaForm>::Acc {
        <<Self as WgmmaForm>::Acc as Accumulator>::zeroed(k)
    }

    /// `acc = A·B + (scale_d ? acc : 0)`, A and B read through their shared-memory
    /// descriptors, laid out as `major` says (K-major, or MN-major for f16 and bf16 inputs:
    /// the form's transpose immediates). An MN-major operand of a type whose form has no
    /// transpose is an error of the kernel, reported when it is built.
    #[track_caller]
    pub fn ss(
        k: &mut Kernel,
        acc: <Self as WgmmaForm>::Acc,
        a: Reg<Gdesc>,
        b: Reg<Gdesc>,
        scale_d: impl Operand<Pred>,
        major: (Major, Major),
    ) -> <Self as WgmmaForm>::Acc {
        emit::<<Self as WgmmaForm>::Ss>(k, None, acc, |k, out| {
            out.push(<Reg<Gdesc> as Operand<Gdesc>>::lower(a, k));
            out.push(<Reg<Gdesc> as Operand<Gdesc>>::lower(b, k));
            out.push(scale_d.lower(k));
            immediates(k, <<Self as WgmmaForm>::Ss as Instr>::DESC.src, &[major.0, major.1], out);
        })
    }

    /// `acc = A·B + (scale_d ? acc : 0)`, A from four registers per thread (the layout of
    /// [`a_coord`]) and B through its descriptor, laid out as `b_major` says.
    pub fn rs(
        k: &mut Kernel,
        acc: <Self as WgmmaForm>::Acc,
        a: [Reg<B32>; 4],
        b: Reg<Gdesc>,
        scale_d: impl Operand<Pred>,
        b_major: Major,
    ) -> <Self as WgmmaForm>::Acc {
        emit::<<Self as WgmmaForm>::Rs>(k, None, acc, |k, out| {
            out.push(<[Reg<B32>; 4] as Operand<crate::ops::Vector<B32, 4>>>::lower(a, k));
            out.push(<Reg<Gdesc> as Operand<Gdesc>>::lower(b, k));
            out.push(scale_d.lower(k));
            immediates(k, <<Self as WgmmaForm>::Rs as Instr>::DESC.src, &[b_major], out);
        })
    }
}

/// Inputs `Self` have the dense wgmma of width `N` (both inputs `Self`) into an f32
/// accumulator of `R = N/2` registers: [`Mma`]'s methods as a bound that code generic over
/// the input type can carry (and a trait can require of an associated type, so that its
/// users need not repeat it for every width).
pub trait MmaF32<const N: u32, const R: usize>: MmaIn {
    /// [`Mma::ss`].
    fn ss(k: &mut Kernel, acc: Acc<types::F32, R>, a: Reg<Gdesc>, b: Reg<Gdesc>, scale_d: Reg<Pred>, major: (Major, Major));
    /// [`Mma::rs`].
    fn rs(k: &mut Kernel, acc: Acc<types::F32, R>, a: [Reg<B32>; 4], b: Reg<Gdesc>, scale_d: Reg<Pred>, b_major: Major);
}
impl<A: MmaIn, const N: u32, const R: usize> MmaF32<N, R> for A
where
    Mma<N, types::F32, A>: WgmmaForm<Acc = Acc<types::F32, R>>,
{
    #[track_caller]
    fn ss(k: &mut Kernel, acc: Acc<types::F32, R>, a: Reg<Gdesc>, b: Reg<Gdesc>, scale_d: Reg<Pred>, major: (Major, Major)) {
        Mma::<N, types::F32, A>::ss(k, acc, a, b, scale_d, major);
    }
    fn rs(k: &mut Kernel, acc: Acc<types::F32, R>, a: [Reg<B32>; 4], b: Reg<Gdesc>, scale_d: Reg<Pred>, b_major: Major) {
        Mma::<N, types::F32, A>::rs(k, acc, a, b, scale_d, b_major);
    }
}

/// The immediates after a wgmma's scale-d: `imm-scale-a`/`-b` 1 (the inputs as they are),
/// then `imm-trans-*` from `majors` (last ones first missing: the forms put A's before B's).
#[track_caller]
fn immediates(k: &mut Kernel, src: &[Kind], majors: &[Major], out: &mut Vec<Opnd>) {
    let trans = src.iter().filter(|s| matches!(s, Kind::ImmIn(DType::U32, _))).count();
    let (dropped, kept) = majors.split_at(majors.len() - trans.min(majors.len()));
    if dropped.iter().any(|m| *m != Major::K) {
        k.invalid("this wgmma form reads its inputs K-major only: MN-major operands need f16 or bf16 inputs".to_string());
    }
    let mut kept = kept.iter();
    for s in &src[3..] {
        match s {
            Kind::ImmIn(DType::S32, _) => out.push(Opnd::uint(1)),
            Kind::ImmIn(DType::U32, _) => out.push(Opnd::uint(matches!(kept.next(), Some(Major::MN)) as u64)),
            other => unreachable!("a dense wgmma form has only immediates after scale-d, not {other:?}"),
        }
    }
}

/// `wgmma.fence.sync.aligned`: orders this warpgroup's register and shared-memory accesses
/// before the wgmmas that follow (needed before the first wgmma, and whenever registers of
/// an accumulator or an A fragment were written by other instructions).
#[track_caller]
pub fn fence(k: &mut Kernel) {
    ptx!(k, "wgmma.fence.sync.aligned");
}

/// `wgmma.commit_group.sync.aligned`: the wgmmas issued since the last commit form a group;
/// their accumulator `acc` is pending until the group completes ([`Pending::wait`]).
#[track_caller]
pub fn commit<A>(k: &mut Kernel, acc: A) -> Pending<A> {
    ptx!(k, "wgmma.commit_group.sync.aligned");
    Pending { acc }
}

/// `wgmma.wait_group.sync.aligned newer`: wait until at most `newer` of this warpgroup's
/// committed groups are still running (the newest ones).
#[track_caller]
pub fn wait(k: &mut Kernel, newer: u32) {
    ptx!(k, "wgmma.wait_group.sync.aligned", newer);
}

/// An accumulator whose wgmmas were committed and may still run: its registers may be read
/// only after [`wait`](Self::wait).
#[must_use = "an accumulator in flight is read only after `wait`"]
pub struct Pending<A> {
    acc: A,
}

impl<A> Pending<A> {
    /// Waits until at most `newer` groups committed after this one are running (0: all of
    /// them, this one included; the wgmmas of a group complete in order) and returns the
    /// accumulator.
    #[track_caller]
    pub fn wait(self, k: &mut Kernel, newer: u32) -> A {
        wait(k, newer);
        self.acc
    }
}

/// Where register `i` of thread `thread` (0..128 of the warpgroup) of a wgmma accumulator
/// sits in the 64 × N tile: `(row, column)`. Warp `w` holds rows `16w..16w+16`; lane `l`
/// rows `16w + l/4` and `+ 8`, columns `8j + 2(l%4)` and `+ 1` for each `j < N/8`: registers
/// `4j, 4j+1` in the upper row, `4j+2, 4j+3` in the lower.
pub const fn acc_coord(thread: u32, i: u32) -> (u32, u32) {
    let (warp, lane) = (thread / 32, thread % 32);
    (16 * warp + lane / 4 + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * (lane % 4) + i % 2)
}

/// Where element `e` (0..8, two per register) of thread `thread`'s A fragment of an
/// `m64nNk16` wgmma with A from registers sits in the 64 × 16 tile of A: `(row, k)`. It is
/// the accumulator's layout over 16 columns ([`acc_coord`] of the element), so an f32
/// accumulator converted pairwise to bf16 is the A fragment of the next product (the
/// `P·V` of attention).
pub const fn a_coord(thread: u32, e: u32) -> (u32, u32) {
    acc_coord(thread, e)
}

/// The row in the tile of register 0 of `thread`'s accumulator (0..128 in the warpgroup):
/// `16·(thread/32) + (thread%32)/4`. Registers `4j+2, 4j+3` are 8 rows below.
#[track_caller]
pub fn acc_row(k: &mut Kernel, thread: Reg<U32>) -> Reg<U32> {
    let warp = ptx!(k, "shr.u32", thread, 5u32);
    let lane = ptx!(k, "and.b32", thread, 31u32).bitcast::<U32>();
    let group = ptx!(k, "shr.u32", lane, 2u32);
    ptx!(k, "mad.lo.u32", warp, 16u32, group)
}

/// The column in the tile of register 0 of `thread`'s accumulator: `2·(thread%4)`.
/// Register `4j + c` (c in 0..4) is `8j + c%2` columns further.
#[track_caller]
pub fn acc_col(k: &mut Kernel, thread: Reg<U32>) -> Reg<U32> {
    let quad = ptx!(k, "and.b32", thread, 3u32).bitcast::<U32>();
    ptx!(k, "shl.b32", quad, 1u32).bitcast::<U32>()
}

/// Lane `lane`'s group and place in it, `(lane / 4, lane % 4)`: the row and the column pair
/// of its `mma.sync` fragments ([`mma_acc_coord`], [`mma_a_coord`], [`mma_b_coord`]).
#[track_caller]
pub fn lane_group_quad(k: &mut Kernel, lane: Reg<U32>) -> (Reg<U32>, Reg<U32>) {
    let group = ptx!(k, "shr.u32", lane, 2u32);
    let quad = ptx!(k, "and.b32", lane, 3u32).bitcast::<U32>();
    (group, quad)
}

/// Where register `i` (0..4) of lane `lane`'s accumulator of an `mma.sync` of shape
/// `m16n8k*` (f32 or s32 accumulator) sits in the 16 × 8 tile: `(row, column)`: rows
/// `lane/4` (registers 0, 1) and `+ 8` (2, 3), columns `2·(lane%4)` and `+ 1`.
pub const fn mma_acc_coord(lane: u32, i: u32) -> (u32, u32) {
    (lane / 4 + 8 * (i / 2), 2 * (lane % 4) + i % 2)
}

/// Where element `e` (0..8, two 16-bit elements per register) of lane `lane`'s A fragment
/// of an `mma.sync.m16n8k16` with 16-bit inputs sits in the 16 × 16 tile of A: `(row, k)`.
/// Registers 0..4 hold (rows `lane/4`, k `2·(lane%4)`..), (rows `+8`), (k `+8`), (both).
pub const fn mma_a_coord(lane: u32, e: u32) -> (u32, u32) {
    (lane / 4 + 8 * ((e / 2) % 2), 2 * (lane % 4) + e % 2 + 8 * (e / 4))
}

/// Where element `e` (0..4) of lane `lane`'s B fragment of an `mma.sync.m16n8k16` with
/// 16-bit inputs sits in the 16 × 8 tile of B: `(k, column)`: column `lane/4`, k
/// `2·(lane%4)` and `+1` (register 0), `+8` and `+9` (register 1).
pub const fn mma_b_coord(lane: u32, e: u32) -> (u32, u32) {
    (2 * (lane % 4) + e % 2 + 8 * (e / 2), lane / 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (row, column) of a 64 × 256 tile is held by exactly one thread and register.
    #[test]
    fn accumulator_layout_is_a_bijection() {
        let mut seen = vec![false; 64 * 256];
        for t in 0..128 {
            for i in 0..128 {
                let (r, c) = acc_coord(t, i);
                assert!(r < 64 && c < 256);
                assert!(!std::mem::replace(&mut seen[(r * 256 + c) as usize], true), "({r}, {c}) twice");
            }
        }
        assert!(seen.iter().all(|s| *s));
        // The layout the GEMM's epilogue stores from and attention's P·V reads, both checked
        // on the GPU: thread 5 holds row 1, columns 2-3 and row 9; thread 32 starts warp 1.
        assert_eq!((acc_coord(5, 0), acc_coord(5, 1), acc_coord(5, 2), acc_coord(5, 4)), ((1, 2), (1, 3), (9, 2), (1, 10)));
        assert_eq!(acc_coord(32, 0), (16, 0));
    }

    /// The `mma.sync` maps cover their tiles once: the 16 × 8 accumulator (4 registers ×
    /// 32 lanes), A's 16 × 16 (8 halves) and B's 16 × 8 (4 halves).
    #[test]
    fn mma_sync_layouts_are_bijections() {
        fn covers(rows: u32, cols: u32, per_lane: u32, at: impl Fn(u32, u32) -> (u32, u32)) {
            let mut seen = vec![0u8; (rows * cols) as usize];
            for lane in 0..32 {
                for e in 0..per_lane {
                    let (r, c) = at(lane, e);
                    assert!(r < rows && c < cols, "({r}, {c}) outside {rows} x {cols}");
                    seen[(r * cols + c) as usize] += 1;
                }
            }
            assert!(seen.iter().all(|s| *s == 1), "{rows} x {cols} not covered once");
        }
        covers(16, 8, 4, mma_acc_coord);
        covers(16, 16, 8, mma_a_coord);
        covers(16, 8, 4, mma_b_coord);
        // Lane 5 (group 1, quad 1): accumulator row 1, columns 2-3; A's fourth register at
        // rows 9, k 10-11.
        assert_eq!((mma_acc_coord(5, 0), mma_acc_coord(5, 3), mma_a_coord(5, 6)), ((1, 2), (9, 3), (9, 10)));
        // The accumulator of a 16 × 16 block (two n8 tiles) in registers is the A fragment
        // of the next product: the trick attention's P·V uses.
        for lane in 0..32 {
            for e in 0..8 {
                let (r, c) = mma_acc_coord(lane, e % 4);
                assert_eq!(mma_a_coord(lane, e), (r, c + 8 * (e / 4)));
            }
        }
    }
}
