//! The sm_90a kernel: TMA producer, wgmma consumers, a ring of stages (see the module docs).
//! The producer and the tile order are `sched.rs`'s, shared with the sm_100a kernel.

use super::epilogue::{Epilogue, Out};
use super::partials::Partials;
use super::sched::{for_each_piece, k_major_layout, produce, stage_base, tile_of, trap_unless, Grid, Piece, Split, Tiling};
use super::{invalid, GemmIn, GemmOut, Layout, BK_BYTES, ROWS_PER_CONSUMER};
use crate::builder::{Error, Kernel, KernelParams, KernelRef, Module, TensorMap, Var};
use crate::descriptors::{AtomOrder, ElemBytes, Major, Swizzle, TileLayout};
use crate::intrinsics::mbarrier::{Deadline, Publish, Ring};
use crate::intrinsics::timeline::Timeline;
use crate::intrinsics::wgmma::MmaF32;
use crate::ops::{m as space, Acc};
use crate::prelude::*;
use crate::types::Gdesc;

mod config;
pub use config::{Config, LONG_K_BYTES};

/// The parameters of [`gemm`]: the tensor maps of A (dims `[K, M]`) and B (`[K, N]`),
/// C, α, M, N, K, C's row stride in elements (`ldc`, at least N), and the stream-K
/// workspace ([`Workspace`]).
pub type Params<O, I = Bf16> =
    (Map<I>, Map<I>, GlobalPtr<O>, Reg<F32>, Reg<U32>, Reg<U32>, Reg<U32>, Reg<U32>, GlobalPtr<U32>, GlobalPtr<F32>);
/// The parameters of [`gemm_staged`]: the tensor maps of A, B and C (dims `[N, M]`, boxes
/// of 64 × 64 with the 128-byte swizzle), α, M, N, K, and the stream-K workspace.
pub type StagedParams<I = Bf16> =
    (Map<I>, Map<I>, TensorMap<Bf16, 2>, Reg<F32>, Reg<U32>, Reg<U32>, Reg<U32>, GlobalPtr<U32>, GlobalPtr<F32>);
/// The stream-K workspace ([`Config::stream_k`]): one `u32` flag per consumer per CTA of
/// the grid, all 0 before the first launch (each launch leaves them 0), and
/// [`Config::workspace_bytes`] of f32 partial sums. Without `stream_k` the kernel does not
/// touch them.
pub type Workspace = (GlobalPtr<U32>, GlobalPtr<F32>);
/// The tensor map of an input in `I`.
type Map<I> = TensorMap<<I as GemmIn>::Elem, 2>;

/// One `m64n{bn}` wgmma (K of 32 bytes) into an f32 accumulator of `R = bn/2` registers,
/// both operands from shared memory: `acc = A·B + (scale_d ? acc : 0)`.
type Issue<'a, const R: usize> = &'a dyn Fn(&mut Kernel, Acc<F32, R>, Reg<Gdesc>, Reg<Gdesc>, Reg<Pred>);

/// Builds the kernel body (`$body`, generic over the accumulator's length through `$mma`)
/// for `cfg.bn`: a width known only when the kernel is built picks the const generic the
/// wgmma form is selected by ([`crate::intrinsics::wgmma::Mma`]).
macro_rules! for_tile_n {
    ($m:ident, $name:ident, $cfg:ident, $in:ty, $params:ty, |$k:ident, $p:ident, $mma:ident| $body:expr) => {
        match $cfg.bn {
            64 => tile_n::<$in, $params, 64, 32>($m, $name, $cfg, |$k, $p: $params, $mma| $body),
            128 => tile_n::<$in, $params, 128, 64>($m, $name, $cfg, |$k, $p: $params, $mma| $body),
            192 => tile_n::<$in, $params, 192, 96>($m, $name, $cfg, |$k, $p: $params, $mma| $body),
            256 => tile_n::<$in, $params, 256, 128>($m, $name, $cfg, |$k, $p: $params, $mma| $body),
            bn => Err(invalid($name, format!("no wgmma tile of bn = {bn}: it is one of {:?}", super::TILE_NS))),
        }
    };
}

