//! The Hopper kernel's configuration ([`Config`]): tile, pipeline depth, roles and tile order.

use super::super::{
    epilogue, partials, sched, GemmConfig, GemmIn, Layout, StageRing, BK_BYTES, MAX_DYNAMIC_SHARED, NN_BOX, ROWS_PER_CONSUMER, SHAPE_TILES,
    TILE_NS, TIMELINE_PRODUCER_REGS,
};
use crate::intrinsics::roles::Roles;

/// The shape of the kernel: tile, pipeline depth, roles and tile order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
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
    /// With `stream_k`, how finely a split tile's K may be cut: each CTA's range of the split
    /// region holds at least `1/split` of a tile's k-tiles (and 8), so a tile is shared by at
    /// most `split + 1` CTAs. 2 by default; more spreads a few tiles over more SMs (skinny
    /// and K-heavy products), at the cost of more partial sums for each tile's owner to add.
    /// 1 to 16.
    pub split: u32,
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

impl Default for Config {
    /// 128×256 tiles, two consumers, four stages, bands of 16 tile rows.
    fn default() -> Self {
        Config {
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
            split: 2,
            timeline: None,
        }
    }
}

impl Config {
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
    pub(in crate::kernels::gemm) fn roles(&self) -> Roles {
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
    pub(in crate::kernels::gemm) fn tiling<I: GemmIn>(&self) -> sched::Tiling {
        sched::Tiling { layout: self.layout, bm: self.bm(), bn: self.bn, bk: I::BK, cluster: self.cluster, group_m: self.group_m }
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
    pub fn with_most_stages(self) -> Config {
        let fits = |stages| Config { stages, ..self }.staged_shared_bytes() <= MAX_DYNAMIC_SHARED;
        Config { stages: (2..=8).rev().find(|&s| fits(s)).unwrap_or(2), ..self }
    }

    /// The configuration for an `m × n` product on a GPU of `sms` multiprocessors: this one
    /// while its tiles keep at least three quarters of the SMs busy; otherwise the largest
    /// smaller tile of [`SHAPE_TILES`] that does (the smallest if none does), with
    /// [`with_most_stages`](Self::with_most_stages). Small products thus spread over more
    /// SMs: at 1024³ the 128 × 256 tiles number 32, the 64 × 128 ones 128.
    pub fn for_shape(self, m: u32, n: u32, sms: u32) -> Config {
        let busy = |c: &Config| c.units(m, n) * c.cluster as u64 * 4 >= sms as u64 * 3;
        if busy(&self) {
            return self;
        }
        let smaller = || {
            SHAPE_TILES
                .iter()
                .map(|&(consumers, bn)| Config { consumers, bn, ..self }.with_most_stages())
                .filter(|c| c.bm() * c.bn < self.bm() * self.bn && c.check().is_ok())
        };
        smaller().find(busy).or_else(|| smaller().next_back()).unwrap_or(self)
    }

    /// The configuration for an `m × n` product with `k_bytes` of K per row on a GPU of `sms`
    /// multiprocessors: [`for_shape`](Self::for_shape)'s, except where no tile keeps three
    /// quarters of the SMs busy and K is long (at least [`LONG_K_BYTES`]): then 128 × 128
    /// tiles with [`stream_k`](Self::stream_k), K cut up to 8 ways ([`split`](Self::split)),
    /// so that all the SMs share the few tiles' long sums (at 512 × 512 × 65536 in bf16 on
    /// an H200, 0.29 of cuBLAS's speed with 64 × 64 tiles, 0.66 so).
    pub fn for_problem(self, m: u32, n: u32, k_bytes: u64, sms: u32) -> Config {
        let tiled = self.for_shape(m, n, sms);
        let busy = tiled.units(m, n) * tiled.cluster as u64 * 4 >= sms as u64 * 3;
        if busy || k_bytes < LONG_K_BYTES || self.cluster != 1 || self.bm() * self.bn < 128 * 128 {
            return tiled;
        }
        Config { consumers: 2, bn: 128, stream_k: true, split: 8, ..self }.with_most_stages()
    }
}

/// Bytes of K per row from which [`Config::for_problem`] splits the few tiles of a product
/// along K (256 k-tiles).
pub const LONG_K_BYTES: u64 = 256 * BK_BYTES as u64;

impl GemmConfig for Config {
    const MAX_SHARED: u32 = MAX_DYNAMIC_SHARED;
    fn ring(&self) -> StageRing {
        StageRing {
            stages: self.stages,
            stage_bytes: self.stage_bytes(),
            extra_bytes: 0,
            extra: "",
            group_m: self.group_m,
            wait_tries: Some(self.wait_tries),
        }
    }
    fn check_kernel(&self) -> Result<(), String> {
        if !TILE_NS.contains(&self.bn) {
            return Err(format!("bn = {} is not one of {TILE_NS:?}", self.bn));
        }
        if !(1..=2).contains(&self.consumers) {
            return Err(format!("consumers = {} is not 1 or 2", self.consumers));
        }
        if !(1..=2).contains(&self.cluster) {
            return Err(format!("cluster = {} is not 1 or 2", self.cluster));
        }
        if !(1..=16).contains(&self.split) {
            return Err(format!("split = {} is not 1 to 16", self.split));
        }
        if self.stream_k && self.cluster != 1 {
            return Err(format!("stream_k splits tiles between single CTAs: cluster = {} must be 1", self.cluster));
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::gemm::{check_shape, E4m3};
    use crate::types::Bf16;

    #[test]
    fn the_default_fits_and_fills_the_register_file() {
        let c = Config::default();
        c.check().unwrap();
        assert_eq!((c.bm(), c.threads(), c.stage_bytes()), (128, 384, 48 * 1024));
        let (entry, p, q) = c.registers();
        assert_eq!((entry, p, q), (168, 24, 240));
        assert!(128 * p + 256 * q <= entry * 384 && entry * 384 <= 65536);
        let one = Config { consumers: 1, bn: 128, ..c };
        let (entry, p, q) = one.registers();
        assert!(128 * p + 128 * q <= entry * 256 && entry * 256 <= 65536 && q % 8 == 0 && q <= 256);
    }

    #[test]
    fn small_products_get_smaller_tiles() {
        let c = Config::default();
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
        let odd = Config { stages: 3, group_m: 4, ..c };
        assert_eq!(odd.for_shape(8192, 8192, 132), odd);
        // Only tiles smaller than the configuration's, and only valid ones (NN with a cluster
        // of 2 loads B in 64-column halves: no 64-wide tile).
        let narrow = Config { consumers: 1, bn: 128, ..c };
        assert_eq!(narrow.for_shape(4096, 4096, 132), narrow);
        assert_eq!((narrow.for_shape(64, 64, 132).bm(), narrow.for_shape(64, 64, 132).bn), (64, 64));
        let nn = Config { layout: Layout::NN, cluster: 2, ..c };
        assert_eq!(nn.for_shape(64, 64, 132).bn, 128);
    }

    #[test]
    fn few_tiles_with_long_k_are_split_along_k() {
        let c = Config::default();
        let pick = |m, n, k_bytes| {
            let t = c.for_problem(m, n, k_bytes, 132);
            t.check().unwrap();
            assert!(t.staged_shared_bytes() <= MAX_DYNAMIC_SHARED);
            (t.bm(), t.bn, t.stream_k, t.split)
        };
        // 16 tiles of 128 × 128 for 132 SMs, 1024 k-tiles each: K cut 8 ways.
        assert_eq!(pick(512, 512, 65536 * 2), (128, 128, true, 8));
        assert_eq!(pick(256, 256, LONG_K_BYTES), (128, 128, true, 8));
        // Short K, or tiles that fill the GPU: for_shape's choice.
        assert_eq!(pick(256, 256, LONG_K_BYTES - 128), (64, 64, false, 2));
        assert_eq!(pick(4096, 4096, 1 << 20), (128, 256, false, 2));
        assert_eq!(pick(1024, 1024, 1 << 20), (64, 128, false, 2));
        // A configuration of clusters is not split.
        let pair = Config { cluster: 2, ..c };
        assert!(!pair.for_problem(512, 512, 1 << 20, 132).stream_k);
    }

    #[test]
    fn bad_configurations_and_shapes_say_what_is_wrong() {
        let c = Config::default();
        assert!(Config { bn: 100, ..c }.check().unwrap_err().contains("bn = 100"));
        assert!(Config { stages: 5, ..c }.check().unwrap_err().contains("shared memory"));
        assert!(Config { consumers: 3, ..c }.check().unwrap_err().contains("consumers"));
        assert!(Config { stream_k: true, cluster: 2, ..c }.check().unwrap_err().contains("stream_k"));
        assert!(Config { split: 17, ..c }.check().unwrap_err().contains("split = 17"));
        assert!(Config { split: 0, ..c }.check().unwrap_err().contains("split = 0"));
        assert_eq!(Config { stream_k: true, ..c }.workspace_bytes(132), 132 * 128 * 256 * 4);
        assert_eq!(Config { stream_k: false, ..c }.workspace_bytes(132), 0);
        let (tn, nn) = (Layout::TN, Layout::NN);
        assert!(check_shape::<Bf16>(tn, 128, 128, 100).unwrap_err().contains("multiple of 8"));
        assert!(check_shape::<E4m3>(tn, 128, 128, 40).unwrap_err().contains("multiple of 16"));
        assert!(check_shape::<E4m3>(tn, 128, 128, 48).is_ok());
        assert!(check_shape::<Bf16>(tn, 0, 128, 64).unwrap_err().contains("M = 0"));
        assert!(check_shape::<Bf16>(tn, 1, 4096, 4096).is_ok());
        assert!(check_shape::<Bf16>(tn, 1, 4097, 4096).is_ok());
        assert!(check_shape::<Bf16>(nn, 1, 4097, 4096).unwrap_err().contains("N = 4097"));
        let nn_cfg = Config { layout: nn, ..c };
        assert!(nn_cfg.check_for::<Bf16>().is_ok());
        assert!(nn_cfg.check_for::<E4m3>().unwrap_err().contains("16-bit"));
        assert!(Config { bn: 64, cluster: 2, ..nn_cfg }.check().unwrap_err().contains("boxes of 64"));
    }
}
