//! Random programs: kernels built from random sequences of typed operations (arithmetic,
//! compares, conversions, scalar and vector memory, atomics and reductions, ordered
//! accesses and fences, warp and block collectives, mbarriers, proxy fences, `elect`,
//! `cp.async` and its groups, bulk copies completing on an mbarrier, bulk groups, wgmma,
//! `mma.sync`, ldmatrix/stmatrix, TMA tensor loads, stores and prefetches, jump tables,
//! `.param`-ABI calls, texture lookups and gathers, surface loads, stores and reductions,
//! texture and surface queries), with
//! random guards, branches, loops and calls, must print and be accepted by ptxas without a
//! warning.
//!
//! One module is built per seed, with `PTXKIT_RANDOM_KERNELS` kernels (150 unless set);
//! the seed is fresh each run and printed, `PTXKIT_SEED=n` replays one. A long run covers
//! a range of seeds: `PTXKIT_SEED=first PTXKIT_RANDOM_MODULES=count` builds and assembles
//! `count` modules, seeds `first..first+count`, on `PTXKIT_RANDOM_THREADS` threads (1
//! unless set), and names every seed whose module ptxas rejected.

#[macro_use]
mod common;

use ptxkit::intrinsics::mbarrier::Mbarrier;
use ptxkit::intrinsics::order::{AcqRel, Acquire, Gpu, Release};
use ptxkit::intrinsics::vector::Align;
use ptxkit::intrinsics::warp::{LaneMask, Shfl};
use ptxkit::ops::m;
use ptxkit::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

struct Pools {
    u: Vec<Reg<U32>>,
    f: Vec<Reg<F32>>,
    p: Vec<Reg<Pred>>,
    x: GlobalPtr<U32>,
    y: GlobalPtr<F32>,
    sh: Ptr<m::Shared, U32>,
    bar: Mbarrier,
    map: TensorMap<U32, 2>,
    tex: Texture,
    surf: Surface,
    /// How many guarded scopes, branches and loops enclose the statement being drawn:
    /// `wgmma` runs warpgroup-wide (`.sync.aligned`), so it is drawn only where every
    /// thread runs it.
    nested: u32,
}

fn pick<T: Copy>(r: &mut StdRng, v: &[T]) -> T {
    v[r.gen_range(0..v.len())]
}

/// The module's device functions: one of the `.reg` ABI, one of the `.param` ABI.
type F = (FuncRef<(Reg<U32>, Reg<F32>), Reg<F32>>, FuncRef<(Reg<F32>, Reg<U32>), Reg<F32>>);

/// One random statement; some run in a guarded scope (`@p` or `@!p` on everything they
/// emit, nested scopes and instructions with their own guards included).
fn stmt(k: &mut Kernel, r: &mut StdRng, p: &mut Pools, depth: u32, f: &F) {
    if r.gen_bool(0.15) {
        let g = pick(r, &p.p);
        p.nested += 1;
        if r.gen_bool(0.5) {
            k.guarded(g, |k| stmt_body(k, r, p, depth, f));
        } else {
            k.guarded(!g, |k| stmt_body(k, r, p, depth, f));
        }
        p.nested -= 1;
    } else {
        stmt_body(k, r, p, depth, f);
    }
}

