//! Warp collectives against a CPU model of each warp: shfl.sync (all modes, with the
//! in-range predicate), vote, match, redux, elect, activemask.

use super::*;
use rand::Rng;

const WARPS: usize = 64;
const T: usize = WARPS * 32;

/// Runs a kernel where thread `i` reads `a[i]`, `b[i]` and writes `out[i]`.
fn warp_kernel(gpu: &Gpu, a: &[u32], b: &[u32], body: impl FnOnce(&mut Kernel, Reg<U32>, Reg<U32>, Reg<U32>) -> Reg<U32>) -> Vec<u32> {
    let mut m = Module::new(target(gpu));
    let kr = m
        .kernel("warp", |k, (x, y, out): (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>)| {
            let i = k.global_thread_index_x();
            let lane = ptx!(k, "mov.u32", sreg::LANEID);
            let (u, v) = (k.ld(x.at(i)), k.ld(y.at(i)));
            let r = body(k, u, v, lane);
            k.st(out.at(i), r);
        })
        .unwrap();
    let module = load(gpu, &m);
    let (da, db) = (gpu.upload(a).unwrap(), gpu.upload(b).unwrap());
    let mut out = poisoned::<u32>(gpu, a.len()).unwrap();
    module.kernel(&kr).unwrap().launch(&Launch::new(a.len() as u32 / 128, 128), (&da, &db, &mut out)).unwrap();
    gpu.download(&out).unwrap()
}

fn shfl_model(vals: &[u32], mode: &str, bval: u32, c: u32) -> Vec<(u32, bool)> {
    let (cval, mask) = (c & 0x1f, (c >> 8) & 0x1f);
    (0..32u32)
        .map(|lane| {
            let max_lane = (lane & mask) | (cval & !mask);
            let min_lane = lane & mask;
            let (j, p) = match mode {
                "up" => {
                    let j = lane as i32 - (bval & 31) as i32;
                    (j, j >= max_lane as i32)
                }
                "down" => {
                    let j = (lane + (bval & 31)) as i32;
                    (j, j <= max_lane as i32)
                }
                "bfly" => {
                    let j = (lane ^ (bval & 31)) as i32;
                    (j, j <= max_lane as i32)
                }
                _ => {
                    let j = (min_lane | ((bval & 31) & !mask)) as i32;
                    (j, j <= max_lane as i32)
                }
            };
            let j = if p { j as usize } else { lane as usize };
            (vals[j], p)
        })
        .collect()
}

fn shuffles(gpu: Gpu) {
    let mut g = rng("shuffles");
    let a: Vec<u32> = (0..T).map(|_| g.gen()).collect();
    for mode in ["up", "down", "bfly", "idx"] {
        let bval: u32 = g.gen_range(0..32);
        let c: u32 = if mode == "up" { (g.gen_range(0..4u32) * 8) << 8 } else { 0x1f | (g.gen_range(0..4u32) * 8) << 8 };
        let b = vec![bval; T];
        let got = warp_kernel(&gpu, &a, &b, |k, x, bv, _| {
            let x = x.bitcast::<B32>();
            let full = 0xffff_ffffu32;
            let (d, p) = match mode {
                "up" => ptx!(k, "shfl.sync.up.b32" as pair, x, bv, c, full),
                "down" => ptx!(k, "shfl.sync.down.b32" as pair, x, bv, c, full),
                "bfly" => ptx!(k, "shfl.sync.bfly.b32" as pair, x, bv, c, full),
                _ => ptx!(k, "shfl.sync.idx.b32" as pair, x, bv, c, full),
            };
            // Pack: value's low 31 bits, predicate in bit 31.
            let lo = ptx!(k, "and.b32", d, 0x7fff_ffffu32);
            let hi = ptx!(k, "selp.b32", 0x8000_0000u32, 0u32, p);
            ptx!(k, "or.b32", lo, hi).bitcast()
        });
        let want: Vec<u32> =
            a.chunks(32).flat_map(|w| shfl_model(w, mode, bval, c)).map(|(v, p)| v & 0x7fff_ffff | (p as u32) << 31).collect();
        check(&format!("shfl.sync.{mode} b={bval} c={c:#x}"), |i| (i % 32, a[i]), &got, &want);
    }
}

