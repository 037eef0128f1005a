//! The intrinsics on the GPU against CPU models: vload/vstore on misaligned views, message
//! passing with release/acquire under contention, shuffles of multi-word values, warp scans
//! and reductions with partial masks and a non-commutative operator, votes, block
//! collectives for several block sizes, and the single-pass scan built on them.

use super::*;
use ptxkit::intrinsics::order::{Acquire, Gpu as GpuScope, Release};
use ptxkit::intrinsics::vector::Align;
use ptxkit::intrinsics::warp::{LaneMask, Shfl};
use ptxkit::intrinsics::{Count, WarpMultiple};
use rand::Rng;

/// Affine maps x -> a*x + b (wrapping u32), composed left to right: associative, not
/// commutative.
type Affine = (Reg<U32>, Reg<U32>);
fn compose(k: &mut Kernel, (a1, b1): Affine, (a2, b2): Affine) -> Affine {
    let a = ptx!(k, "mul.lo.u32", a1, a2);
    let b = ptx!(k, "mad.lo.u32", a2, b1, b2);
    (a, b)
}
fn compose_cpu((a1, b1): (u32, u32), (a2, b2): (u32, u32)) -> (u32, u32) {
    (a1.wrapping_mul(a2), a2.wrapping_mul(b1).wrapping_add(b2))
}

fn vload_vstore_on_misaligned_views(gpu: Gpu) {
    let mut g = rng("vload_vstore_on_misaligned_views");
    let blocks = sized(4096usize, 256);
    let src32: Vec<u32> = (0..blocks * 8 + 16).map(|_| g.gen()).collect();
    for off in 0..4usize {
        // Thread i reads block i (elements 4i..) or elements i.. of the view.
        for (blocks_of_4, align) in [(true, Align::Unknown), (true, Align::Offset(off as u32)), (false, Align::Unknown)] {
            // u32 blocks of 4, read from a view `off` elements in, written through `vstore`.
            let mut m = Module::new(target(&gpu));
            let kr = m
                .kernel("vcopy", |k, (x, y): (GlobalPtr<U32>, GlobalPtr<U32>)| {
                    let i = k.global_thread_index_x();
                    let block = ptx!(k, "mul.wide.u32", i, 4u32);
                    let at = if blocks_of_4 { x.at(block) } else { x.at(ptx!(k, "cvt.u64.u32", i)) };
                    let v = match align {
                        Align::Offset(0) => k.vload::<4, _>(at, Align::Aligned),
                        a => k.vload::<4, _>(at, a),
                    };
                    k.vstore(y.at(block), v, Align::Unknown);
                })
                .unwrap();
            let module = load(&gpu, &m);
            let src = gpu.upload(&src32).unwrap();
            let mut dst = poisoned::<u32>(&gpu, blocks * 4 + 8).unwrap();
            {
                let view = src.slice(off..);
                let mut out = dst.slice_mut(off..);
                module.kernel(&kr).unwrap().launch(&Launch::new(blocks as u32 / 128, 128), (&view, &mut out)).unwrap();
            }
            let got = gpu.download(&dst).unwrap();
            let want: Vec<u32> = (0..blocks * 4)
                .map(|e| {
                    let (b, j) = (e / 4, e % 4);
                    let first = if blocks_of_4 { b * 4 } else { b };
                    src32[off + first + j]
                })
                .collect();
            check(&format!("vload u32x4 view+{off} blocks of 4: {blocks_of_4} {align:?}"), |e| e, &got[off..off + blocks * 4], &want);
        }
    }
    // f64 pairs and u8 octets through a known offset and the run-time check.
    let src64: Vec<f64> = (0..blocks * 2 + 4).map(|_| g.gen()).collect();
    let src8: Vec<u8> = (0..blocks * 8 + 8).map(|_| g.gen()).collect();
    for off in 0..2usize {
        let mut m = Module::new(target(&gpu));
        let kr = m
            .kernel("v64", |k, (x, y, b, c): (GlobalPtr<F64>, GlobalPtr<F64>, GlobalPtr<U8>, GlobalPtr<U8>)| {
                let i = k.global_thread_index_x();
                let (pair, octet) = (ptx!(k, "mul.wide.u32", i, 2u32), ptx!(k, "mul.wide.u32", i, 8u32));
                let v = k.vload::<2, _>(x.at(pair), Align::Offset(off as u32));
                k.vstore(y.at(pair), v, Align::Unknown);
                let w = k.vload::<8, _>(b.at(octet), Align::Unknown);
                k.vstore(c.at(octet), w, Align::Offset(off as u32));
            })
            .unwrap();
        let module = load(&gpu, &m);
        let (s64, s8) = (gpu.upload(&src64).unwrap(), gpu.upload(&src8).unwrap());
        let mut d64 = poisoned::<f64>(&gpu, blocks * 2 + 4).unwrap();
        let mut d8 = poisoned::<u8>(&gpu, blocks * 8 + 8).unwrap();
        {
            let (v64, v8) = (s64.slice(off..), s8.slice(off..));
            let (mut o64, mut o8) = (d64.slice_mut(off..), d8.slice_mut(off..));
            module.kernel(&kr).unwrap().launch(&Launch::new(blocks as u32 / 128, 128), (&v64, &mut o64, &v8, &mut o8)).unwrap();
        }
        check(
            &format!("vload f64x2 view+{off}"),
            |e| e,
            &gpu.download(&d64).unwrap()[off..off + blocks * 2],
            &src64[off..off + blocks * 2],
        );
        check(&format!("vload u8x8 view+{off}"), |e| e, &gpu.download(&d8).unwrap()[off..off + blocks * 8], &src8[off..off + blocks * 8]);
    }
}

