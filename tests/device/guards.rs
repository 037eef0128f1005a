//! Guarded helper calls on the GPU: `Kernel::guarded` and `ptx!(k, @p, ...)` take effect
//! only in threads where the predicate holds. Outputs are poisoned first, so a store that
//! ran where it should not have, or did not run where it should, shows.

use super::*;
use ptxkit::intrinsics::vector::Align;
use ptxkit::runtime::testing::POISON;
use rand::Rng;

type P = (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>);

fn guarded_helpers_run_only_where_the_predicate_holds(gpu: Gpu) {
    let mut g = rng("guarded_helpers_run_only_where_the_predicate_holds");
    let n = N;
    let x: Vec<u32> = (0..n + 3).map(|_| g.gen_range(0..1 << 24)).collect();
    let mask: Vec<u32> = (0..n).map(|_| g.gen_range(0..2)).collect();
    let mut m = Module::new(target(&gpu));
    let kr = m
        .kernel("guards", |k, (x, mask, y, z, s, n): P| {
            let i = k.global_thread_index_x();
            let inb = ptx!(k, "setp.lt.u32", i, n);
            k.if_(inb, |k| {
                let mi = k.ld(mask.at(i));
                let p = ptx!(k, "setp.ne.u32", mi, 0u32);
                // A scope: the address arithmetic, the load, the add and the store.
                k.guarded(p, |k| {
                    let v = k.ld(x.at(i));
                    let w = ptx!(k, "add.u32", v, 1u32);
                    k.st(y.at(i), w);
                });
                // Explicit guards on single instructions, the other way round.
                let v = ptx!(k, @!p, "ld.global.u32", x.at(i));
                let t = ptx!(k, @!p, "mul.lo.u32", v, 3u32);
                ptx!(k, @!p, "st.global.u32", z.at(i), t);
                // A scope around a helper with branches of its own (a run-time alignment
                // check), and a nested scope inside it.
                let five = ptx!(k, "rem.u32", i, 5u32);
                let q = ptx!(k, "setp.ne.u32", five, 0u32);
                k.guarded(p, |k| {
                    let v = k.vload::<4, _>(x.at(i), Align::Unknown);
                    let a = ptx!(k, "add.u32", v[0], v[1]);
                    let b = ptx!(k, "add.u32", v[2], v[3]);
                    let sum = ptx!(k, "add.u32", a, b);
                    k.guarded(q, |k| k.st(s.at(i), sum));
                });
            });
        })
        .unwrap();
    let module = load(&gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let (dx, dm) = (gpu.upload(&x).unwrap(), gpu.upload(&mask).unwrap());
    let (mut y, mut z, mut s) = (poisoned::<u32>(&gpu, n).unwrap(), poisoned::<u32>(&gpu, n).unwrap(), poisoned::<u32>(&gpu, n).unwrap());
    kern.launch(&Launch::cover(n as u32, 256), (&dx, &dm, &mut y, &mut z, &mut s, n as u32)).unwrap();
    let poison = u32::from_ne_bytes([POISON; 4]);
    let want_y: Vec<u32> = (0..n).map(|i| if mask[i] != 0 { x[i] + 1 } else { poison }).collect();
    let want_z: Vec<u32> = (0..n).map(|i| if mask[i] == 0 { x[i] * 3 } else { poison }).collect();
    let want_s: Vec<u32> =
        (0..n).map(|i| if mask[i] != 0 && i % 5 != 0 { x[i] + x[i + 1] + x[i + 2] + x[i + 3] } else { poison }).collect();
    let inputs = |i: usize| (mask[i], x[i]);
    check("guarded scope: ld, add, st", inputs, &gpu.download(&y).unwrap(), &want_y);
    check("explicit @!p guards", inputs, &gpu.download(&z).unwrap(), &want_z);
    check("guarded vload with branches, nested scope", inputs, &gpu.download(&s).unwrap(), &want_s);
}

/// `Kernel::switch_` (a `.branchtargets` list and `brx.idx`) takes each thread to its own
/// case, divergent within warps, and an index past the cases to none; a warp-uniform
/// `brx.idx.uni` after it.
fn jump_tables_take_each_thread_to_its_case(gpu: Gpu) {
    let mut g = rng("jump_tables_take_each_thread_to_its_case");
    let n = N;
    const CASES: usize = 7;
    // Indices 0..=9: three of ten past the cases.
    let sel: Vec<u32> = (0..n).map(|_| g.gen_range(0..10)).collect();
    let x: Vec<u32> = (0..n).map(|_| g.gen()).collect();
    let mut m = Module::new(target(&gpu));
    let kr = m
        .kernel("jump", |k, (sel, x, y, n): (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>)| {
            let i = k.global_thread_index_x();
            let inb = ptx!(k, "setp.lt.u32", i, n);
            k.if_(inb, |k| {
                let s = k.ld(sel.at(i));
                let v = k.ld(x.at(i));
                let r = ptx!(k, "mov.u32", 0xdead_beefu32);
                k.switch_(s, CASES, |k, case| {
                    let t = ptx!(k, "mul.lo.u32", v, case as u32 + 2);
                    let u = ptx!(k, "add.u32", t, case as u32);
                    k.assign(r, u);
                });
                // Every thread of a warp takes the same entry of a two-entry list.
                let w = ptx!(k, "shr.u32", i, 5u32);
                let odd = ptx!(k, "and.b32", w, 1u32).bitcast::<U32>();
                let (even_warp, odd_warp, end) = (k.label(), k.label(), k.label());
                let list = k.branch_targets(&[even_warp, odd_warp]);
                ptx!(k, "brx.idx.uni", odd, list);
                k.place(odd_warp);
                ptx!(k, "xor.b32" => r.bitcast::<B32>(), r.bitcast::<B32>(), 0x8000_0000u32);
                k.bra(end);
                k.place(even_warp);
                k.place(end);
                k.st(y.at(i), r);
            });
        })
        .unwrap();
    let module = load(&gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let (ds, dx) = (gpu.upload(&sel).unwrap(), gpu.upload(&x).unwrap());
    let mut y = poisoned::<u32>(&gpu, n).unwrap();
    kern.launch(&Launch::cover(n as u32, 256), (&ds, &dx, &mut y, n as u32)).unwrap();
    let want: Vec<u32> = (0..n)
        .map(|i| {
            let s = sel[i] as usize;
            let r = if s < CASES { x[i].wrapping_mul(s as u32 + 2).wrapping_add(s as u32) } else { 0xdead_beef };
            if (i / 32) % 2 == 1 {
                r ^ 0x8000_0000
            } else {
                r
            }
        })
        .collect();
    check("switch_ and brx.idx.uni", |i: usize| (sel[i], x[i]), &gpu.download(&y).unwrap(), &want);
}

pub const TESTS: &[Test] = &[gpu!(guarded_helpers_run_only_where_the_predicate_holds), gpu!(jump_tables_take_each_thread_to_its_case)];
