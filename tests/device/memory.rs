//! Atomics under contention, shared memory and barriers (static, dynamic, above 48 KiB),
//! special registers, and loops/branches/calls, each against a CPU model.

use super::*;
use rand::Rng;

fn atomics_under_contention(gpu: Gpu) {
    let mut g = rng("atomics_under_contention");
    let threads = 1usize << 16;
    let vals: Vec<u32> = (0..threads).map(|_| g.gen()).collect();
    let buckets = 5u32;
    let mut m = Module::new(target(&gpu));
    type P = (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U64>, GlobalPtr<U32>);
    let kr = m
        .kernel("atomics", |k, (v, counters, olds, sum, misc): P| {
            let i = k.global_thread_index_x();
            let x = k.ld(v.at(i));
            let b = ptx!(k, "rem.u32", i, buckets);
            // add returning old: per bucket the olds are a permutation of 0..count.
            let old = ptx!(k, "atom.global.add.u32", counters.at(b), 1u32);
            k.st(olds.at(i), old);
            let wide = ptx!(k, "cvt.u64.u32", x);
            ptx!(k, "red.global.add.u64", sum.offset(0), wide);
            ptx!(k, "red.global.max.u32", misc.offset(0), x);
            ptx!(k, "red.global.min.u32", misc.offset(1), x);
            ptx!(k, "red.global.xor.b32", misc.cast::<B32>().offset(2), x.bitcast::<B32>());
            ptx!(k, "red.global.or.b32", misc.cast::<B32>().offset(3), x.bitcast::<B32>());
            let _ = ptx!(k, "atom.global.inc.u32", misc.offset(4), 999u32);
            // A lock-free increment through a compare-and-swap loop.
            let cur = k.ld(misc.offset(5));
            k.loop_(|k, l| {
                let next = ptx!(k, "add.u32", cur, 1u32);
                let seen =
                    ptx!(k, "atom.relaxed.gpu.global.cas.b32", misc.cast::<B32>().offset(5), cur.bitcast::<B32>(), next.bitcast::<B32>());
                let done = ptx!(k, "setp.eq.b32", seen, cur.bitcast::<B32>());
                k.bra_if(done, l.brk);
                k.assign(cur, seen.bitcast::<U32>());
            });
            let _ = ptx!(k, "atom.global.exch.b32", misc.cast::<B32>().offset(6), x.bitcast::<B32>());
        })
        .unwrap();
    let module = load(&gpu, &m);
    let dv = gpu.upload(&vals).unwrap();
    let mut counters = gpu.zeros::<u32>(buckets as usize).unwrap();
    let mut olds = poisoned::<u32>(&gpu, threads).unwrap();
    let mut sum = gpu.zeros::<u64>(1).unwrap();
    let mut misc = gpu.upload(&[0u32, u32::MAX, 0, 0, 0, 0, 12345]).unwrap();
    module.kernel(&kr).unwrap().launch(&Launch::cover(threads as u32, 256), (&dv, &mut counters, &mut olds, &mut sum, &mut misc)).unwrap();
    let (counters, olds, sum, misc) =
        (gpu.download(&counters).unwrap(), gpu.download(&olds).unwrap(), gpu.download(&sum).unwrap(), gpu.download(&misc).unwrap());
    for b in 0..buckets as usize {
        let n = (0..threads).filter(|i| i % buckets as usize == b).count();
        assert_eq!(counters[b] as usize, n, "bucket {b} count");
        let mut seen: Vec<u32> = (0..threads).filter(|i| i % buckets as usize == b).map(|i| olds[i]).collect();
        seen.sort();
        assert!(seen.iter().enumerate().all(|(j, v)| *v == j as u32), "bucket {b}: old values are not a permutation of 0..{n}");
    }
    assert_eq!(sum[0], vals.iter().map(|x| *x as u64).sum::<u64>(), "red.add.u64");
    assert_eq!(misc[0], *vals.iter().max().unwrap(), "red.max");
    assert_eq!(misc[1], *vals.iter().min().unwrap(), "red.min");
    assert_eq!(misc[2], vals.iter().fold(0, |a, b| a ^ b), "red.xor");
    assert_eq!(misc[3], vals.iter().fold(0, |a, b| a | b), "red.or");
    assert_eq!(misc[4], (threads % 1000) as u32, "atom.inc wraps at 999");
    assert_eq!(misc[5], threads as u32, "cas loop increments");
    assert!(vals.contains(&misc[6]), "exch leaves one thread's value");
}

