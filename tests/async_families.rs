//! The asynchronous-copy and synchronisation families end to end, without a GPU: typed calls
//! of `cp.async` (sizes from their legal sets, zero-fill and ignore-source variants, cache
//! hints, groups, mbarrier completion), the mbarrier grammar (counted arrives need sm_90, the
//! remote arrive's sink), the cluster family (mapa, getctarank, st.async, red.async), the
//! fences and griddepcontrol; and the typed barrier handles' bounded wait. Each module is
//! printed, read, and assembled by ptxas with no warning.

#[macro_use]
mod common;

use common::assemble;
use ptxkit::intrinsics::mbarrier::{Deadline, Mbarrier, Publish, Ring};
use ptxkit::ops::m;
use ptxkit::prelude::*;

fn cp_async_sizes_zero_fill_ignore_source_and_groups() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("cp_async", |k, (src, n, skip, policy): (GlobalPtr<U32>, Reg<U32>, Reg<U32>, Reg<B64>)| {
        let tile = k.shared_array::<U32>("tile", 256, 16);
        let bar = k.shared_array::<B64>("bar", 1, 8);
        let ignore = ptx!(k, "setp.ne.u32", skip, 0u32);
        ptx!(k, "cp.async.ca.shared.global", tile.offset(0), src.offset(0), Const::<4>);
        ptx!(k, "cp.async.ca.shared::cta.global" as src_size, tile.offset(2), src.offset(2), Const::<8>, n);
        ptx!(k, "cp.async.ca.shared.global.L2::128B" as ignore_src, tile.offset(4), src.offset(4), Const::<16>, ignore);
        ptx!(k, "cp.async.commit_group");
        ptx!(k, "cp.async.cg.shared.global", tile.offset(8), src.offset(8), Const::<16>);
        ptx!(k, "cp.async.cg.shared.global.L2::cache_hint.L2::256B" as src_size, tile.offset(12), src.offset(12), Const::<16>, n, policy);
        ptx!(k, "cp.async.cg.shared.global.L2::cache_hint" as ignore_src, tile.offset(16), src.offset(16), 16u32, ignore, policy);
        ptx!(k, "cp.async.commit_group");
        ptx!(k, "cp.async.wait_group", 1);
        ptx!(k, "cp.async.wait_all");
        ptx!(k, "mbarrier.init.shared.b64", bar, 1u32);
        ptx!(k, "cp.async.mbarrier.arrive.noinc.shared.b64", bar);
        ptx!(k, "cp.async.mbarrier.arrive.b64", GenericPtr::<B64>::from_reg(policy.bitcast::<U64>()));
    })
    .unwrap();
    let text = assemble("cp_async", &m);
    // The ignore-source predicate needs PTX ISA 7.5; the chains alone, 7.0.
    assert!(text.contains(".version 7.5\n.target sm_80\n"), "{text}");
    assert!(text.contains("cp.async.ca.shared.global [tile], [%rd"), "{text}");
    assert!(text.contains("cp.async.cg.shared.global.L2::cache_hint.L2::256B [tile+48], [%rd"), "{text}");
    assert!(text.contains(", 16, %r1, %rd"), "{text}");
    assert!(text.contains(", 16, %p1, %rd"), "{text}");
    assert!(text.contains("cp.async.wait_group 1;"), "{text}");
}

fn a_copy_size_outside_its_set_is_an_error() {
    let mut m = Module::new(Target::SM_80);
    let r = m.kernel("bad", |k, (src,): (GlobalPtr<U32>,)| {
        let tile = k.shared_array::<U32>("tile", 4, 16);
        let size: u32 = 12;
        ptx!(k, "cp.async.ca.shared.global", tile, src, size);
    });
    match r {
        Err(e @ Error::ImmediateNotAllowed { value: 12, .. }) => assert!(e.to_string().contains("4, 8, 16"), "{e}"),
        other => panic!("{other:?}"),
    }
}

