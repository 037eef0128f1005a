//! Inclusive scans (prefix sums): the three-phase scan (tile sums, their prefix, the tiles)
//! and the single-pass scan with decoupled look-back.

use super::{add_f32, block_sum_to};
use crate::builder::{Error, Kernel, KernelRef, Module};
use crate::prelude::*;

/// Threads per block of the scan kernels.
pub const SCAN_BLOCK: usize = 256;
/// Elements per thread in a scan tile (four 16-byte vectors).
pub const SCAN_ITEMS: u32 = 16;
/// Elements per scan tile.
pub const SCAN_TILE: u32 = SCAN_BLOCK as u32 * SCAN_ITEMS;

/// `x, tile_sums, n`: phase 1 of the scan, one sum per tile of [`SCAN_TILE`] elements.
pub type TileParams = (GlobalPtr<F32>, GlobalPtr<F32>, Reg<U32>);
/// `tile_sums, tile_prefix, tiles`: phase 2, the exclusive scan of the tile sums.
pub type PrefixParams = (GlobalPtr<F32>, GlobalPtr<F32>, Reg<U32>);
/// `x, y, tile_prefix, n`: phase 3, the scan of each tile offset by its prefix.
pub type ScanParams = (GlobalPtr<F32>, GlobalPtr<F32>, GlobalPtr<F32>, Reg<U32>);

/// Loads this thread's `items` consecutive elements of tile `tile` (zero past `n`).
fn scan_items(k: &mut Kernel, x: GlobalPtr<F32>, n: Reg<U32>, tile: Reg<U32>, items: u32, block: u32) -> (Reg<U32>, Vec<Reg<F32>>) {
    let t = ptx!(k, "mov.u32", sreg::TID_X);
    let tile0 = ptx!(k, "mul.lo.u32", tile, block * items);
    let first = ptx!(k, "mad.lo.u32", t, items, tile0);
    let regs: Vec<Reg<F32>> = (0..items).map(|_| k.reg()).collect();
    let end = ptx!(k, "add.u32", first, items);
    let full = ptx!(k, "setp.le.u32", end, n);
    k.if_else(
        full,
        |k| {
            for q in 0..(items / 4) as usize {
                let v: [Reg<F32>; 4] = [regs[4 * q], regs[4 * q + 1], regs[4 * q + 2], regs[4 * q + 3]];
                ptx!(k, "ld.global.nc.v4.f32" => v, x.at(first).offset(4 * q as i64));
            }
        },
        |k| {
            for (q, r) in regs.iter().enumerate() {
                let e = ptx!(k, "add.u32", first, q as u32);
                let inb = ptx!(k, "setp.lt.u32", e, n);
                ptx!(k, "mov.f32" => *r, 0.0f32);
                ptx!(k, @inb, "ld.global.f32" => *r, x.at(e));
            }
        },
    );
    (first, regs)
}

/// Stores `outs` at `first..` (16-byte vectors when the whole run is in range).
fn scan_store(k: &mut Kernel, y: GlobalPtr<F32>, n: Reg<U32>, first: Reg<U32>, outs: &[Reg<F32>]) {
    let end = ptx!(k, "add.u32", first, outs.len() as u32);
    let full = ptx!(k, "setp.le.u32", end, n);
    k.if_else(
        full,
        |k| {
            for q in 0..outs.len() / 4 {
                let v: [Reg<F32>; 4] = [outs[4 * q], outs[4 * q + 1], outs[4 * q + 2], outs[4 * q + 3]];
                ptx!(k, "st.global.v4.f32", y.at(first).offset(4 * q as i64), v);
            }
        },
        |k| {
            for (q, r) in outs.iter().enumerate() {
                let e = ptx!(k, "add.u32", first, q as u32);
                let inb = ptx!(k, "setp.lt.u32", e, n);
                ptx!(k, @inb, "st.global.f32", y.at(e), *r);
            }
        },
    );
}

/// Running sums of a thread's items.
fn running(k: &mut Kernel, items: &[Reg<F32>]) -> Vec<Reg<F32>> {
    let mut run = vec![items[0]];
    for r in &items[1..] {
        let s = add_f32(k, *run.last().expect("non-empty"), *r);
        run.push(s);
    }
    run
}

