//! What the Hopper and Blackwell kernels share: the stage layout, the TMA producer that
//! fills the mbarrier [`Ring`] of stages, and the persistent, banded tile order every role
//! walks in the same sequence.

use super::{GemmIn, Layout, BK_BYTES, NN_BOX};
use crate::builder::{Kernel, TensorElem, TensorMap};
use crate::descriptors::{Major, Swizzle, TileLayout};
use crate::intrinsics::mbarrier::{Deadline, Ring};
use crate::intrinsics::timeline::Timeline;
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

/// Tile (`tile_m`, `tile_n`) of unit `unit` (with a cluster, this CTA's tile of it): units
/// are numbered in bands of `group_m` unit rows, column by column inside a band.
pub(super) fn tile_of(k: &mut Kernel, t: &Tiling, g: &Grid, unit: Reg<U32>) -> (Reg<U32>, Reg<U32>) {
    let group = t.group_m;
    let per_band = ptx!(k, "mul.lo.u32", g.tiles_n, group);
    let band = ptx!(k, "div.u32", unit, per_band);
    let first_m = ptx!(k, "mul.lo.u32", band, group);
    let left = ptx!(k, "sub.u32", g.units_m, first_m);
    let rows = ptx!(k, "min.u32", left, group);
    let in_band = ptx!(k, "rem.u32", unit, per_band);
    let row = ptx!(k, "rem.u32", in_band, rows);
    let um = ptx!(k, "add.u32", first_m, row);
    let tm = ptx!(k, "mad.lo.u32", um, t.cluster, g.rank);
    let tn = ptx!(k, "div.u32", in_band, rows);
    (tm, tn)
}

/// Runs `body(tile_m, tile_n)` for this CTA's tiles. The unit of work is a cluster's
/// `cluster` vertically adjacent tiles (the CTA of rank `r` takes the `r`-th); cluster `c`
/// takes units `c`, then every `nclusters`-th, in the order of [`tile_of`].
pub(super) fn for_each_tile(k: &mut Kernel, t: &Tiling, g: &Grid, mut body: impl FnMut(&mut Kernel, Reg<U32>, Reg<U32>)) {
    for_each_unit(k, t, g, |k, unit| {
        let (tm, tn) = tile_of(k, t, g, unit);
        body(k, tm, tn);
    });
}

/// Runs `body(unit)` for this CTA's units, in the order of [`for_each_tile`].
fn for_each_unit(k: &mut Kernel, t: &Tiling, g: &Grid, mut body: impl FnMut(&mut Kernel, Reg<U32>)) {
    let cluster = t.cluster;
    let cta = ptx!(k, "mov.u32", sreg::CTAID_X);
    let ctas = ptx!(k, "mov.u32", sreg::NCTAID_X);
    let unit = ptx!(k, "div.u32", cta, cluster);
    let step = ptx!(k, "div.u32", ctas, cluster);
    k.while_(
        |k| ptx!(k, "setp.lt.u32", unit, g.units),
        |k| {
            body(k, unit);
            ptx!(k, "add.u32" => unit, unit, step);
        },
    );
}

/// Stream-K (no clusters): the tiles of the last, partial wave of the persistent grid (unless
/// it is at least 15/16 full) are not given one to a CTA but split along K. Their k-tiles, numbered tile after tile, are cut into
/// `ctas` equal ranges, one per CTA (`ctas` is the grid, or fewer so that each range has at
/// least [`SPLIT_MIN_K_TILES`] and `1/parts` of a tile's k-tiles). A tile's *owner* is the CTA whose range holds its last k-tile:
/// the CTAs before it that hold the rest of the tile write their partial sums, and the owner
/// adds them to its own before it stores the tile. Each CTA walks its range backwards, tile by
/// tile, so that its partial sum (of the tile its range ends in) is written first and an owner
/// only ever waits on CTAs numbered below it, which run before or beside it. The numbering is
/// 32-bit: the host keeps `grid · k_tiles` below 2³².
#[derive(Clone, Copy)]
pub(super) struct Split {
    /// Units given whole, one per CTA in turn, before the split region.
    whole: Reg<U32>,
    /// A range holds at least `1/parts` of a tile's k-tiles.
    parts: u32,
}

