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
//!   exchange f32 partial sums through a workspace (see [`GemmConfig::stream_k`]).
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
//! `ptxkit::runtime::AutoGemm` runs each shape with the tile [`GemmConfig::for_shape`]
//! picks, so that products too small for the configuration's tiles still fill the GPU.
//!
//! For Blackwell (sm_100a), [`gemm_tcgen05`] computes the TN product with the same producer,
//! ring and tile order, one thread issuing `tcgen05.mma` into accumulators in tensor memory
//! and four epilogue warps reading them back with `tcgen05.ld` (see its docs for the
//! roles; `ptxkit::runtime::Tcgen05Gemm` runs it). [`gemm_tn_mma`] is the sm_80 kernel.
//!
//! ```
//! use ptxkit::kernels::gemm::{gemm, E4m3, GemmConfig};
//! use ptxkit::prelude::*;
//!
//! let cfg = GemmConfig::default();
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

mod ampere;
mod ampere_store;
mod blackwell;
mod epilogue;
mod hopper;
mod partials;
mod sched;

pub use ampere::{check_mma_shape, gemm_tn_mma, MmaGemmConfig, MmaGemmParams, MMA_MAX_SHARED};
pub use blackwell::{gemm_tcgen05, Tcgen05GemmConfig, Tcgen05GemmParams, TCGEN05_BM, TCGEN05_TILE_NS};
pub use hopper::{gemm, gemm_staged, GemmParams, GemmStagedParams, Workspace};

use crate::builder::{Error, TensorElem};
use crate::descriptors::ElemBytes;
use crate::intrinsics::roles::Roles;
use crate::intrinsics::wgmma::{MmaF32, MmaIn};
use crate::types::{Bf16, DataType, F32, U8};

/// The producer's registers per thread with [`GemmConfig::timeline`].
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
/// The tiles [`GemmConfig::for_shape`] chooses among, largest first: (consumers, bn), a
/// tile of `64 · consumers × bn`.
pub const SHAPE_TILES: [(u32, u32); 4] = [(2, 256), (1, 256), (1, 128), (1, 64)];

/// How B is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Layout {
    /// B is N×K row-major (K-contiguous): `C = A·Bᵀ`, cuBLAS's TN.
    #[default]
    TN,
    /// B is K×N row-major (N-contiguous): `C = A·B`, cuBLAS's NN. bf16 inputs only; N must
    /// be a multiple of 8 (16-byte rows of B).
    NN,
}

/// The shape of the kernel: tile, pipeline depth, roles and tile order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmConfig {
    /// How B is stored.
    pub layout: Layout,
    /// Columns of C per CTA tile: one of [`TILE_NS`].
    pub bn: u32,
    /// Consumer warpgroups, 1 or 2; the CTA tile has `64 · consumers` rows.
    pub consumers: u32,
    /// Shared-memory stages in the ring, 2 to 8 (and as many as fit in shared memory).
    pub stages: u32,
    /// Tile rows per band of the tile order (1 numbers tiles row by row).
    pub group_m: u32,
    /// CTAs per cluster along M, 1 or 2. With 2, the two CTAs compute vertically adjacent
    /// tiles that share their B tile: each loads half of it and multicasts it to both.
    pub cluster: u32,
    /// Keep one k-tile's wgmmas in flight: wait for the previous k-tile's (`wait_group 1`)
    /// and release its stage, instead of waiting for the current one's (`wait_group 0`).
    pub overlap: bool,
    /// Tries of each bounded mbarrier wait before the kernel traps.
    pub wait_tries: u32,
    /// With the TMA-store epilogue ([`gemm_staged`]): convert a tile's accumulators to bf16
    /// registers when its last k-tile is done, and store them (`stmatrix`, TMA) only after
    /// the next tile's first wgmmas are issued, so the stores run beside the tensor cores.
    pub defer_store: bool,
    /// Stream-K: when the tiles do not fill the persistent grid's last wave, split that
    /// wave's tiles along K over all the CTAs, so that no SM idles while others finish the
    /// last tiles. CTAs holding part of a tile exchange f32 partial sums through the launch's
    /// [`Workspace`] ([`workspace_bytes`](Self::workspace_bytes)). Needs `cluster = 1`.
    pub stream_k: bool,
    /// Phase stamps ([`Timeline`](crate::intrinsics::timeline::Timeline)) of `slots`
    /// records per warp, or none (`None`, the default: the kernel is then exactly as without
    /// this field). Per k-tile the producer stamps its wait on the empty barrier
    /// (`"producer wait"`) and its loads (`"producer load"`), each consumer warp its wait on
    /// the full barrier (`"consumer wait"`); per tile a consumer stamps its wgmma main loop
    /// (`"wgmma"`), its epilogue (`"epilogue"`) and, with `defer_store`, the deferred stores
    /// (`"epilogue store"`). The kernel reads the buffer's address from the module variable
    /// [`timeline_symbol`]`(name)` (a `.const .u64`, which the host sets), so its parameters do
    /// not change.
    pub timeline: Option<u32>,
}