/// Phase 1 of an inclusive scan: the sum of each tile, with
/// [`block_reduce`](BlockOps::block_reduce). Launch one block of [`SCAN_BLOCK`] per tile.
pub fn scan_tile_sums(m: &mut Module) -> Result<KernelRef<TileParams>, Error> {
    m.kernel("scan_tile_sums", |k, (x, sums, n): TileParams| {
        k.reqntid(SCAN_BLOCK as u32, 1, 1);
        let cta = ptx!(k, "mov.u32", sreg::CTAID_X);
        let (_, items) = scan_items(k, x, n, cta, SCAN_ITEMS, SCAN_BLOCK as u32);
        let mut s = items[0];
        for r in &items[1..] {
            s = add_f32(k, s, *r);
        }
        block_sum_to::<SCAN_BLOCK>(k, s, sums);
    })
}

/// Phase 2: the exclusive scan of the tile sums, by one block of 1024 threads walking the
/// sums in chunks with [`block_scan_exclusive`](BlockOps::block_scan_exclusive) and a carry.
pub fn scan_tile_prefix(m: &mut Module) -> Result<KernelRef<PrefixParams>, Error> {
    m.kernel("scan_tile_prefix", |k, (sums, prefix, tiles): PrefixParams| {
        k.reqntid(1024, 1, 1);
        let t = ptx!(k, "mov.u32", sreg::TID_X);
        let carry = ptx!(k, "mov.f32", 0.0f32);
        let zero = ptx!(k, "mov.f32", 0.0f32);
        k.for_range(0u32, tiles, 1024, |k, base| {
            let j = ptx!(k, "add.u32", base, t);
            let inb = ptx!(k, "setp.lt.u32", j, tiles);
            let v = ptx!(k, "mov.f32", 0.0f32);
            ptx!(k, @inb, "ld.global.f32" => v, sums.at(j));
            let exc = k.block_scan_exclusive::<1024, _>(v, zero, add_f32);
            let total = k.block_reduce_commutative::<1024, _>(v, add_f32);
            let out = add_f32(k, carry, exc);
            ptx!(k, @inb, "st.global.f32", prefix.at(j), out);
            ptx!(k, "add.rn.f32" => carry, carry, total);
        });
    })
}

/// Phase 3: each tile's inclusive scan, offset by its prefix: a thread scans its
/// [`SCAN_ITEMS`] elements, [`block_scan_exclusive`](BlockOps::block_scan_exclusive) gives the
/// thread's offset within the tile, and the results go out as 16-byte vectors.
pub fn scan_tiles(m: &mut Module) -> Result<KernelRef<ScanParams>, Error> {
    m.kernel("scan_tiles", |k, (x, y, prefix, n): ScanParams| {
        k.reqntid(SCAN_BLOCK as u32, 1, 1);
        let cta = ptx!(k, "mov.u32", sreg::CTAID_X);
        let (first, items) = scan_items(k, x, n, cta, SCAN_ITEMS, SCAN_BLOCK as u32);
        let run = running(k, &items);
        let zero = ptx!(k, "mov.f32", 0.0f32);
        let exc = k.block_scan_exclusive::<SCAN_BLOCK, _>(run[run.len() - 1], zero, add_f32);
        let tp = k.ld(prefix.at(cta));
        let off = add_f32(k, tp, exc);
        let outs: Vec<Reg<F32>> = run.iter().map(|r| add_f32(k, off, *r)).collect();
        scan_store(k, y, n, first, &outs);
    })
}

/// Threads per block of the fastest measured [`scan_single_pass`] shape (H200).
pub const ONE_PASS_BLOCK: usize = 384;
/// Elements per thread of that shape.
pub const ONE_PASS_ITEMS: u32 = 28;

/// `x, y, status, counter, n` for [`scan_single_pass`]: `status` holds one zeroed `u64` per
/// tile and `counter` one zeroed `u32`.
pub type OnePassParams = (GlobalPtr<F32>, GlobalPtr<F32>, GlobalPtr<U64>, GlobalPtr<U32>, Reg<U32>);