fn message_passing_under_contention(gpu: Gpu) {
    let blocks = sized(gpu.multiprocessors(), 8);
    let (threads, rounds, spin_limit) = (128u32, sized(64u32, 8), 1u32 << 24);
    let mut m = Module::new(target(&gpu));
    type P = (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>);
    let kr = m
        .kernel("mp", |k, (data, flags, acks, errors): P| {
            let t = ptx!(k, "mov.u32", sreg::TID_X);
            let b = ptx!(k, "mov.u32", sreg::CTAID_X);
            let nb = ptx!(k, "mov.u32", sreg::NCTAID_X);
            let b1 = ptx!(k, "add.u32", b, 1u32);
            let src = ptx!(k, "rem.u32", b1, nb);
            let mine = ptx!(k, "mad.lo.u32", b, threads, t);
            let theirs = ptx!(k, "mad.lo.u32", src, threads, t);
            let leader = ptx!(k, "setp.eq.u32", t, 0u32);
            // Spin on `addr` until it holds at least `want`; count a timeout as an error.
            let wait = |k: &mut Kernel, addr: ptxkit::regs::Elem<ptxkit::ops::m::Global, U32, Reg<U32>>, want: Reg<U32>| {
                let n = ptx!(k, "mov.u32", 0u32);
                k.loop_(|k, l| {
                    let seen = k.ld_ordered(Acquire, GpuScope, addr);
                    let ok = ptx!(k, "setp.ge.u32", seen, want);
                    k.bra_if(ok, l.brk);
                    ptx!(k, "add.u32" => n, n, 1u32);
                    let out = ptx!(k, "setp.ge.u32", n, spin_limit);
                    k.if_(out, |k| {
                        ptx!(k, "red.global.add.u32", errors.offset(1), 1u32);
                    });
                    k.bra_if(out, l.brk);
                });
            };
            k.for_range(1u32, rounds + 1, 1, |k, r| {
                // Wait until the consumer acknowledged the previous round, then publish.
                k.if_(leader, |k| {
                    let prev = ptx!(k, "sub.u32", r, 1u32);
                    wait(k, acks.at(b), prev);
                });
                ptx!(k, "bar.sync", 0u32);
                let v = ptx!(k, "mad.lo.u32", r, 0x9E37_79B9u32, mine);
                k.st(data.at(mine), v);
                ptx!(k, "bar.sync", 0u32);
                k.if_(leader, |k| k.st_ordered(Release, GpuScope, flags.at(b), r));
                // Consume the neighbour's round r.
                k.if_(leader, |k| wait(k, flags.at(src), r));
                ptx!(k, "bar.sync", 0u32);
                let got = k.ld(data.at(theirs));
                let want = ptx!(k, "mad.lo.u32", r, 0x9E37_79B9u32, theirs);
                let bad = ptx!(k, "setp.ne.u32", got, want);
                k.if_(bad, |k| {
                    ptx!(k, "red.global.add.u32", errors.offset(0), 1u32);
                });
                ptx!(k, "bar.sync", 0u32);
                k.if_(leader, |k| k.st_ordered(Release, GpuScope, acks.at(src), r));
            });
        })
        .unwrap();
    let module = load(&gpu, &m);
    let mut data = poisoned::<u32>(&gpu, (blocks * threads) as usize).unwrap();
    let (mut flags, mut acks) = (gpu.zeros::<u32>(blocks as usize).unwrap(), gpu.zeros::<u32>(blocks as usize).unwrap());
    let mut errors = gpu.zeros::<u32>(2).unwrap();
    module.kernel(&kr).unwrap().launch(&Launch::new(blocks, threads), (&mut data, &mut flags, &mut acks, &mut errors)).unwrap();
    let e = gpu.download(&errors).unwrap();
    println!("message passing: {blocks} blocks x {rounds} rounds, {} stale reads, {} timeouts", e[0], e[1]);
    assert_eq!(e, [0, 0], "stale reads after acquire, or timeouts");
    assert!(gpu.download(&flags).unwrap().iter().all(|f| *f == rounds));
}

