//! The operand shapes of the Hopper and Blackwell families, end to end: typed calls of
//! forms with numbers inside their tokens and lengths derived from them, tied accumulators,
//! legal-value immediates, a sink destination, several destinations, per-operand state
//! spaces with `.shared` accepted for `.shared::cta`/`.shared::cluster`, tensor-map and
//! tensor-memory operands. Each module is printed, read, and assembled by ptxas with no
//! warning.

#[macro_use]
mod common;

use common::assemble;
use ptxkit::builder::{TensorElem, TileRank};
use ptxkit::ops::num::Dim;
use ptxkit::ops::Acc;
use ptxkit::prelude::*;
use ptxkit::regs::{TensorAt, TmemAddr};

fn wgmma_tied_accumulator_and_legal_immediates() {
    let mut m = Module::new(Target::SM_90A);
    m.kernel("wgmma", |k, (da, db, out): (Reg<B64>, Reg<B64>, GlobalPtr<F32>)| {
        let (da, db) = (da.bitcast::<Gdesc>(), db.bitcast::<Gdesc>());
        let acc: Acc<F32, 64> = k.zeroed_acc();
        ptx!(k, "wgmma.fence.sync.aligned");
        for step in 0..4 {
            // Chained k-steps write the same 64 registers in place.
            let scale_d = step > 0;
            ptx!(k, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16" => acc, da, db, scale_d, 1, Const::<-1>, 0, true);
        }
        let a: [Reg<B32>; 4] = std::array::from_fn(|_| ptx!(k, "mov.b32", 0u32));
        ptx!(k, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16" as rs => acc, a, db, true, 1, 1, 0);
        ptx!(k, "wgmma.commit_group.sync.aligned");
        ptx!(k, "wgmma.wait_group.sync.aligned", 0);
        let t = ptx!(k, "mov.u32", sreg::TID_X);
        let base = ptx!(k, "mul.lo.u32", t, 64u32);
        for (j, r) in acc.iter().enumerate() {
            ptx!(k, "st.global.f32", out.at(base).offset(j as i64), *r);
        }
    })
    .unwrap();
    let text = assemble("wgmma", &m);
    assert_eq!(text.matches("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16").count(), 5);
    let first = text.lines().find(|l| l.contains("mma_async")).unwrap();
    // 64 accumulator registers in one braced run, then the descriptors and the immediates.
    let braced = &first[first.find('{').unwrap()..first.find('}').unwrap()];
    assert_eq!(braced.matches("%r").count(), 64, "{first}");
    assert!(first.trim_end().ends_with("%rd1, %rd2, 0, 1, -1, 0, 1;"), "{first}");
    assert!(text.contains(".target sm_90a"));
}

/// ptxas takes a special register as an operand of `mov` and `cvt` only; written as an
/// operand of anything else, it is read into a register first, so the text assembles.
fn special_registers_outside_mov_and_cvt_are_read_first() {
    let mut m = Module::new(Target::SM_90);
    m.kernel("sregs", |k, (out,): (GlobalPtr<U32>,)| {
        let a = ptx!(k, "add.u32", sreg::TID_X, 1u32);
        let b = ptx!(k, "and.b32", a, sreg::LANEMASK_LT);
        let c = ptx!(k, "mad.lo.u32", sreg::CTAID_X, sreg::NTID_X, b.bitcast::<U32>());
        let w = ptx!(k, "cvt.u64.u32", sreg::SMID);
        let t = ptx!(k, "mov.u64", sreg::GLOBALTIMER);
        let s = ptx!(k, "add.u64", w, t);
        let lo = ptx!(k, "cvt.u32.u64", s);
        let d = ptx!(k, "add.u32", c, lo);
        ptx!(k, "st.global.u32", out.at(a), d);
        ptx!(k, "st.global.u32", out.at(d), sreg::TID_X);
    })
    .unwrap();
    let text = assemble("sregs", &m);
    let body: Vec<&str> = text.lines().map(str::trim).filter(|l| l.contains('%') && !l.starts_with('.')).collect();
    for l in &body {
        let op = l.split_whitespace().next().unwrap();
        let sreg = ["%tid", "%lanemask", "%ctaid", "%ntid", "%smid", "%globaltimer"].iter().any(|s| l.contains(s));
        assert!(!sreg || op.starts_with("mov.") || op.starts_with("cvt."), "a special register in `{l}`:\n{text}");
    }
    // Read where written, once per use: the two direct uses stay direct.
    assert!(
        body.iter().any(|l| l.starts_with("cvt.u64.u32") && l.ends_with("%smid;"))
            && body.iter().any(|l| l.starts_with("mov.u64") && l.ends_with("%globaltimer;")),
        "{text}"
    );
    assert_eq!(body.iter().filter(|l| l.ends_with("%tid.x;")).count(), 2, "{text}");
}

fn an_immediate_outside_its_legal_set_is_an_error() {
    let mut m = Module::new(Target::SM_90A);
    let r = m.kernel("bad", |k, ()| {
        let n: u32 = 41;
        ptx!(k, "setmaxnreg.dec.sync.aligned.u32", n);
    });
    match r {
        Err(e @ Error::ImmediateNotAllowed { value: 41, .. }) => assert!(e.to_string().contains("24, 32, 40, 48")),
        other => panic!("{other:?}"),
    }
    let mut m = Module::new(Target::SM_90A);
    m.kernel("good", |k, ()| {
        k.maxnreg(128);
        ptx!(k, "setmaxnreg.inc.sync.aligned.u32", Const::<240>);
        ptx!(k, "setmaxnreg.dec.sync.aligned.u32", 40u32);
    })
    .unwrap();
    let text = m.to_ptx().unwrap();
    assert!(text.contains("setmaxnreg.inc.sync.aligned.u32 240;") && text.contains("setmaxnreg.dec.sync.aligned.u32 40;"));
}

fn mbarrier_sink_and_shared_windows() {
    let mut m = Module::new(Target::SM_90);
    m.kernel("mbar", |k, (remote, out): (Reg<U32>, GlobalPtr<U32>)| {
        // A `.shared` array where the chain names `.shared::cta` and `.shared::cluster`.
        let bar = k.shared_array::<B64>("bar", 1, 8);
        ptx!(k, "mbarrier.init.shared::cta.b64", bar, 1u32);
        let state = ptx!(k, "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64", bar, 1024u32);
        // Another CTA's barrier: no state comes back, the destination is `_`.
        let rbar: Ptr<ptxkit::ops::m::SharedCluster, B64> = Ptr::from_reg32(remote);
        ptx!(k, "mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64", rbar, 1024u32);
        let done = ptx!(k, "mbarrier.try_wait.parity.shared::cta.b64", bar, 0u32);
        let hinted = ptx!(k, "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64" as hinted, bar, 0u32, 1000u32);
        let both = ptx!(k, "and.pred", done, hinted);
        let v = ptx!(k, "selp.u32", 1u32, 0u32, both);
        ptx!(k, "st.global.u32", out.offset(0), v);
        ptx!(k, "st.global.b64", out.cast::<B64>().offset(1), state);
    })
    .unwrap();
    let text = assemble("mbar", &m);
    assert!(text.contains("mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%r"), "{text}");
    assert!(text.contains("mbarrier.init.shared::cta.b64 [bar], 1;"), "{text}");
}

fn tensor_copies_with_per_operand_spaces() {
    let mut m = Module::new(Target::SM_90);
    m.kernel("tma", |k, (map, x, y): (Reg<U64>, Reg<S32>, Reg<S32>)| {
        let tile = k.dynamic_shared_aligned::<B16>(1024);
        let bar = k.shared_array::<B64>("full", 1, 8);
        let at = TensorAt::new(map, [x, y]);
        ptx!(k, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", tile, at, bar);
        ptx!(k, "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group", at, tile);
        ptx!(k, "cp.async.bulk.commit_group");
        ptx!(k, "cp.async.bulk.wait_group.read", 0);
        let z = ptx!(k, "add.s32", x, 1i32);
        ptx!(k, "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes", tile, TensorAt::new(map, [x, y, z]), bar);
    })
    .unwrap();
    let text = assemble("tma", &m);
    assert!(text.contains(".extern .shared .align 1024 .b8 ptxkit_dynamic_smem[];"), "{text}");
    assert!(text.contains("[%rd1, {%r1, %r2}], [full];"), "{text}");
    assert!(text.contains("[%rd1, {%r1, %r2, %r3}], [full];"), "{text}");
}

fn bulk_copies_reductions_prefetches_and_tensor_map_instructions() {
    let mut m = Module::new(Target::SM_90A);
    m.kernel("bulk", |k, (src, dst, map, peer): (GlobalPtr<U32>, GlobalPtr<U32>, Reg<U64>, Reg<U32>)| {
        let buf = k.shared_array::<U32>("buf", 1024, 1024);
        let bar = k.shared_array::<B64>("bar", 1, 8);
        let policy = ptx!(k, "mov.u64", 0u64);
        let mask = ptx!(k, "mov.u16", 3u16);
        ptx!(k, "mbarrier.init.shared::cta.b64", bar, 1u32);
        ptx!(k, "mbarrier.arrive.expect_tx.shared::cta.b64", bar, 4096u32);
        ptx!(k, "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes", buf, src, 4096u32, bar);
        ptx!(
            k,
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint",
            buf,
            src,
            4096u32,
            bar,
            mask,
            policy
        );
        // Another CTA's buffer and barrier: `.shared::cluster` addresses from registers.
        let remote: Ptr<ptxkit::ops::m::SharedCluster, U32> = Ptr::from_reg32(peer);
        let rbar: Ptr<ptxkit::ops::m::SharedCluster, B64> = Ptr::from_reg32(peer).byte_offset(4096);
        ptx!(k, "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes", remote, buf, 256u32, rbar);
        ptx!(k, "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32", remote, buf, 256u32, rbar);
        ptx!(k, "cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.add.noftz.bf16", dst, buf, 4096u32, policy);
        ptx!(k, "cp.async.bulk.global.shared::cta.bulk_group", dst, buf, 4096u32);
        ptx!(k, "cp.async.bulk.prefetch.L2.global", src, 4096u32);
        let (x, y, z) = (ptx!(k, "mov.s32", 0i32), ptx!(k, "mov.s32", 8i32), ptx!(k, "mov.s32", 1i32));
        let off: [Reg<U16>; 1] = [ptx!(k, "mov.u16", 1u16)];
        ptx!(k, "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col", TensorAt::new(map, [x, y, z]), off);
        ptx!(k, "cp.async.bulk.prefetch.tensor.2d.L2.global.tile.L2::cache_hint", TensorAt::new(map, [x, y]), policy);
        ptx!(
            k,
            "cp.async.bulk.tensor.3d.shared::cta.global.im2col.mbarrier::complete_tx::bytes.L2::cache_hint",
            buf,
            TensorAt::new(map, [x, y, z]),
            bar,
            off,
            policy
        );
        ptx!(k, "cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group", TensorAt::new(map, [x, y]), buf);
        ptx!(
            k,
            "cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group.L2::cache_hint",
            TensorAt::new(map, [x, y, z]),
            buf,
            policy
        );
        ptx!(k, "cp.async.bulk.commit_group");
        ptx!(k, "cp.async.bulk.wait_group", 0);
        // A tensor map edited in shared memory, copied out with the proxy fence, acquired.
        ptx!(k, "tensormap.replace.tile.global_address.shared::cta.b1024.b64", buf, policy);
        ptx!(k, "tensormap.replace.tile.global_stride.shared::cta.b1024.b64", buf, Const::<0>, 256u64);
        ptx!(k, "tensormap.replace.tile.elemtype.shared::cta.b1024.b32", buf, Const::<7>);
        ptx!(k, "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned", dst, buf, 128u32);
        ptx!(k, "fence.proxy.tensormap::generic.acquire.gpu", GenericPtr::<B8>::from_reg(map), 128u32);
        ptx!(k, "prefetch.tensormap", GenericPtr::<B8>::from_reg(map));
    })
    .unwrap();
    let text = assemble("bulk", &m);
    // A one-element offset vector is still braced.
    assert!(text.contains("cp.async.bulk.prefetch.tensor.3d.L2.global.im2col [%rd5, {%r2, %r3, %r4}], {%rs2};"), "{text}");
    assert!(text.contains("multicast::cluster.L2::cache_hint [buf], [%rd2], 4096, [bar], %rs1, %rd6;"), "{text}");
    assert!(text.contains("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [buf], 7;"), "{text}");
}

/// A kernel taking a rank-`R` tensor map of `T`: prefetch, load into shared memory on an
/// mbarrier, wait, store back, through the rank-generic helpers.
fn tensor_map_kernel<T: TensorElem, const R: usize>(m: &mut Module, name: &str)
where
    Dim<R>: TileRank<R>,
{
    m.kernel(name, |k, (map, out): (TensorMap<T, R>, TensorMap<T, R>)| {
        let tile = k.dynamic_shared_aligned::<U32>(1024);
        let bar = k.shared_array::<B64>("bar", 1, 8);
        let coords: [Reg<S32>; R] = std::array::from_fn(|i| ptx!(k, "mov.s32", i as i32 * 8 - 4));
        map.prefetch(k);
        map.prefetch_tile(k, coords);
        ptx!(k, "mbarrier.init.shared::cta.b64", bar, 1u32);
        ptx!(k, "mbarrier.arrive.expect_tx.shared::cta.b64", bar, 1024u32);
        map.load(k, tile, coords, bar);
        let done = ptx!(k, "mbarrier.try_wait.parity.shared::cta.b64", bar, 0u32);
        k.if_(done, |k| {
            out.store(k, coords, tile);
            ptx!(k, "cp.async.bulk.commit_group");
            ptx!(k, "cp.async.bulk.wait_group.read", 0);
        });
    })
    .unwrap();
}

fn tensor_map_parameters_of_every_rank_assemble() {
    // The tensor instructions take the map through the generic address of the `.param`
    // (`mov.u64` of the symbol, then `cvta.param.u64`); ptxas refuses the bare symbol.
    let mut m = Module::new(Target::SM_90);
    tensor_map_kernel::<F32, 1>(&mut m, "rank1");
    tensor_map_kernel::<Bf16, 2>(&mut m, "rank2");
    tensor_map_kernel::<U8, 3>(&mut m, "rank3");
    tensor_map_kernel::<S64, 4>(&mut m, "rank4");
    tensor_map_kernel::<F16, 5>(&mut m, "rank5");
    let text = assemble("tensor_maps", &m);
    assert!(text.contains(".param .align 64 .b8 rank5_param_1[128]"), "{text}");
    assert!(text.contains("\tmov.u64 %rd1, rank3_param_0;\n\tcvta.param.u64 %rd2, %rd1;\n"), "{text}");
    for r in 1..=5 {
        assert!(text.contains(&format!("cp.async.bulk.tensor.{r}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes")), "{text}");
        assert!(text.contains(&format!("cp.async.bulk.tensor.{r}d.global.shared::cta.tile.bulk_group")), "{text}");
        assert!(text.contains(&format!("cp.async.bulk.prefetch.tensor.{r}d.L2.global.tile")), "{text}");
    }
    assert!(KernelRef::<(TensorMap<F32, 2>, TensorMap<F32, 2>)>::from_ptx(&text, "rank2").is_ok());
    {
        let px = common::ptxas("tensor_map_parameters_of_every_rank_assemble");
        // The bare parameter symbol as the tensor operand is refused, which is why the
        // parameter's generic address is taken.
        let bare = text.replacen("[%rd2, {%r1}], [bar]", "[rank1_param_0, {%r1}], [bar]", 1);
        assert_ne!(bare, text);
        let e = ptxkit::ptxas::check(&px, &bare, Target::SM_90, ptxkit::ptxas::Mode::Assemble).unwrap_err();
        assert!(e.contains("State space mismatch"), "{e}");
    }
}

fn tensor_memory_and_several_destinations() {
    let mut m = Module::new(Target::SM_103A);
    m.kernel("tmem", |k, (out,): (GlobalPtr<F32>,)| {
        let slot = k.shared_array::<B32>("taddr", 1, 4);
        ptx!(k, "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32", slot, 32u32);
        let t = TmemAddr::from_reg(ptx!(k, "ld.shared.b32", slot));
        let v = ptx!(k, "tcgen05.ld.sync.aligned.32x32b.x16.b32", t);
        let w = ptx!(k, "tcgen05.ld.sync.aligned.16x256b.x2.b32", t);
        let (r, mx) = ptx!(k, "tcgen05.ld.red.sync.aligned.32x32b.x4.max.f32", t);
        ptx!(k, "tcgen05.wait::ld.sync.aligned");
        ptx!(k, "st.global.b32", out.cast::<B32>().offset(0), v[15]);
        ptx!(k, "st.global.b32", out.cast::<B32>().offset(1), w[7]);
        ptx!(k, "st.global.f32", out.offset(2), r[3]);
        ptx!(k, "st.global.f32", out.offset(3), mx);
        ptx!(k, "tcgen05.dealloc.cta_group::1.sync.aligned.b32", t.reg(), 32u32);
        ptx!(k, "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned");
    })
    .unwrap();
    let text = assemble("tmem", &m);
    let red = text.lines().find(|l| l.contains("tcgen05.ld.red")).unwrap();
    assert!(red.contains("}, %r") && red.trim_end().ends_with("[%r1];"), "{red}");
}

/// A Blackwell multiply through tensor memory, every step a `ptx!` chain: allocate 128
/// columns, copy a scale-factor tile in, multiply twice (the second with every output lane
/// enabled by an explicit mask), commit to an mbarrier and wait on it, then load the
/// accumulator, store it back, shift it, and free the columns.
fn tcgen05_mma_commit_load_store_through_tensor_memory() {
    use ptxkit::intrinsics::mbarrier::{Deadline, Mbarrier};
    let mut m = Module::new(Target::SM_100A);
    m.kernel("umma", |k, (da, db, idesc, out): (Reg<B64>, Reg<B64>, Reg<B32>, GlobalPtr<B32>)| {
        let (da, db) = (da.bitcast::<Gdesc>(), db.bitcast::<Gdesc>());
        let slot = k.shared_array::<B32>("taddr", 1, 4);
        let bar = k.shared_array::<B64>("done", 1, 8);
        Mbarrier::at(bar).init(k, 1u32);
        ptx!(k, "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32", slot, 128u32);
        ptx!(k, "tcgen05.fence::before_thread_sync");
        ptx!(k, "bar.sync", 0u32);
        ptx!(k, "tcgen05.fence::after_thread_sync");
        let d = TmemAddr::from_reg(ptx!(k, "ld.shared.b32", slot));
        ptx!(k, "tcgen05.cp.cta_group::1.128x256b", d, da);
        ptx!(k, "tcgen05.mma.cta_group::1.kind::f16", d, da, db, idesc, false);
        let lanes: [Reg<B32>; 4] = std::array::from_fn(|_| ptx!(k, "mov.b32", 0u32));
        ptx!(k, "tcgen05.mma.cta_group::1.kind::f16" as masked, d, da, db, idesc, lanes, true);
        ptx!(k, "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64", bar);
        let deadline = Deadline::new(k, 1 << 20);
        Mbarrier::at(bar).wait(k, 0u32, &deadline);
        ptx!(k, "tcgen05.fence::after_thread_sync");
        let acc = ptx!(k, "tcgen05.ld.sync.aligned.32x32b.x8.b32", d);
        ptx!(k, "tcgen05.wait::ld.sync.aligned");
        ptx!(k, "tcgen05.st.sync.aligned.32x32b.x8.b32", d, acc);
        ptx!(k, "tcgen05.wait::st.sync.aligned");
        ptx!(k, "tcgen05.shift.cta_group::1.down", d);
        let t = ptx!(k, "mov.u32", sreg::TID_X);
        ptx!(k, "st.global.b32", out.at(t), acc[7]);
        ptx!(k, "tcgen05.fence::before_thread_sync");
        ptx!(k, "bar.sync", 0u32);
        ptx!(k, "tcgen05.dealloc.cta_group::1.sync.aligned.b32", d.reg(), 128u32);
        ptx!(k, "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned");
    })
    .unwrap();
    let text = assemble("umma", &m);
    let line = |chain: &str| text.lines().find(|l| l.contains(chain)).unwrap_or_else(|| panic!("no {chain} in {text}")).trim();
    // D and A's tensor-memory address is the allocated one, read back from shared memory.
    assert!(line("tcgen05.mma.cta_group::1.kind::f16").starts_with("tcgen05.mma.cta_group::1.kind::f16 [%r"), "{text}");
    assert!(line("tcgen05.cp.cta_group::1.128x256b").starts_with("tcgen05.cp.cta_group::1.128x256b [%r"), "{text}");
    let masked = text.lines().filter(|l| l.contains("tcgen05.mma.")).nth(1).unwrap();
    assert!(masked.contains(", {%r") && masked.trim_end().ends_with("}, 1;"), "{masked}");
    assert!(line("tcgen05.commit.").ends_with(".b64 [done];"), "{text}");
    let st = line("tcgen05.st.sync.aligned.32x32b.x8.b32");
    assert_eq!(st.matches("%r").count(), 9, "{st}");
    assert_eq!(text.matches("tcgen05.fence::").count(), 4, "{text}");
}

fn a_wgmma_pipeline_advisory_is_returned() {
    // Reading the accumulator before `wgmma.wait_group` retires the multiply makes ptxas
    // inject a wait into the pipeline; it says so (C7517), and the check hands that back.
    let px = common::ptxas("a_wgmma_pipeline_advisory_is_returned");
    let mut m = Module::new(Target::SM_90A);
    m.kernel("serialised", |k, (da, db, out): (Reg<B64>, Reg<B64>, GlobalPtr<F32>)| {
        let (da, db) = (da.bitcast::<Gdesc>(), db.bitcast::<Gdesc>());
        let acc: Acc<F32, 4> = k.zeroed_acc();
        ptx!(k, "wgmma.fence.sync.aligned");
        ptx!(k, "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16" => acc, da, db, true, 1, 1, 0, 0);
        let early = ptx!(k, "add.f32", acc[0], 1.0f32);
        ptx!(k, "wgmma.commit_group.sync.aligned");
        ptx!(k, "wgmma.wait_group.sync.aligned", 0);
        ptx!(k, "st.global.f32", out.offset(0), early);
    })
    .unwrap();
    let text = m.to_ptx().unwrap();
    let warnings = ptxkit::ptxas::check(&px, &text, m.target(), ptxkit::ptxas::Mode::Assemble).unwrap();
    println!("{warnings:?}");
    assert!(warnings.iter().any(|w| w.contains("C75")), "expected a C75xx warning, got {warnings:?}");
    assert!(ptxkit::ptxas::check_clean(&px, &text, m.target(), ptxkit::ptxas::Mode::Assemble).is_err());
}

/// `.e2m1x2` values, which PTX keeps in 8-bit registers: converted from and to f32/f16x2,
/// stored and loaded as `.b8`, copied, shuffled, scanned and zeroed through the value
/// helpers (which must use `cvt`, as `mov` has no 8-bit form), all in `.reg .b8` registers
/// that ptxas accepts for sm_100a.
fn e2m1x2_values_live_in_8_bit_registers() {
    use ptxkit::intrinsics::warp::{LaneMask, Shfl};
    let mut m = Module::new(Target::SM_100A);
    m.kernel("fp4", |k, (x, out, packed): (GlobalPtr<F32>, GlobalPtr<B32>, GlobalPtr<E2m1x2>)| {
        let i = k.global_thread_index_x();
        let (a, b) = (k.ld(x.at(i)), k.ld(x.at(i).offset(1)));
        let p = ptx!(k, "cvt.rn.satfinite.relu.e2m1x2.f32", a, b); // Reg<E2m1x2>, an 8-bit register
        k.st(packed.at(i), p);
        let q = k.ld(packed.at(i).offset(1));
        let q = k.shfl(Shfl::Xor, q, 1u32, LaneMask::FULL);
        let r = ptxkit::intrinsics::copy(k, q);
        // A scan keeps its running value in a register it assigns to.
        let last = k.warp_scan(r, LaneMask::FULL, |_, _, b| b);
        k.st(packed.at(i).offset(3), last);
        let z: ptxkit::ops::Acc<E2m1x2, 1> = k.zeroed_acc();
        let h = ptx!(k, "cvt.rn.f16x2.e2m1x2", r);
        k.st(out.at(i), h.bitcast::<B32>());
        k.st(packed.at(i).offset(2), z[0]);
    })
    .unwrap();
    let text = assemble("e2m1x2", &m);
    assert!(text.contains(".reg .b8 %rc<"), "{text}");
    assert!(text.contains("cvt.rn.satfinite.relu.e2m1x2.f32 %rc"), "{text}");
    assert!(text.contains("ld.global.b8 %rc") && text.contains("st.global.b8 ["), "{text}");
    assert!(text.contains("cvt.u8.u8 %rc") && text.contains("cvt.u32.u8 %r") && text.contains("cvt.u8.u32 %rc"), "{text}");
    assert!(!text.contains("mov.b16 %rc"), "{text}");
}

/// sm_120a's `mma.sync` kinds through `ptx!`: FP8×FP4 in 8-bit containers, and a
/// block-scaled FP4 product with its scale data and `{byte-id, thread-id}` selectors.
fn mma_sync_kinds_for_sm_120a() {
    let mut m = Module::new(Target::SM_120A);
    m.kernel("mx", |k, (out,): (GlobalPtr<F32>,)| {
        let z = || 0u32;
        let a: [Reg<B32>; 4] = std::array::from_fn(|_| ptx!(k, "mov.b32", z()));
        let b: [Reg<B32>; 2] = std::array::from_fn(|_| ptx!(k, "mov.b32", z()));
        let c: [Reg<F32>; 4] = std::array::from_fn(|_| ptx!(k, "mov.f32", 0.0f32));
        let d = ptx!(k, "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m1.f32", a, b, c);
        let (sa, sb) = (ptx!(k, "mov.b32", 0x7f7f_7f7fu32), ptx!(k, "mov.b32", 0x7f7f_7f7fu32));
        let ids: [Reg<U16>; 2] = std::array::from_fn(|_| ptx!(k, "mov.u16", 0u16));
        let e = ptx!(
            k,
            "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
            a,
            b,
            d,
            sa,
            ids,
            sb,
            ids
        );
        let t = ptx!(k, "mov.u32", sreg::TID_X);
        k.st(out.at(t), e[0]);
    })
    .unwrap();
    let text = assemble("mma kinds", &m);
    let line = text.lines().find(|l| l.contains("block_scale")).unwrap().trim();
    // D, A, B, C braced; each scale register followed by its braced pair of 16-bit selectors.
    assert_eq!((line.matches("{%r").count(), line.matches("{%rs").count()), (6, 2), "{line}");
}

/// `brx.idx` through a `.branchtargets` list: the typed form with `.uni`, and
/// `Kernel::switch_`'s jump table with its range check, assembled.
fn jump_tables_through_branch_target_lists() {
    let mut m = Module::new(Target::SM_90);
    m.kernel("jump", |k, (out,): (GlobalPtr<U32>,)| {
        let t = ptx!(k, "mov.u32", sreg::TID_X);
        let r = ptx!(k, "mov.u32", 7u32);
        let sel = ptx!(k, "and.b32", t, 7u32).bitcast::<U32>();
        k.switch_(sel, 5, |k, case| k.assign(r, case as u32 * 3));
        // A warp-uniform index through `.uni`, targets placed after the list.
        let (a, b) = (k.label(), k.label());
        let list = k.branch_targets(&[b, a]);
        let w = ptx!(k, "shr.u32", t, 31u32);
        ptx!(k, "brx.idx.uni", w, list);
        k.place(a);
        ptx!(k, "add.u32" => r, r, 1u32);
        k.place(b);
        ptx!(k, "st.global.u32", out.at(t), r);
    })
    .unwrap();
    let text = assemble("jump tables", &m);
    assert!(text.contains("\n$L__5: .branchtargets $L__0, $L__1, $L__2, $L__3, $L__4;"), "{text}");
    assert!(text.contains("setp.lt.u32 %p1, %r3, 5;\n\t@%p1 brx.idx %r3, $L__5;"), "{text}");
    assert!(text.contains(": .branchtargets $L__8, $L__7;") && text.contains("brx.idx.uni %r"), "{text}");
    // The largest table, each case a store (ptxas 13.0 crashes on this shape from 16,383 cases).
    let mut m = Module::new(Target::SM_90);
    m.kernel("widest", |k, (out,): (GlobalPtr<U32>,)| {
        let t = ptx!(k, "mov.u32", sreg::TID_X);
        k.switch_(t, MAX_BRANCH_TARGETS, |k, case| k.st(out, case as u32));
    })
    .unwrap();
    let text = assemble("the widest jump table", &m);
    assert_eq!(text.matches("st.global.u32").count(), MAX_BRANCH_TARGETS);
}

/// Device functions of both ABIs and every kind of call: `.param` functions with 16-, 32-
/// and 64-bit values, several results or none, direct, `call.uni`, guarded, and through an
/// address with a `.callprototype`; ptxas assembles them all.
fn calls_of_both_abis() {
    let mut m = Module::new(Target::SM_90);
    let split = m
        .func_with("split", Abi::Param, |k, (x, y): (Reg<U64>, Reg<U16>)| {
            let lo = ptx!(k, "cvt.u32.u64", x);
            let y32 = ptx!(k, "cvt.u32.u16", y);
            ptx!(k, "add.u32", lo, y32)
        })
        .unwrap();
    let tick = m.func_with("tick", Abi::Param, |k, (): ()| ptx!(k, "membar.gl")).unwrap();
    let twice = m.func("twice", |k, (x,): (Reg<F32>,)| ptx!(k, "add.f32", x, x)).unwrap();
    m.kernel("caller", |k, (out, n): (GlobalPtr<U32>, Reg<U64>)| {
        let t = ptx!(k, "mov.u32", sreg::TID_X);
        let h = ptx!(k, "cvt.u16.u32", t);
        let lo = k.call(&split, (n, h));
        let lo2 = k.call_uni(&split, (n, h));
        k.call(&tick, ());
        let p = ptx!(k, "setp.lt.u32", t, 16u32);
        let lo3 = k.guarded(p, |k| k.call(&split, (n, h)));
        let f = k.func_addr(&split);
        let lo4 = k.call_indirect(f, (n, h));
        let x = ptx!(k, "cvt.rn.f32.u16", h);
        let y = k.call_uni(&twice, (x,));
        let s = ptx!(k, "add.u32", lo, lo2);
        let s = ptx!(k, "add.u32", s, lo3);
        let s = ptx!(k, "add.u32", s, lo4);
        let z = ptx!(k, "cvt.rzi.u32.f32", y);
        let s = ptx!(k, "add.u32", s, z);
        ptx!(k, "st.global.u32", out.at(t), s);
    })
    .unwrap();
    let text = assemble("calls", &m);
    assert!(text.contains(".func (.param .b32 split_retval_0) split(.param .b64 split_param_0, .param .b16 split_param_1)"), "{text}");
    assert!(text.contains("\tst.param.b32 [split_retval_0], %r"), "{text}");
    assert!(text.contains(".func tick()\n"), "{text}");
    assert!(text.contains("\tcall.uni (__ptxkit_ret0), split, (__ptxkit_arg0, __ptxkit_arg1);"), "{text}");
    assert!(text.contains("\tcall tick, ();"), "{text}");
    assert!(text.contains("\t@%p1 call (__ptxkit_ret0), split, (__ptxkit_arg0, __ptxkit_arg1);"), "{text}");
    assert!(text.contains(".callprototype (.param .b32 _) _ (.param .b64 _, .param .b16 _);"), "{text}");
    assert!(text.contains("\tcall.uni (%r") && text.contains("), twice, (%r"), "{text}");
}

/// `wmma` from memory to memory: A from a shared tile inside a wider matrix (a stride), B
/// through a generic address, C from global memory, D written over C's registers and stored
/// with a stride; an f64 product with a rounding mode and a b1 `.xor.popc` product too.
fn wmma_load_mma_store() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("wmma", |k, (b, c, d, x): (GenericPtr<Bf16>, GlobalPtr<F32>, GlobalPtr<F32>, GlobalPtr<F64>)| {
        // A: 32x16 bf16, row-major, the left part of a 32x24 matrix.
        let a = k.shared_array::<Bf16>("a", 32 * 24, 32);
        let af = ptx!(k, "wmma.load.a.sync.aligned.row.m32n8k16.shared.bf16" as strided, a, 24u32);
        let bf = ptx!(k, "wmma.load.b.sync.aligned.col.m32n8k16.bf16", b);
        let acc = ptx!(k, "wmma.load.c.sync.aligned.col.m32n8k16.global.f32", c);
        ptx!(k, "wmma.mma.sync.aligned.row.col.m32n8k16.f32.bf16.bf16.f32" => acc, af, bf, acc);
        ptx!(k, "wmma.store.d.sync.aligned.col.m32n8k16.global.f32" as strided, d, acc, 40u32);
        let xa = ptx!(k, "wmma.load.a.sync.aligned.col.m8n8k4.global.f64", x);
        let xb = ptx!(k, "wmma.load.b.sync.aligned.row.m8n8k4.global.f64", x.offset(32));
        let xc = ptx!(k, "wmma.load.c.sync.aligned.row.m8n8k4.global.f64", x.offset(64));
        let xd = ptx!(k, "wmma.mma.sync.aligned.col.row.m8n8k4.rn.f64.f64.f64.f64", xa, xb, xc);
        ptx!(k, "wmma.store.d.sync.aligned.row.m8n8k4.global.f64", x.offset(64), xd);
        let w = x.cast::<B32>();
        let ba = ptx!(k, "wmma.load.a.sync.aligned.row.m8n8k128.global.b1", w);
        let bb = ptx!(k, "wmma.load.b.sync.aligned.col.m8n8k128.global.b1", w.offset(32));
        let bc = ptx!(k, "wmma.load.c.sync.aligned.row.m8n8k128.global.s32", w.cast::<S32>().offset(64));
        let bd = ptx!(k, "wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32", ba, bb, bc);
        ptx!(k, "wmma.store.d.sync.aligned.row.m8n8k128.global.s32", w.cast::<S32>().offset(64), bd);
    })
    .unwrap();
    let text = assemble("wmma", &m);
    let line = |op: &str| text.lines().find(|l| l.contains(op)).unwrap_or_else(|| panic!("no {op}:\n{text}")).trim();
    // The stride follows the address; D's eight registers are C's.
    assert!(line("wmma.load.a.sync.aligned.row.m32n8k16.shared.bf16").ends_with("}, [a], 24;"), "{text}");
    let c = line("wmma.load.c.sync.aligned.col.m32n8k16");
    let acc = &c[c.find('{').unwrap()..=c.find('}').unwrap()];
    assert_eq!(acc.matches("%r").count(), 8, "{c}");
    let mma = line("wmma.mma.sync.aligned.row.col.m32n8k16");
    assert!(mma.starts_with(&format!("wmma.mma.sync.aligned.row.col.m32n8k16.f32.bf16.bf16.f32 {acc}, ")), "{mma}");
    assert!(mma.ends_with(&format!(", {acc};")), "{mma}");
    assert!(line("wmma.store.d.sync.aligned.col.m32n8k16").ends_with(&format!(", {acc}, 40;")), "{text}");
    // A m32n8k16 bf16 fragment is eight registers, B's two; f64 fragments are 64-bit.
    let braces: Vec<usize> = mma.split('{').skip(1).map(|v| v.split('}').next().unwrap().matches('%').count()).collect();
    assert_eq!(braces, [8, 8, 2, 8], "{mma}");
    assert!(line("wmma.mma.sync.aligned.col.row.m8n8k4.rn").contains("{%rd"), "{text}");
    assert!(text.contains(".version 7.0") && text.contains("wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {"));
}

/// The video instructions' operands: a part selector on every source position and every
/// merge destination, immediates where a selector is optional, negated vmad operands, lane
/// selectors and masks of the SIMD forms; and the predicate outputs of `lop3` (`d|p`,
/// `_|p`) and `set`'s boolean operation with a negated predicate.
fn video_selectors_negations_masks_and_predicate_pairs() {
    let mut m = Module::new(Target::SM_90);
    m.kernel("video", |k, (a, b, c, out): (Reg<U32>, Reg<S32>, Reg<U32>, GlobalPtr<U32>)| {
        let mut keep = vec![];
        keep.push(ptx!(k, "vadd.u32.u32.s32.sat.add", a.b0(), b.b1(), c));
        keep.push(ptx!(k, "vsub.u32.u32.s32.min", a.b2(), b.b3(), c));
        keep.push(ptx!(k, "vmax.u32.u32.s32", a.h0(), b.h1()));
        // An immediate where a selector is optional.
        keep.push(ptx!(k, "vabsdiff.u32.u32.s32", a.b3(), -300));
        let d = k.reg::<U32>();
        ptx!(k, "vmin.u32.u32.s32.sat" as dsel => d.h1(), a, b.b2(), c);
        keep.push(d);
        let e = k.reg::<U32>();
        ptx!(k, "vset.u32.s32.ge" as dsel => e.b3(), a.h1(), b, c);
        keep.push(e);
        keep.push(ptx!(k, "vshl.u32.u32.u32.sat.clamp.max", a.b1(), c.h0(), c));
        keep.push(ptx!(k, "vmad.u32.u32.s32.sat.shr15" as neg_a, -a.h1(), b.b0(), c));
        keep.push(ptx!(k, "vmad.u32.u32.s32" as neg_b, a, -b, c));
        keep.push(ptx!(k, "vmad.u32.u32.s32.po.sat", a.b3(), b, c));
        keep.push(ptx!(k, "vmad.u32.u32.s32.shr7" as neg_c, a, b.h1(), -c));
        keep.push(ptx!(k, "vadd2.u32.u32.s32.sat", a.halves::<3, 0>(), b.h10(), c));
        let f = k.reg::<U32>();
        ptx!(k, "vavrg2.u32.u32.s32.add" as mask => f.h0(), a, b.halves::<2, 2>(), c);
        keep.push(f);
        keep.push(ptx!(k, "vmax4.u32.u32.s32", a.bytes::<7, 2, 5, 0>(), b.b3210(), c));
        let g = k.reg::<U32>();
        ptx!(k, "vset4.u32.s32.ne.add" as mask => g.b31(), a.bytes::<0, 0, 4, 4>(), b, c);
        keep.push(g);
        let q = ptx!(k, "setp.ne.u32", c, 0u32);
        let (l, p) = ptx!(k, "lop3.or.b32", a, b, c, 0x96, q);
        let p2 = ptx!(k, "lop3.and.b32" as sink, a, b, c, 0x3f, !p);
        keep.push(l.bitcast());
        let s = ptx!(k, "set.lt.xor.u32.s32", b, 7, !p2);
        keep.push(s);
        for (j, r) in keep.iter().enumerate() {
            ptx!(k, "st.global.u32", out.offset(j as i64), *r);
        }
    })
    .unwrap();
    let text = assemble("video", &m);
    for want in [
        "vadd.u32.u32.s32.sat.add %r4, %r1.b0, %r2.b1, %r3;",
        ".h1, %r1, %r2.b2, %r3;",
        ", %r1.b3, -300;",
        ", -%r1.h1, %r2.b0, %r3;",
        ", %r1, -%r2, %r3;",
        ", %r1, %r2.h1, -%r3;",
        ", %r1.h30, %r2.h10, %r3;",
        ".h0, %r1, %r2.h22, %r3;",
        ", %r1.b7250, %r2.b3210, %r3;",
        ".b31, %r1.b0044, %r2, %r3;",
        "|%p2, %r1, %r2, %r3, 150, %p1;",
        "lop3.and.b32 _|%p3, %r1, %r2, %r3, 63, !%p2;",
        ", %r2, 7, !%p3;",
    ] {
        assert!(text.contains(want), "missing `{want}`:\n{text}");
    }
}

/// Each selector set is what ptxas takes there: every member assembles in its position,
/// and the neighbours outside it do not.
fn every_selector_of_every_set_and_no_other() {
    use ptxkit::core::{Sel, SelSet};
    let px = common::ptxas("selectors");
    let module = |lines: &[String]| {
        format!(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n.reg .b32 %r<9>;\n{}\n}}\n", lines.join("\n"))
    };
    let line = |set: SelSet, s: &str| match set {
        SelSet::Scalar => format!("vadd.u32.u32.u32 %r4{s}, %r1{s}, %r2{s}, %r3;"),
        SelSet::Half2 => format!("vadd2.u32.u32.u32 %r4, %r1{s}, %r2{s}, %r3;"),
        SelSet::Byte4 => format!("vadd4.u32.u32.u32 %r4, %r1{s}, %r2{s}, %r3;"),
        SelSet::Mask2 => format!("vadd2.u32.u32.u32 %r4{s}, %r1, %r2, %r3;"),
        SelSet::Mask4 => format!("vadd4.u32.u32.u32 %r4{s}, %r1, %r2, %r3;"),
    };
    let check = |text: &str| ptxkit::ptxas::check(&px, text, Target::SM_90, ptxkit::ptxas::Mode::ParseOnly);
    for set in SelSet::ALL {
        let members = set.members();
        let lines: Vec<String> = members.iter().map(|s| line(set, &s.to_string())).collect();
        check(&module(&lines)).unwrap_or_else(|e| panic!("{set:?}: {e}"));
        // Selectors of the other sets, and none where one is required.
        let mut others: Vec<Sel> = SelSet::ALL.iter().flat_map(|o| o.members().into_iter().take(40)).filter(|s| !set.admits(*s)).collect();
        if set == SelSet::Byte4 {
            others.extend(Sel::bytes(&[1, 0, 2, 4]));
        }
        others.dedup();
        for s in others {
            let l = line(set, &s.to_string());
            assert!(check(&module(&[l.clone()])).is_err(), "{set:?}: ptxas takes `{l}`");
        }
    }
}

fn main() {
    common::harness::main(&[&[
        host!(wgmma_tied_accumulator_and_legal_immediates),
        host!(jump_tables_through_branch_target_lists),
        host!(calls_of_both_abis),
        host!(an_immediate_outside_its_legal_set_is_an_error),
        host!(special_registers_outside_mov_and_cvt_are_read_first),
        host!(mbarrier_sink_and_shared_windows),
        host!(tensor_copies_with_per_operand_spaces),
        host!(bulk_copies_reductions_prefetches_and_tensor_map_instructions),
        host!(tensor_map_parameters_of_every_rank_assemble),
        host!(tensor_memory_and_several_destinations),
        host!(tcgen05_mma_commit_load_store_through_tensor_memory),
        host!(a_wgmma_pipeline_advisory_is_returned),
        host!(e2m1x2_values_live_in_8_bit_registers),
        host!(mma_sync_kinds_for_sm_120a),
        host!(wmma_load_mma_store),
        host!(video_selectors_negations_masks_and_predicate_pairs),
        host!(every_selector_of_every_set_and_no_other),
    ]]);
}