/// The kernel `name` built by `body` with the wgmma form of width `N` for inputs `I`: A
/// K-major, B K-major for TN and N-major for NN (bf16 forms take the transposes; FP8 forms
/// read K-major operands only, which `check_for` has made sure of).
fn tile_n<I: GemmIn, P: KernelParams, const N: u32, const R: usize>(
    m: &mut Module,
    name: &str,
    cfg: &Config,
    body: impl FnOnce(&mut Kernel, P, Issue<R>),
) -> Result<KernelRef<P>, Error>
where
    I::Mma: MmaF32<N, R>,
{
    let major = (Major::K, if cfg.layout == Layout::NN { Major::MN } else { Major::K });
    m.kernel(name, |k, p: P| {
        body(k, p, &|k, acc, a, b, d| {
            <I::Mma as MmaF32<N, R>>::ss(k, acc, a, b, d, major);
        })
    })
}

/// Adds the kernel `name` computing `C = α·A·Bᵀ` (A M×K, B N×K, C M×N, all row-major; A
/// and B in `I`), or `C = α·A·B` with B K×N for [`Layout::NN`], to `m`, which must target
/// sm_90a. The host launches it with
/// `cfg.threads()` threads, `cfg.shared_bytes()` of dynamic shared memory and at most one
/// CTA per SM. Each consumer stores its accumulator to C straight from registers
/// (no shared-memory staging), rows of C `ldc` elements apart: any N, any `ldc ≥ N` (pairs
/// of elements in one store where `ldc` is even, so C must start on a pair).
pub fn gemm<O: GemmOut, I: GemmIn>(m: &mut Module, name: &str, cfg: &Config) -> Result<KernelRef<Params<O, I>>, Error> {
    cfg.check_for::<I>().map_err(|e| invalid(name, format!("GEMM configuration: {e}")))?;
    let tl = timeline_var(m, name, cfg)?;
    for_tile_n!(m, name, cfg, I, Params<O, I>, |k, p, mma| {
        let (a, b, c, alpha, mm, nn, kk, ldc, flags, sums) = p;
        body(k, cfg, Inputs::<I>::new(a, b, mm, nn, kk), Out::<O>::Direct(c, ldc), alpha, (flags, sums), tl.as_ref(), mma)
    })
}

/// As [`gemm`] for bf16 C, storing through shared memory: each consumer writes its
/// accumulator in 64 × 64 chunks with `stmatrix` into two staging buffers and one thread
/// stores each chunk with a TMA tensor store, so the next tile's wgmmas start while the
/// stores drain. C's rows must be 16-byte multiples (N a multiple of 8) for its tensor
/// map; the launch takes `cfg.staged_shared_bytes()` of dynamic shared memory.
pub fn gemm_staged<I: GemmIn>(m: &mut Module, name: &str, cfg: &Config) -> Result<KernelRef<StagedParams<I>>, Error> {
    cfg.check_for::<I>().map_err(|e| invalid(name, format!("GEMM configuration: {e}")))?;
    if cfg.staged_shared_bytes() > super::MAX_DYNAMIC_SHARED {
        return Err(invalid(
            name,
            format!("{} bytes of stages and staging exceed {}", cfg.staged_shared_bytes(), super::MAX_DYNAMIC_SHARED),
        ));
    }
    let tl = timeline_var(m, name, cfg)?;
    for_tile_n!(m, name, cfg, I, StagedParams<I>, |k, p, mma| {
        let (a, b, c, alpha, mm, nn, kk, flags, sums) = p;
        body(k, cfg, Inputs::<I>::new(a, b, mm, nn, kk), Out::<Bf16>::Staged(c), alpha, (flags, sums), tl.as_ref(), mma)
    })
}

/// With [`Config::timeline`], the module variable holding the kernel's timeline buffer
/// address ([`super::timeline_symbol`]).
fn timeline_var(m: &mut Module, name: &str, cfg: &Config) -> Result<Option<Var<space::Const, U64>>, Error> {
    cfg.timeline.map(|_| m.constant::<U64>(&super::timeline_symbol(name), &[0])).transpose()
}

/// This warp's timeline: the buffer whose address `var` holds, or none.
fn timeline(k: &mut Kernel, cfg: &Config, var: Option<&Var<space::Const, U64>>) -> Timeline {
    match (var, cfg.timeline) {
        (Some(var), Some(slots)) => Timeline::indirect(k, var.ptr(), slots),
        _ => Timeline::off(),
    }
}