impl Default for GemmConfig {
    /// 128×256 tiles, two consumers, four stages, bands of 16 tile rows.
    fn default() -> Self {
        GemmConfig {
            layout: Layout::TN,
            bn: 256,
            consumers: 2,
            stages: 4,
            group_m: 16,
            cluster: 1,
            overlap: true,
            wait_tries: 1 << 22,
            defer_store: true,
            stream_k: false,
            timeline: None,
        }
    }
}

impl GemmConfig {
    /// Rows of C per CTA tile.
    pub fn bm(&self) -> u32 {
        ROWS_PER_CONSUMER * self.consumers
    }
    /// Threads per CTA: the producer warpgroup and the consumers.
    pub fn threads(&self) -> u32 {
        128 * (1 + self.consumers)
    }
    /// Bytes of one stage: the A tile, then the B tile.
    pub fn stage_bytes(&self) -> u32 {
        (self.bm() + self.bn) * BK_BYTES
    }
    /// Dynamic shared memory the kernel is launched with.
    pub fn shared_bytes(&self) -> u32 {
        self.stages * self.stage_bytes()
    }
    /// Dynamic shared memory of the staged kernel ([`gemm_staged`]): the stages, then
    /// two 8 KB staging buffers per consumer.
    pub fn staged_shared_bytes(&self) -> u32 {
        self.shared_bytes() + self.consumers * 2 * epilogue::CHUNK_BYTES
    }
    /// Registers per thread at entry (`.maxnreg`), and after `setmaxnreg` for the producer
    /// and for each consumer. The CTA keeps the registers it was launched with
    /// (`.maxnreg` × threads): what the producer gives back is what the consumers may take.
    pub fn registers(&self) -> (u32, u32, u32) {
        let roles = self.roles();
        (roles.at_entry(), roles.producer_regs, roles.consumer_regs)
    }

    /// The roles' register budgets: [`Roles::balanced`], or with a [`timeline`](Self::timeline)
    /// a producer of [`TIMELINE_PRODUCER_REGS`] (its stamps' registers do not fit in 24
    /// beside the loop's) and the consumers what is left.
    fn roles(&self) -> Roles {
        let balanced = Roles::balanced(self.consumers);
        if self.timeline.is_none() {
            return balanced;
        }
        let held = balanced.at_entry() * balanced.threads();
        let left = held.saturating_sub(128 * TIMELINE_PRODUCER_REGS) / (128 * self.consumers.max(1));
        Roles { producer_regs: TIMELINE_PRODUCER_REGS, consumer_regs: (left / 8 * 8).min(240), consumers: self.consumers }
    }

    /// Bytes of f32 partial sums the [`Workspace`] of a stream-K launch of `grid` CTAs needs
    /// (0 without `stream_k`); the flags take `4 · consumers · grid` bytes more.
    pub fn workspace_bytes(&self, grid: u32) -> u64 {
        if self.stream_k {
            grid as u64 * partials::Partials::slot_bytes(self.consumers, self.bn) as u64
        } else {
            0
        }
    }

    /// The stages and tiles as the producer and the tile order see them, for inputs in `I`.
    fn tiling<I: GemmIn>(&self) -> sched::Tiling {
        sched::Tiling { layout: self.layout, bm: self.bm(), bn: self.bn, bk: I::BK, cluster: self.cluster, group_m: self.group_m }
    }