fn stmt_body(k: &mut Kernel, r: &mut StdRng, p: &mut Pools, depth: u32, f: &F) {
    let (a, b, c) = (pick(r, &p.u), pick(r, &p.u), pick(r, &p.u));
    let (fa, fb, fc) = (pick(r, &p.f), pick(r, &p.f), pick(r, &p.f));
    let imm: u32 = r.gen();
    let fimm: f32 = r.gen_range(-1e6f32..1e6);
    match r.gen_range(0..70) {
        0 => p.u.push(ptx!(k, "add.u32", a, b)),
        1 => p.u.push(ptx!(k, "sub.u32", a, imm)),
        2 => p.u.push(ptx!(k, "mul.lo.u32", a, b)),
        3 => p.u.push(ptx!(k, "mad.lo.u32", a, b, c)),
        4 => p.u.push(ptx!(k, "mul.hi.u32", a, imm)),
        5 => p.u.push(ptx!(k, "min.u32", a, b)),
        6 => p.u.push(ptx!(k, "xor.b32", a, b).bitcast()),
        7 => p.u.push(ptx!(k, "shl.b32", a, imm % 40).bitcast()),
        8 => p.u.push(ptx!(k, "shr.u32", a, b)),
        9 => p.u.push(ptx!(k, "div.u32", a, b)),
        10 => p.u.push(ptx!(k, "rem.u32", a, imm | 1)),
        11 => p.u.push(ptx!(k, "bfe.u32", a, b, c)),
        12 => p.u.push(ptx!(k, "popc.b32", a)),
        13 => p.u.push(ptx!(k, "prmt.b32", a, b, imm).bitcast()),
        14 => p.u.push(ptx!(k, "lop3.b32", a, b, c, imm & 0xff).bitcast()),
        15 => p.f.push(ptx!(k, "add.rz.f32", fa, fb)),
        16 => p.f.push(ptx!(k, "fma.rn.ftz.f32", fa, fb, fc)),
        17 => p.f.push(ptx!(k, "mul.rm.f32", fa, fimm)),
        18 => p.f.push(ptx!(k, "div.rn.f32", fa, fb)),
        19 => p.f.push(ptx!(k, "sqrt.approx.f32", fa)),
        20 => p.f.push(ptx!(k, "max.NaN.f32", fa, fb)),
        21 => p.f.push(ptx!(k, "cvt.rn.f32.u32", a)),
        22 => p.u.push(ptx!(k, "cvt.rzi.sat.u32.f32", fa)),
        23 => p.p.push(ptx!(k, "setp.lt.u32", a, b)),
        24 => p.p.push(ptx!(k, "setp.gtu.f32", fa, fimm)),
        25 => p.u.push(ptx!(k, "selp.b32", a, b, pick(r, &p.p)).bitcast()),
        26 => p.u.push(ptx!(k, "ld.global.u32", p.x.at(a))),
        27 => ptx!(k, "st.global.f32", p.y.offset(r.gen_range(0..64)), fa),
        28 => p.u.push(ptx!(k, "atom.global.add.u32", p.x.at(b), a)),
        29 => {
            let q = pick(r, &p.p);
            p.p.push(ptx!(k, "and.pred", q, pick(r, &p.p)));
        }
        30 if depth < 3 => {
            let q = pick(r, &p.p);
            let n = r.gen_range(0..4);
            p.nested += 1;
            k.if_(q, |k| (0..n).for_each(|_| stmt(k, r, p, depth + 1, f)));
            p.nested -= 1;
        }
        31 if depth < 3 => {
            let n = r.gen_range(0..4);
            let end = if r.gen_bool(0.5) { a } else { ptx!(k, "mov.u32", r.gen_range(0u32..16)) };
            p.nested += 1;
            k.for_range(0u32, end, r.gen_range(1..4), |k, i| {
                p.u.push(i);
                (0..n).for_each(|_| stmt(k, r, p, depth + 1, f));
                p.u.retain(|x| *x != i);
            });
            p.nested -= 1;
        }
        32 => {
            let v = k.call(&f.0, (a, fa));
            p.f.push(v);
        }
        33 => {
            let g = pick(r, &p.p);
            p.u.push(ptx!(k, @g, "ld.global.u32", p.x.at(a)));
        }
        34 => {
            let g = pick(r, &p.p);
            ptx!(k, @!g, "st.global.f32", p.y.at(b), fa);
        }
        35 => p.u.push(k.ld(p.x.at(c))),
        36 => k.st(p.y.at(a), fb),
        // Vector accesses: aligned, at a known offset, and checked at run time.
        // (Blocks of N elements at `p.at(block * N)`, the product in 64 bits.)
        38 => {
            let e = ptx!(k, "mul.wide.u32", a, 4u32);
            p.u.extend(k.vload::<4, _>(p.x.at(e), Align::Unknown))
        }
        39 => p.f.extend(k.vload::<2, _>(p.y.at(b), Align::Aligned)),
        40 => {
            let e = ptx!(k, "mul.wide.u32", a, 4u32);
            k.vstore(p.y.at(e), [fa, fb, fc, fa], Align::Offset(r.gen_range(0..4)))
        }
        41 => {
            let e = ptx!(k, "mul.wide.u32", c, 8u32);
            p.f.extend(k.vload::<8, _>(p.y.at(e), Align::Offset(r.gen_range(0..8))))
        }
        // Atomics and reductions.
        42 => {
            let old = ptx!(k, "atom.relaxed.gpu.global.cas.b32", p.x.cast::<B32>().at(a), b.bitcast::<B32>(), c.bitcast::<B32>());
            p.u.push(old.bitcast());
        }
        43 => p.u.push(ptx!(k, "atom.acq_rel.gpu.global.exch.b32", p.x.cast::<B32>().at(b), a.bitcast::<B32>()).bitcast()),
        44 => ptx!(k, "red.release.gpu.global.add.f32", p.y.at(a), fa),
        45 => p.u.push(ptx!(k, "atom.shared.inc.u32", p.sh.at(b), imm)),
        46 => p.f.push(ptx!(k, "atom.global.add.f32", p.y.at(c), fb)),
        // Ordered accesses and fences.
        47 => p.u.push(k.ld_ordered(Acquire, Gpu, p.x.at(a))),
        48 => {
            k.st_ordered(Release, Gpu, p.x.at(b), c);
            k.fence(AcqRel, Gpu);
        }
        // Warp and block collectives.
        49 => {
            let (u, v) = k.shfl(Shfl::Xor, (a, fa), imm % 32, LaneMask::FULL);
            p.u.push(u);
            p.f.push(v);
        }
        50 => p.u.push(k.warp_reduce(a, LaneMask::FULL, |k, u, v| ptx!(k, "add.u32", u, v))),
        51 => {
            let q = pick(r, &p.p);
            p.p.push(k.vote_any(q, LaneMask::FULL));
            p.u.push(k.ballot(q, LaneMask::FULL).bitcast());
            p.u.push(ptx!(k, "redux.sync.max.u32", a, 0xffff_ffffu32));
        }
        52 => p.f.push(k.block_reduce::<128, _>(fa, |k, u, v| ptx!(k, "add.f32", u, v))),
        // Hopper: mbarriers, proxy fences, elect.
        53 => {
            let _ = p.bar.arrive(k);
            p.p.push(p.bar.try_wait(k, imm & 1));
        }
        54 => {
            k.st(p.sh.at(a), b);
            ptx!(k, "fence.proxy.async.shared::cta");
            let _ = p.bar.arrive_expect_tx(k, imm % 4096);
        }
        // Asynchronous copies: cp.async with its groups, a bulk copy completing on the
        // mbarrier, bulk groups.
        56 => {
            ptx!(k, "cp.async.cg.shared.global", p.sh.at(b), p.x.at(a), Const::<16>);
            ptx!(k, "cp.async.commit_group");
            ptx!(k, "cp.async.wait_group", imm % 4);
        }
        57 => ptx!(k, "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes", p.sh.at(c), p.x.at(a), 256u32, p.bar.ptr()),
        58 => {
            ptx!(k, "cp.async.bulk.global.shared::cta.bulk_group", p.x.at(b), p.sh.offset(64), 128u32);
            ptx!(k, "cp.async.bulk.commit_group");
            ptx!(k, "cp.async.bulk.wait_group.read", imm % 8);
        }
        // Tensor cores: a wgmma retired by its own wait (descriptors are any 64-bit
        // values to ptxas), mma.sync, ldmatrix and stmatrix.
        59 if p.nested == 0 => {
            let acc: Acc<F32, 4> = k.zeroed_acc();
            // The descriptors are loaded: ptxas 13.0.88 crashes (SIGSEGV) on some programs
            // where it can fold a wgmma descriptor to a constant (a reproducer is in
            // bench/results/2026-11-25-reliability.md).
            let da = ptx!(k, "ld.global.b64", p.x.cast::<B64>().at(a)).bitcast::<Gdesc>();
            let db = ptx!(k, "ld.global.b64", p.x.cast::<B64>().at(b)).bitcast::<Gdesc>();
            ptx!(k, "wgmma.fence.sync.aligned");
            ptx!(k, "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16" => acc, da, db, pick(r, &p.p), 1, -1, 0, 0);
            ptx!(k, "wgmma.commit_group.sync.aligned");
            ptx!(k, "wgmma.wait_group.sync.aligned", 0);
            p.f.extend(acc.iter());
        }
        60 => {
            let frag = |x: Reg<U32>| x.bitcast::<B32>();
            let d = ptx!(
                k,
                "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
                [frag(a), frag(b), frag(c), frag(a)],
                [frag(c), frag(b)],
                [fa, fb, fc, fa]
            );
            p.f.extend(d);
        }
        61 => {
            let m = ptx!(k, "ldmatrix.sync.aligned.m8n8.x4.shared.b16", p.sh.cast::<B16>().at(a));
            ptx!(k, "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16", p.sh.cast::<B16>().at(b), [m[3], m[0]]);
            p.u.push(m[1].bitcast());
        }
        // TMA: a tensor load completing on the mbarrier, a tensor store and its bulk group,
        // prefetches of the map and of a box.
        62 => {
            let coords = [a.bitcast::<S32>(), b.bitcast::<S32>()];
            let _ = p.bar.arrive_expect_tx(k, 1024u32);
            p.map.load(k, p.sh, coords, p.bar.ptr());
            p.map.prefetch_tile(k, coords);
        }
        63 => {
            p.map.prefetch(k);
            ptx!(k, "fence.proxy.async.shared::cta");
            p.map.store(k, [c.bitcast::<S32>(), a.bitcast::<S32>()], p.sh);
            ptx!(k, "cp.async.bulk.commit_group");
            ptx!(k, "cp.async.bulk.wait_group", imm % 8);
        }
        // A jump table of a few cases (an index past them runs none), and a call of a
        // `.param`-ABI function, uniform or not.
        64 if depth < 3 => {
            let n = r.gen_range(1..5);
            let sel = ptx!(k, "rem.u32", a, r.gen_range(1u32..8));
            p.nested += 1;
            k.switch_(sel, n, |k, _| (0..r.gen_range(0..3)).for_each(|_| stmt(k, r, p, depth + 1, f)));
            p.nested -= 1;
        }
        65 => {
            let v = if r.gen_bool(0.5) { k.call(&f.1, (fa, b)) } else { k.call_uni(&f.1, (fa, b)) };
            p.f.push(v);
        }
        // Textures and surfaces: a lookup with an offset, a gather with the residency
        // predicate, surface accesses at coordinates from the pools, queries.
        66 => {
            let [v, _, _, w] = ptx!(k, "tex.2d.v4.f32.f32" as offset, p.tex.at([fa, fb]), [a.bitcast::<S32>(), b.bitcast::<S32>()]);
            p.f.extend([v, w]);
        }
        67 => {
            let (v, resident) = ptx!(k, "tld4.g.2d.v4.f32.f32" as resident, p.tex.at([fa, fb]));
            p.f.push(v[2]);
            p.p.push(resident);
        }
        68 => {
            let v = ptx!(k, "suld.b.2d.b32.clamp", p.surf.at([a, b]));
            ptx!(k, "sust.b.2d.b32.zero", p.surf.at([b, c]), v);
            p.u.push(v.bitcast());
        }
        69 => {
            ptx!(k, "sured.b.add.2d.u32.zero", p.surf.at([a, b]), c);
            p.u.push(ptx!(k, "txq.width.b32", p.tex).bitcast());
            p.u.push(ptx!(k, "suq.height.b32", p.surf).bitcast());
        }
        55 => {
            let (leader, is) = ptx!(k, "elect.sync", 0xffff_ffffu32);
            p.u.push(leader.bitcast());
            p.p.push(is);
        }
        _ => {
            let acc = pick(r, &p.f);
            ptx!(k, "add.f32" => acc, acc, fb);
        }
    }
}

