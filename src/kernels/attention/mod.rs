//! Attention forward on sm_90a (`O = softmax(scale · Q·Kᵀ) · V`, and the log-sum-exp of each
//! row), built only from public parts of the crate: `tests/attention_ptx.rs` compiles
//! these files as a module of another crate, so a private item here would not compile.
//!
//! The work is cut into tiles of 64 query rows per consumer warpgroup (two or three) of one
//! head. A CTA loops over tiles: a producer warpgroup, one of whose threads loads each
//! consumer's 64 rows of Q (once that consumer is done with the last tile's) while another
//! loads K and V blocks of `bn` keys through two rings of shared-memory stages (K's and V's,
//! so that a K block is free once its scores are; TMA, 4-D tensor maps `[D, S, H, B]`, so
//! both `[B, H, S, D]` and `[B, S, H, D]` are strides of one map and rows past a sequence
//! read as zeros), and the consumers ([`crate::intrinsics::roles::Roles`]), which take turns
//! issuing their products. When not causal a consumer's tiles run as one stream of key
//! blocks: the turn that issues a tile's last product also issues the next tile's first
//! scores, and the finished tile's output is written while they run. For each key block a consumer computes `S = Q·Kᵀ` with wgmma (A and B
//! from shared memory), masks keys past the sequence and, when causal, past the diagonal
//! (only in the blocks that need it), updates the running row maxima and sums with `ex2` (the
//! scale folded into one `fma`), rescales its output accumulator, converts P to bf16 in
//! registers, where it is the A operand of `O += P·V` (wgmma with A from registers; the
//! accumulator's layout is the A fragment's, [`crate::intrinsics::wgmma::a_coord`]), and
//! releases the stage. Causal blocks past a consumer's last row are not computed, only
//! released. Grouped-query attention maps head `h` to key/value head `h / group`.
//!
//! ```
//! use ptxkit::kernels::attention::{attention, AttentionConfig};
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_90A);
//! for d in [64, 128, 256] {
//!     attention(&mut m, &format!("attn_d{d}"), &AttentionConfig::new(d, true))?;
//! }
//! let ptx = m.to_ptx()?;
//! assert!(ptx.contains("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"));
//! assert!(ptx.contains("ex2.approx.ftz.f32"));
//! assert!(AttentionConfig::new(96, false).check().is_err());
//! # Ok::<(), ptxkit::Error>(())
//! ```

mod consumer;
mod softmax;
mod stream;

use ptxkit::builder::{Error, Kernel, KernelRef, Module, TensorMap};
use ptxkit::intrinsics::mbarrier::{Deadline, Mbarriers, Publish, Ring};
use ptxkit::intrinsics::roles::Roles;
use ptxkit::intrinsics::wgmma::{Mma, WgmmaForm};
use ptxkit::prelude::*;

/// Query rows per consumer warpgroup.
pub const ROWS: u32 = 64;
/// Columns of a TMA box and of a 128-byte swizzle row of bf16.
pub const CHUNK: u32 = 64;
/// The largest dynamic shared memory of a CTA on sm_90 (227 KB, less 1 KB of alignment).
pub const MAX_SHARED: u32 = 227 * 1024 - 1024;

/// The parameters: the tensor maps of Q, K and V (dims `[D, S, H, B]`), O (bf16, element
/// `b·o_strides.2 + h·o_strides.1 + s·o_strides.0 + d`), the log-sum-exp (`[B, H, S_q]`
/// f32), S_q, S_k, H, B, the group size `H / H_kv`, the scale times log2(e), and O's
/// strides in elements along S, H and B.
pub type AttentionParams = (
    TensorMap<Bf16, 4>,
    TensorMap<Bf16, 4>,
    TensorMap<Bf16, 4>,
    GlobalPtr<Bf16>,
    GlobalPtr<F32>,
    Reg<U32>,
    Reg<U32>,
    Reg<U32>,
    Reg<U32>,
    Reg<U32>,
    Reg<F32>,
    Reg<U32>,
    Reg<U32>,
    Reg<U32>,
);