    /// Whether the kernel can be built as configured; the error says which field is wrong.
    pub fn check(&self) -> Result<(), String> {
        if !TILE_NS.contains(&self.bn) {
            return Err(format!("bn = {} is not one of {TILE_NS:?}", self.bn));
        }
        if !(1..=2).contains(&self.consumers) {
            return Err(format!("consumers = {} is not 1 or 2", self.consumers));
        }
        if !(2..=8).contains(&self.stages) {
            return Err(format!("stages = {} is outside 2..=8", self.stages));
        }
        if self.shared_bytes() > MAX_DYNAMIC_SHARED {
            return Err(format!(
                "{} stages of {} bytes need {} bytes of shared memory; at most {MAX_DYNAMIC_SHARED} fit",
                self.stages,
                self.stage_bytes(),
                self.shared_bytes()
            ));
        }
        if !(1..=2).contains(&self.cluster) {
            return Err(format!("cluster = {} is not 1 or 2", self.cluster));
        }
        if self.stream_k && self.cluster != 1 {
            return Err(format!("stream_k splits tiles between single CTAs: cluster = {} must be 1", self.cluster));
        }
        if self.group_m == 0 {
            return Err("group_m = 0: a band needs at least one tile row".into());
        }
        if self.wait_tries == 0 {
            return Err("wait_tries = 0: a wait needs at least one try".into());
        }
        if let Some(slots) = self.timeline {
            if slots == 0 || slots > crate::intrinsics::timeline::MAX_SLOTS {
                return Err(format!("timeline of {slots} slots per warp: it takes 1 to {}", crate::intrinsics::timeline::MAX_SLOTS));
            }
        }
        if self.layout == Layout::NN && (self.bn / self.cluster) % NN_BOX != 0 {
            return Err(format!(
                "NN loads B in boxes of {NN_BOX} columns: bn / cluster = {} / {} is not a multiple",
                self.bn, self.cluster
            ));
        }
        Ok(())
    }

    /// As [`check`](Self::check), for inputs in `I`: NN needs 16-bit inputs.
    pub fn check_for<I: GemmIn>(&self) -> Result<(), String> {
        self.check()?;
        if self.layout == Layout::NN && I::BYTES != 2 {
            return Err(format!("NN (N-contiguous B) needs 16-bit inputs: wgmma reads {} B K-contiguous only", I::NAME));
        }
        Ok(())
    }

    /// The units of work of an `m × n` product: groups of `cluster` vertically adjacent
    /// CTA tiles (the last group of a column may reach past M).
    pub fn units(&self, m: u32, n: u32) -> u64 {
        m.div_ceil(self.bm()).div_ceil(self.cluster) as u64 * n.div_ceil(self.bn) as u64
    }

    /// This configuration with the most stages, up to 8, whose ring and bf16 staging
    /// ([`staged_shared_bytes`](Self::staged_shared_bytes)) fit in shared memory.
    pub fn with_most_stages(self) -> GemmConfig {
        let fits = |stages| GemmConfig { stages, ..self }.staged_shared_bytes() <= MAX_DYNAMIC_SHARED;
        GemmConfig { stages: (2..=8).rev().find(|&s| fits(s)).unwrap_or(2), ..self }
    }