/// Shapes known when the kernel is built.
struct Plan {
    cfg: Config,
    /// The stages and tiles, as the producer and the tile order see them.
    tiling: Tiling,
    /// One consumer's 64 rows of the A tile, and the B tile, as wgmma reads them.
    a_layout: TileLayout,
    b_layout: TileLayout,
}

/// The maps of A and B (of `I` elements), and M, N, K.
struct Inputs<I: GemmIn> {
    a: Map<I>,
    b: Map<I>,
    m: Reg<U32>,
    n: Reg<U32>,
    k: Reg<U32>,
}

impl<I: GemmIn> Inputs<I> {
    fn new(a: Map<I>, b: Map<I>, m: Reg<U32>, n: Reg<U32>, k: Reg<U32>) -> Self {
        Inputs { a, b, m, n, k }
    }
}

#[allow(clippy::too_many_arguments)]
fn body<O: GemmOut, I: GemmIn, const R: usize>(
    k: &mut Kernel,
    cfg: &Config,
    p: Inputs<I>,
    out: Out<O>,
    alpha: Reg<F32>,
    workspace: Workspace,
    tl: Option<&Var<space::Const, U64>>,
    mma: Issue<R>,
) {
    let Inputs { a: a_map, b: b_map, m, n, k: kk } = p;
    let b_layout = match cfg.layout {
        Layout::TN => k_major_layout::<I>(k, cfg.bn),
        Layout::NN => nn_layout(k, cfg.bn),
    };
    let plan = Plan { cfg: *cfg, tiling: cfg.tiling::<I>(), a_layout: k_major_layout::<I>(k, ROWS_PER_CONSUMER), b_layout };
    if cfg.cluster > 1 {
        k.reqnctapercluster(cfg.cluster, 1, 1);
    }
    let smem = k.dynamic_shared_aligned::<B8>(1024);
    let ring = Ring::new(k, "stage", cfg.stages);
    // Each stage is released by every consumer of every CTA that multicasts into it.
    let publish = if cfg.cluster > 1 { Publish::Cluster } else { Publish::Cta };
    ring.init(k, 1, cfg.consumers * cfg.cluster, publish);
    let rank = if cfg.cluster > 1 { ptx!(k, "mov.u32", sreg::CLUSTER_CTARANK) } else { ptx!(k, "mov.u32", 0u32) };

    // Each role computes the tile counts and the stream-K schedule after `setmaxnreg`:
    // values live across it would have to fit the producer's 24 registers.
    let schedule = |k: &mut Kernel| {
        let grid = Grid::new(k, &plan.tiling, m, n, kk, rank);
        let split = cfg.stream_k.then(|| Split::new(k, &grid, cfg.split));
        (grid, split)
    };

    let deadline = Deadline::new(k, cfg.wait_tries);
    let roles = cfg.roles();
    roles.run(
        k,
        |k, tid| {
            let first = ptx!(k, "setp.eq.u32", tid, 0u32);
            k.if_(first, |k| {
                let tl = timeline(k, cfg, tl);
                let (grid, split) = schedule(k);
                produce(k, &plan.tiling, &grid, split.as_ref(), &ring, &deadline, smem, a_map, b_map, &tl);
            });
        },
        |k, c| {
            let (consumer, thread) = (c.index, c.thread);
            let tl = timeline(k, cfg, tl);
            let (grid, split) = schedule(k);
            let partials = split.map(|s| (s, Partials::new(k, workspace, (cfg.consumers, cfg.bn), consumer, thread, cfg.wait_tries)));
            consume(k, &plan, &grid, &ring, &deadline, smem, (consumer, thread), &out, alpha, partials.as_ref(), &tl, mma);
        },
    );
    if cfg.cluster > 1 {
        // No CTA leaves while its peer may still multicast into it or arrive on its barriers.
        k.cluster_sync();
    }
}

/// The N-major B tile of NN (bf16): `bn / 64` TMA boxes of 64 columns × 64 K side by side,
/// each 64 K-lines of 128 bytes, so its swizzle atoms run K-first.
fn nn_layout(k: &mut Kernel, bn: u32) -> TileLayout {
    TileLayout::new(ElemBytes::B2, bn, 64, Major::MN, Swizzle::B128).map(|l| l.with_order(AtomOrder::KFirst)).unwrap_or_else(|e| {
        k.invalid(format!("GEMM tile layout: {e}"));
        TileLayout::new(ElemBytes::B2, 64, 64, Major::MN, Swizzle::B128).expect("the 64-column layout exists")
    })
}

