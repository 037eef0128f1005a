//! What the Hopper and Blackwell kernels share: the stage layout, the TMA producer that
//! fills the mbarrier [`Ring`] of stages, and the persistent, banded tile order every role
//! walks in the same sequence.

use super::{GemmIn, Layout, BK_BYTES, NN_BOX};
use crate::builder::{Kernel, TensorElem, TensorMap};
use crate::descriptors::{Major, Swizzle, TileLayout};
use crate::intrinsics::mbarrier::{Deadline, Ring};
use crate::prelude::*;

/// The shape of a kernel's stages and tiles, as the producer and the tile order need it.
/// A stage is the `bm`-row A tile, then the `bn`-row B tile (for TN; `bn/64` boxes of 64
/// N-contiguous columns for NN), each row [`BK_BYTES`] of K.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tiling {
    pub(super) layout: Layout,
    /// Rows and columns of C per CTA tile.
    pub(super) bm: u32,
    pub(super) bn: u32,
    /// Elements of K per stage.
    pub(super) bk: u32,
    /// CTAs per cluster along M; each loads `bn / cluster` rows of B and multicasts them.
    pub(super) cluster: u32,
    /// Tile rows per band of the tile order.
    pub(super) group_m: u32,
}

impl Tiling {
    /// Bytes of one stage: the A tile, then the B tile.
    pub(super) fn stage_bytes(&self) -> u32 {
        (self.bm + self.bn) * BK_BYTES
    }
    /// Bytes of a stage's A tile (where its B tile starts).
    pub(super) fn a_bytes(&self) -> u32 {
        self.bm * BK_BYTES
    }
}

/// Registers every role computes the same way.
#[derive(Clone, Copy)]
pub(super) struct Grid {
    pub(super) m: Reg<U32>,
    pub(super) n: Reg<U32>,
    /// Rows of cluster units (`cluster` tile rows each), tile columns, and units.
    units_m: Reg<U32>,
    tiles_n: Reg<U32>,
    units: Reg<U32>,
    /// Stages (k-tiles) per tile: `ceil(K / bk)`.
    pub(super) k_tiles: Reg<U32>,
    /// This CTA's rank in its cluster.
    pub(super) rank: Reg<U32>,
}

impl Grid {
    /// The tile counts of an `m × n × kk` product.
    pub(super) fn new(k: &mut Kernel, t: &Tiling, m: Reg<U32>, n: Reg<U32>, kk: Reg<U32>, rank: Reg<U32>) -> Grid {
        let tiles_m = ceil_div(k, m, t.bm);
        let tiles_n = ceil_div(k, n, t.bn);
        let k_tiles = ceil_div(k, kk, t.bk);
        // Clusters take `cluster` vertically adjacent tiles at a time.
        let units_m = ceil_div(k, tiles_m, t.cluster);
        let units = ptx!(k, "mul.lo.u32", units_m, tiles_n);
        Grid { m, n, units_m, tiles_n, units, k_tiles, rank }
    }
}

/// The K-major, 128-byte-swizzled layout of `rows` × 128 bytes of `I` that TMA writes for a
/// `[BK, rows]` box.
pub(super) fn k_major_layout<I: GemmIn>(k: &mut Kernel, rows: u32) -> TileLayout {
    TileLayout::new(I::ELEM_BYTES, rows, I::BK, Major::K, Swizzle::B128).unwrap_or_else(|e| {
        k.invalid(format!("GEMM tile layout: {e}"));
        TileLayout::new(I::ELEM_BYTES, 64, I::BK, Major::K, Swizzle::B128).expect("the 64-row layout exists")
    })
}

pub(super) fn ceil_div(k: &mut Kernel, x: Reg<U32>, d: u32) -> Reg<U32> {
    let up = ptx!(k, "add.u32", x, d - 1);
    ptx!(k, "div.u32", up, d)
}

/// Runs `body(tile_m, tile_n)` for this CTA's tiles. The unit of work is a cluster's
/// `cluster` vertically adjacent tiles (the CTA of rank `r` takes the `r`-th); cluster `c`
/// takes units `c`, then every `nclusters`-th. Units are numbered in bands of `group_m` unit
/// rows, column by column inside a band.
pub(super) fn for_each_tile(k: &mut Kernel, t: &Tiling, g: &Grid, mut body: impl FnMut(&mut Kernel, Reg<U32>, Reg<U32>)) {
    let cluster = t.cluster;
    let cta = ptx!(k, "mov.u32", sreg::CTAID_X);
    let ctas = ptx!(k, "mov.u32", sreg::NCTAID_X);
    let unit = ptx!(k, "div.u32", cta, cluster);
    let step = ptx!(k, "div.u32", ctas, cluster);
    let group = t.group_m;
    let (units, units_m, tiles_n) = (g.units, g.units_m, g.tiles_n);
    k.while_(
        |k| ptx!(k, "setp.lt.u32", unit, units),
        |k| {
            let per_band = ptx!(k, "mul.lo.u32", tiles_n, group);
            let band = ptx!(k, "div.u32", unit, per_band);
            let first_m = ptx!(k, "mul.lo.u32", band, group);
            let left = ptx!(k, "sub.u32", units_m, first_m);
            let rows = ptx!(k, "min.u32", left, group);
            let in_band = ptx!(k, "rem.u32", unit, per_band);
            let row = ptx!(k, "rem.u32", in_band, rows);
            let um = ptx!(k, "add.u32", first_m, row);
            let tm = ptx!(k, "mad.lo.u32", um, cluster, g.rank);
            let tn = ptx!(k, "div.u32", in_band, rows);
            body(k, tm, tn);
            ptx!(k, "add.u32" => unit, unit, step);
        },
    );
}