fn shfl_cpu(vals: &[u64], dir: Shfl, d: u32) -> Vec<u64> {
    (0..32u32)
        .map(|l| {
            let j = match dir {
                Shfl::Up => l.checked_sub(d).unwrap_or(l),
                Shfl::Down => {
                    if l + d < 32 {
                        l + d
                    } else {
                        l
                    }
                }
                Shfl::Xor => l ^ d,
                Shfl::Idx => d,
            };
            vals[j as usize]
        })
        .collect()
}

fn shuffles_of_multi_word_values(gpu: Gpu) {
    let mut g = rng("shuffles_of_multi_word_values");
    let n = 32 * 64;
    let a: Vec<u64> = (0..n).map(|_| g.gen()).collect();
    let b: Vec<u32> = (0..n).map(|_| g.gen()).collect();
    for (dir, d) in
        [(Shfl::Up, g.gen_range(1..32)), (Shfl::Down, g.gen_range(1..32)), (Shfl::Xor, g.gen_range(1..32)), (Shfl::Idx, g.gen_range(0..32))]
    {
        let mut m = Module::new(target(&gpu));
        let kr = m
            .kernel("shfl", |k, (x, y, o64, o32): (GlobalPtr<U64>, GlobalPtr<U32>, GlobalPtr<U64>, GlobalPtr<U32>)| {
                let i = k.global_thread_index_x();
                let (u, v) = (k.ld(x.at(i)), k.ld(y.at(i)));
                let h = ptx!(k, "cvt.u16.u32", v);
                let p = ptx!(k, "setp.lt.u32", v, 0x8000_0000u32);
                // A struct of a u64, a u16 and a predicate, and an array of three u32.
                let (su, sh, sp) = k.shfl(dir, (u, h, p), d, LaneMask::FULL);
                let arr = k.shfl(dir, [v, v, v], d, LaneMask::FULL);
                k.st(o64.at(i), su);
                let hw = ptx!(k, "cvt.u32.u16", sh);
                let pw = ptx!(k, "selp.u32", 0x1_0000u32, 0u32, sp);
                let packed = ptx!(k, "or.b32", hw.bitcast::<B32>(), pw.bitcast::<B32>());
                let x1 = ptx!(k, "xor.b32", arr[0].bitcast::<B32>(), arr[2].bitcast::<B32>());
                let all = ptx!(k, "xor.b32", packed, x1);
                k.st(o32.at(i), all.bitcast::<U32>());
            })
            .unwrap();
        let module = load(&gpu, &m);
        let (da, db) = (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap());
        let (mut o64, mut o32) = (poisoned::<u64>(&gpu, n).unwrap(), poisoned::<u32>(&gpu, n).unwrap());
        module.kernel(&kr).unwrap().launch(&Launch::new(n as u32 / 128, 128), (&da, &db, &mut o64, &mut o32)).unwrap();
        let want64: Vec<u64> = a.chunks(32).flat_map(|w| shfl_cpu(w, dir, d)).collect();
        let b64: Vec<u64> = b.iter().map(|x| *x as u64).collect();
        let want32: Vec<u32> = b64
            .chunks(32)
            .flat_map(|w| shfl_cpu(w, dir, d))
            .map(|v| (v as u32 & 0xffff) | if (v as u32) < 0x8000_0000 { 0x1_0000 } else { 0 })
            .collect();
        check(&format!("shfl {dir:?} {d} of (u64, u16, pred)"), |i| i, &gpu.download(&o64).unwrap(), &want64);
        check(&format!("shfl {dir:?} {d} of [u32; 3] and (u16, pred)"), |i| i, &gpu.download(&o32).unwrap(), &want32);
    }
}