fn shared_memory_and_barriers(gpu: Gpu) {
    let mut g = rng("shared_memory_and_barriers");
    let blocks = 96usize;
    // Static shared array of 256, dynamic shared of 1024 and of 16384 (64 KiB, opt-in).
    for (dynamic, per_block) in [(false, 256usize), (true, 1024), (true, 16384)] {
        let n = blocks * per_block;
        let a: Vec<u32> = (0..n).map(|_| g.gen()).collect();
        let mut m = Module::new(target(&gpu));
        let kr = m
            .kernel("reverse", |k, (x, y): (GlobalPtr<U32>, GlobalPtr<U32>)| {
                let s = if dynamic { k.dynamic_shared::<U32>() } else { k.shared_array::<U32>("tile", 256, 16).cast() };
                let t = ptx!(k, "mov.u32", sreg::TID_X);
                let nt = ptx!(k, "mov.u32", sreg::NTID_X);
                let cta = ptx!(k, "mov.u32", sreg::CTAID_X);
                let base = ptx!(k, "mul.lo.u32", cta, per_block as u32);
                // Each thread moves per_block / ntid elements in a strided loop.
                k.for_range(t, per_block as u32, 256, |k, j| {
                    let gi = ptx!(k, "add.u32", base, j);
                    let v = k.ld(x.at(gi));
                    k.st(s.at(j), v);
                });
                ptx!(k, "bar.sync", 0u32);
                k.for_range(t, per_block as u32, 256, |k, j| {
                    let rj = ptx!(k, "sub.u32", per_block as u32 - 1, j);
                    let v = k.ld(s.at(rj));
                    let gi = ptx!(k, "add.u32", base, j);
                    k.st(y.at(gi), v);
                });
                let _ = nt;
            })
            .unwrap();
        let module = load(&gpu, &m);
        let da = gpu.upload(&a).unwrap();
        let mut out = poisoned::<u32>(&gpu, n).unwrap();
        let cfg = Launch::new(blocks as u32, 256).shared(if dynamic { per_block as u32 * 4 } else { 0 });
        module.kernel(&kr).unwrap().launch(&cfg, (&da, &mut out)).unwrap();
        let want: Vec<u32> = a.chunks(per_block).flat_map(|c| c.iter().rev().copied().collect::<Vec<_>>()).collect();
        check(&format!("block reverse dynamic={dynamic} per_block={per_block}"), |i| i, &gpu.download(&out).unwrap(), &want);
    }
}

fn special_registers(gpu: Gpu) {
    let (gx, gy, bx, by) = (6u32, 3u32, 64u32, 2u32);
    let fields = 10usize;
    let mut m = Module::new(target(&gpu));
    let kr = m
        .kernel("sregs", |k, (out,): (GlobalPtr<U32>,)| {
            let r = |k: &mut Kernel, s: SReg<U32>| ptx!(k, "mov.u32", s);
            let (tx, ty, ntx) = (r(k, sreg::TID_X), r(k, sreg::TID_Y), r(k, sreg::NTID_X));
            let (cx, cy, ncx) = (r(k, sreg::CTAID_X), r(k, sreg::CTAID_Y), r(k, sreg::NCTAID_X));
            let lin_t = ptx!(k, "mad.lo.u32", ty, ntx, tx);
            let lin_c = ptx!(k, "mad.lo.u32", cy, ncx, cx);
            let threads = ptx!(k, "mul.lo.u32", ntx, by);
            let gid = ptx!(k, "mad.lo.u32", lin_c, threads, lin_t);
            let base = ptx!(k, "mul.lo.u32", gid, fields as u32);
            let vals = [tx, ty, ntx, cx, cy, ncx, r(k, sreg::LANEID), r(k, sreg::LANEMASK_LT), r(k, sreg::DYNAMIC_SMEM_SIZE), {
                let sm = r(k, sreg::SMID);
                let nsm = r(k, sreg::NSMID);
                let p = ptx!(k, "setp.lt.u32", sm, nsm);
                ptx!(k, "selp.u32", 1u32, 0u32, p)
            }];
            for (f, v) in vals.into_iter().enumerate() {
                let idx = ptx!(k, "add.u32", base, f as u32);
                k.st(out.at(idx), v);
            }
        })
        .unwrap();
    let module = load(&gpu, &m);
    let total = (gx * gy * bx * by) as usize;
    let mut out = poisoned::<u32>(&gpu, total * fields).unwrap();
    module.kernel(&kr).unwrap().launch(&Launch::new((gx, gy), (bx, by)).shared(512), (&mut out,)).unwrap();
    let out = gpu.download(&out).unwrap();
    let mut want = Vec::with_capacity(total * fields);
    for cy in 0..gy {
        for cx in 0..gx {
            for ty in 0..by {
                for tx in 0..bx {
                    let lane = (ty * bx + tx) % 32;
                    want.extend([tx, ty, bx, cx, cy, gx, lane, (1u32 << lane) - 1, 512, 1]);
                }
            }
        }
    }
    check("special registers", |i| (i / fields, i % fields), &out, &want);
}