/// Tile status words: the value's bits low, the state high (0 none, 1 aggregate,
/// 2 inclusive prefix), written and read whole with relaxed 64-bit accesses.
const AGGREGATE: u32 = 1;
const INCLUSIVE: u32 = 2;

/// A single-pass inclusive scan with decoupled look-back, reading and writing every element
/// once. Each block takes the next tile from `counter` (so tiles start in order whatever
/// order the hardware runs blocks in) and stages it in shared memory: each warp loads its
/// segment with 16-byte accesses that cover 512 contiguous bytes per instruction. Each
/// thread then sums a run of `items` consecutive elements,
/// [`block_scan_exclusive_with_total`](BlockOps::block_scan_exclusive_with_total) gives its
/// offset and the tile's sum, and the thread writes its run's running sums back in place.
/// The first warp publishes the tile's sum and looks back over its predecessors' status
/// words for the prefix, 32 at a time; the warps then add it while they store their
/// segments, again 16 bytes per access.
///
/// Values sit in registers only while they move, so a thread needs about 32 registers and
/// several blocks share a multiprocessor. `items` is a multiple of 4; odd multiples (20, 28)
/// keep each thread's 16-byte shared accesses free of bank conflicts. `min_blocks` (if not 0)
/// asks ptxas to fit that many blocks per multiprocessor (`.minnctapersm`). Blocks that find
/// no tile left exit; launch at least `n.div_ceil(B * items)` of them.
pub fn scan_single_pass<const B: usize>(m: &mut Module, name: &str, items: u32, min_blocks: u32) -> Result<KernelRef<OnePassParams>, Error>
where
    crate::intrinsics::Count<B>: crate::intrinsics::WarpMultiple,
{
    let stage_bytes = B as u64 * items as u64 * 4;
    if items == 0 || items % 4 != 0 || stage_bytes > 48 * 1024 {
        let what = format!("a scan tile of {B} threads x {items} elements needs a non-zero multiple of 4 elements and at most 48 KiB of static shared memory ({stage_bytes} bytes)");
        return Err(Error::InvalidArgument { kernel: name.to_string(), what });
    }
    m.kernel(name, |k, (x, y, status, counter, n): OnePassParams| {
        k.reqntid(B as u32, 1, 1);
        if min_blocks > 0 {
            k.minnctapersm(min_blocks);
        }
        let t = ptx!(k, "mov.u32", sreg::TID_X);
        let slot = k.shared_array::<U32>("tile_slot", 1, 4);
        let shared_prefix = k.shared_array::<F32>("tile_prefix", 1, 4);
        let leader = ptx!(k, "setp.eq.u32", t, 0u32);
        k.if_(leader, |k| {
            let id = ptx!(k, "atom.global.add.u32", counter.offset(0), 1u32);
            k.st(slot.offset(0), id);
        });
        ptx!(k, "bar.sync", 0u32);
        let tile = k.ld(slot.offset(0));
        // Whole tiles first, then (if n is not a multiple) one of `rem` elements; past those,
        // nothing to do. No sum here can wrap, whatever `n`.
        let tile_elems = B as u32 * items;
        let whole_tiles = ptx!(k, "div.u32", n, tile_elems);
        let rem = ptx!(k, "rem.u32", n, tile_elems);
        let whole = ptx!(k, "setp.lt.u32", tile, whole_tiles);
        let is_last = ptx!(k, "setp.eq.u32", tile, whole_tiles);
        let has_rem = ptx!(k, "setp.ne.u32", rem, 0u32);
        let partial = ptx!(k, "and.pred", is_last, has_rem);
        let active = ptx!(k, "or.pred", whole, partial);
        k.if_(!active, |k| k.ret());
        let tile0 = ptx!(k, "mul.lo.u32", tile, tile_elems);
        // Warp w's segment is 32 * items elements; lane l starts at 4l and steps by 128.
        let lane = k.lane_id();
        let warp = ptx!(k, "shr.u32", t, 5u32);
        let seg = ptx!(k, "mul.lo.u32", warp, 32 * items);
        let l4 = ptx!(k, "shl.b32", lane, 2u32).bitcast::<U32>();
        let sidx = ptx!(k, "add.u32", seg, l4);
        let g = ptx!(k, "add.u32", tile0, sidx);
        let stage = k.shared_array::<F32>("stage", tile_elems, 16);
        let vectors = (items / 4) as i64;
        // Element by element in the last tile: in range when its offset in the tile is
        // below `rem`.
        let each = |k: &mut Kernel, f: &mut dyn FnMut(&mut Kernel, i64, Reg<U32>, Reg<Pred>)| {
            for q in 0..vectors {
                for c in 0..4 {
                    let local = ptx!(k, "add.u32", sidx, (128 * q + c) as u32);
                    let inb = ptx!(k, "setp.lt.u32", local, rem);
                    let e = ptx!(k, "add.u32", tile0, local);
                    f(k, 128 * q + c, e, inb);
                }
            }
        };
        k.if_else(
            whole,
            |k| {
                for q in 0..vectors {
                    let v = ptx!(k, "ld.global.nc.v4.f32", x.at(g).offset(128 * q));
                    ptx!(k, "st.shared.v4.f32", stage.at(sidx).offset(128 * q), v);
                }
            },
            |k| {
                each(k, &mut |k, off, e, inb| {
                    let r = ptx!(k, "mov.f32", 0.0f32);
                    ptx!(k, @inb, "ld.global.f32" => r, x.at(e));
                    ptx!(k, "st.shared.f32", stage.at(sidx).offset(off), r);
                });
            },
        );
        ptx!(k, "bar.warp.sync", 0xffff_ffffu32);
        // This thread's run: its sum, the block's exclusive scan of the sums, then the run's
        // running sums, offset by that, back in place.
        let own = ptx!(k, "mul.lo.u32", t, items);
        let mut sum = None;
        for q in 0..vectors {
            let v = ptx!(k, "ld.shared.v4.f32", stage.at(own).offset(4 * q));
            for r in v {
                sum = Some(sum.map_or(r, |s| add_f32(k, s, r)));
            }
        }
        let zero = ptx!(k, "mov.f32", 0.0f32);
        let (mut acc, agg) = k.block_scan_exclusive_with_total::<B, _>(sum.expect("items > 0"), zero, add_f32);
        for q in 0..vectors {
            let v = ptx!(k, "ld.shared.v4.f32", stage.at(own).offset(4 * q));
            let o: [Reg<F32>; 4] = std::array::from_fn(|c| {
                acc = add_f32(k, acc, v[c]);
                acc
            });
            ptx!(k, "st.shared.v4.f32", stage.at(own).offset(4 * q), o);
        }
        publish_and_look_back(k, status, tile, agg, shared_prefix);
        ptx!(k, "bar.sync", 0u32);
        let tp = k.ld(shared_prefix.offset(0));
        k.if_else(
            whole,
            |k| {
                for q in 0..vectors {
                    let v = ptx!(k, "ld.shared.v4.f32", stage.at(sidx).offset(128 * q));
                    let o: [Reg<F32>; 4] = std::array::from_fn(|c| add_f32(k, tp, v[c]));
                    ptx!(k, "st.global.v4.f32", y.at(g).offset(128 * q), o);
                }
            },
            |k| {
                each(k, &mut |k, off, e, inb| {
                    let v = ptx!(k, "ld.shared.f32", stage.at(sidx).offset(off));
                    let o = add_f32(k, tp, v);
                    ptx!(k, @inb, "st.global.f32", y.at(e), o);
                });
            },
        );
    })
}