fn warp_scans_reductions_and_votes_with_masks(gpu: Gpu) {
    let mut g = rng("warp_scans_reductions_and_votes_with_masks");
    let warps = 128usize;
    let n = warps * 32;
    let a: Vec<u32> = (0..n).map(|_| g.gen::<u32>() | 1).collect();
    let b: Vec<u32> = (0..n).map(|_| g.gen()).collect();
    let w64: Vec<u64> = (0..n).map(|_| g.gen()).collect();
    // Per warp: the full mask, one lane, or random sets.
    let masks: Vec<u32> = (0..warps)
        .map(|w| match w % 4 {
            0 => u32::MAX,
            1 => 1 << g.gen_range(0..32),
            _ => g.gen::<u32>() | 1 << g.gen_range(0..32),
        })
        .collect();
    for full_path in [false, true] {
        let mut m = Module::new(target(&gpu));
        type P = (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U64>, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U64>);
        let kr = m
            .kernel("warp", |k, (x, y, z, masks, out, out64): P| {
                let i = k.global_thread_index_x();
                let lane = k.lane_id();
                let warp = ptx!(k, "shr.u32", i, 5u32);
                let mask = k.ld(masks.at(warp)).bitcast::<B32>();
                let mine = ptx!(k, "shr.b32", mask, lane);
                let bit = ptx!(k, "and.b32", mine, 1u32);
                let inm = ptx!(k, "setp.ne.b32", bit, 0u32);
                k.if_(inm, |k| {
                    let lm = if full_path { LaneMask::FULL } else { LaneMask::reg(mask) };
                    let v: Affine = (k.ld(x.at(i)), k.ld(y.at(i)));
                    let one = ptx!(k, "mov.u32", 1u32);
                    let zero = ptx!(k, "mov.u32", 0u32);
                    let inc = k.warp_scan(v, lm, compose);
                    let exc = k.warp_scan_exclusive(v, (one, zero), lm, compose);
                    let red = k.warp_reduce(v, lm, compose);
                    let u = k.ld(z.at(i));
                    // A commutative operator: the plain butterfly over the full warp.
                    let r64 = k.warp_reduce_commutative(u, lm, |k, p, q| ptx!(k, "add.u64", p, q));
                    let p = ptx!(k, "setp.lt.u32", v.1, 0x8000_0000u32);
                    let ball = k.ballot(p, lm);
                    let all = k.vote_all(p, lm);
                    let any = k.vote_any(p, lm);
                    let uni = k.vote_uni(p, lm);
                    let votes = [all, any, uni].into_iter().enumerate().fold(ptx!(k, "mov.u32", 0u32), |acc, (j, q)| {
                        let s = ptx!(k, "selp.u32", 1u32 << j, 0u32, q);
                        ptx!(k, "or.b32", acc.bitcast::<B32>(), s.bitcast::<B32>()).bitcast()
                    });
                    let base = ptx!(k, "mul.lo.u32", i, 8u32);
                    for (j, v) in [inc.0, inc.1, exc.0, exc.1, red.0, red.1, ball.bitcast(), votes].into_iter().enumerate() {
                        let at = ptx!(k, "add.u32", base, j as u32);
                        k.st(out.at(at), v);
                    }
                    k.st(out64.at(i), r64);
                });
            })
            .unwrap();
        let module = load(&gpu, &m);
        let use_masks: Vec<u32> = if full_path { vec![u32::MAX; warps] } else { masks.clone() };
        let (dx, dy, dz, dm) =
            (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap(), gpu.upload(&w64).unwrap(), gpu.upload(&use_masks).unwrap());
        let (mut out, mut out64) = (poisoned::<u32>(&gpu, n * 8).unwrap(), poisoned::<u64>(&gpu, n).unwrap());
        module.kernel(&kr).unwrap().launch(&Launch::new(warps as u32 / 4, 128), (&dx, &dy, &dz, &dm, &mut out, &mut out64)).unwrap();
        let (out, out64) = (gpu.download(&out).unwrap(), gpu.download(&out64).unwrap());
        let mut want = vec![u32::MAX; n * 8];
        let mut want64 = vec![u64::MAX; n];
        for w in 0..warps {
            let mask = use_masks[w];
            let lanes: Vec<usize> = (0..32).filter(|l| mask >> l & 1 == 1).collect();
            let vals: Vec<(u32, u32)> = lanes.iter().map(|l| (a[w * 32 + l], b[w * 32 + l])).collect();
            let total = vals.iter().copied().reduce(compose_cpu).unwrap();
            let s64 = lanes.iter().fold(0u64, |s, l| s.wrapping_add(w64[w * 32 + l]));
            let preds: Vec<bool> = vals.iter().map(|v| v.1 < 0x8000_0000).collect();
            let ballot = lanes.iter().zip(&preds).fold(0u32, |m, (l, p)| m | (*p as u32) << l);
            let (all, any) = (preds.iter().all(|p| *p), preds.iter().any(|p| *p));
            let votes = all as u32 | (any as u32) << 1 | ((all || !any) as u32) << 2;
            let mut acc: Option<(u32, u32)> = None;
            for (r, l) in lanes.iter().enumerate() {
                let exc = acc.unwrap_or((1, 0));
                let inc = acc.map_or(vals[r], |p| compose_cpu(p, vals[r]));
                acc = Some(inc);
                let i = w * 32 + l;
                want[i * 8..i * 8 + 8].copy_from_slice(&[inc.0, inc.1, exc.0, exc.1, total.0, total.1, ballot, votes]);
                want64[i] = s64;
            }
        }
        let what = if full_path { "full mask" } else { "partial masks" };
        check(&format!("warp scan/exclusive/reduce/votes, {what}"), |j| (j / 8 / 32, (j / 8) % 32, j % 8), &out, &want);
        check(&format!("warp reduce u64, {what}"), |i| (i / 32, i % 32), &out64, &want64);
    }
}

