//! Cluster launch control (sm_100): every CTA of a grid larger than the GPU holds at once
//! processes its own work item, then keeps asking to cancel a cluster that has not started
//! (`clusterlaunchcontrol.try_cancel`, 16 response bytes completing on an mbarrier) and
//! processes the work item of each cluster it canceled, until a request fails. The launch has
//! no cluster attribute, so each cluster is one CTA.
//!
//! Checked on the host: every work item is processed exactly once (an atomic count per item)
//! with the right value; the number of successful cancellations equals the number of items
//! processed by a CTA other than their own; `get_first_ctaid::x` and the `.v4` form agree, with
//! y = z = 0; and no wait ran out. Each wait is bounded, and so is the number of requests.

use super::*;
use ptxkit::intrinsics::mbarrier::{Mbarrier, Publish};
use rand::Rng;

/// CTAs of one warp: far more than the GPU holds at once, so that some are still waiting when
/// others ask to cancel them.
const CTAS: u32 = 1 << 14;
const TRIES: u32 = 1 << 20;

/// What a work item computes from its input.
fn work_value(x: u32) -> u32 {
    x.wrapping_mul(2_654_435_761).wrapping_add(1)
}

type P = (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>);

/// A bounded wait for the phase of parity `parity`, with acquire semantics at cluster scope
/// (the scope at which the response's completion is signalled). A wait that runs out adds one
/// to `timeouts`.
fn wait_cluster_scope(k: &mut Kernel, bar: Mbarrier, parity: Reg<U32>, timeouts: Reg<U32>) -> Reg<Pred> {
    let done: Reg<Pred> = k.reg();
    ptx!(k, "mov.pred" => done, false);
    let tries = ptx!(k, "mov.u32", 0u32);
    k.loop_(|k, l| {
        ptx!(k, "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64" => done, bar.ptr(), parity);
        k.bra_if(done, l.brk);
        ptx!(k, "add.u32" => tries, tries, 1u32);
        let more = ptx!(k, "setp.lt.u32", tries, TRIES);
        k.bra_if(more, l.cont);
        ptx!(k, "add.u32" => timeouts, timeouts, 1u32);
        k.bra(l.brk);
    });
    done
}

/// Thread 0 of each CTA: item `%ctaid.x`, then one item per successful cancellation.
/// `count[w]` counts how often item `w` was processed, `by[w]` says which CTA did it;
/// `stats[3c..3c+3]` are CTA `c`'s cancellations, timeouts and id mismatches.
fn steal_kernel() -> (Module, KernelRef<P>) {
    let mut m = Module::new(Target::SM_100);
    let kr = m
        .kernel("steal_clusters", |k, (x, out, count, by, stats): P| {
            let resp = k.shared_array::<B128>("resp", 1, 16);
            let bars = k.mbarriers("bar", 1);
            let bar = bars.get(0);
            k.init_barriers(Publish::Cluster, |k| bars.init(k, 1));
            let me = ptx!(k, "mov.u32", sreg::CTAID_X);
            let t = ptx!(k, "mov.u32", sreg::TID_X);
            let first = ptx!(k, "setp.eq.u32", t, 0u32);
            k.if_(first, |k| {
                let process = |k: &mut Kernel, w: Reg<U32>| {
                    let v = k.ld(x.at(w));
                    let r = ptx!(k, "mad.lo.u32", v, 2_654_435_761u32, 1u32);
                    k.st(out.at(w), r);
                    let _ = ptx!(k, "atom.global.add.u32", count.at(w), 1u32);
                    k.st(by.at(w), me);
                };
                process(k, me);
                let (cancels, timeouts, mismatches) = (ptx!(k, "mov.u32", 0u32), ptx!(k, "mov.u32", 0u32), ptx!(k, "mov.u32", 0u32));
                let parity = ptx!(k, "mov.u32", 0u32);
                k.loop_(|k, l| {
                    let _ = bar.arrive_expect_tx(k, 16u32);
                    ptx!(k, "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128", resp, bar.ptr());
                    let done = wait_cluster_scope(k, bar, parity, timeouts);
                    k.bra_if(!done, l.brk);
                    let h = ptx!(k, "ld.shared.b128", resp);
                    let canceled = ptx!(k, "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128", h);
                    // After a failed request, another one is undefined: stop at the first.
                    k.bra_if(!canceled, l.brk);
                    let w = ptx!(k, "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128", h);
                    let xyz = ptx!(k, "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128", h);
                    let same_x = ptx!(k, "setp.eq.b32", xyz[0], w);
                    let y0 = ptx!(k, "setp.eq.b32", xyz[1], 0u32);
                    let z0 = ptx!(k, "setp.eq.b32", xyz[2], 0u32);
                    let a = ptx!(k, "and.pred", same_x, y0);
                    let ok = ptx!(k, "and.pred", a, z0);
                    k.if_(!ok, |k| {
                        ptx!(k, "add.u32" => mismatches, mismatches, 1u32);
                    });
                    process(k, w.bitcast::<U32>());
                    ptx!(k, "add.u32" => cancels, cancels, 1u32);
                    // The next response overwrites this one: order the read before it.
                    ptx!(k, "fence.proxy.async.shared::cta");
                    ptx!(k, "xor.b32" => parity.bitcast::<B32>(), parity.bitcast::<B32>(), 1u32);
                    let more = ptx!(k, "setp.lt.u32", cancels, CTAS);
                    k.bra_if(!more, l.brk);
                });
                let s = ptx!(k, "mul.lo.u32", me, 3u32);
                k.st(stats.at(s), cancels);
                k.st(stats.at(s).offset(1), timeouts);
                k.st(stats.at(s).offset(2), mismatches);
            });
        })
        .unwrap();
    (m, kr)
}