fn votes_matches_reductions(gpu: Gpu) {
    let mut g = rng("votes_matches_reductions");
    // Per warp, a predicate density from all-false to all-true; values from a small set.
    let a: Vec<u32> = (0..T)
        .map(|i| {
            let w = i / 32;
            (g.gen_range(0..32) < (w % 33)) as u32
        })
        .collect();
    let b: Vec<u32> = (0..T).map(|i| if (i / 32) % 4 == 0 { 5 } else { g.gen_range(0..4) }).collect();
    let full = 0xffff_ffffu32;
    let ballot = |w: &[u32]| w.iter().enumerate().fold(0u32, |m, (l, v)| m | (*v & 1) << l);
    let per_warp = |v: &[u32], f: &dyn Fn(&[u32], usize) -> u32| {
        v.chunks(32).flat_map(|w| (0..32).map(move |l| f(w, l)).collect::<Vec<_>>()).collect::<Vec<u32>>()
    };
    let got = warp_kernel(&gpu, &a, &b, |k, x, _, _| {
        let p = ptx!(k, "setp.ne.u32", x, 0u32);
        ptx!(k, "vote.sync.ballot.b32", p, full).bitcast()
    });
    check("vote.ballot", |i| a[i], &got, &per_warp(&a, &|w, _| ballot(w)));
    let got = warp_kernel(&gpu, &a, &b, |k, x, _, _| {
        let p = ptx!(k, "setp.ne.u32", x, 0u32);
        let all = ptx!(k, "vote.sync.all.pred", p, full);
        let any = ptx!(k, "vote.sync.any.pred", p, full);
        let uni = ptx!(k, "vote.sync.uni.pred", !p, full);
        let r0 = ptx!(k, "selp.u32", 1u32, 0u32, all);
        let r1 = ptx!(k, "selp.u32", 2u32, 0u32, any);
        let r2 = ptx!(k, "selp.u32", 4u32, 0u32, uni);
        let r = ptx!(k, "add.u32", r0, r1);
        ptx!(k, "add.u32", r, r2)
    });
    let want = per_warp(&a, &|w, _| {
        let m = ballot(w);
        (m == full) as u32 | ((m != 0) as u32) << 1 | ((m == 0 || m == full) as u32) << 2
    });
    check("vote.all/any/uni", |i| a[i], &got, &want);
    let got = warp_kernel(&gpu, &a, &b, |k, _, y, _| ptx!(k, "match.any.sync.b32", y, full).bitcast());
    check("match.any", |i| b[i], &got, &per_warp(&b, &|w, l| w.iter().enumerate().fold(0, |m, (j, v)| m | ((*v == w[l]) as u32) << j)));
    let got = warp_kernel(&gpu, &a, &b, |k, _, y, _| {
        let (d, p) = ptx!(k, "match.all.sync.b32" as pair, y, full);
        let e = ptx!(k, "selp.b32", 1u32, 0u32, p);
        ptx!(k, "xor.b32", d, e).bitcast()
    });
    check("match.all p", |i| b[i], &got, &per_warp(&b, &|w, _| if w.iter().all(|v| *v == w[0]) { full ^ 1 } else { 0 }));

    let c: Vec<u32> = (0..T).map(|_| g.gen()).collect();
    let got = warp_kernel(&gpu, &c, &b, |k, x, _, _| ptx!(k, "redux.sync.add.u32", x, full));
    check("redux.add.u32", |i| c[i], &got, &per_warp(&c, &|w, _| w.iter().fold(0u32, |s, v| s.wrapping_add(*v))));
    let got = warp_kernel(&gpu, &c, &b, |k, x, _, _| ptx!(k, "redux.sync.min.s32", x.bitcast::<S32>(), full).bitcast());
    check("redux.min.s32", |i| c[i], &got, &per_warp(&c, &|w, _| w.iter().map(|v| *v as i32).min().unwrap() as u32));
    let got = warp_kernel(&gpu, &c, &b, |k, x, _, _| ptx!(k, "redux.sync.max.u32", x, full));
    check("redux.max.u32", |i| c[i], &got, &per_warp(&c, &|w, _| *w.iter().max().unwrap()));
    let got = warp_kernel(&gpu, &c, &b, |k, x, _, _| ptx!(k, "redux.sync.xor.b32", x.bitcast::<B32>(), full).bitcast());
    check("redux.xor.b32", |i| c[i], &got, &per_warp(&c, &|w, _| w.iter().fold(0, |s, v| s ^ v)));
    let got = warp_kernel(&gpu, &c, &b, |k, x, _, _| ptx!(k, "redux.sync.or.b32", x.bitcast::<B32>(), full).bitcast());
    check("redux.or.b32", |i| c[i], &got, &per_warp(&c, &|w, _| w.iter().fold(0, |s, v| s | v)));

    // elect.sync: one leader per warp, every lane learns its lane id.
    let got = warp_kernel(&gpu, &c, &b, |k, _, _, lane| {
        let (leader, is) = ptx!(k, "elect.sync", full);
        let f = ptx!(k, "selp.u32", 0x100u32, 0u32, is);
        let l = ptx!(k, "add.u32", f, leader.bitcast::<U32>());
        let same = ptx!(k, "setp.eq.u32", leader.bitcast::<U32>(), lane);
        let g = ptx!(k, "selp.u32", 0x200u32, 0u32, same);
        ptx!(k, "add.u32", l, g)
    });
    for (w, lanes) in got.chunks(32).enumerate() {
        let leaders: Vec<usize> = (0..32).filter(|l| lanes[*l] & 0x100 != 0).collect();
        assert_eq!(leaders.len(), 1, "warp {w}: elect.sync leaders {leaders:?}");
        let lid = leaders[0] as u32;
        for (l, v) in lanes.iter().enumerate() {
            assert_eq!(v & 0xff, lid, "warp {w} lane {l}: leader id");
            assert_eq!(v & 0x200 != 0, l as u32 == lid, "warp {w} lane {l}: p set only in the leader");
            assert_eq!(v & 0x100 != 0, l as u32 == lid);
        }
    }
    // activemask: the whole warp, then the lanes inside a divergent branch.
    let got = warp_kernel(&gpu, &c, &b, |k, _, _, lane| {
        let r: Reg<U32> = ptx!(k, "activemask.b32").bitcast();
        let p = ptx!(k, "setp.lt.u32", lane, 7u32);
        k.if_(p, |k| {
            ptx!(k, "activemask.b32" => r.bitcast::<B32>());
        });
        r
    });
    check("activemask", |i| i % 32, &got, &(0..T).map(|i| if i % 32 < 7 { 0x7f } else { full }).collect::<Vec<_>>());
}

pub const TESTS: &[Test] = &[gpu!(shuffles), gpu!(votes_matches_reductions)];