/// The split region's sharing, computed where it is needed (rather than kept in registers
/// through the main loop): the CTAs sharing its k-tiles, and the quotient and remainder of
/// the k-tiles by them.
struct Shares {
    ctas: Reg<U32>,
    quot: Reg<U32>,
    rem: Reg<U32>,
}

impl Split {
    pub(super) fn new(k: &mut Kernel, g: &Grid, parts: u32) -> Split {
        let grid = ptx!(k, "mov.u32", sreg::NCTAID_X);
        let partial = ptx!(k, "rem.u32", g.units, grid);
        // A last wave at least 15/16 full stays whole: splitting it would save less than
        // the partial sums cost.
        let filled = ptx!(k, "mul.lo.u32", partial, 16u32);
        let most = ptx!(k, "mul.lo.u32", grid, 15u32);
        let full = ptx!(k, "setp.gt.u32", filled, most);
        let split = ptx!(k, "selp.u32", 0u32, partial, full);
        Split { whole: ptx!(k, "sub.u32", g.units, split), parts: parts.max(1) }
    }

    fn shares(&self, k: &mut Kernel, g: &Grid) -> Shares {
        let grid = ptx!(k, "mov.u32", sreg::NCTAID_X);
        let partial = ptx!(k, "sub.u32", g.units, self.whole);
        let total = ptx!(k, "mul.lo.u32", partial, g.k_tiles);
        // Ranges of at least `1/parts` of a tile: a tile is then shared by at most
        // `parts + 1` CTAs.
        let up = ptx!(k, "add.u32", g.k_tiles, self.parts - 1);
        let part = if self.parts.is_power_of_two() {
            ptx!(k, "shr.u32", up, self.parts.trailing_zeros())
        } else {
            ptx!(k, "div.u32", up, self.parts)
        };
        let least = ptx!(k, "max.u32", part, SPLIT_MIN_K_TILES);
        let shares = ptx!(k, "div.u32", total, least);
        let shares = ptx!(k, "max.u32", shares, 1u32);
        let ctas = ptx!(k, "min.u32", shares, grid);
        let quot = ptx!(k, "div.u32", total, ctas);
        let rem = ptx!(k, "rem.u32", total, ctas);
        Shares { ctas, quot, rem }
    }

    /// This CTA.
    pub(super) fn cta(&self, k: &mut Kernel) -> Reg<U32> {
        ptx!(k, "mov.u32", sreg::CTAID_X)
    }

    /// The first k-tile of CTA `c`'s range (the end of CTA `c - 1`'s): `⌊c · total / ctas⌋`,
    /// as `c · quot + ⌊c · rem / ctas⌋` in 32 bits.
    pub(super) fn begin(&self, k: &mut Kernel, g: &Grid, c: Reg<U32>) -> Reg<U32> {
        let s = self.shares(k, g);
        begin(k, &s, c)
    }

    /// The first k-tile of split unit `unit` in the range numbering.
    pub(super) fn start(&self, k: &mut Kernel, g: &Grid, unit: Reg<U32>) -> Reg<U32> {
        let tile = ptx!(k, "sub.u32", unit, self.whole);
        ptx!(k, "mul.lo.u32", tile, g.k_tiles)
    }
}

fn begin(k: &mut Kernel, s: &Shares, c: Reg<U32>) -> Reg<U32> {
    let r = ptx!(k, "mul.lo.u32", c, s.rem);
    let r = ptx!(k, "div.u32", r, s.ctas);
    ptx!(k, "mad.lo.u32", c, s.quot, r)
}

/// The fewest k-tiles a CTA takes of the split region: a smaller share would cost more in
/// partial sums written and read than it saves.
pub(super) const SPLIT_MIN_K_TILES: u32 = 8;

/// Part of one tile's K loop: k-tiles `kb..ke` of unit `unit`'s tile ([`tile_of`], computed
/// where it is needed rather than kept in registers through the loop).
#[derive(Clone, Copy)]
pub(super) struct Piece {
    pub(super) unit: Reg<U32>,
    pub(super) kb: Reg<U32>,
    pub(super) ke: Reg<U32>,
}