fn a_counted_arrive_needs_sm_90_where_the_plain_one_runs_on_sm_80() {
    let build = |target: Target, counted: bool| {
        let mut m = Module::new(target);
        m.kernel("arrive", |k, ()| {
            let bar = k.shared_array::<B64>("bar", 1, 8);
            ptx!(k, "mbarrier.init.shared.b64", bar, 2u32);
            if counted {
                ptx!(k, "mbarrier.arrive.shared.b64" as counted, bar, 2u32);
            } else {
                ptx!(k, "mbarrier.arrive.shared.b64", bar);
            }
        })
        .map(|_| m)
    };
    assert!(assemble("arrive_sm80", &build(Target::SM_80, false).unwrap()).contains(".target sm_80"));
    match build(Target::SM_80, true).map(drop) {
        Err(Error::Unsupported { instruction, needs, .. }) => {
            assert_eq!(instruction, "mbarrier.arrive.shared.b64 as counted");
            assert!(needs.starts_with("sm_90 or newer"), "{needs}");
        }
        other => panic!("{other:?}"),
    }
    assert!(assemble("arrive_sm90", &build(Target::SM_90, true).unwrap()).contains(".version 7.8\n.target sm_90\n"));
}

fn the_mbarrier_grammar() {
    let mut m = Module::new(Target::SM_90);
    m.kernel("mbar", |k, (peer, out): (Reg<U32>, GlobalPtr<U32>)| {
        let bar = k.shared_array::<B64>("bar", 2, 8);
        let gbar = GenericPtr::<B64>::from_reg(ptx!(k, "cvta.shared.u64", ptx!(k, "cvt.u64.u32", bar.addr(k))));
        let remote: Ptr<m::SharedCluster, B64> = Ptr::from_reg32(peer);
        ptx!(k, "mbarrier.init.shared::cta.b64", bar, 4u32);
        ptx!(k, "mbarrier.init.b64", gbar.offset(1), 1u32);
        ptx!(k, "mbarrier.expect_tx.relaxed.cta.shared::cta.b64", bar, 64u32);
        ptx!(k, "mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64", remote, 64u32);
        let s0 = ptx!(k, "mbarrier.arrive.shared.b64", bar);
        let s1 = ptx!(k, "mbarrier.arrive.relaxed.cluster.shared::cta.b64" as counted, bar, 1u32);
        let s2 = ptx!(k, "mbarrier.arrive.noComplete.release.cta.shared.b64", bar, 1u32);
        let s3 = ptx!(k, "mbarrier.arrive_drop.expect_tx.shared::cta.relaxed.cta.b64", bar.offset(1), 8u32);
        ptx!(k, "mbarrier.arrive_drop.release.cluster.shared::cluster.b64", remote);
        ptx!(k, "mbarrier.arrive.release.cluster.shared::cluster.b64" as counted, remote, 2u32);
        let a = ptx!(k, "mbarrier.test_wait.acquire.cta.shared.b64", bar, s0);
        let b = ptx!(k, "mbarrier.test_wait.parity.relaxed.cluster.shared::cta.b64", bar, 0u32);
        let c = ptx!(k, "mbarrier.try_wait.shared::cta.b64" as hinted, bar, s1, 100u32);
        let d = ptx!(k, "mbarrier.try_wait.parity.acquire.cluster.b64", gbar, 1u32);
        let ab = ptx!(k, "and.pred", a, b);
        let cd = ptx!(k, "and.pred", c, d);
        let all = ptx!(k, "and.pred", ab, cd);
        let n2 = ptx!(k, "mbarrier.pending_count.b64", s2);
        let n3 = ptx!(k, "mbarrier.pending_count.b64", s3);
        let n = ptx!(k, "add.u32", n2, n3);
        let v = ptx!(k, "selp.u32", n, 0u32, all);
        ptx!(k, "st.global.u32", out.offset(0), v);
        ptx!(k, "mbarrier.inval.shared.b64", bar);
    })
    .unwrap();
    let text = assemble("mbar", &m);
    assert!(text.contains("mbarrier.arrive_drop.release.cluster.shared::cluster.b64 _, [%r"), "{text}");
    assert!(text.contains("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r1], 2;"), "{text}");
    assert!(text.contains("mbarrier.try_wait.shared::cta.b64 %p"), "{text}");
    // `.relaxed` (PTX ISA 8.6) sets the version.
    assert!(text.contains(".version 8.6\n.target sm_90\n"), "{text}");
}