/// One module of `kernels` random kernels from `seed`, and its instruction count.
fn random_module(seed: u64, kernels: usize) -> (Module, usize) {
    let mut r = StdRng::seed_from_u64(seed);
    let mut m = Module::new(Target::SM_90A);
    let f = m
        .func("helper", |k, (u, x): (Reg<U32>, Reg<F32>)| {
            let c = ptx!(k, "cvt.rn.f32.u32", u);
            ptx!(k, "fma.rn.f32", c, x, 1.5f32)
        })
        .unwrap();
    let g = m
        .func_with("param_helper", Abi::Param, |k, (x, u): (Reg<F32>, Reg<U32>)| {
            let c = ptx!(k, "cvt.rn.f32.u32", u);
            ptx!(k, "sub.f32", x, c)
        })
        .unwrap();
    let f = (f, g);
    let mut total = 0;
    for n in 0..kernels {
        type P = (GlobalPtr<U32>, GlobalPtr<F32>, Reg<U32>, TensorMap<U32, 2>, Texture, Surface);
        m.kernel(&format!("random_{n}"), |k, (x, y, s, map, tex, surf): P| {
            k.reqntid(128, 1, 1);
            let sh = k.shared_array::<U32>("sh", 256, 16);
            let bar = Mbarrier::at(k.shared_array::<B64>("bar", 1, 8));
            let t = ptx!(k, "mov.u32", sreg::TID_X);
            bar.init(k, 128u32);
            let f0 = ptx!(k, "ld.global.f32", y.at(t));
            let p0 = ptx!(k, "setp.ne.u32", s, t);
            let mut pools = Pools { u: vec![t, s], f: vec![f0], p: vec![p0], x, y, sh, bar, map, tex, surf, nested: 0 };
            let len = r.gen_range(5..60);
            for _ in 0..len {
                stmt(k, &mut r, &mut pools, 0, &f);
            }
            let last = *pools.u.last().unwrap();
            ptx!(k, "st.global.u32", x.at(t), last);
            total += k.len();
        })
        .unwrap_or_else(|e| panic!("seed {seed}: program {n}: {e}"));
    }
    (m, total)
}

