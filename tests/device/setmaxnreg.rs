//! `setmaxnreg` in a kernel whose warpgroups take different roles: 384 threads (three
//! warpgroups) under `.maxnreg 168`; warpgroup 0 gives registers back (`dec` to 40) and
//! warpgroups 1 and 2 take them (`inc` to 232), each role one branch of a single if/else on
//! the warpgroup index (128 * 168 = 128 * 40 + 256 * 232 - 256 * 168 + 128 * 168: the pool
//! balances). Both roles compute something the CPU checks. ptxas must not warn that it
//! ignored `setmaxnreg` (it does, C7508, without a register cap at entry): the module is
//! assembled with `check_clean`.

use super::*;
use rand::Rng;

const THREADS: u32 = 384;
const CTAS: u32 = 32;
const N: usize = (THREADS * CTAS) as usize;

type P = (GlobalPtr<U32>, GlobalPtr<U32>);

fn roles_kernel() -> (Module, KernelRef<P>) {
    let mut m = Module::new(Target::SM_90A);
    let kr = m
        .kernel("warpgroup_roles", |k, (x, y): P| {
            k.maxnreg(168);
            let t = ptx!(k, "mov.u32", sreg::TID_X);
            let wg = ptx!(k, "shr.u32", t, 7u32);
            let i = k.global_thread_index_x();
            let v = k.ld(x.at(i));
            let producer = ptx!(k, "setp.eq.u32", wg, 0u32);
            k.if_else(
                producer,
                |k| {
                    ptx!(k, "setmaxnreg.dec.sync.aligned.u32", Const::<40>);
                    // 3v + 1
                    let r = ptx!(k, "mad.lo.u32", v, 3u32, 1u32);
                    k.st(y.at(i), r);
                },
                |k| {
                    ptx!(k, "setmaxnreg.inc.sync.aligned.u32", Const::<232>);
                    // v * v + warpgroup
                    let r = ptx!(k, "mad.lo.u32", v, v, wg);
                    k.st(y.at(i), r);
                },
            );
        })
        .unwrap();
    (m, kr)
}

fn want(x: &[u32]) -> Vec<u32> {
    (0..N)
        .map(|i| {
            let wg = (i as u32 % THREADS) / 128;
            if wg == 0 {
                x[i].wrapping_mul(3).wrapping_add(1)
            } else {
                x[i].wrapping_mul(x[i]).wrapping_add(wg)
            }
        })
        .collect()
}

/// Without a GPU: ptxas takes the `setmaxnreg`s without a warning (no C7508), and without
/// the register cap it does warn.
fn setmaxnreg_is_not_ignored() {
    let (m, _) = roles_kernel();
    let text = m.to_ptx().unwrap();
    assert!(text.contains(".maxnreg 168"), "{text}");
    assert!(text.contains("setmaxnreg.dec.sync.aligned.u32 40;") && text.contains("setmaxnreg.inc.sync.aligned.u32 232;"), "{text}");
    let px = ptxas("setmaxnreg_is_not_ignored");
    ptxkit::ptxas::check_clean(&px, &text, Target::SM_90A, ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let uncapped = text.replace(".maxnreg 168\n", "");
    let warned =
        ptxkit::ptxas::check(&px, &uncapped, Target::SM_90A, ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("{e}\n{uncapped}"));
    assert!(warned.iter().any(|w| w.contains("setmaxnreg")), "ptxas did not say it ignores setmaxnreg without a cap: {warned:?}");
}

fn warpgroups_with_different_register_budgets(gpu: Gpu) {
    if gpu.compute_capability() != (9, 0) {
        skip(format!("setmaxnreg needs sm_90a, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("warpgroups_with_different_register_budgets");
    let x: Vec<u32> = (0..N).map(|_| g.gen()).collect();
    let (m, kr) = roles_kernel();
    let module = load(&gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let dx = gpu.upload(&x).unwrap();
    let mut y = poisoned::<u32>(&gpu, N).unwrap();
    kern.launch(&Launch::new(CTAS, THREADS), (&dx, &mut y)).unwrap();
    check("warpgroup roles after setmaxnreg", |i| (i as u32 % THREADS / 128, x[i]), &gpu.download(&y).unwrap(), &want(&x));
}

pub const TESTS: &[Test] = &[host!(setmaxnreg_is_not_ignored), gpu!(warpgroups_with_different_register_budgets)];