/// Runs `body` for this CTA's pieces of work: without `split`, each of its tiles whole (as
/// [`for_each_tile`]); with it, its whole tiles, then its range of the split region, last
/// piece first.
pub(super) fn for_each_piece(k: &mut Kernel, t: &Tiling, g: &Grid, split: Option<&Split>, mut body: impl FnMut(&mut Kernel, Piece)) {
    let Some(s) = split else {
        let kb = ptx!(k, "mov.u32", 0u32);
        return for_each_unit(k, t, g, |k, unit| body(k, Piece { unit, kb, ke: g.k_tiles }));
    };
    let cta = s.cta(k);
    let unit = ptx!(k, "mov.u32", cta);
    let shares = s.shares(k, g);
    let first = begin(k, &shares, cta);
    let next = ptx!(k, "add.u32", cta, 1u32);
    let last = begin(k, &shares, next);
    let sharing = ptx!(k, "setp.lt.u32", cta, shares.ctas);
    // The split range is walked down from its end; a CTA outside `ctas` has none.
    let cursor = ptx!(k, "selp.u32", last, first, sharing);
    k.while_(
        |k| {
            let whole_left = ptx!(k, "setp.lt.u32", unit, s.whole);
            let split_left = ptx!(k, "setp.gt.u32", cursor, first);
            ptx!(k, "or.pred", whole_left, split_left)
        },
        |k| {
            let whole = ptx!(k, "setp.lt.u32", unit, s.whole);
            // The split piece ending at `cursor`: from the start of its tile or of the range.
            let back = ptx!(k, "sub.u32", cursor, 1u32);
            let tile = ptx!(k, "div.u32", back, g.k_tiles);
            let start = ptx!(k, "mul.lo.u32", tile, g.k_tiles);
            let from = ptx!(k, "max.u32", start, first);
            let split_unit = ptx!(k, "add.u32", s.whole, tile);
            let kb_split = ptx!(k, "sub.u32", from, start);
            let ke_split = ptx!(k, "sub.u32", cursor, start);
            let u = ptx!(k, "selp.u32", unit, split_unit, whole);
            let kb = ptx!(k, "selp.u32", 0u32, kb_split, whole);
            let ke = ptx!(k, "selp.u32", g.k_tiles, ke_split, whole);
            let grid = ptx!(k, "mov.u32", sreg::NCTAID_X);
            let stepped = ptx!(k, "add.u32", unit, grid);
            ptx!(k, "selp.u32" => unit, stepped, unit, whole);
            ptx!(k, "selp.u32" => cursor, cursor, from, whole);
            body(k, Piece { unit: u, kb, ke });
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

/// The producer (one thread): for each of this CTA's pieces of work and each of their k-tiles, waits until the
/// next stage is empty, arms its full barrier with the stage's bytes and issues the TMA
/// loads of A and B that complete on it, stamping `tl`'s `"producer wait"` and
/// `"producer load"` around each. Returns the register counting the iterations (stages
/// filled), for a caller that drains the ring after the last one.
#[allow(clippy::too_many_arguments)]
pub(super) fn produce<T: TensorElem>(
    k: &mut Kernel,
    t: &Tiling,
    g: &Grid,
    split: Option<&Split>,
    ring: &Ring,
    deadline: &Deadline,
    smem: SharedPtr<B8>,
    a_map: TensorMap<T, 2>,
    b_map: TensorMap<T, 2>,
    tl: &Timeline,
) -> Reg<U32> {
    a_map.prefetch(k);
    b_map.prefetch(k);
    let it = ptx!(k, "mov.u32", 0u32);
    let (bm, bn, a_bytes) = (t.bm, t.bn, t.a_bytes());
    let b_share = bn / t.cluster;
    let mask = ptx!(k, "mov.u16", ((1u32 << t.cluster) - 1) as u16);
    for_each_piece(k, t, g, split, |k, p| {
        let (tm, tn) = tile_of(k, t, g, p.unit);
        let ya = ptx!(k, "mul.lo.u32", tm, bm).bitcast::<S32>();
        let yb = ptx!(k, "mul.lo.u32", tn, bn).bitcast::<S32>();
        k.for_range(p.kb, p.ke, 1, |k, kt| {
            let slot = ring.slot(k, it);
            let free = tl.span(k, "producer wait", |k| slot.acquire(k, deadline));
            trap_unless(k, free);
            tl.begin(k, "producer load");
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
            tl.end(k, "producer load");
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