/// The shape of the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttentionConfig {
    /// The head dimension: 64, 128 or 256.
    pub head_dim: u32,
    /// Mask keys after each query (top-left aligned, as torch's `is_causal`: key `j` is
    /// seen by query `i` when `j <= i`).
    pub causal: bool,
    /// Stages of each ring (one for K, one for V).
    pub stages: u32,
    /// Tries of each bounded wait before the kernel traps.
    pub wait_tries: u32,
    /// Of each 16 scores, how many take their exponential on the FMA units (a cubic)
    /// instead of the MUFU unit (0 to 16; measured slower at every shape so far).
    pub soft_exp: u32,
    /// Keys per block: one of [`AttentionConfig::SHAPES`] for the head dimension (the
    /// registers of S, P and O must fit a consumer's).
    pub bn: u32,
    /// Consumer warpgroups of [`ROWS`] query rows each (2 or 3), taking turns on the tensor
    /// cores; 3 leave each fewer registers ([`Roles::balanced`]).
    pub consumers: u32,
    /// When not causal, whether a consumer's tiles run as one stream of key blocks (the next
    /// tile's first scores issued with the last one's product, its output written while they
    /// run) rather than one after the other. Causal tiles always run one after the other.
    pub stream: bool,
}

impl AttentionConfig {
    /// The configuration for `head_dim`, with as many stages as fit (at most 4).
    pub fn new(head_dim: u32, causal: bool) -> AttentionConfig {
        let soft_exp = 0;
        // Measured on an H200 (bench/results/2026-11-27-h200-attention.md): at D = 64 three
        // consumers of 128 keys beat two of 192 by 16-18 % (v10); at D = 128, 176 keys beat
        // 128 by 5-8 % (v8) and 192 beat 176 by 0.5-2 % (v10).
        let (bn, consumers) = match head_dim {
            64 => (128, 3),
            128 => (192, 2),
            _ => (64, 2),
        };
        AttentionConfig { head_dim, causal, stages: 2, wait_tries: 1 << 24, soft_exp, bn, consumers, stream: true }.with_bn(bn)
    }
    /// The (head dimension, keys per block, consumers) the kernel is built for: S, P and O
    /// of a consumer's rows fit its registers.
    pub const SHAPES: [(u32, u32, u32); 7] =
        [(64, 128, 2), (64, 192, 2), (64, 128, 3), (128, 128, 2), (128, 176, 2), (128, 192, 2), (256, 64, 2)];

    /// Keys per block.
    pub fn bn(&self) -> u32 {
        self.bn
    }

    /// With `consumers` consumer warpgroups, and as many stages as then fit (at most 4).
    pub fn with_consumers(self, consumers: u32) -> AttentionConfig {
        AttentionConfig { consumers, ..self }.with_bn(self.bn)
    }

    /// With `bn` keys per block, and as many stages as then fit (at most 4).
    pub fn with_bn(self, bn: u32) -> AttentionConfig {
        let mut c = AttentionConfig { bn, stages: 2, ..self };
        while c.stages < 4 && (AttentionConfig { stages: c.stages + 1, ..c }).shared_bytes() <= MAX_SHARED {
            c.stages += 1;
        }
        c
    }
    /// The warpgroups' roles: a producer and the consumers, registers balanced.
    pub fn roles(&self) -> Roles {
        Roles::balanced(self.consumers)
    }
    /// Threads per CTA: a producer warpgroup and the consumers.
    pub fn threads(&self) -> u32 {
        self.roles().threads()
    }
    /// Query rows per CTA (a tile): [`ROWS`] per consumer.
    pub fn bm(&self) -> u32 {
        ROWS * self.consumers
    }
    /// Tiles of a problem: `ceil(S_q / bm) · H · B`.
    pub fn tiles(&self, seq_q: u32, heads: u32, batch: u32) -> u64 {
        seq_q.div_ceil(self.bm()) as u64 * heads as u64 * batch as u64
    }
    /// Bytes of Q in shared memory.
    pub fn q_bytes(&self) -> u32 {
        self.bm() * self.head_dim * 2
    }
    /// Bytes of one consumer's rows of Q.
    pub fn q_rows_bytes(&self) -> u32 {
        ROWS * self.head_dim * 2
    }
    /// Bytes of one block of K (or of V).
    pub fn block_bytes(&self) -> u32 {
        self.bn() * self.head_dim * 2
    }
    /// Dynamic shared memory of a launch: Q, then the K stages, then the V stages.
    pub fn shared_bytes(&self) -> u32 {
        self.q_bytes() + 2 * self.stages * self.block_bytes()
    }
    /// Whether the kernel exists for this configuration, and why not.
    pub fn check(&self) -> Result<(), String> {
        if ![64, 128, 256].contains(&self.head_dim) {
            return Err(format!("the head dimension is 64, 128 or 256, not {}", self.head_dim));
        }
        if !Self::SHAPES.contains(&(self.head_dim, self.bn, self.consumers)) {
            return Err(format!(
                "{} keys per block and {} consumers at head dimension {}: the kernel has (head dimension, keys, consumers) {:?}",
                self.bn,
                self.consumers,
                self.head_dim,
                Self::SHAPES
            ));
        }
        if self.soft_exp > 16 {
            return Err(format!("soft_exp counts scores of each 16: {} is more", self.soft_exp));
        }
        if self.stages < 2 {
            return Err(format!("{} stages: the ring needs at least 2", self.stages));
        }
        if self.shared_bytes() > MAX_SHARED {
            return Err(format!("{} stages take {} bytes of shared memory, more than {MAX_SHARED}", self.stages, self.shared_bytes()));
        }
        Ok(())
    }
}

