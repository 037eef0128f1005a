//! Guarded helper calls on the GPU: `Kernel::guarded` and `ptx!(k, @p, ...)` take effect
//! only in threads where the predicate holds. Outputs are poisoned first, so a store that
//! ran where it should not have, or did not run where it should, shows.

use super::*;
use ptxkit::intrinsics::vector::{Align, Index};
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
                    let v = k.vload::<4, U32, _>(x, i, Index::Direct, Align::Unknown);
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

pub const TESTS: &[Test] = &[gpu!(guarded_helpers_run_only_where_the_predicate_holds)];