#[allow(clippy::too_many_arguments)]
fn consume<O: GemmOut, const R: usize>(
    k: &mut Kernel,
    plan: &Plan,
    g: &Grid,
    ring: &Ring,
    deadline: &Deadline,
    smem: SharedPtr<B8>,
    (consumer, thread): (Reg<U32>, Reg<U32>),
    out: &Out<O>,
    alpha: Reg<F32>,
    split: Option<&(Split, Partials)>,
    tl: &Timeline,
    mma: Issue<R>,
) {
    let acc: Acc<F32, R> = k.zeroed_acc();
    let mut epilogue = Epilogue::new(k, plan.cfg, smem, consumer, thread, out, alpha);
    let it = ptx!(k, "mov.u32", 0u32);
    let always = ptx!(k, "setp.eq.u32", thread, thread);
    let never = ptx!(k, "setp.ne.u32", thread, thread);
    let lead = ptx!(k, "setp.eq.u32", thread, 0u32);
    // This consumer's 64 rows of each A tile start 64 rows (8 KB) further per consumer.
    let a_rows = ptx!(k, "mul.lo.u32", consumer, ROWS_PER_CONSUMER * BK_BYTES);
    let a_bytes = plan.cfg.bm() * BK_BYTES;
    // One k-tile (a piece's `first` or a later one): wait for its stage, issue its wgmmas, run
    // `beside` while they do, then release a stage (this one, or with `overlap` the previous
    // one, if the piece has one).
    let k_tile = |k: &mut Kernel, first: bool, beside: &mut dyn FnMut(&mut Kernel)| {
        let slot = ring.slot(k, it);
        let full = tl.span(k, "consumer wait", |k| slot.wait(k, deadline));
        trap_unless(k, full);
        let base = stage_base(k, &plan.tiling, smem, slot.stage);
        let a = ptx!(k, "add.u32", base, a_rows);
        let b = ptx!(k, "add.u32", base, a_bytes);
        let da = k.gmma_desc(&plan.a_layout, SharedPtr::<B8>::from_reg32(a));
        let db = k.gmma_desc(&plan.b_layout, SharedPtr::<B8>::from_reg32(b));
        // The first K-slice of a piece overwrites the accumulator; the rest add to it.
        let accumulate = if first { never } else { always };
        ptx!(k, "wgmma.fence.sync.aligned");
        for s in 0..BK_BYTES / crate::descriptors::K_SLICE_BYTES {
            let sa = k.gmma_desc_k(da, &plan.a_layout, s);
            let sb = k.gmma_desc_k(db, &plan.b_layout, s);
            mma(k, acc, sa, sb, if s == 0 { accumulate } else { always });
        }
        ptx!(k, "wgmma.commit_group.sync.aligned");
        beside(k);
        if plan.cfg.overlap {
            // The previous k-tile's wgmmas are done: release its stage while this one's run.
            ptx!(k, "wgmma.wait_group.sync.aligned", 1);
            if !first {
                k.if_(lead, |k| {
                    let prev = ptx!(k, "sub.u32", it, 1u32);
                    release_stage(k, plan, g, ring, prev);
                });
            }
        } else {
            ptx!(k, "wgmma.wait_group.sync.aligned", 0);
            k.if_(lead, |k| release_stage(k, plan, g, ring, it));
        }
        ptx!(k, "add.u32" => it, it, 1u32);
    };
    // With `defer_store`, the previous tile's bf16 registers and origin, stored beside the
    // next piece's first wgmmas (or after the last piece).
    let deferred = match out {
        Out::Staged(map) if plan.cfg.defer_store => {
            let packed: Vec<Reg<B32>> = (0..R / 2).map(|_| k.reg()).collect();
            let (m0, n0) = (ptx!(k, "mov.u32", 0u32), ptx!(k, "mov.u32", 0u32));
            let pending = ptx!(k, "setp.ne.u32", thread, thread);
            Some((*map, packed, m0, n0, pending))
        }
        _ => None,
    };
    for_each_piece(k, &plan.tiling, g, split.map(|(s, _)| s), |k, p: Piece| {
        // With stream-K: whether this piece ends its tile (the owner's), and whether CTAs
        // before this one hold the tile's first k-tiles.
        let roles = split.map(|_| {
            let owner = ptx!(k, "setp.eq.u32", p.ke, g.k_tiles);
            let started = ptx!(k, "setp.ne.u32", p.kb, 0u32);
            (owner, ptx!(k, "and.pred", owner, started))
        });
        // The piece's first k-tile (beside it the previous tile's deferred stores), then the rest.
        tl.begin(k, "wgmma");
        k_tile(k, true, &mut |k: &mut Kernel| {
            if let Some((map, packed, m0, n0, pending)) = &deferred {
                k.if_(*pending, |k| tl.span(k, "epilogue store", |k| epilogue.write_packed(k, *m0, *n0, *map, packed)));
                ptx!(k, "mov.pred" => *pending, false);
            }
        });
        let next = ptx!(k, "add.u32", p.kb, 1u32);
        k.for_range(next, p.ke, 1, |k, _| k_tile(k, false, &mut |_: &mut Kernel| {}));
        if plan.cfg.overlap {
            // The piece's last k-tile.
            ptx!(k, "wgmma.wait_group.sync.aligned", 0);
            k.if_(lead, |k| {
                let prev = ptx!(k, "sub.u32", it, 1u32);
                release_stage(k, plan, g, ring, prev);
            });
        }
        tl.end(k, "wgmma");
        tl.begin(k, "epilogue");
        let (tm, tn) = tile_of(k, &plan.tiling, g, p.unit);
        let mut finish = |k: &mut Kernel| match &deferred {
            Some((_, packed, m0, n0, pending)) => {
                epilogue.pack(k, acc, packed);
                let (tile_m0, tile_n0) = epilogue.origin(k, tm, tn);
                ptx!(k, "mov.u32" => *m0, tile_m0);
                ptx!(k, "mov.u32" => *n0, tile_n0);
                ptx!(k, "setp.eq.u32" => *pending, thread, thread);
            }
            None => epilogue.store(k, g.m, g.n, tm, tn, acc),
        };
        match split.zip(roles) {
            None => finish(k),
            Some(((s, partials), (owner, shared))) => {
                // The tile's owner (its last k-tile is here) adds the partial sums of the CTAs
                // before it that hold the rest, down to the one holding its first k-tile, and
                // stores it; any other piece is a partial sum for the owner.
                // Only rows inside M carry partial sums.
                let inside = partials.inside(k, tm, g.m);
                k.if_else(
                    owner,
                    |k| {
                        k.if_(shared, |k| {
                            let start = s.start(k, g, p.unit);
                            let c = s.cta(k);
                            // The CTAs before the owner, down to the one whose range holds the
                            // tile's first k-tile (at most `split` of them, see `Split`).
                            k.loop_(|k, l| {
                                ptx!(k, "sub.u32" => c, c, 1u32);
                                partials.add(k, c, acc, inside);
                                let begin = s.begin(k, g, c);
                                let more = ptx!(k, "setp.gt.u32", begin, start);
                                k.bra_if(!more, l.brk);
                            });
                        });
                        finish(k);
                    },
                    |k| {
                        let cta = s.cta(k);
                        partials.write(k, cta, acc, inside)
                    },
                );
            }
        }
        tl.end(k, "epilogue");
    });
    if let Some((map, packed, m0, n0, pending)) = &deferred {
        k.if_(*pending, |k| tl.span(k, "epilogue store", |k| epilogue.write_packed(k, *m0, *n0, *map, packed)));
    }
    epilogue.finish(k);
}

/// A consumer is done with iteration `i`'s stage: one arrival on its empty barrier in every
/// CTA of the cluster (each CTA's producer multicasts into all of them). The remote arrivals
/// release at CTA scope, as the local one does: what they order is this warpgroup's reads
/// of the stage (its wgmmas, complete), not memory another CTA reads.
fn release_stage(k: &mut Kernel, plan: &Plan, g: &Grid, ring: &Ring, i: Reg<U32>) {
    let stage = ring.stage(k, i);
    let empty = ring.empty().at(k, stage);
    empty.arrive(k);
    for r in 1..plan.cfg.cluster {
        let peer = ptx!(k, "add.u32", g.rank, r);
        let peer = ptx!(k, "rem.u32", peer, plan.cfg.cluster);
        let remote = k.map_shared(empty.ptr(), peer);
        ptx!(k, "mbarrier.arrive.shared::cluster.b64", remote);
    }
}