/// Text that each family of statements leaves in the PTX.
const FAMILIES: &[&str] = &[
    "ld.global.v4.u32",
    "ld.global.v2.f32",
    "st.global.v4.f32",
    "atom.relaxed.gpu.global.cas.b32",
    "atom.acq_rel.gpu.global.exch.b32",
    "red.release.gpu.global.add.f32",
    "atom.shared.inc.u32",
    "ld.acquire.gpu.global.u32",
    "fence.acq_rel.gpu",
    "shfl.sync.bfly.b32",
    "vote.sync.any.pred",
    "redux.sync.max.u32",
    "bar.sync",
    "mbarrier.try_wait",
    "fence.proxy.async.shared::cta",
    "elect.sync",
    "cp.async.cg.shared.global",
    "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes",
    "cp.async.bulk.wait_group.read",
    "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16",
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
    "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16",
    "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
    "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group",
    "cp.async.bulk.prefetch.tensor.2d.L2.global.tile",
    "prefetch.tensormap",
    "call",
    ".branchtargets",
    "brx.idx",
    "st.param.b32 [__ptxkit_arg0]",
    "call.uni (__ptxkit_ret0), param_helper",
    "tex.2d.v4.f32.f32",
    "tld4.g.2d.v4.f32.f32",
    "suld.b.2d.b32.clamp",
    "sust.b.2d.b32.zero",
    "sured.b.add.2d.u32.zero",
    "txq.width.b32",
    "suq.height.b32",
];

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|s| s.parse().unwrap_or_else(|_| panic!("{name}={s} is not a number")))
}