    /// The configuration for an `m × n` product on a GPU of `sms` multiprocessors: this one
    /// while its tiles keep at least three quarters of the SMs busy; otherwise the largest
    /// smaller tile of [`SHAPE_TILES`] that does (the smallest if none does), with
    /// [`with_most_stages`](Self::with_most_stages). Small products thus spread over more
    /// SMs: at 1024³ the 128 × 256 tiles number 32, the 64 × 128 ones 128.
    pub fn for_shape(self, m: u32, n: u32, sms: u32) -> GemmConfig {
        let busy = |c: &GemmConfig| c.units(m, n) * c.cluster as u64 * 4 >= sms as u64 * 3;
        if busy(&self) {
            return self;
        }
        let smaller = || {
            SHAPE_TILES
                .iter()
                .map(|&(consumers, bn)| GemmConfig { consumers, bn, ..self }.with_most_stages())
                .filter(|c| c.bm() * c.bn < self.bm() * self.bn && c.check().is_ok())
        };
        smaller().find(busy).or_else(|| smaller().next_back()).unwrap_or(self)
    }
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
/// [`GemmConfig::timeline`] reads its timeline buffer's address.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_fits_and_fills_the_register_file() {
        let c = GemmConfig::default();
        c.check().unwrap();
        assert_eq!((c.bm(), c.threads(), c.stage_bytes()), (128, 384, 48 * 1024));
        let (entry, p, q) = c.registers();
        assert_eq!((entry, p, q), (168, 24, 240));
        assert!(128 * p + 256 * q <= entry * 384 && entry * 384 <= 65536);
        let one = GemmConfig { consumers: 1, bn: 128, ..c };
        let (entry, p, q) = one.registers();
        assert!(128 * p + 128 * q <= entry * 256 && entry * 256 <= 65536 && q % 8 == 0 && q <= 256);
    }

    #[test]
    fn small_products_get_smaller_tiles() {
        let c = GemmConfig::default();
        let tile = |m, n| {
            let t = c.for_shape(m, n, 132);
            t.check().unwrap();
            assert!(t.staged_shared_bytes() <= MAX_DYNAMIC_SHARED);
            (t.bm(), t.bn, t.stages)
        };
        // 128 tiles of 128 × 256 keep 128 of 132 SMs busy; 32 do not.
        assert_eq!(tile(2048, 2048), (128, 256, 4));
        assert_eq!(tile(4000, 4000), (128, 256, 4));
        assert_eq!(tile(1024, 1024), (64, 128, 8));
        assert_eq!(tile(1536, 1536), (64, 256, 5));
        // Even 64 × 64 tiles leave SMs idle: the smallest tile.
        assert_eq!(tile(512, 512), (64, 64, 8));
        assert_eq!(tile(1, 4096), (64, 64, 8));
        // A configuration whose tile fills the GPU stays as it is, whatever its other fields.
        let odd = GemmConfig { stages: 3, group_m: 4, ..c };
        assert_eq!(odd.for_shape(8192, 8192, 132), odd);
        // Only tiles smaller than the configuration's, and only valid ones (NN with a cluster
        // of 2 loads B in 64-column halves: no 64-wide tile).
        let narrow = GemmConfig { consumers: 1, bn: 128, ..c };
        assert_eq!(narrow.for_shape(4096, 4096, 132), narrow);
        assert_eq!((narrow.for_shape(64, 64, 132).bm(), narrow.for_shape(64, 64, 132).bn), (64, 64));
        let nn = GemmConfig { layout: Layout::NN, cluster: 2, ..c };
        assert_eq!(nn.for_shape(64, 64, 132).bn, 128);
    }

    #[test]
    fn bad_configurations_and_shapes_say_what_is_wrong() {
        let c = GemmConfig::default();
        assert!(GemmConfig { bn: 100, ..c }.check().unwrap_err().contains("bn = 100"));
        assert!(GemmConfig { stages: 5, ..c }.check().unwrap_err().contains("shared memory"));
        assert!(GemmConfig { consumers: 3, ..c }.check().unwrap_err().contains("consumers"));
        assert!(GemmConfig { stream_k: true, cluster: 2, ..c }.check().unwrap_err().contains("stream_k"));
        assert_eq!(GemmConfig { stream_k: true, ..c }.workspace_bytes(132), 132 * 128 * 256 * 4);
        assert_eq!(GemmConfig { stream_k: false, ..c }.workspace_bytes(132), 0);
        let (tn, nn) = (Layout::TN, Layout::NN);
        assert!(check_shape::<Bf16>(tn, 128, 128, 100).unwrap_err().contains("multiple of 8"));
        assert!(check_shape::<E4m3>(tn, 128, 128, 40).unwrap_err().contains("multiple of 16"));
        assert!(check_shape::<E4m3>(tn, 128, 128, 48).is_ok());
        assert!(check_shape::<Bf16>(tn, 0, 128, 64).unwrap_err().contains("M = 0"));
        assert!(check_shape::<Bf16>(tn, 1, 4096, 4096).is_ok());
        assert!(check_shape::<Bf16>(tn, 1, 4097, 4096).is_ok());
        assert!(check_shape::<Bf16>(nn, 1, 4097, 4096).unwrap_err().contains("N = 4097"));
        let nn_cfg = GemmConfig { layout: nn, ..c };
        assert!(nn_cfg.check_for::<Bf16>().is_ok());
        assert!(nn_cfg.check_for::<E4m3>().unwrap_err().contains("16-bit"));
        assert!(GemmConfig { bn: 64, cluster: 2, ..nn_cfg }.check().unwrap_err().contains("boxes of 64"));
    }
}
