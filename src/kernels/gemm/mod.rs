//! Matrix multiply on the Hopper tensor cores with bf16 or FP8 (e4m3) inputs and f32
//! accumulation, C M×N row-major in bf16 or f32, A M×K row-major, and B in either layout
//! ([`Layout`]): `C = α·A·Bᵀ` with B N×K row-major (what cuBLAS calls TN: both operands
//! K-contiguous), or `C = α·A·B` with B K×N row-major (cuBLAS's NN; bf16 only, as wgmma
//! reads N-contiguous B only for 16-bit types). α carries FP8's per-tensor scales.
//!
//! The kernel ([`gemm`]) is warp-specialised and persistent:
//!
//! - **Roles.** A CTA is `1 + consumers` warpgroups. Warpgroup 0 is the *producer*: it gives
//!   registers back (`setmaxnreg.dec` to 24) and one thread issues the TMA loads. Each
//!   *consumer* warpgroup takes registers (`setmaxnreg.inc`) and owns 64 rows of the CTA's
//!   `64·consumers × bn` tile: its accumulator is one `m64n{bn}` wgmma fragment in f32.
//! - **Pipeline.** Shared memory is a ring of `stages` stages, each an A tile
//!   (`64·consumers` rows of 128 bytes: 64 bf16 or 128 e4m3 along K) and a B tile (`bn`
//!   such rows; for NN, `bn/64` TMA boxes of 64 N-contiguous columns by 64 K, their swizzle
//!   atoms K-first), all with the 128-byte swizzle that TMA writes and wgmma reads. Each stage has a *full* mbarrier (the producer arms it with
//!   the stage's bytes, TMA completes them) and an *empty* one (one arrival per consumer
//!   warpgroup once its wgmmas have read the stage). Every wait is bounded: a pipeline that
//!   stops moving ends the kernel with `trap` instead of hanging the GPU.
//! - **Schedule.** The grid is at most one CTA per SM; CTA `b` takes tiles `b`, `b + grid`,
//!   … of the `ceil(M/bm) × ceil(N/bn)` tiles, numbered in bands of `group_m` tile rows so
//!   that the CTAs running at once share A and B tiles in L2. With `stream_k`, the tiles of
//!   a last wave less than 15/16 full are instead split along K over all the CTAs, which
//!   exchange f32 partial sums through a workspace (see [`hopper::Config::stream_k`]).
//! - **Edges.** Any M and N, and any K whose rows are 16-byte multiples (K a multiple of 8
//!   for bf16, of 16 for e4m3: TMA needs 16-byte row pitches): loads past the matrix edges fill with zeros, and stores are predicated on
//!   tiles that overhang M or N (interior tiles store unpredicated).
//! - **Epilogue.** [`gemm`] stores C from registers. [`gemm_staged`] (bf16 C) converts a
//!   tile's accumulators to bf16 registers, then writes them with `stmatrix` into staging
//!   buffers that one thread stores with TMA. With `defer_store` (the default) those stores
//!   wait until the next tile's first wgmmas are issued, and run beside them.
//!
//! The host side is `ptxkit::runtime::Gemm` (feature `cuda`): it builds the module once,
//! encodes the tensor maps over the caller's buffers and launches the persistent grid.
//! `ptxkit::runtime::AutoGemm` runs each shape with the tile [`hopper::Config::for_shape`]
//! picks, so that products too small for the configuration's tiles still fill the GPU.
//!
//! For Blackwell (sm_100a), [`gemm_tcgen05`] computes the TN product with the same producer,
//! ring and tile order, one thread issuing `tcgen05.mma` into accumulators in tensor memory
//! and four epilogue warps reading them back with `tcgen05.ld` (see its docs for the
//! roles; `ptxkit::runtime::Tcgen05Gemm` runs it). [`gemm_tn_mma`] is the sm_80 kernel.
//!
//! ```
//! use ptxkit::kernels::gemm::{gemm, E4m3, hopper};
//! use ptxkit::prelude::*;
//!
//! let cfg = hopper::Config::default();
//! let mut m = Module::new(Target::SM_90A);
//! gemm::<Bf16, Bf16>(&mut m, "gemm", &cfg)?;
//! gemm::<Bf16, E4m3>(&mut m, "gemm_fp8", &cfg)?;
//! let ptx = m.to_ptx()?;
//! assert!(ptx.contains("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"));
//! assert!(ptx.contains("wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3"));
//! assert!(ptx.contains("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"));
//! assert_eq!(cfg.shared_bytes(), 4 * (128 + 256) * 128);
//! # Ok::<(), ptxkit::Error>(())
//! ```

pub mod ampere;
mod ampere_store;
pub mod blackwell;
mod config;
mod epilogue;
pub mod hopper;
mod partials;
mod sched;
mod shape;
pub mod skinny;

pub use ampere::{check_mma_shape, gemm_tn_mma, MMA_MAX_SHARED};
pub use blackwell::{gemm_tcgen05, TCGEN05_BM, TCGEN05_TILE_NS};
pub use config::{GemmConfig, StageRing};
pub use hopper::{gemm, gemm_staged, Workspace};
pub use shape::GemmShape;
pub use skinny::gemm_skinny;