/// Adds the attention kernel `name` for `cfg` to `m` (an sm_90a target). Launch it with
/// [`AttentionConfig::threads`] threads, [`AttentionConfig::shared_bytes`] of dynamic shared
/// memory and any one-dimensional grid: CTA `x` works on the tiles `x`, `x + gridDim.x`, …
/// of the tiles of [`AttentionConfig::bm`] query rows ([`AttentionConfig::tiles`]), so a grid of
/// one CTA per multiprocessor keeps them resident (the next tile's Q and K loads overlap the
/// last one's output), and a grid of one CTA per tile leaves the order to the hardware.
pub fn attention(m: &mut Module, name: &str, cfg: &AttentionConfig) -> Result<KernelRef<AttentionParams>, Error> {
    if let Err(e) = cfg.check() {
        return Err(Error::InvalidArgument { kernel: name.into(), what: format!("attention configuration: {e}") });
    }
    let cfg = *cfg;
    m.kernel(name, move |k, p: AttentionParams| match (cfg.head_dim, cfg.bn) {
        (64, 128) => body::<64, 32, 128, 64>(k, &cfg, p),
        (64, 192) => body::<64, 32, 192, 96>(k, &cfg, p),
        (128, 192) => body::<128, 64, 192, 96>(k, &cfg, p),
        (128, 128) => body::<128, 64, 128, 64>(k, &cfg, p),
        (128, 176) => body::<128, 64, 176, 88>(k, &cfg, p),
        _ => body::<256, 128, 64, 32>(k, &cfg, p),
    })
}

/// What both roles share: the shapes, the shared memory and its barriers.
pub(crate) struct Plan {
    pub(crate) cfg: AttentionConfig,
    pub(crate) smem: SharedPtr<B8>,
    /// K's ring and V's: K block j is released when `Q·K_jᵀ` is done, V's after `P·V_j`.
    pub(crate) k_ring: Ring,
    pub(crate) v_ring: Ring,
    /// Per consumer: its rows of Q are loaded (`q_full`), and it is done with them (`q_empty`).
    pub(crate) q_full: Mbarriers,
    pub(crate) q_empty: Mbarriers,
    pub(crate) deadline: Deadline,
    pub(crate) seq_q: Reg<U32>,
    pub(crate) seq_k: Reg<U32>,
    pub(crate) heads: Reg<U32>,
    pub(crate) group: Reg<U32>,
    /// Query blocks of a head, and tiles in all.
    pub(crate) q_blocks: Reg<U32>,
    pub(crate) tiles: Reg<U32>,
}

/// Where one tile is: its first query row, head, key/value head and batch; how many tiles
/// this CTA did before it (`round`, for Q's barrier parities) and how many key blocks went
/// through the rings before it (`base`).
pub(crate) struct Tile {
    pub(crate) q0: Reg<U32>,
    pub(crate) head: Reg<U32>,
    pub(crate) kv_head: Reg<U32>,
    pub(crate) batch: Reg<U32>,
    pub(crate) round: Reg<U32>,
    pub(crate) base: Reg<U32>,
}

impl Plan {
    /// Runs `body` on each of this CTA's tiles: `x`, `x + gridDim.x`, … below the tile
    /// count. A tile's query block varies fastest (CTAs at work at once share heads, and
    /// their K and V stay in L2); when causal the longest (last) query blocks come first.
    /// `body` returns the key blocks the tile put through the rings.
    pub(crate) fn for_each_tile(&self, k: &mut Kernel, mut body: impl FnMut(&mut Kernel, &Tile) -> Reg<U32>) {
        let (t, step) = self.first_tile(k);
        let round = ptx!(k, "mov.u32", 0u32);
        let base = ptx!(k, "mov.u32", 0u32);
        k.while_(
            |k| ptx!(k, "setp.lt.u32", t, self.tiles),
            |k| {
                let tile = self.tile_at(k, t, round, base);
                let blocks = body(k, &tile);
                ptx!(k, "add.u32" => base, base, blocks);
                ptx!(k, "add.u32" => round, round, 1u32);
                ptx!(k, "add.u32" => t, t, step);
            },
        );
    }