/// Builds and assembles the module of `seed`; `Err` holds ptxas's messages (the module is
/// saved beside them).
fn check_seed(px: &std::path::Path, seed: u64, kernels: usize) -> Result<usize, String> {
    let (m, total) = random_module(seed, kernels);
    let text = m.to_ptx().unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    if kernels >= 100 {
        // Every family drawn from appears in a module of this many kernels.
        for family in FAMILIES {
            assert!(text.contains(family), "seed {seed}: no `{family}` in {kernels} random kernels");
        }
    }
    if let Err(log) = ptxkit::ptxas::check_clean(px, &text, m.target(), ptxkit::ptxas::Mode::Assemble) {
        let path = std::env::temp_dir().join(format!("ptxkit-random-{seed}.ptx"));
        std::fs::write(&path, &text).ok();
        return Err(format!("seed {seed}: ptxas rejected a random program (module saved to {}):\n{log}", path.display()));
    }
    Ok(total)
}

fn random_programs_assemble() {
    let first = env_u64("PTXKIT_SEED").unwrap_or_else(rand::random);
    let modules = env_u64("PTXKIT_RANDOM_MODULES").unwrap_or(1).max(1);
    let kernels = env_u64("PTXKIT_RANDOM_KERNELS").unwrap_or(150).max(1) as usize;
    let threads = env_u64("PTXKIT_RANDOM_THREADS").unwrap_or(1).clamp(1, 64);
    let last = first.checked_add(modules - 1).expect("the seed range overflows u64");
    println!("random_programs seeds {first}..={last} (PTXKIT_SEED={first} PTXKIT_RANDOM_MODULES={modules} replays them)");
    let px = common::ptxas("random_programs_assemble");
    let started = std::time::Instant::now();
    let next = std::sync::atomic::AtomicU64::new(first);
    let (mut instructions, mut done, mut failures) = (0usize, 0u64, Vec::new());
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let (mut ins, mut n, mut bad) = (0usize, 0u64, Vec::new());
                    loop {
                        let seed = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if seed > last || seed < first {
                            break;
                        }
                        match check_seed(&px, seed, kernels) {
                            Ok(t) => ins += t,
                            Err(e) => bad.push(e),
                        }
                        n += 1;
                        if modules > 1 && n % 20 == 0 {
                            eprintln!("random_programs: a worker has checked {n} modules ({:.0} s)", started.elapsed().as_secs_f64());
                        }
                    }
                    (ins, n, bad)
                })
            })
            .collect();
        for w in workers {
            let (ins, n, bad) = w.join().unwrap();
            instructions += ins;
            done += n;
            failures.extend(bad);
        }
    });
    assert_eq!(done, modules);
    let verdict = format!("{} modules rejected by ptxas", failures.len());
    println!(
        "random_programs: {modules} modules (seeds {first}..={last}), {} random kernels, {instructions} instructions, {verdict}, {:.1} s",
        modules * kernels as u64,
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn main() {
    common::harness::main(&[&[host!(random_programs_assemble)]]);
}