use crate::builder::{Error, TensorElem};
use crate::descriptors::ElemBytes;
use crate::intrinsics::wgmma::{MmaF32, MmaIn};
use crate::types::{Bf16, DataType, F32, U8};

/// The producer's registers per thread with [`hopper::Config::timeline`].
pub const TIMELINE_PRODUCER_REGS: u32 = 32;
/// Bytes of K per stage: one 128-byte swizzle row (64 bf16, 128 e4m3).
pub const BK_BYTES: u32 = 128;
/// Rows of the tile each consumer warpgroup computes (one wgmma fragment's M).
pub const ROWS_PER_CONSUMER: u32 = 64;
/// Bytes of shared memory a CTA may use on sm_90 (227 KB), less the 1 KB that the ring's
/// barriers take before the 1024-byte-aligned dynamic shared memory.
pub const MAX_DYNAMIC_SHARED: u32 = 227 * 1024 - 1024;
/// The `bn` values the kernel has wgmma forms for.
pub const TILE_NS: [u32; 4] = [64, 128, 192, 256];
/// The tiles [`hopper::Config::for_shape`] chooses among, largest first: (consumers, bn), a
/// tile of `64 · consumers × bn`.
pub const SHAPE_TILES: [(u32, u32); 4] = [(2, 256), (1, 256), (1, 128), (1, 64)];

/// How B is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Layout {
    /// B is N×K row-major (K-contiguous): `C = A·Bᵀ`, cuBLAS's TN.
    #[default]
    TN,
    /// B is K×N row-major (N-contiguous): `C = A·B`, cuBLAS's NN. bf16 inputs only; N must
    /// be a multiple of 8 (16-byte rows of B).
    NN,
}

/// Whether `m × n × k` can be computed with inputs in `I` and B stored as `layout`: M, N and
/// K from 1 to 2³¹ − 1 (the TMA coordinates are signed 32-bit), and rows of A and B a
/// multiple of 16 bytes (K a multiple of 8 for bf16, 16 for e4m3; for NN also N a multiple
/// of 8), as TMA requires of row pitches.
pub fn check_shape<I: GemmIn>(layout: Layout, m: u32, n: u32, k: u32) -> Result<(), String> {
    for (name, v) in [("M", m), ("N", n), ("K", k)] {
        if v == 0 || v > i32::MAX as u32 {
            return Err(format!("{name} = {v} is outside 1..=2^31-1"));
        }
    }
    let align = 16 / I::BYTES;
    if k % align != 0 {
        return Err(format!("K = {k} is not a multiple of {align}: rows of {} A and B must be 16-byte multiples for TMA", I::NAME));
    }
    if layout == Layout::NN && n % align != 0 {
        return Err(format!("N = {n} is not a multiple of {align}: rows of NN B ({} K×N) must be 16-byte multiples for TMA", I::NAME));
    }
    Ok(())
}

/// The module variable (a `.const .u64`) from which the kernel `kernel` built with
/// [`hopper::Config::timeline`] reads its timeline buffer's address.
pub fn timeline_symbol(kernel: &str) -> String {
    format!("{kernel}_timeline")
}

/// Columns of B per TMA box in the NN layout: one 128-byte swizzle row of bf16.
pub const NN_BOX: u32 = 64;

/// Element types the GEMM reads A and B in: [`Bf16`], or [`E4m3`] (FP8).
pub trait GemmIn: 'static {
    /// The tensor maps' element type (FP8 travels as bytes).
    type Elem: TensorElem;
    /// The wgmma input type, with a form for each of [`TILE_NS`].
    type Mma: MmaIn + MmaF32<64, 32> + MmaF32<128, 64> + MmaF32<192, 96> + MmaF32<256, 128>;
    /// The name in wgmma's chain.
    const NAME: &'static str;
    /// Bytes per element.
    const BYTES: u32;
    /// Elements of K per stage ([`BK_BYTES`] of each row).
    const BK: u32 = BK_BYTES / Self::BYTES;
    #[doc(hidden)]
    const ELEM_BYTES: ElemBytes;
}
impl GemmIn for Bf16 {
    type Elem = Bf16;
    type Mma = Bf16;
    const NAME: &'static str = "bf16";
    const BYTES: u32 = 2;
    const ELEM_BYTES: ElemBytes = ElemBytes::B2;
}

/// FP8 e4m3 inputs (1 sign, 4 exponent, 3 mantissa bits; no infinities), one byte per
/// element: device buffers of `u8` codes, tensor maps of [`U8`].
#[derive(Clone, Copy, Debug)]
pub enum E4m3 {}
impl GemmIn for E4m3 {
    type Elem = U8;
    type Mma = crate::types::E4m3;
    const NAME: &'static str = "e4m3";
    const BYTES: u32 = 1;
    const ELEM_BYTES: ElemBytes = ElemBytes::B1;
}

/// Element types the GEMM can write C in.
pub trait GemmOut: DataType {
    #[doc(hidden)]
    const BF16: bool;
}
impl GemmOut for Bf16 {
    const BF16: bool = true;
}
impl GemmOut for F32 {
    const BF16: bool = false;
}

pub(crate) fn invalid(kernel: &str, what: String) -> Error {
    Error::InvalidArgument { kernel: kernel.into(), what }
}