/// A bounded wait that came back false ends the kernel: the launch fails instead of hanging.
pub(super) fn trap_unless(k: &mut Kernel, ok: Reg<Pred>) {
    k.if_(!ok, |k| ptx!(k, "trap"));
}

/// The stage's A tile (`a`) and B tile (`a + bm·128`) in shared memory.
pub(super) fn stage_base(k: &mut Kernel, t: &Tiling, smem: SharedPtr<B8>, stage: Reg<U32>) -> Reg<U32> {
    let base = smem.addr(k);
    ptx!(k, "mad.lo.u32", stage, t.stage_bytes(), base)
}

/// The producer (one thread): for each of this CTA's tiles and each k-tile, waits until the
/// next stage is empty, arms its full barrier with the stage's bytes and issues the TMA
/// loads of A and B that complete on it. Returns the register counting the iterations
/// (stages filled), for a caller that drains the ring after the last one.
#[allow(clippy::too_many_arguments)]
pub(super) fn produce<T: TensorElem>(
    k: &mut Kernel,
    t: &Tiling,
    g: &Grid,
    ring: &Ring,
    deadline: &Deadline,
    smem: SharedPtr<B8>,
    a_map: TensorMap<T, 2>,
    b_map: TensorMap<T, 2>,
) -> Reg<U32> {
    a_map.prefetch(k);
    b_map.prefetch(k);
    let it = ptx!(k, "mov.u32", 0u32);
    let (bm, bn, a_bytes) = (t.bm, t.bn, t.a_bytes());
    let b_share = bn / t.cluster;
    let mask = ptx!(k, "mov.u16", ((1u32 << t.cluster) - 1) as u16);
    for_each_tile(k, t, g, |k, tm, tn| {
        let ya = ptx!(k, "mul.lo.u32", tm, bm).bitcast::<S32>();
        let yb = ptx!(k, "mul.lo.u32", tn, bn).bitcast::<S32>();
        k.for_range(0u32, g.k_tiles, 1, |k, kt| {
            let slot = ring.slot(k, it);
            let free = slot.acquire(k, deadline);
            trap_unless(k, free);
            slot.full.arrive_expect_tx(k, t.stage_bytes());
            let x = ptx!(k, "mul.lo.u32", kt, t.bk).bitcast::<S32>();
            let a = stage_base(k, t, smem, slot.stage);
            let b = ptx!(k, "add.u32", a, a_bytes);
            a_map.load(k, SharedPtr::<B8>::from_reg32(a), [x, ya], slot.full.ptr());
            if t.layout == Layout::NN {
                load_nn_b(k, t, g, b_map, b, (x, yb), slot.full.ptr(), mask);
            } else if t.cluster > 1 {
                // This CTA's share of the B tile, to the same place in every CTA of the cluster.
                let share = ptx!(k, "mul.lo.u32", g.rank, b_share);
                let row = ptx!(k, "add.u32", yb.bitcast::<U32>(), share).bitcast::<S32>();
                let place = ptx!(k, "mad.lo.u32", share, BK_BYTES, b);
                ptx!(
                    k,
                    "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster",
                    SharedPtr::<B8>::from_reg32(place),
                    b_map.at([x, row]),
                    slot.full.ptr(),
                    mask
                );
            } else {
                b_map.load(k, SharedPtr::<B8>::from_reg32(b), [x, yb], slot.full.ptr());
            }
            ptx!(k, "add.u32" => it, it, 1u32);
        });
    });
    it
}

/// NN: this CTA's share of the stage's B tile (all of it without a cluster), as boxes of
/// 64 columns (`[n, k]` coordinates `[yb + 64j, x]`), box `j` at `b + j · 8 KB`; with a
/// cluster each box goes to the same place in every CTA.
#[allow(clippy::too_many_arguments)]
fn load_nn_b<T: TensorElem>(
    k: &mut Kernel,
    t: &Tiling,
    g: &Grid,
    b_map: TensorMap<T, 2>,
    b: Reg<U32>,
    (x, yb): (Reg<S32>, Reg<S32>),
    full: SharedPtr<B64>,
    mask: Reg<U16>,
) {
    let cluster = t.cluster;
    let boxes = t.bn / NN_BOX / cluster;
    let box_bytes = NN_BOX * BK_BYTES;
    let first = ptx!(k, "mul.lo.u32", g.rank, boxes);
    for j in 0..boxes {
        let index = ptx!(k, "add.u32", first, j);
        let col = ptx!(k, "mad.lo.u32", index, NN_BOX, yb.bitcast::<U32>()).bitcast::<S32>();
        let place = SharedPtr::<B8>::from_reg32(ptx!(k, "mad.lo.u32", index, box_bytes, b));
        if cluster > 1 {
            ptx!(
                k,
                "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster",
                place,
                b_map.at([col, x]),
                full,
                mask
            );
        } else {
            b_map.load(k, place, [col, x], full);
        }
    }
}