fn the_cluster_family_fences_and_griddepcontrol() {
    let mut m = Module::new(Target::SM_90);
    m.kernel("cluster", |k, (x, wide): (Reg<U32>, Reg<U64>)| {
        let buf = k.shared_array::<U32>("buf", 64, 16);
        let bar = k.shared_array::<B64>("bar", 1, 8);
        ptx!(k, "griddepcontrol.wait");
        let rank = ptx!(k, "mov.u32", sreg::CLUSTER_CTARANK);
        let peer = ptx!(k, "xor.b32", rank, 1u32);
        let rbuf: Ptr<m::SharedCluster, U32> = Ptr::from_reg32(ptx!(k, "mapa.shared::cluster.u32", buf.addr(k), peer));
        let rbar: Ptr<m::SharedCluster, B64> = Ptr::from_reg32(ptx!(k, "mapa.shared::cluster.u32", bar.addr(k), peer));
        let g = ptx!(k, "cvta.shared.u64", ptx!(k, "cvt.u64.u32", buf.addr(k)));
        let gpeer = ptx!(k, "mapa.u64", g, peer);
        let owner = ptx!(k, "getctarank.u64", gpeer);
        let owner2 = ptx!(k, "getctarank.shared::cluster.u32", rbuf.addr(k));
        let f = ptx!(k, "mov.b32", x).bitcast::<F32>();
        ptx!(k, "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32", rbuf, owner, rbar);
        ptx!(k, "st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v4.f32", rbuf.cast::<F32>().offset(4), [f, f, f, f], rbar);
        ptx!(k, "st.async.cluster.shared::cluster.mbarrier::complete_tx::bytes.v2.u64", rbuf.cast::<U64>().offset(4), [wide, wide], rbar);
        let gb = GenericPtr::<U32>::from_reg(gpeer);
        ptx!(k, "st.async.mbarrier::complete_tx::bytes.b32", gb, owner2, GenericPtr::<B64>::from_reg(wide));
        ptx!(k, "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32", rbuf.offset(16), x, rbar);
        ptx!(
            k,
            "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.s32",
            rbuf.cast::<S32>().offset(17),
            x.bitcast::<S32>(),
            rbar
        );
        ptx!(k, "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.u32", rbuf.offset(18), x, rbar);
        ptx!(k, "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.xor.b32", rbuf.cast::<B32>().offset(19), x, rbar);
        ptx!(
            k,
            "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u64",
            rbuf.cast::<U64>().offset(10),
            wide,
            rbar
        );
        ptx!(k, "fence.mbarrier_init.release.cluster");
        ptx!(k, "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster");
        ptx!(k, "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster");
        ptx!(k, "fence.release.sync_restrict::shared::cta.cluster");
        ptx!(k, "fence.acquire.sync_restrict::shared::cluster.cluster");
        ptx!(k, "fence.proxy.async.shared::cta");
        ptx!(k, "barrier.cluster.arrive.release.aligned");
        ptx!(k, "barrier.cluster.wait.acquire.aligned");
        ptx!(k, "griddepcontrol.launch_dependents");
    })
    .unwrap();
    let text = assemble("cluster", &m);
    assert!(text.contains("st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%r"), "{text}");
    assert!(text.contains("bytes.v2.u64 [%r5+32], {%rd1, %rd1}, [%r7];"), "{text}");
    assert!(text.contains("mapa.u64 %rd"), "{text}");
    // The `.sync_restrict` fences set the version.
    assert!(text.contains(".version 8.6\n"), "{text}");
}