/// Without a GPU: the kernel prints and assembles for sm_100 with no ptxas warning.
fn launch_control_kernel_assembles() {
    let text = steal_kernel().0.to_ptx().unwrap();
    assert!(text.contains("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 ["), "{text}");
    let px = ptxas("launch_control_kernel_assembles");
    ptxkit::ptxas::check_clean(&px, &text, Target::SM_100, ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("{e}\n{text}"));
}

fn each_cluster_runs_or_is_canceled_once(gpu: Gpu) {
    if gpu.compute_capability().0 < 10 {
        skip(format!("clusterlaunchcontrol needs sm_100, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("each_cluster_runs_or_is_canceled_once");
    let n = CTAS as usize;
    let x: Vec<u32> = (0..n).map(|_| g.gen()).collect();
    let (m, kr) = steal_kernel();
    let module = load(&gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let dx = gpu.upload(&x).unwrap();
    let mut out = poisoned::<u32>(&gpu, n).unwrap();
    let mut count = gpu.zeros::<u32>(n).unwrap();
    let mut by = poisoned::<u32>(&gpu, n).unwrap();
    let mut stats = poisoned::<u32>(&gpu, 3 * n).unwrap();
    kern.launch(&Launch::new(CTAS, 32), (&dx, &mut out, &mut count, &mut by, &mut stats)).unwrap();
    let (out, count, by, stats) =
        (gpu.download(&out).unwrap(), gpu.download(&count).unwrap(), gpu.download(&by).unwrap(), gpu.download(&stats).unwrap());

    // A CTA that was canceled never ran and wrote no stats; one that ran wrote its own item.
    let ran: Vec<usize> = (0..n).filter(|&c| by[c] == c as u32).collect();
    let timeouts: u32 = ran.iter().map(|&c| stats[3 * c + 1]).sum();
    assert_eq!(timeouts, 0, "{timeouts} waits for a try_cancel response ran out");
    let mismatches: u32 = ran.iter().map(|&c| stats[3 * c + 2]).sum();
    assert_eq!(mismatches, 0, "get_first_ctaid::x and get_first_ctaid.v4 disagreed (or y/z were not 0) {mismatches} times");
    check("times each work item was processed", |w| (w, by[w]), &count, &vec![1u32; n]);
    let want: Vec<u32> = x.iter().map(|v| work_value(*v)).collect();
    check("work item values", |w| x[w], &out, &want);
    let cancels: u32 = ran.iter().map(|&c| stats[3 * c]).sum();
    assert_eq!(cancels as usize, n - ran.len(), "successful cancellations against CTAs that never ran");
    println!("{} of {n} CTAs ran; {cancels} clusters were canceled and processed by another CTA", ran.len());
}

pub const TESTS: &[Test] = &[host!(launch_control_kernel_assembles), gpu!(each_cluster_runs_or_is_canceled_once)];