fn loops_branches_and_calls(gpu: Gpu) {
    let mut g = rng("loops_branches_and_calls");
    let a: Vec<u32> = (0..N).map(|_| g.gen_range(1..100_000)).collect();
    let mut m = Module::new(target(&gpu));
    let f = m
        .func("mix", |k, (x, y): (Reg<U32>, Reg<U32>)| {
            let p = ptx!(k, "mul.lo.u32", x, 2654435761u32);
            ptx!(k, "xor.b32", p, y).bitcast::<U32>()
        })
        .unwrap();
    let kr = m
        .kernel("control", |k, (x, out): (GlobalPtr<U32>, GlobalPtr<U32>)| {
            let i = k.global_thread_index_x();
            let v = k.ld(x.at(i));
            // Collatz steps (bounded), with an if/else on parity.
            let n = ptx!(k, "mov.u32", v);
            let steps = ptx!(k, "mov.u32", 0u32);
            k.while_(
                |k| ptx!(k, "setp.gt.u32", n, 1u32),
                |k| {
                    let odd = ptx!(k, "and.b32", n.bitcast::<B32>(), 1u32);
                    let p = ptx!(k, "setp.ne.b32", odd, 0u32);
                    k.if_else(
                        p,
                        |k| {
                            ptx!(k, "mad.lo.u32" => n, n, 3u32, 1u32);
                        },
                        |k| {
                            ptx!(k, "shr.u32" => n, n, 1u32);
                        },
                    );
                    ptx!(k, "add.u32" => steps, steps, 1u32);
                },
            );
            // A counted loop calling a device function, with an early break.
            let h = ptx!(k, "mov.u32", v);
            let lim = ptx!(k, "rem.u32", v, 37u32);
            k.loop_(|k, l| {
                let done = ptx!(k, "setp.eq.u32", lim, 0u32);
                k.bra_if(done, l.brk);
                let r = k.call(&f, (h, lim));
                k.assign(h, r);
                ptx!(k, "sub.u32" => lim, lim, 1u32);
            });
            let acc = ptx!(k, "mov.u32", 0u32);
            k.for_range(0u32, steps, 3, |k, j| {
                ptx!(k, "add.u32" => acc, acc, j);
            });
            let t = ptx!(k, "shl.b32", steps.bitcast::<B32>(), 20u32).bitcast::<U32>();
            let s1 = ptx!(k, "add.u32", t, acc);
            let s2 = ptx!(k, "xor.b32", s1.bitcast::<B32>(), h.bitcast::<B32>());
            k.st(out.cast::<B32>().at(i), s2);
        })
        .unwrap();
    let module = load(&gpu, &m);
    let da = gpu.upload(&a).unwrap();
    let mut out = poisoned::<u32>(&gpu, N).unwrap();
    module.kernel(&kr).unwrap().launch(&Launch::cover(N as u32, 128), (&da, &mut out)).unwrap();
    let want: Vec<u32> = a
        .iter()
        .map(|&v| {
            let (mut n, mut steps) = (v, 0u32);
            while n > 1 {
                n = if n & 1 == 1 { n.wrapping_mul(3).wrapping_add(1) } else { n >> 1 };
                steps += 1;
            }
            let mut h = v;
            for lim in (1..=v % 37).rev() {
                h = h.wrapping_mul(2654435761) ^ lim;
            }
            let acc: u32 = (0..steps).step_by(3).sum();
            (steps << 20).wrapping_add(acc) ^ h
        })
        .collect();
    check("collatz/loop/call", |i| a[i], &gpu.download(&out).unwrap(), &want);
}