fn a_bounded_wait_is_a_loop_with_a_try_counter() {
    let mut m = Module::new(Target::SM_90);
    m.kernel("wait", |k, (out,): (GlobalPtr<U32>,)| {
        let bars = k.mbarriers("bars", 1);
        let bar: Mbarrier = bars.get(0);
        k.init_barriers(Publish::Cta, |k| bar.init(k, 1));
        let d = Deadline::new(k, 1000).with_hint_ns(500);
        bar.arrive(k);
        let ok = bar.wait(k, 0u32, &d);
        let v = ptx!(k, "selp.u32", 1u32, 0u32, ok);
        ptx!(k, "st.global.u32", out.offset(0), v);
        ptx!(k, "st.global.u32", out.offset(1), d.timeouts());
    })
    .unwrap();
    let text = assemble("wait", &m);
    let body: Vec<&str> = text.lines().map(str::trim).collect();
    let at = |p: &str| body.iter().position(|l| l.starts_with(p)).unwrap_or_else(|| panic!("no `{p}` in\n{text}"));
    let wait = at("mbarrier.try_wait.parity.shared.b64");
    // try_wait; leave when done; count the try; go round while tries remain; else count a timeout.
    assert!(body[wait].ends_with("[bars], 0, 500;"), "{}", body[wait]);
    assert!(body[wait + 1].starts_with("@%p") && body[wait + 1].contains("bra"), "{text}");
    assert!(body[wait + 2].starts_with("add.u32"), "{text}");
    assert!(body[wait + 3].starts_with("setp.lt.u32") && body[wait + 3].ends_with(", 1000;"), "{text}");
    assert!(body[wait + 4].starts_with("@%p") && body[wait + 4].contains("bra"), "{text}");
    assert!(body[wait + 5].starts_with("add.u32"), "{text}");
    // Thread 0 initialises; bar.sync publishes.
    assert!(at("mbarrier.init.shared.b64 [bars], 1;") < at("bar.sync 0;"));
}

fn a_ring_computes_stages_and_parities_from_the_index() {
    for stages in [4u32, 3] {
        let mut m = Module::new(Target::SM_90);
        m.kernel("ring", |k, (out, n): (GlobalPtr<U32>, Reg<U32>)| {
            let ring = Ring::new(k, "ring", stages);
            ring.init(k, 1, 1, Publish::Cluster);
            let d = Deadline::new(k, 64);
            k.for_range(0u32, n, 1, |k, i| {
                let s = ring.slot(k, i);
                s.acquire(k, &d);
                ptx!(k, "st.global.u32", out.at(i), s.stage);
                s.commit(k);
                s.wait(k, &d);
                s.release(k);
            });
        })
        .unwrap();
        let text = assemble("ring", &m);
        if stages == 4 {
            assert!(text.contains("and.b32") && text.contains("shr.u32") && !text.contains("rem.u32"), "{text}");
        } else {
            assert!(text.contains("rem.u32") && text.contains("div.u32"), "{text}");
        }
        assert_eq!(text.matches("mbarrier.init.shared.b64").count(), 2 * stages as usize, "{text}");
        assert!(text.contains("fence.mbarrier_init.release.cluster;"), "{text}");
    }
}

fn main() {
    common::harness::main(&[&[
        host!(cp_async_sizes_zero_fill_ignore_source_and_groups),
        host!(a_copy_size_outside_its_set_is_an_error),
        host!(a_counted_arrive_needs_sm_90_where_the_plain_one_runs_on_sm_80),
        host!(the_mbarrier_grammar),
        host!(the_cluster_family_fences_and_griddepcontrol),
        host!(a_bounded_wait_is_a_loop_with_a_try_counter),
        host!(a_ring_computes_stages_and_parities_from_the_index),
    ]]);
}