    /// This CTA's first tile (`%ctaid.x`) and the step to its next (`%nctaid.x`).
    pub(crate) fn first_tile(&self, k: &mut Kernel) -> (Reg<U32>, Reg<U32>) {
        (ptx!(k, "mov.u32", sreg::CTAID_X), ptx!(k, "mov.u32", sreg::NCTAID_X))
    }

    /// How many tiles this CTA works on: those of `first, first + step, …` below the count.
    pub(crate) fn tiles_of_cta(&self, k: &mut Kernel) -> Reg<U32> {
        let (first, step) = self.first_tile(k);
        let some = ptx!(k, "setp.lt.u32", first, self.tiles);
        let left = ptx!(k, "sub.u32", self.tiles, first);
        let left = ptx!(k, "selp.u32", left, 0u32, some);
        let up = ptx!(k, "add.u32", left, step);
        let up = ptx!(k, "sub.u32", up, 1u32);
        ptx!(k, "div.u32", up, step)
    }

    /// Tile `t`, the CTA's `round`-th, after `base` key blocks went through the rings.
    pub(crate) fn tile_at(&self, k: &mut Kernel, t: Reg<U32>, round: Reg<U32>, base: Reg<U32>) -> Tile {
        let bh = ptx!(k, "div.u32", t, self.q_blocks);
        let block = ptx!(k, "rem.u32", t, self.q_blocks);
        let block = if self.cfg.causal {
            let last = ptx!(k, "sub.u32", self.q_blocks, 1u32);
            ptx!(k, "sub.u32", last, block)
        } else {
            block
        };
        let q0 = ptx!(k, "mul.lo.u32", block, self.cfg.bm());
        let head = ptx!(k, "rem.u32", bh, self.heads);
        let batch = ptx!(k, "div.u32", bh, self.heads);
        let kv_head = ptx!(k, "div.u32", head, self.group);
        Tile { q0, head, kv_head, batch, round, base }
    }

    /// The shared address of stage `stage` of K's ring (`v` false) or V's.
    pub(crate) fn stage_at(&self, k: &mut Kernel, v: bool, stage: Reg<U32>) -> Reg<U32> {
        let base = self.smem.addr(k);
        let ring = self.cfg.q_bytes() + if v { self.cfg.stages * self.cfg.block_bytes() } else { 0 };
        let first = ptx!(k, "add.u32", base, ring);
        ptx!(k, "mad.lo.u32", stage, self.cfg.block_bytes(), first)
    }
    /// Key blocks that hold keys the rows below `rows_end` see: `ceil(min(S_k, rows_end) /
    /// bn)` when causal, `ceil(S_k / bn)` otherwise.
    pub(crate) fn blocks_until(&self, k: &mut Kernel, rows_end: Reg<U32>) -> Reg<U32> {
        let keys = if self.cfg.causal { ptx!(k, "min.u32", self.seq_k, rows_end) } else { self.seq_k };
        let up = ptx!(k, "add.u32", keys, self.cfg.bn() - 1);
        ptx!(k, "div.u32", up, self.cfg.bn())
    }
}

fn body<const D: u32, const RD: usize, const BN: u32, const RB: usize>(k: &mut Kernel, cfg: &AttentionConfig, p: AttentionParams)
where
    Mma<D, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RD>>,
    Mma<BN, F32, Bf16>: WgmmaForm<Acc = Acc<F32, RB>>,
{
    let (q_map, k_map, v_map, o, lse, seq_q, seq_k, heads, batches, group, scale_log2, s_stride, h_stride, b_stride) = p;
    let roles = cfg.roles();
    k.reqntid(roles.threads(), 1, 1);
    let smem = k.dynamic_shared_aligned::<B8>(1024);
    let k_ring = Ring::new(k, "k", cfg.stages);
    let v_ring = Ring::new(k, "v", cfg.stages);
    let q_full = k.mbarriers("q_full", cfg.consumers);
    let q_empty = k.mbarriers("q_empty", cfg.consumers);
    k.init_barriers(Publish::Cta, |k| {
        for ring in [&k_ring, &v_ring] {
            ring.full().init(k, 1);
            ring.empty().init(k, cfg.consumers);
        }
        q_full.init(k, 1);
        q_empty.init(k, 1);
    });
    let q_rows = ptx!(k, "add.u32", seq_q, cfg.bm() - 1);
    let q_blocks = ptx!(k, "div.u32", q_rows, cfg.bm());
    let per_batch = ptx!(k, "mul.lo.u32", q_blocks, heads);
    let tiles = ptx!(k, "mul.lo.u32", per_batch, batches);
    let deadline = Deadline::new(k, cfg.wait_tries);
    let plan = Plan { cfg: *cfg, smem, k_ring, v_ring, q_full, q_empty, deadline, seq_q, seq_k, heads, group, q_blocks, tiles };
    roles.run(
        k,
        |k, tid| {
            // Thread 0 loads K and V; thread 32 (another warp, so neither waits on the other's
            // branch) loads Q.
            let kv = ptx!(k, "setp.eq.u32", tid, 0u32);
            k.if_(kv, |k| produce_blocks(k, &plan, k_map, v_map));
            let q = ptx!(k, "setp.eq.u32", tid, 32u32);
            k.if_(q, |k| produce_q(k, &plan, q_map));
        },
        |k, c| {
            let out = consumer::Out { o, lse, strides: (s_stride, h_stride, b_stride), scale_log2 };
            consumer::consume::<D, RD, BN, RB>(k, &plan, c, &out);
        },
    );
}