/// Device functions of the `.param` ABI: direct calls, `call.uni`, calls through the
/// function's address (chosen per thread from two functions of one signature),
/// 16- and 64-bit values, and a `.reg`-ABI call beside them.
fn calls_with_the_param_abi(gpu: Gpu) {
    use ptxkit::builder::FuncPtr;
    let mut g = rng("calls_with_the_param_abi");
    let a: Vec<u32> = (0..N).map(|_| g.gen()).collect();
    let mut m = Module::new(target(&gpu));
    // (x, y) -> x * 3 + y, and (x, y) -> (x ^ y) as u64 << 7
    let two = m
        .func_with("two", Abi::Param, |k, (x, y): (Reg<U32>, Reg<U16>)| {
            let y32 = ptx!(k, "cvt.u32.u16", y);
            ptx!(k, "mad.lo.u32", x, 3u32, y32)
        })
        .unwrap();
    let widen = m
        .func_with("widen", Abi::Param, |k, (x, y): (Reg<U32>, Reg<U16>)| {
            let y32 = ptx!(k, "cvt.u32.u16", y);
            let t = ptx!(k, "xor.b32", x.bitcast::<B32>(), y32.bitcast::<B32>());
            let w = ptx!(k, "cvt.u64.u32", t.bitcast::<U32>());
            ptx!(k, "shl.b64", w.bitcast::<B64>(), 7u32).bitcast::<U64>()
        })
        .unwrap();
    let inc = m.func_with("inc", Abi::Param, |k, (x,): (Reg<U32>,)| ptx!(k, "add.u32", x, 1u32)).unwrap();
    let dbl = m.func_with("dbl", Abi::Param, |k, (x,): (Reg<U32>,)| ptx!(k, "shl.b32", x.bitcast::<B32>(), 1u32).bitcast::<U32>()).unwrap();
    let rotl = m
        .func("rotl", |k, (x,): (Reg<U32>,)| ptx!(k, "shf.l.wrap.b32", x.bitcast::<B32>(), x.bitcast::<B32>(), 5u32).bitcast::<U32>())
        .unwrap();
    let kr = m
        .kernel("calls", |k, (x, out, wide): (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U64>)| {
            let i = k.global_thread_index_x();
            let v = k.ld(x.at(i));
            let h = ptx!(k, "cvt.u16.u32", v);
            let s = k.call(&two, (v, h));
            let w = k.call(&widen, (v, h));
            let u = k.call_uni(&inc, (s,));
            // Odd values go through `dbl`'s address, even ones through `inc`'s.
            let odd = ptx!(k, "and.b32", v.bitcast::<B32>(), 1u32);
            let p = ptx!(k, "setp.ne.b32", odd, 0u32);
            let (fi, fd) = (k.func_addr(&inc), k.func_addr(&dbl));
            let f = FuncPtr::select(k, p, fd, fi);
            let via = k.call_indirect(f, (u,));
            let r = k.call(&rotl, (via,));
            k.st(out.at(i), r);
            k.st(wide.at(i), w);
        })
        .unwrap();
    let module = load(&gpu, &m);
    let da = gpu.upload(&a).unwrap();
    let (mut out, mut wide) = (poisoned::<u32>(&gpu, N).unwrap(), poisoned::<u64>(&gpu, N).unwrap());
    module.kernel(&kr).unwrap().launch(&Launch::cover(N as u32, 128), (&da, &mut out, &mut wide)).unwrap();
    let want: Vec<u32> = a
        .iter()
        .map(|&v| {
            let s = v.wrapping_mul(3).wrapping_add(v & 0xffff);
            let u = s.wrapping_add(1);
            let via = if v & 1 == 1 { u << 1 } else { u + 1 };
            via.rotate_left(5)
        })
        .collect();
    let want_wide: Vec<u64> = a.iter().map(|&v| ((v ^ (v & 0xffff)) as u64) << 7).collect();
    check("param-ABI calls: two, call.uni inc, indirect inc/dbl, reg-ABI rotl", |i| a[i], &gpu.download(&out).unwrap(), &want);
    check("param-ABI call: 64-bit result", |i| a[i], &gpu.download(&wide).unwrap(), &want_wide);
}

pub const TESTS: &[Test] = &[
    gpu!(atomics_under_contention),
    gpu!(shared_memory_and_barriers),
    gpu!(special_registers),
    gpu!(loops_branches_and_calls),
    gpu!(calls_with_the_param_abi),
];