fn block_case<const B: usize>(gpu: &Gpu, g: &mut StdRng)
where
    Count<B>: WarpMultiple,
{
    let blocks = 64usize;
    let n = blocks * B;
    let a: Vec<u32> = (0..n).map(|_| g.gen::<u32>() | 1).collect();
    let b: Vec<u32> = (0..n).map(|_| g.gen()).collect();
    let mut m = Module::new(target(gpu));
    let kr = m
        .kernel("block", |k, (x, y, out): (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>)| {
            let i = k.global_thread_index_x();
            let v: Affine = (k.ld(x.at(i)), k.ld(y.at(i)));
            let one = ptx!(k, "mov.u32", 1u32);
            let zero = ptx!(k, "mov.u32", 0u32);
            let red = k.block_reduce::<B, _>(v, compose);
            let inc = k.block_scan::<B, _>(v, compose);
            let exc = k.block_scan_exclusive::<B, _>(v, (one, zero), compose);
            let sum = k.block_reduce_commutative::<B, _>(v.0, |k, p, q| ptx!(k, "add.u32", p, q));
            let base = ptx!(k, "mul.lo.u32", i, 7u32);
            for (j, v) in [red.0, red.1, inc.0, inc.1, exc.0, exc.1, sum].into_iter().enumerate() {
                let at = ptx!(k, "add.u32", base, j as u32);
                k.st(out.at(at), v);
            }
        })
        .unwrap();
    let module = load(gpu, &m);
    let (dx, dy) = (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap());
    let mut out = poisoned::<u32>(gpu, n * 7).unwrap();
    module.kernel(&kr).unwrap().launch(&Launch::new(blocks as u32, B as u32), (&dx, &dy, &mut out)).unwrap();
    let mut want = Vec::with_capacity(n * 7);
    for blk in 0..blocks {
        let vals: Vec<(u32, u32)> = (0..B).map(|t| (a[blk * B + t], b[blk * B + t])).collect();
        let total = vals.iter().copied().reduce(compose_cpu).unwrap();
        let sum = vals.iter().fold(0u32, |s, v| s.wrapping_add(v.0));
        let mut acc = (1u32, 0u32);
        for v in vals {
            let inc = compose_cpu(acc, v);
            want.extend([total.0, total.1, inc.0, inc.1, acc.0, acc.1, sum]);
            acc = inc;
        }
    }
    check(
        &format!("block reduce/scan/exclusive/commutative sum, {B} threads"),
        |j| (j / 7 / B, (j / 7) % B, j % 7),
        &gpu.download(&out).unwrap(),
        &want,
    );
}