/// The producer of Q (one thread): for each tile, each consumer's 64 rows, once that consumer
/// is done with the last tile's (a fresh barrier passes round 0), as d/64 boxes of 64 × 64
/// (one swizzle atom column each).
fn produce_q(k: &mut Kernel, plan: &Plan, q_map: TensorMap<Bf16, 4>) {
    let cfg = &plan.cfg;
    let d = cfg.head_dim;
    q_map.prefetch(k);
    plan.for_each_tile(k, |k, tile| {
        let (h, b) = (tile.head.bitcast::<S32>(), tile.batch.bitcast::<S32>());
        let last_round = ptx!(k, "xor.b32", tile.round.bitcast::<B32>(), 1u32);
        let parity = ptx!(k, "and.b32", last_round, 1u32).bitcast::<U32>();
        let base = plan.smem.addr(k);
        for c in 0..cfg.consumers {
            let (full, empty) = (plan.q_full.get(c), plan.q_empty.get(c));
            let free = empty.wait(k, parity, &plan.deadline);
            k.if_(!free, |k| ptx!(k, "trap"));
            full.arrive_expect_tx(k, cfg.q_rows_bytes());
            let row = ptx!(k, "add.u32", tile.q0, ROWS * c).bitcast::<S32>();
            for ch in 0..d / CHUNK {
                let col = ptx!(k, "mov.s32", (ch * CHUNK) as i32);
                let at = ptx!(k, "add.u32", base, (c * (d / CHUNK) + ch) * 64 * CHUNK * 2);
                q_map.load(k, SharedPtr::<B8>::from_reg32(at), [col, row, h, b], full.ptr());
            }
        }
        ptx!(k, "mov.u32", 0u32)
    });
}

/// The producer of K and V (one thread): each tile's key blocks, K_j and V_j into the rings'
/// iterations `base + j`, each d/64 boxes of 64 columns × bn keys.
fn produce_blocks(k: &mut Kernel, plan: &Plan, k_map: TensorMap<Bf16, 4>, v_map: TensorMap<Bf16, 4>) {
    let cfg = &plan.cfg;
    let (d, bn) = (cfg.head_dim, cfg.bn());
    for map in [k_map, v_map] {
        map.prefetch(k);
    }
    plan.for_each_tile(k, |k, tile| {
        let rows_end = ptx!(k, "add.u32", tile.q0, cfg.bm());
        let blocks = plan.blocks_until(k, rows_end);
        let (hk, b) = (tile.kv_head.bitcast::<S32>(), tile.batch.bitcast::<S32>());
        k.for_range(0u32, blocks, 1, |k, j| {
            let key = ptx!(k, "mul.lo.u32", j, bn).bitcast::<S32>();
            let i = ptx!(k, "add.u32", tile.base, j);
            for (v, ring, map) in [(false, &plan.k_ring, k_map), (true, &plan.v_ring, v_map)] {
                let slot = ring.slot(k, i);
                let free = slot.acquire(k, &plan.deadline);
                k.if_(!free, |k| ptx!(k, "trap"));
                slot.full.arrive_expect_tx(k, cfg.block_bytes());
                let base = plan.stage_at(k, v, slot.stage);
                for ch in 0..d / CHUNK {
                    let col = ptx!(k, "mov.s32", (ch * CHUNK) as i32);
                    let at = ptx!(k, "add.u32", base, ch * bn * CHUNK * 2);
                    map.load(k, SharedPtr::<B8>::from_reg32(at), [col, key, hk, b], slot.full.ptr());
                }
            }
        });
        blocks
    });
}