/// A tile status word: `v`'s bits low, `state` high.
fn pack_status(k: &mut Kernel, state: Reg<U32>, v: Reg<F32>) -> Reg<U64> {
    let w = ptx!(k, "mov.b64" as pack, [v.bitcast::<B32>(), state.bitcast::<B32>()]);
    w.bitcast()
}

/// The decoupled look-back of tile `tile` whose sum is `agg`, by the block's first warp:
/// publish the aggregate, walk back over the predecessors' status words 32 at a time
/// (ballots find the closest inclusive prefix; a warp reduction adds the aggregates before
/// it), publish the inclusive prefix, and leave the exclusive prefix in `shared_prefix[0]`.
fn publish_and_look_back(k: &mut Kernel, status: GlobalPtr<U64>, tile: Reg<U32>, agg: Reg<F32>, shared_prefix: SharedPtr<F32>) {
    use crate::intrinsics::order::{Gpu, Relaxed};
    use crate::intrinsics::warp::LaneMask;
    let t = ptx!(k, "mov.u32", sreg::TID_X);
    let warp0 = ptx!(k, "setp.lt.u32", t, 32u32);
    k.if_(warp0, |k| {
        let lane = k.lane_id();
        let first_tile = ptx!(k, "setp.eq.u32", tile, 0u32);
        let state = ptx!(k, "selp.u32", INCLUSIVE, AGGREGATE, first_tile);
        let word = pack_status(k, state, agg);
        let lane0 = ptx!(k, "setp.eq.u32", lane, 0u32);
        k.if_(lane0, |k| k.st_ordered(Relaxed, Gpu, status.at(tile), word));
        let prefix = ptx!(k, "mov.f32", 0.0f32);
        k.if_(!first_tile, |k| {
            let base = ptx!(k, "mov.u32", tile);
            // Before tile 0 counts as an inclusive prefix of 0.
            let z = ptx!(k, "mov.f32", 0.0f32);
            let st = ptx!(k, "mov.u32", INCLUSIVE);
            let empty = pack_status(k, st, z);
            k.loop_(|k, l| {
                // Lane i looks at tile base - 1 - i.
                let exists = ptx!(k, "setp.gt.u32", base, lane);
                let back = ptx!(k, "add.u32", lane, 1u32);
                let j = ptx!(k, "sub.u32", base, back);
                let w = ptx!(k, "mov.u64", empty);
                k.if_(exists, |k| {
                    let seen = k.ld_ordered(Relaxed, Gpu, status.at(j));
                    ptx!(k, "mov.u64" => w, seen);
                });
                let [lo, hi] = ptx!(k, "mov.b64" as unpack, w.bitcast::<B64>());
                let is_incl = ptx!(k, "setp.eq.b32", hi, INCLUSIVE);
                let is_none = ptx!(k, "setp.eq.b32", hi, 0u32);
                let incl = k.ballot(is_incl, LaneMask::FULL);
                let none = k.ballot(is_none, LaneMask::FULL);
                // Lanes up to the closest inclusive prefix matter (all 32 if none has one).
                let rev = ptx!(k, "brev.b32", incl);
                let lowest = ptx!(k, "clz.b32", rev);
                let any_incl = ptx!(k, "setp.ne.b32", incl, 0u32);
                let limit = ptx!(k, "selp.u32", lowest, 31u32, any_incl);
                let span = ptx!(k, "shl.b32", 2u32, limit);
                let relevant = ptx!(k, "sub.u32", span.bitcast::<U32>(), 1u32);
                let waiting = ptx!(k, "and.b32", none, relevant.bitcast::<B32>());
                let blocked = ptx!(k, "setp.ne.b32", waiting, 0u32);
                k.bra_if(blocked, l.cont);
                let mine = ptx!(k, "setp.le.u32", lane, limit);
                let v = ptx!(k, "selp.f32", lo.bitcast::<F32>(), 0.0f32, mine);
                let s = k.warp_reduce_commutative(v, LaneMask::FULL, add_f32);
                ptx!(k, "add.rn.f32" => prefix, prefix, s);
                k.bra_if(any_incl, l.brk);
                ptx!(k, "sub.u32" => base, base, 32u32);
            });
            let inclusive = add_f32(k, prefix, agg);
            let st = ptx!(k, "mov.u32", INCLUSIVE);
            let done = pack_status(k, st, inclusive);
            k.if_(lane0, |k| k.st_ordered(Relaxed, Gpu, status.at(tile), done));
        });
        k.if_(lane0, |k| k.st(shared_prefix.offset(0), prefix));
    });
}