fn block_collectives_for_several_block_sizes(gpu: Gpu) {
    let mut g = rng("block_collectives_for_several_block_sizes");
    block_case::<32>(&gpu, &mut g);
    block_case::<96>(&gpu, &mut g);
    block_case::<256>(&gpu, &mut g);
    block_case::<1024>(&gpu, &mut g);
}

/// `kernels::scan_single_pass` at one shape over sizes around its tile: small integers as
/// f32, so every prefix is exact and the check is bit for bit; two spare blocks (which must
/// find no tile and exit) and a poisoned guard region past `n` (which must stay poisoned).
fn single_pass_case<const B: usize>(gpu: &Gpu, g: &mut StdRng, items: u32)
where
    Count<B>: WarpMultiple,
{
    let tile = B * items as usize;
    let mut m = Module::new(target(gpu));
    let kr = ptxkit::kernels::scan_single_pass::<B>(&mut m, "scan", items, 0).unwrap();
    let module = load(gpu, &m);
    let scan = module.kernel(&kr).unwrap();
    const GUARD: usize = 64;
    for n in [0, 1, 31, tile - 1, tile, tile + 1, 5 * tile + 77, g.gen_range(1..sized(1 << 20, 1 << 14))] {
        let x: Vec<f32> = (0..n).map(|_| g.gen_range(0..16u32) as f32).collect();
        // (A zero-length buffer cannot be allocated; n = 0 reads nothing.)
        let dx = if n == 0 { gpu.zeros::<f32>(1) } else { gpu.upload(&x) }.unwrap();
        let mut y = poisoned::<f32>(gpu, n + GUARD).unwrap();
        let blocks = n.div_ceil(tile) + 2;
        let mut status = gpu.zeros::<u64>(blocks).unwrap();
        let mut counter = gpu.zeros::<u32>(1).unwrap();
        scan.launch(&Launch::new(blocks as u32, B as u32), (&dx, &mut y, &mut status, &mut counter, n as u32)).unwrap();
        let mut want: Vec<f32> = x
            .iter()
            .scan(0f32, |acc, v| {
                *acc += v;
                Some(*acc)
            })
            .collect();
        want.extend([f32::from_bits(u32::from_ne_bytes([ptxkit::runtime::testing::POISON; 4])); GUARD]);
        check(&format!("single-pass scan, {B} threads x {items}, n = {n}"), |i| i, &gpu.download(&y).unwrap(), &want);
        assert_eq!(gpu.download(&counter).unwrap()[0] as usize, blocks, "every block takes one ticket");
    }
}

fn single_pass_scan_at_odd_sizes(gpu: Gpu) {
    let mut g = rng("single_pass_scan_at_odd_sizes");
    single_pass_case::<{ ptxkit::kernels::ONE_PASS_BLOCK }>(&gpu, &mut g, ptxkit::kernels::ONE_PASS_ITEMS);
    single_pass_case::<64>(&gpu, &mut g, 4);
    single_pass_case::<32>(&gpu, &mut g, 20);
}

pub const TESTS: &[Test] = &[
    gpu!(vload_vstore_on_misaligned_views),
    gpu!(message_passing_under_contention),
    gpu!(shuffles_of_multi_word_values),
    gpu!(warp_scans_reductions_and_votes_with_masks),
    gpu!(block_collectives_for_several_block_sizes),
    gpu!(single_pass_scan_at_odd_sizes),
];
